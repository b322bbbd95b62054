"""Leave one group out for lexicographic precision (analyses/reusability/preference_agreement.py):
against a hand-written loop over (left-out run, other run, topic) on the small track of
test_reusability.py, and against lexiprecision's own compare_pairs on a group's reduced qrels."""

import numpy as np
import pandas as pd
import pytest

from reeval.analyses.lexiprecision.core import compare_pairs, position_vectors
from reeval.analyses.reusability.core import pool_contributions
from reeval.analyses.reusability.preference_agreement import at_risk_pairs, preference_agreement
from reeval.api.inputs import load_track
from reeval.measures import grid_from_track
from test_reusability import GROUPS, QRELS, RUNS, read_run, reduced_qrels


def vector(ranking, relevant):
    """Positions (1-based) of the relevant documents of a ranking, ascending."""
    return [i + 1 for i, d in enumerate(ranking) if d in relevant]


def sign(x, y, m):
    """sgnLP of two position lists padded to m with None (not retrieved, worst), by hand."""
    x, y = x + [None] * (m - len(x)), y + [None] * (m - len(y))
    for a, b in zip(x, y):
        if a != b:
            return 1 if b is None or (a is not None and a < b) else -1
    return 0


def relevant_of(lines, level=1):
    out = {}
    for ln in lines:
        qid, _, doc, rel = ln.split()
        out.setdefault(qid, set())
        if int(rel) >= level:
            out[qid].add(doc)
    return out


def hand_agreement(qrels_path, run_paths, groups, depth):
    """{group: (pair-topics, disagreeing ones)} by a loop over (s in g, o not in g, topic)."""
    lines = [ln for ln in open(qrels_path).read().splitlines() if ln.strip()]
    full = relevant_of(lines)
    reduced = {g: relevant_of(ls) for g, ls in reduced_qrels(lines, run_paths, groups, depth).items()}
    rankings = {name: read_run(path) for name, path in run_paths.items()}
    out = {}
    for s in run_paths:
        g = groups.get(s, s)
        n, bad = out.get(g, (0, 0))
        for o in run_paths:
            if groups.get(o, o) == g:
                continue
            for qid, rel in full.items():
                if not rel:
                    continue
                red = reduced[g].get(qid, set())
                before = sign(vector(rankings[s].get(qid, []), rel), vector(rankings[o].get(qid, []), rel), len(rel))
                after = sign(vector(rankings[s].get(qid, []), red), vector(rankings[o].get(qid, []), red), len(rel))
                n, bad = n + 1, bad + (before != after)
        out[g] = (n, bad)
    return out


def track(qrels, runs):
    tables, names, _ = load_track(str(qrels), [str(p) for p in runs.values()], "float64")
    return grid_from_track(tables, runs=names, keep_docno=True), tables


