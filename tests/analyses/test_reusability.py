"""Leave one group out (reeval.leave_one_group_out) against trec_eval 10.0 run on reduced qrels
written by the simple code below, on a small hand-made track and on TREC-COVID round 1; the
rareness measures against the rareness code run on the track without the group."""

import csv
import math
import subprocess
from collections import defaultdict

import numpy as np
import pandas as pd
import pytest

from conftest import SHARED_DATA
from reeval import InputError
from reeval.api.reusability import leave_one_group_out

QRELS = """\
q1 0 a 1
q1 0 b 0
q1 0 c 2
q1 0 d 1
q1 0 e -1
q1 0 f 1
q2 0 x 1
q2 0 y 1
q2 0 z 0
q3 0 m 1
q3 0 n 0
q4 0 u 0
q4 0 v 1
"""
#: ties (q1 of A1), graded and negative judgments, a shallow run (C1), a run missing topics
#: (A2, C1), a topic only group A judged (q3), a topic with no run at all in the pool (q4)
RUNS = {
    "A1": "q1 Q0 a 1 2.0 A1\nq1 Q0 b 2 2.0 A1\nq1 Q0 c 3 1.0 A1\nq1 Q0 f 4 0.5 A1\n"
          "q2 Q0 x 1 2 A1\nq2 Q0 z 2 1 A1\nq3 Q0 m 1 3 A1\nq3 Q0 n 2 2 A1\n",
    "A2": "q1 Q0 a 1 3 A2\nq1 Q0 d 2 2 A2\nq1 Q0 e 3 1 A2\nq2 Q0 y 1 1 A2\nq3 Q0 n 1 1 A2\n",
    "B1": "q1 Q0 c 1 3 B1\nq1 Q0 e 2 2 B1\nq1 Q0 a 3 1 B1\nq2 Q0 z 1 5 B1\nq2 Q0 x 2 1 B1\n"
          "q2 Q0 w 3 0.5 B1\nq4 Q0 v 1 9 B1\nq4 Q0 u 2 8 B1\n",
    "C1": "q1 Q0 b 1 3 C1\n",
}
GROUPS = {"A1": "A", "A2": "A", "B1": "B"}


def read_run(path):
    """{qid: [docno, ...]} in trec_eval order (score descending, docno descending), each
    document once (its first place)."""
    lines = defaultdict(list)
    with open(path) as f:
        for line in f:
            qid, _, docno, _, score, *_ = line.split()
            lines[qid].append((float(score), docno.encode()))
    out = {}
    for qid, docs in lines.items():
        ordered = [d.decode() for _, d in sorted(docs, reverse=True)]
        out[qid] = list(dict.fromkeys(ordered))
    return out


def reduced_qrels(qrels_lines, run_paths, groups, depth):
    """{group: the qrels lines left once the pairs only its runs pool at ``depth`` are gone}."""
    judged = {(ln.split()[0], ln.split()[2]) for ln in qrels_lines}
    pooled = defaultdict(set)
    for name, path in run_paths.items():
        for qid, docs in read_run(path).items():
            pooled[groups.get(name, name)] |= {(qid, d) for d in docs[:depth]} & judged
    how_many = defaultdict(int)
    for pairs in pooled.values():
        for pair in pairs:
            how_many[pair] += 1
    out = {}
    for group in {groups.get(n, n) for n in run_paths}:
        gone = {p for p in pooled[group] if how_many[p] == 1}
        out[group] = [ln for ln in qrels_lines if (ln.split()[0], ln.split()[2]) not in gone]
    return out


def trec_eval_means(binary, qrels, run, level):
    out = subprocess.run([str(binary), "-c", "-l", str(level), "-m", "map", "-m", "P.2,5,10", str(qrels), str(run)],
                         capture_output=True, text=True, check=True).stdout
    return {m.strip(): float(v) for m, q, v in (line.split("\t") for line in out.splitlines()) if q == "all"}


def check_against_trec_eval(binary, tmp_path, qrels_path, run_paths, groups, depth, level):
    """Every run's leave-one-group-out AP and P@k equal trec_eval's on the hand-reduced qrels."""
    qrels_lines = [ln for ln in open(qrels_path).read().splitlines() if ln.strip()]
    reduced = reduced_qrels(qrels_lines, run_paths, groups, depth)
    table = leave_one_group_out(str(qrels_path), [str(p) for p in run_paths.values()], groups, depth=depth,
                                measures=["AP", "P@2", "P@5", "P@10"], relevance_level=level)
    got = table.set_index(["run", "measure"])
    names = {"map": "AP", "P_2": "P@2", "P_5": "P@5", "P_10": "P@10"}
    checked = 0
    for name, path in run_paths.items():
        group = groups.get(name, name)
        qrels_g = tmp_path / f"qrels.{abs(hash(group))}"
        qrels_g.write_text("\n".join(reduced[group]) + "\n")
        logo, full = trec_eval_means(binary, qrels_g, path, level), trec_eval_means(binary, qrels_path, path, level)
        for te, ours in names.items():
            assert got.loc[(name, ours), "score_logo"] == logo[te], (name, ours)
            assert got.loc[(name, ours), "score"] == full[te], (name, ours)
            checked += 1
        removed = len(qrels_lines) - len(reduced[group])
        assert (got.loc[name, "removed"] == removed).all(), name
    return checked