@pytest.fixture
def small(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    runs = {}
    for name, text in RUNS.items():
        runs[name] = tmp_path / name
        runs[name].write_text(text)
    return tmp_path / "qrels.txt", runs


@pytest.mark.parametrize("depth", [1, 2, 3, 100])
@pytest.mark.parametrize("groups", [GROUPS, {}])
def test_agreement_equals_a_hand_written_loop_over_pairs_and_topics(small, depth, groups):
    qrels, runs = small
    grid, _ = track(qrels, runs)
    table = preference_agreement(grid, pool_contributions(grid, groups, depth)).set_index("group")
    expected = hand_agreement(qrels, runs, groups, depth)
    assert set(table.index) == set(expected)
    for g, (n, bad) in expected.items():
        row = table.loc[g]
        assert row["pair_topics"] == n and row["disagree_sampled"] == bad, g
        assert row["sampled"] == row["at_risk"]  # small: every pair-topic at risk compared
        assert row["agreement"] == pytest.approx(100.0 * (n - bad) / n) if n else np.isnan(row["agreement"])
    assert table.attrs["pair_topics"] == sum(n for n, _ in expected.values())


def test_small_track_at_depth_two_loses_preferences(small):
    """At depth 2, group A's removal flips some of its runs' preferences (not a vacuous check)."""
    qrels, runs = small
    grid, _ = track(qrels, runs)
    table = preference_agreement(grid, pool_contributions(grid, GROUPS, 2)).set_index("group")
    assert table.loc["A", "disagree_sampled"] > 0 and table.loc["A", "agreement"] < 100
    assert table.loc["C1", "at_risk"] == 0 and table.loc["C1", "agreement"] == 100


def changes_by_compare_pairs(grid, tables, groups, depth, group, pooled=None):
    """(pair-topics, sign changes) of group ``group`` counted with lexiprecision's compare_pairs
    on the full tables and on the tables less the group's pool contribution (judged rows and
    qrels), pairs (a run of the group, another run); a topic the reduced qrels no longer
    have is a tie. Also checks sign(rrLP) = sgnLP on both."""
    pool = pool_contributions(grid, groups, depth, pooled)
    gone = pool.owner == pool.groups.index(group)
    qr, judged, depth_table = (getattr(tables, name).to_pandas() for name in ("qrels", "judged", "depth"))
    qrows = pd.DataFrame({"qid": np.array(grid.topics, dtype=object)[grid.qrels_topic],
                          "docno": np.asarray(grid.qrels_docno, dtype=object)})[gone]
    drop = set(zip(qrows.qid.astype(str), qrows.docno.astype(str)))
    keep_q = [(q, d) not in drop for q, d in zip(qr.qid.astype(str), qr.docno.astype(str))]
    keep_j = [(q, d) not in drop for q, d in zip(judged.qid.astype(str), judged.docno.astype(str))]
    names = list(grid.runs)
    full = compare_pairs(position_vectors(judged, qr, depth_table, runs=names), levels=1).to_frame()
    left = qr[keep_q]
    depth_left = depth_table[depth_table.qid.astype(str).isin(set(left.qid.astype(str)))]  # as ingest: judged topics
    red = compare_pairs(position_vectors(judged[keep_j], left, depth_left, runs=names), levels=1).to_frame()
    assert (np.sign(full.rrLP) == full.sgnLP).all() and (np.sign(red.rrLP) == red.sgnLP).all()
    members = {r for r, code in zip(grid.runs, pool.run_group) if pool.groups[code] == group}
    cross = full[full.run_i.isin(members) != full.run_j.isin(members)]
    merged = cross.merge(red, on=["run_i", "run_j", "qid"], how="left", suffixes=("", "_red"))
    return pool, len(cross), int((merged.sgnLP != merged.sgnLP_red.fillna(0)).sum())


def test_one_group_equals_compare_pairs_on_its_reduced_qrels(small):
    qrels, runs = small
    grid, tables = track(qrels, runs)
    pool, n, changed = changes_by_compare_pairs(grid, tables, GROUPS, 2, "A")
    row = preference_agreement(grid, pool).set_index("group").loc["A"]
    assert changed > 0 and row["pair_topics"] == n and row["disagree_sampled"] == changed


def test_trec_covid_round1_one_team_equals_compare_pairs_on_its_reduced_qrels():
    """TREC-COVID round 1 by team at depth 7, pooled runs as its leaderboard says, the team
    whose runs lose the most preferences."""
    from conftest import SHARED_DATA

    data = SHARED_DATA / "trec-covid-round1"
    if not data.is_dir():
        pytest.skip(f"{data} not found")
    board = pd.read_csv(data / "meta" / "leaderboard.csv")
    teams = dict(zip(board["run"], board["team"]))
    pooled = list(board.loc[board["contributed judgments"] == "yes", "run"])
    runs = {p.name[:-3]: p for p in sorted((data / "runs").glob("*.gz"))}
    grid, tables = track(next((data / "qrels").glob("*")), runs)
    table = preference_agreement(grid, pool_contributions(grid, teams, 7, pooled), max_pair_topics=10 ** 7)
    worst = table.sort_values("agreement").iloc[0]
    pool, n, changed = changes_by_compare_pairs(grid, tables, teams, 7, worst["group"], pooled)
    assert worst["sampled"] == worst["at_risk"] > 0
    assert changed > 0 and worst["pair_topics"] == n and worst["disagree_sampled"] == changed


def test_at_risk_numbering_visits_each_pair_topic_once():
    run_group = np.array([1, 0, 1, 2, 0, 1])
    risky = np.array([[True, False], [True, True], [False, True]])
    N = sum(int((run_group == g).sum() * (run_group != g).sum() * risky[g].sum()) for g in range(3))
    g, s, o, t = at_risk_pairs(run_group, risky, np.arange(N))
    seen = set(zip(g.tolist(), s.tolist(), o.tolist(), t.tolist()))
    assert len(seen) == N
    assert all(run_group[a] == x != run_group[b] and risky[x, y] for x, a, b, y in seen)


def test_above_the_bound_a_seeded_sample_stands_for_the_pairs_at_risk(small):
    qrels, runs = small
    grid, _ = track(qrels, runs)
    pool = pool_contributions(grid, {}, 100)
    exact = preference_agreement(grid, pool)
    a = preference_agreement(grid, pool, seed=3, max_pair_topics=5)
    b = preference_agreement(grid, pool, seed=3, max_pair_topics=5)
    assert 5 <= a.attrs["sampled"] == a["sampled"].sum() < a.attrs["at_risk"] == exact.attrs["at_risk"]
    assert a.equals(b) and a.attrs == b.attrs
    assert ((a["sampled"] >= 1) == (a["at_risk"] >= 1)).all() and (a["sampled"] <= a["at_risk"]).all()
    assert 0 <= a.attrs["overall"] <= 100


def test_a_stratified_sample_takes_its_quota_from_each_group_without_repeats():
    from reeval.analyses.reusability.preference_agreement import sample_at_risk

    at_risk = np.array([0, 10, 1000, 3, 0, 500])
    index = sample_at_risk(at_risk, 100, seed=0)
    first = np.cumsum(at_risk) - at_risk
    per_group = np.bincount(np.searchsorted(first, index, side="right") - 1, minlength=len(at_risk))
    assert per_group.tolist() == [0, 1, 67, 1, 0, 34]  # ceil(100 a_g / 1513) and len(np.unique(index)) == len(index)
    assert (np.diff(index) > 0).all() and sample_at_risk(at_risk, 2000, 0).tolist() == list(range(1513))
    assert np.array_equal(index, sample_at_risk(at_risk, 100, seed=0))


def test_a_track_of_one_group_has_no_pairs_and_no_agreement(small):
    qrels, runs = small
    grid, _ = track(qrels, runs)
    table = preference_agreement(grid, pool_contributions(grid, dict.fromkeys(RUNS, "all"), 100))
    assert table["pair_topics"].tolist() == [0] and np.isnan(table["agreement"]).all()
    assert np.isnan(table.attrs["overall"]) and table.attrs["sampled"] == 0


def test_the_api_and_the_step_carry_the_agreement(small, tmp_path):
    from reeval.analyses.reusability.table import verdicts
    from reeval.api.reusability import leave_one_group_out

    qrels, runs = small
    table = leave_one_group_out(str(qrels), [str(p) for p in runs.values()], GROUPS, depth=2, measures="AP",
                                preferences=True)
    grid, _ = track(qrels, runs)
    want = preference_agreement(grid, pool_contributions(grid, GROUPS, 2))
    got = table.attrs["preferences"]
    assert got["overall"] == want.attrs["overall"] and got["by_group"] == want.to_dict("list")
    v = verdicts(table)
    assert v.loc[0, "lp_agreement"] == got["overall"] and v.loc[0, "lp_sampled"] == got["sampled"]
    plain = leave_one_group_out(str(qrels), [str(p) for p in runs.values()], GROUPS, depth=2, measures="AP")
    assert "preferences" not in plain.attrs and np.isnan(verdicts(plain).loc[0, "lp_agreement"])


def test_the_workflow_step_writes_the_agreement_per_group_and_per_track(small, tmp_path):
    from reeval.analyses.reusability.report import summarize_reusability, track_reusability
    from reeval.io.ingest import ingest_track, write_track

    qrels, runs = small
    track_dir, out, summary = tmp_path / "track", tmp_path / "reusability", tmp_path / "summary"
    write_track(ingest_track("small", str(qrels), [str(p) for p in runs.values()]), track_dir)
    out.mkdir()
    summary.mkdir()
    track_reusability("small", track_dir, out, ["AP", "P@2"], groups=GROUPS, groups_from="config", depth=2,
                      figures=False)
    per_group = pd.read_csv(out / "preferences.csv").set_index("group")
    expected = hand_agreement(qrels, runs, GROUPS, 2)
    assert {g: (int(r.pair_topics), int(r.disagree_sampled)) for g, r in per_group.iterrows()} == expected
    n = sum(k for k, _ in expected.values())
    overall = 100.0 * (n - sum(b for _, b in expected.values())) / n
    stacked = summarize_reusability({"small": out}, summary)
    assert stacked["lp_agreement"].to_numpy() == pytest.approx([overall, overall])


def test_the_command_prints_the_agreement_last(small, capsys):
    from reeval.cli import main

    qrels, runs = small
    (qrels.parent / "groups.txt").write_text("A1 A\nA2 A\nB1 B\n")
    args = ["reusability", "--quiet", str(qrels), *map(str, runs.values()),
            "--groups", str(qrels.parent / "groups.txt"), "--depth", "2", "-m", "AP"]
    assert main(args + ["--preferences"]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    expected = hand_agreement(qrels, runs, GROUPS, 2)
    n, bad = sum(k for k, _ in expected.values()), sum(b for _, b in expected.values())
    grid, _ = track(qrels, runs)
    at_risk = preference_agreement(grid, pool_contributions(grid, GROUPS, 2)).attrs["at_risk"]
    assert 0 < at_risk < n
    assert last == (f"verdict sgnLP/rrLP: agreement {100 * (n - bad) / n:.4f} % of {n} (left-out run, other run, "
                    f"topic), {at_risk} at risk, all compared")
    assert main(args) == 0 and "sgnLP" not in capsys.readouterr().out


def test_the_agreement_per_group_is_shared_not_deep_copied_by_pandas_operations(small):
    """Issue 41 item 1: pandas deep-copies ``attrs`` into every result, and ``by_group``
    holds lists as long as the groups (24 of 33 s of a reusability job at 3,000 runs)."""
    from reeval.api.reusability import leave_one_group_out

    qrels, runs = small
    table = leave_one_group_out(str(qrels), [str(p) for p in runs.values()], GROUPS, depth=2, measures="AP",
                                preferences=True)
    derived = table[table["measure"] == table["measure"].iloc[0]].copy()
    assert derived.attrs["preferences"] is table.attrs["preferences"]
    assert derived.attrs["preferences"]["by_group"] == table.attrs["preferences"]["by_group"]