@pytest.fixture
def small_track(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    runs = {}
    for name, text in RUNS.items():
        runs[name] = tmp_path / name
        runs[name].write_text(text)
    return tmp_path / "qrels.txt", runs


@pytest.mark.parametrize("depth", [1, 2, 3, 100])
def test_small_track_equals_trec_eval_on_reduced_qrels(trec_eval10, tmp_path, small_track, depth):
    qrels, runs = small_track
    assert check_against_trec_eval(trec_eval10.full, tmp_path, qrels, runs, GROUPS, depth, 1) == 16


def test_small_track_at_level_two_and_each_run_alone(trec_eval10, tmp_path, small_track):
    qrels, runs = small_track
    check_against_trec_eval(trec_eval10.full, tmp_path, qrels, runs, {}, 2, 2)


def test_a_topic_only_one_group_judged_leaves_its_average(small_track):
    """q3 is judged only through group A's runs: without A it is no qrels topic (trec_eval -c
    averages A's runs over 3 topics), and its removed pairs are counted."""
    qrels, runs = small_track
    table = leave_one_group_out(str(qrels), [str(p) for p in runs.values()], GROUPS, depth=2, measures="P@2")
    a2 = table.set_index("run").loc["A2"]
    assert a2["score_logo"] == 0.0 and a2["removed"] == 5 and a2["removed_relevant"] == 4
    assert table.set_index("run").loc["C1", "delta"] == 0.0


def covid_round1_teams():
    path = SHARED_DATA / "trec-covid-round1" / "meta" / "leaderboard.csv"
    if not path.is_file():
        pytest.skip(f"{path} not found (../shared/data)")
    with open(path, newline="") as f:
        return {row["run"]: row["team"] for row in csv.DictReader(f)}


def test_trec_covid_round1_by_team_equals_trec_eval(trec_eval10, tmp_path, plain_tracks):
    """Every run of TREC-COVID round 1, its team left out at depth 7 (the round's pool
    depth), equals trec_eval 10.0 on the hand-reduced qrels (AP, P@2, P@5, P@10)."""
    teams = covid_round1_teams()
    qrels, runs = plain_tracks("trec-covid-round1")
    assert check_against_trec_eval(trec_eval10.full, tmp_path, qrels, dict(runs), teams, 7, 1) == 4 * len(runs)


def test_rareness_left_out_equals_rareness_of_the_track_without_the_group(small_track):
    """A run's leave-one-group-out rareness equals the rareness code run on the other groups'
    runs and that run, on the qrels less its group's contribution."""
    qrels, runs = small_track
    measures = ["P_rareness@2", "AP_rareness@3", "P_rareness_norm@3", "AP_rareness_norm@2"]
    lines = [ln for ln in QRELS.splitlines() if ln.strip()]
    reduced = reduced_qrels(lines, runs, GROUPS, 2)
    for alpha, systems in [(1.0, "all"), ("1/R", "answered"), (0.5, "all")]:
        table = leave_one_group_out(str(qrels), [str(p) for p in runs.values()], GROUPS, depth=2,
                                    measures=measures, alpha=alpha, systems=systems).set_index(["run", "measure"])
        from reeval import evaluate

        for name in runs:
            group = GROUPS.get(name, name)
            others = [n for n in runs if GROUPS.get(n, n) != group] + [name]
            q = pd.DataFrame([ln.split() for ln in reduced[group]], columns=["qid", "it", "docno", "rel"])
            q["rel"] = q["rel"].astype(int)
            alone = evaluate(q[["qid", "docno", "rel"]], [str(runs[n]) for n in others], measures,
                             alpha=alpha, systems=systems)
            for m in measures:
                assert math.isclose(table.loc[(name, m), "score_logo"], alone.loc[name, m], abs_tol=1e-15), \
                    (name, m, alpha, systems)


def test_ranks_count_the_other_runs_on_their_full_scores():
    from reeval.analyses.reusability.core import logo_ranks, ranks

    full = np.array([0.5, 0.4, 0.3, np.nan])
    assert ranks(full).tolist() == [1, 2, 3, 4]
    assert logo_ranks(full, np.array([0.35, 0.4, 0.6, 0.1])).tolist() == [2, 2, 1, 4]
    assert logo_ranks(full, np.array([2.0, 2.0, 2.0, 2.0]), higher_is_better=False).tolist() == [3, 3, 3, 4]


def test_groups_as_a_pattern_and_bad_groups_are_input_errors(small_track):
    qrels, runs = small_track
    paths = [str(p) for p in runs.values()]
    by_pattern = leave_one_group_out(str(qrels), paths, r"re:^([A-Z])", depth=2, measures="AP")
    assert by_pattern["group"].tolist() == ["A", "A", "B", "C"]
    with pytest.raises(InputError, match="groups"):
        leave_one_group_out(str(qrels), paths, "A", depth=2)
    with pytest.raises(InputError, match="not a regular expression"):
        leave_one_group_out(str(qrels), paths, "re:(", depth=2)
    with pytest.raises(InputError, match="depth must be at least 1"):
        leave_one_group_out(str(qrels), paths, None, depth=0)
    with pytest.raises(InputError, match="mean over topics"):
        leave_one_group_out(str(qrels), paths, None, measures="num_rel")


@pytest.mark.parametrize("depth", [1, 2, 100])
def test_every_measure_equals_evaluate_on_the_reduced_qrels(small_track, depth):
    """ASL (the track depth of an unanswered topic unchanged), graded and set measures: a
    group's leave-one-group-out values are reeval.evaluate's on the hand-reduced qrels."""
    from reeval import evaluate

    qrels, runs = small_track
    measures = ["ASL", "ASL@g1-2", "nDCG@3", "bpref", "Rprec", "RR", "AP(rel=2)", "Judged@2", "infAP"]
    table = leave_one_group_out(str(qrels), [str(p) for p in runs.values()], GROUPS, depth=depth,
                                measures=measures).set_index(["run", "measure"])
    lines = [ln for ln in QRELS.splitlines() if ln.strip()]
    for group, kept in reduced_qrels(lines, runs, GROUPS, depth).items():
        q = pd.DataFrame([ln.split() for ln in kept], columns=["qid", "it", "docno", "rel"]).astype({"rel": int})
        alone = evaluate(q[["qid", "docno", "rel"]], [str(p) for p in runs.values()], measures)
        for name in (n for n in runs if GROUPS.get(n, n) == group):
            for m in measures:
                got, want = table.loc[(name, m), "score_logo"], alone.loc[name, m]
                assert got == want or (math.isnan(got) and math.isnan(want)), (group, name, m, got, want)


def issue_38_track():
    """Issue 38's three runs: A and B rank a (relevant), c; C ranks b (relevant), c."""
    qrels = pd.DataFrame({"qid": ["1"] * 3, "docno": ["a", "b", "c"], "rel": [1, 1, 0]})
    first_a = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "c"], "score": [2.0, 1.0]})
    first_b = pd.DataFrame({"qid": ["1", "1"], "docno": ["b", "c"], "score": [2.0, 1.0]})
    return qrels, {"A": first_a, "B": first_a.copy(), "C": first_b}


@pytest.mark.parametrize("missing", [np.nan, None, "", pd.NA])
def test_runs_without_a_group_are_each_their_own_group_not_one_group_named_nan(missing):
    """A leaderboard's empty team cell (NaN) is no group: A and B each keep the document
    only they pooled at depth 1 in the other's ranking, so each keeps AP 0.5 (a group
    "nan" holding both would remove a and drop both to 0), as when left out of the mapping;
    one note names them."""
    qrels, runs = issue_38_track()
    with pytest.warns(Warning):
        table = leave_one_group_out(qrels, runs, {"A": missing, "B": missing, "C": "t"}, depth=1, measures="AP")
    omitted = leave_one_group_out(qrels, runs, {"C": "t"}, depth=1, measures="AP")
    assert table["score_logo"].tolist() == omitted["score_logo"].tolist() == [0.5, 0.5, 0.0]
    assert table["group"].tolist() == ["A", "B", "t"]
    assert [n for n in table.attrs["notes"] if n.startswith("groups:")] == [
        "groups: 2 runs without a group (None, NaN or blank), each its own group: 'A', 'B'"]


def test_a_misspelt_run_in_a_groups_mapping_is_an_input_error():
    """A misspelt run name (A_ for A, so that A would be alone) is refused, naming it, as
    ``pooled`` refuses a name that is no run; so is a run name that is missing. A mapping
    naming every run and more (a whole campaign's leaderboard) is fine."""
    qrels, runs = issue_38_track()
    with pytest.raises(InputError, match=r"^groups: 1 name that is no run given: 'A_'; 1 run given is not named "
                                         r"there: 'A'$"):
        leave_one_group_out(qrels, runs, {"A_": "t", "B": "t", "C": "u"}, depth=1, measures="AP")
    with pytest.raises(InputError, match=r"^pooled: 2 names that are no run given: 'x', 'y'; 2 runs given"):
        leave_one_group_out(qrels, runs, None, depth=1, measures="AP", pooled=["A", "x", "y"])
    with pytest.raises(InputError, match="run name in the mapping is missing"):
        leave_one_group_out(qrels, runs, pd.Series({"A": "t", np.nan: "u"}), depth=1, measures="AP")
    board = {"A": "t", "B": "u", "C": "v", "D": "w"}
    assert leave_one_group_out(qrels, runs, board, depth=1, measures="AP")["group"].tolist() == ["t", "u", "v"]


def test_a_run_alone_named_as_another_run_s_group_is_refused_not_merged():
    """A run without a group is its own group, named as the run: when that name is
    another run's group (B in group "A", run A not in the mapping), the two would be one
    group and lose their pooled documents together; refused, naming the run."""
    qrels, runs = issue_38_track()
    with pytest.raises(InputError, match=r"run 'A' has no group, but 'A' is the group of other runs"):
        leave_one_group_out(qrels, runs, {"B": "A", "C": "t"}, depth=1, measures="AP")
    with pytest.raises(InputError, match=r"run 'A' has no group"):
        leave_one_group_out(qrels, runs, {"A": np.nan, "B": "A", "C": "t"}, depth=1, measures="AP")
    kept = leave_one_group_out(qrels, runs, {"A": "A", "B": "A", "C": "t"}, depth=1, measures="AP")
    assert kept["group"].tolist() == ["A", "A", "t"]


def small_tables(qrels_docnos=("a", "b", "c", "a")):
    """Arrow tables of a two-topic track: qrels t1 a b c, t2 a (docno a judged for both
    topics, as real qrels judge one document for several), one run retrieving c, a at t1, a at t2."""
    import pyarrow as pa

    qrels = pa.table({"qid": ["t1", "t1", "t1", "t2"], "docno": list(qrels_docnos), "rel": [1, 0, 2, 1]})
    judged = pa.table({"run": ["r"] * 3, "qid": ["t1", "t1", "t2"], "docno": ["c", "a", "a"],
                       "pos": pa.array([1, 2, 1], pa.int32()), "rel": [2, 1, 1]})
    depth = pa.table({"run": ["r", "r"], "qid": ["t1", "t2"], "n_ret": [2, 1]})
    return judged, depth, qrels


def test_judged_rows_find_their_qrels_row_by_coded_docnos_as_by_strings():
    from reeval.analyses.reusability.core import coded_docnos, judged_qrels_rows
    from reeval.measures import build_grid

    judged, depth, qrels = small_tables()
    by_strings = judged_qrels_rows(build_grid(judged, depth, qrels, keep_docno=True))
    coded_judged, coded_qrels = coded_docnos(judged, qrels)
    assert coded_judged.column("docno").to_pylist() == [2, 0, 0]
    by_codes = judged_qrels_rows(build_grid(coded_judged, depth, coded_qrels, keep_docno=True))
    assert by_strings.tolist() == by_codes.tolist() == [2, 0, 3]


def test_a_judged_docno_missing_from_the_qrels_is_an_error_with_strings_and_with_codes():
    from reeval.analyses.reusability.core import coded_docnos, judged_qrels_rows
    from reeval.measures import build_grid

    judged, depth, qrels = small_tables(qrels_docnos=("z", "b", "c", "a"))  # t1's a is not judged
    with pytest.raises(ValueError, match="missing from the qrels"):
        judged_qrels_rows(build_grid(judged, depth, qrels, keep_docno=True))
    coded_judged, coded_qrels = coded_docnos(judged, qrels)
    with pytest.raises(ValueError, match="missing from the qrels"):
        judged_qrels_rows(build_grid(coded_judged, depth, coded_qrels, keep_docno=True))


def test_a_qrels_judging_a_document_twice_for_a_topic_matches_its_first_row():
    from reeval.analyses.reusability.core import coded_docnos, judged_qrels_rows
    from reeval.measures import build_grid

    judged, depth, qrels = small_tables(qrels_docnos=("a", "a", "c", "a"))
    coded_judged, coded_qrels = coded_docnos(judged, qrels)
    assert judged_qrels_rows(build_grid(coded_judged, depth, coded_qrels, keep_docno=True)).tolist() == [2, 0, 3]


@pytest.mark.parametrize("marks", [1 << 26, 8])
def test_distinct_keys_are_numpys_unique_whether_marked_or_sorted(monkeypatch, marks):
    from reeval.analyses.reusability import core

    monkeypatch.setattr(core, "DISTINCT_MARKS", marks)
    rng = np.random.default_rng(7)
    for size in (1, 5, 1000):
        for n in (0, 1, 50, 5000):
            keys = rng.integers(0, size, n, dtype=np.int64)
            got = core.distinct(keys, size)
            assert np.array_equal(got, np.unique(keys)) and got.dtype == np.int64
