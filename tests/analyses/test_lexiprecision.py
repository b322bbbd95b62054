"""Lexicographic precision: the reference golden output, hand-checked edge cases, the
per-pair loop as a cross-check, the analyses of the paper, `reeval prefer`."""

import glob
import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st
from scipy.special import comb

from conftest import REFERENCE, ingested, write_lines
from reeval.analyses import lexiprecision as lx
from reeval.analyses import lexiprecision_ties as lt
from reeval.cli import main
from reeval.io.ingest import ingest_track
from reeval.stats.paired import sign_test_counts, ttest_rows
from reeval.stats.allpairs import tukey_hsd

TINY = REFERENCE / "tiny"


def tiny_tables():
    if not (TINY / "qrels.txt").is_file():
        pytest.skip(f"reference track not found at {TINY}")
    return ingest_track("tiny", TINY / "qrels.txt", sorted(glob.glob(str(TINY / "runs" / "*"))))


def compare(tables, rel_level=1, runs=None, **kw):
    pv = lx.position_vectors(tables.judged, tables.qrels, tables.depth, runs=runs, rel_level=rel_level)
    return pv, lx.compare_pairs(pv, **kw)


def test_reproduces_pref_eval_golden_output_value_for_value():
    pv, pc = compare(tiny_tables(), rel_level=1)
    df = pc.to_frame().set_index(["run_i", "run_j", "qid"])
    means = df.groupby(level=[0, 1])[["sgnLP", "rrLP", "dRR_1"]].mean()
    gold = [json.loads(line) for line in (REFERENCE / "pref_eval_tiny.jsonl").read_text().splitlines()]
    prefs = [g for g in gold if g.get("type") == "preference"]
    alls = [g for g in gold if g["qid"] == "all"]
    # every topic with a relevant document, every pair: nothing missing, nothing extra
    assert sorted((g["runi"], g["runj"], g["qid"]) for g in prefs) == sorted(df.index)
    for g in prefs:
        row = df.loc[(g["runi"], g["runj"], g["qid"])]
        assert row.sgnLP == g["lexiprecision"]
        assert row.rrLP == g["rrlexiprecision"]
        assert row.dRR_1 == g["rr"]
    assert len(alls) == len(means)
    for g in alls:
        row = means.loc[(g["runi"], g["runj"])]
        assert row.sgnLP == pytest.approx(g["lexiprecision"], abs=1e-15)
        assert row.rrLP == pytest.approx(g["rrlexiprecision"], abs=1e-15)
        assert row.dRR_1 == pytest.approx(g["rr"], abs=1e-15)
    # q3 (no relevant document) dropped; q9 (unjudged) never seen
    assert pv.topics == ["q1", "q2", "q4"]


def test_position_vectors_of_the_tiny_track_by_hand():
    pv, _ = compare(tiny_tables())
    frame = pv.to_frame().set_index(["run", "qid"])
    # S1 q1: d and b tie at score 5, docno descending puts d first: b at 2, a at 3
    assert frame.loc[("S1", "q1"), "positions"] == [2, 3]
    assert frame.loc[("S0", "q4"), "positions"] == []      # S0 misses q4
    assert frame.loc[("S0", "q1"), "positions"] == [1, 3, 5]
    assert list(pv.m) == [3, 1, 2]
    # relevance level 2: only b of q1 is relevant; q2 and q4 drop
    pv2, pc2 = compare(tiny_tables(), rel_level=2)
    assert pv2.topics == ["q1"] and list(pv2.m) == [1]
    assert pv2.to_frame().set_index("run").positions.to_dict() == {"S0": [3], "S1": [2], "S2": [2], "S3": []}


@pytest.fixture
def edge_track(tmp_path):
    """Ties, a missing topic, identical runs, a shallow run, a duplicate, no-relevant topic."""
    q = write_lines(tmp_path / "qrels", ["1 0 A 1", "1 0 B 1", "1 0 C 1", "1 0 N -1",
                                         "2 0 D 2", "2 0 E 0", "3 0 F 0", "4 0 G 1"])
    runs = tmp_path / "runs"
    runs.mkdir()
    write_lines(runs / "a", ["1 Q0 A 1 9 a", "1 Q0 N 2 8 a", "1 Q0 B 3 7 a", "1 Q0 C 4 6 a",
                             "2 Q0 D 1 5 a", "3 Q0 F 1 1 a"])
    write_lines(runs / "b", ["1 Q0 A 1 9 b", "1 Q0 N 2 8 b", "1 Q0 B 3 7 b", "1 Q0 C 4 6 b",
                             "2 Q0 D 1 5 b"])                               # identical to a
    write_lines(runs / "c", ["1 Q0 A 1 9 c", "1 Q0 B 2 8 c", "1 Q0 A 3 1 c"])  # duplicate A, misses 2
    write_lines(runs / "d", ["1 Q0 X 1 5 d", "1 Q0 C 2 5 d", "2 Q0 E 1 2 d", "2 Q0 D 2 1 d"])  # tie X/C
    return q, sorted(runs.iterdir())


def test_edge_cases_by_hand(edge_track):
    q, runs = edge_track
    tables = ingest_track("edge", q, runs)            # the duplicate does not crash
    pv, pc = compare(tables)
    assert pv.topics == ["1", "2", "4"]               # topic 3 has no relevant document
    assert (pc.i_star[:, 2] == 0).all() and (pc.drr[:, 2, 0] == 0).all()   # nobody found G: ties
    frame = pv.to_frame().set_index(["run", "qid"]).positions
    assert frame[("c", "1")] == [1, 2] and frame[("c", "2")] == []
    assert frame[("d", "1")] == [2]                   # X ties C at 5: docno desc puts X first
    df = pc.to_frame().set_index(["run_i", "run_j", "qid"])
    # a and b identical everywhere: ties
    assert (df.loc[("a", "b")].i_star == 0).all() and (df.loc[("a", "b")].rrLP == 0).all()
    # a [1,3,4] vs c [1,2,unret] on topic 1: i* = 2, c better, rrLP = 1/3 - 1/2
    r = df.loc[("a", "c", "1")]
    assert (r.i_star, r.sgnLP, r.sgnLP_suffix) == (2, -1, -1)
    assert r.rrLP == pytest.approx(1 / 3 - 1 / 2) and r.dRR_1 == 0 and r.dRR_3 == pytest.approx(1 / 4)
    # c misses topic 2: a wins with rrLP = RR difference 1
    r = df.loc[("a", "c", "2")]
    assert (r.i_star, r.sgnLP, r.rrLP) == (1, 1, 1.0) and math.isnan(r.dRR_2)   # m = 1
    # c [1, 2, unret] vs d [2, unret, unret] on topic 1 (d's C at 2 after X): i* = 1
    r = df.loc[("c", "d", "1")]
    assert (r.i_star, r.sgnLP, r.rrLP, r.dRR_1) == (1, 1, 0.5, 0.5)


def random_positions(rng, S, T, max_m=12, depth=30):
    """Random PositionVectors-like lists: per (run, topic) sorted distinct ranks."""
    m = rng.integers(1, max_m + 1, T)
    vecs = {}
    for s in range(S):
        for t in range(T):
            k = rng.integers(0, min(m[t], depth) + 1)
            vecs[s, t] = sorted(rng.choice(np.arange(1, depth + 1), size=k, replace=False).tolist())
    return m, vecs


def pv_from_lists(m, vecs, S, T, levels=lx.DEFAULT_LEVELS):
    L = max(levels, max(len(v) for v in vecs.values()), 1)
    P = np.full((S, T, L), lx.UNRETRIEVED, dtype=np.int32)
    found = np.zeros((S, T), dtype=np.int64)
    for (s, t), v in vecs.items():
        P[s, t, :len(v)] = v
        found[s, t] = len(v)
    return lx.PositionVectors(runs=[f"r{s}" for s in range(S)], topics=[f"q{t}" for t in range(T)],
                              m=np.asarray(m), found=found, positions=P, rel_level=1)


@pytest.mark.parametrize("chunk,head", [(1, 1), (7, 2), (lx.CHUNK_CELLS, lx.HEAD_COLUMNS)])
def test_vectorized_equals_the_per_pair_loop(chunk, head, monkeypatch):
    monkeypatch.setattr(lx, "HEAD_COLUMNS", head)
    rng = np.random.default_rng(3)
    S, T = 9, 6
    m, vecs = random_positions(rng, S, T, depth=8)   # shallow: many ties at every level
    vecs[1, 0] = list(vecs[0, 0])                    # an identical pair
    pc = lx.compare_pairs(pv_from_lists(m, vecs, S, T), chunk_cells=chunk)
    for k, (i, j) in enumerate(zip(pc.ii, pc.jj)):
        for t in range(T):
            x = vecs[i, t] + [None] * (m[t] - len(vecs[i, t]))
            y = vecs[j, t] + [None] * (m[t] - len(vecs[j, t]))
            sgn, rr = lx.lexiprecision_pair(x, y)
            assert (pc.sgn[k, t], pc.rr[k, t]) == (sgn, rr)
            assert pc.sgn_suffix[k, t] == lx.lexiprecision_pair(x[1:], y[1:])[0]
            istar = next((n + 1 for n, (a, b) in enumerate(zip(x, y)) if a != b), 0)
            assert pc.i_star[k, t] == istar
            for lvl in range(1, 21):
                if lvl > m[t]:
                    assert math.isnan(pc.drr[k, t, lvl - 1])
                else:
                    rx = 0.0 if x[lvl - 1] is None else 1 / x[lvl - 1]
                    ry = 0.0 if y[lvl - 1] is None else 1 / y[lvl - 1]
                    assert pc.drr[k, t, lvl - 1] == rx - ry


def test_rrlp_preserves_reciprocal_rank_and_sign_agrees():
    rng = np.random.default_rng(5)
    m, vecs = random_positions(rng, 12, 8, depth=15)
    pc = lx.compare_pairs(pv_from_lists(m, vecs, 12, 8))
    d1 = pc.drr[:, :, 0]
    assert (pc.rr[d1 != 0] == d1[d1 != 0]).all()
    assert (np.sign(pc.rr) == pc.sgn).all()
    assert ((pc.i_star == 0) == (pc.sgn == 0)).all()


def test_tables_and_counts_agree():
    rng = np.random.default_rng(11)
    S, T = 10, 7
    m, vecs = random_positions(rng, S, T, depth=6)
    pv = pv_from_lists(m, vecs, S, T)
    pc = lx.compare_pairs(pv)
    total, rr_ties, lp_ties = lt.tie_counts(pv)
    rates = lx.tie_rates(pc)
    assert total == rates["n_pair_topics"] == S * (S - 1) // 2 * T
    assert 100 * rr_ties / total == pytest.approx(rates["RR_ties"])
    assert 100 * lp_ties / total == pytest.approx(rates["LP_ties"])
    assert rates["LP_ties"] <= rates["RR_ties"]
    by_level = lt.tie_probability_by_level(pc)
    assert by_level.probability.iloc[0] == pytest.approx(rates["RR_ties"] / 100)
    assert by_level.pair_topics.iloc[0] == total
    # figure 3: ties by p1, brute force
    p1 = {(s, t): (vecs[s, t][0] if vecs[s, t] else None) for s in range(S) for t in range(T)}
    fig3 = lt.tie_probability_by_p1(pv).set_index("p1")
    for p in fig3.index:
        ranks = [(s, t) for (s, t), v in p1.items() if v == p]
        ties = sum(p1[o, t] == p for s, t in ranks for o in range(S) if o != s)
        assert fig3.loc[p, "probability"] == pytest.approx(ties / (len(ranks) * (S - 1)))
    ecdf = lt.i_star_distribution(pc)
    assert ecdf["count"].sum() == (pc.i_star > 0).sum() and ecdf.ecdf.iloc[-1] == pytest.approx(1.0)


def test_ranking_and_system_agreement_by_hand():
    # three runs, one topic with m = 3
    vecs = {(0, 0): [1, 2, 3], (1, 0): [2, 3], (2, 0): [2, 5, 6]}
    pc = lx.compare_pairs(pv_from_lists([3], vecs, 3, 1))
    # pairs (0,1): dRR1 > 0, suffix [2,3] vs [3,unret] -> +1 agree, dRR2 = 1/2-1/3 > 0 agree
    # (0,2): dRR1 > 0, suffix [2,3] vs [5,6] -> agree, dRR2 > 0 agree
    # (1,2): dRR1 = 0 -> excluded
    ra = lx.ranking_agreement(pc)
    assert ra["n_pair_topics"] == 2 and ra["sgnLP_suffix_agree"] == 100 and ra["dRR2_agree"] == 100
    vecs = {(0, 0): [1, 9], (1, 0): [2, 3]}       # dRR1 > 0 but the suffix prefers run 1
    ra = lx.ranking_agreement(lx.compare_pairs(pv_from_lists([2], vecs, 2, 1)))
    assert ra["sgnLP_suffix_agree"] == 0 and ra["dRR2_agree"] == 0
    sa = lx.system_agreement(pc)
    assert sa["n_run_pairs"] == 2 and sa["rrLP_agree"] == 100 and sa["sgnLP_agree"] == 100


def test_mean_preference_hsd_on_rr_equals_hsd_of_rr():
    rng = np.random.default_rng(2)
    m, vecs = random_positions(rng, 7, 9, depth=10)
    pv = pv_from_lists(m, vecs, 7, 9)
    pc = lx.compare_pairs(pv)
    rr = lx.reciprocal_rank(pv)
    s = lx.mean_preference_scores(pc, pc.drr[:, :, 0])
    assert np.allclose(s, 7 / 6 * (rr - rr.mean(axis=0)))
    np.testing.assert_allclose(tukey_hsd(s)["p_value"], tukey_hsd(rr)["p_value"], atol=1e-9)
    tests = lx.pair_tests(pc, rr)
    assert len(tests) == 21
    for k, (i, j) in enumerate(zip(pc.ii, pc.jj)):
        assert tests.p_RR[k] == pytest.approx(st.ttest_rel(rr[i], rr[j]).pvalue, nan_ok=True)
        nz = pc.rr[k][pc.rr[k] != 0]
        assert tests.p_rrLP[k] == pytest.approx(st.ttest_1samp(pc.rr[k], 0).pvalue if nz.size else 1.0)
        w, l = int((pc.sgn[k] > 0).sum()), int((pc.sgn[k] < 0).sum())
        assert tests.p_sgnLP[k] == pytest.approx(st.binomtest(w, w + l).pvalue if w + l else 1.0)
    full = tukey_hsd(rr)
    assert (tests.hsd_RR == (full.p_value < 0.05)).all()
    assert (tests.p_RR_bonferroni == np.minimum(1, 21 * tests.p_RR)).all()
    table = lx.discriminative_power(tests)
    assert list(table.test) == ["tukey_hsd"] * 3 + ["paired_bonferroni"] * 3
    assert table.n_significant.iloc[0] == tests.hsd_RR.sum()
    assert table.n_significant.iloc[5] == (tests.p_sgnLP_bonferroni < 0.05).sum()


def test_theoretical_tie_probability():
    n, m = 40, 4
    p1 = np.arange(1, n + 1)
    prob = lt.theoretical_tie_probability(n, m, p1)
    exact = np.array([comb(n - p, m - 1, exact=True) / comb(n, m, exact=True) if p <= n - m + 1 else 0
                      for p in p1])
    np.testing.assert_allclose(prob, exact, rtol=1e-10)
    assert lt.theoretical_tie_probability(50000, 10, np.arange(1, 50001)).sum() == pytest.approx(1.0)
    assert lt.theoretical_tie_probability(50000, 1, np.array([1, 7]))[1] == pytest.approx(1 / 50000)


def test_locality_correlation_and_regression():
    rng = np.random.default_rng(0)
    m, vecs = random_positions(rng, 12, 10, max_m=20, depth=40)
    m = np.maximum(m, 8)
    pc = lx.compare_pairs(pv_from_lists(m, vecs, 12, 10))
    corr, reg = lt.locality(pc)
    D = pc.drr[:, :, :8].reshape(-1, 8)
    D = np.concatenate([D, -D])
    np.testing.assert_allclose(corr.to_numpy(), np.corrcoef(D, rowvar=False))
    assert sorted(reg.i.unique()) == [1, 2, 3, 4] and len(reg) == 16
    one = reg[reg.i == 1].coefficient.to_numpy()
    ref = np.linalg.lstsq(np.column_stack([np.ones(len(D)), D[:, 1:5]]), D[:, 0], rcond=None)[0][1:]
    np.testing.assert_allclose(one, ref)


def test_label_removal_starts_at_table_3_and_is_seeded():
    tables = tiny_tables()
    pv, pc = compare(tables)
    df = lt.label_removal_ties(tables.judged, tables.qrels, tables.depth, fractions=(0.0, 0.5, 1.0),
                               samples=3, seed=4)
    full = df[df.fraction_removed == 0]
    assert (full.RR_ties == lx.tie_rates(pc)["RR_ties"]).all()
    assert (full.LP_ties == lx.tie_rates(pc)["LP_ties"]).all()
    # f = 1 keeps one judgment per topic (as pref_eval): q1 (5 judgments, 3 relevant),
    # q2 (x relevant, y not), q4 (2 relevant): every topic has 0 or 1 relevant label left
    pv1 = df[df.fraction_removed == 1.0]
    assert (pv1.LP_ties == pv1.RR_ties).all()
    half = df[df.fraction_removed == 0.5]
    assert (half.LP_ties <= half.RR_ties).all() and (half.RR_ties.std() > 0)
    again = lt.label_removal_ties(tables.judged, tables.qrels, tables.depth, fractions=(0.0, 0.5, 1.0),
                                  samples=3, seed=4)
    pd.testing.assert_frame_equal(df, again)
    summary = lt.summarize_label_removal(df)
    assert list(summary.columns) == ["fraction_removed", "RR_ties_mean", "LP_ties_mean",
                                     "RR_ties_std", "LP_ties_std"]


def test_row_tests_match_scipy():
    rng = np.random.default_rng(1)
    D = rng.normal(0.1, 1, (20, 15))
    D[3] = 0.0
    out = ttest_rows(D)
    for k in range(20):
        if k == 3:
            assert out["t"][k] == 0 and out["p_value"][k] == 1
            continue
        ref = st.ttest_1samp(D[k], 0.0)
        assert out["t"][k] == pytest.approx(ref.statistic) and out["p_value"][k] == pytest.approx(ref.pvalue)
    for alt in ("greater", "less"):
        assert ttest_rows(D[:2], alt)["p_value"][0] == pytest.approx(st.ttest_1samp(D[0], 0, alternative=alt).pvalue)
    wins = rng.integers(0, 20, 50)
    losses = rng.integers(0, 20, 50)
    p = sign_test_counts(wins, losses)
    for w, l, pv in zip(wins, losses, p):
        ref = 1.0 if w + l == 0 else st.binomtest(int(w), int(w + l)).pvalue
        assert pv == pytest.approx(ref)
    assert sign_test_counts([7], [2], "greater")[0] == pytest.approx(st.binomtest(7, 9, alternative="greater").pvalue)


def test_prefer_cli_prints_pairs_then_means(capsys):
    tiny_tables()
    runs = [str(TINY / "runs" / r) for r in ("S2", "S0", "S1")]   # argument order, not sorted
    assert main(["prefer", str(TINY / "qrels.txt"), *runs, "--decimals", "6"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == ["S2\tS0\tq1\t1\t0.166667", "S2\tS0\tq2\t0\t0.000000", "S2\tS0\tq4\t1\t0.500000"]
    assert len(lines) == 3 * 3 + 3
    assert lines[-3:] == ["S2\tS0\tall\t0.666667\t0.222222", "S2\tS1\tall\t-0.333333\t-0.166667",
                          "S0\tS1\tall\t-0.333333\t-0.333333"]


def test_prefer_cli_gzip_and_errors(capsys, tmp_path):
    import gzip
    q = write_lines(tmp_path / "qrels", ["1 0 A 1"])
    (tmp_path / "x.gz").write_bytes(gzip.compress(b"1 Q0 A 1 1 x\n"))
    write_lines(tmp_path / "y", ["1 Q0 B 1 1 y"])
    assert main(["prefer", str(q), str(tmp_path / "x.gz"), str(tmp_path / "y")]) == 0
    assert capsys.readouterr().out.splitlines() == ["x\ty\t1\t1\t1.0000", "x\ty\tall\t1.0000\t1.0000"]
    with pytest.raises(SystemExit) as exit_:  # a usage error, found before any file is read
        main(["prefer", str(q), str(tmp_path / "y")])
    assert exit_.value.code == 2 and "at least two runs" in capsys.readouterr().err


def test_real_track_matches_the_loop_on_a_subset():
    tables = ingested("trec-covid-round1")
    runs = sorted(pd.unique(tables.depth["run"].to_numpy(zero_copy_only=False)))[:12]
    pv, pc = compare(tables, runs=runs)
    assert len(pv.topics) == 30
    for k in range(0, pc.n_pairs, 5):
        i, j = pc.ii[k], pc.jj[k]
        for t in range(len(pv.topics)):
            x = pv.positions[i, t, :pv.found[i, t]].tolist() + [None] * int(pv.m[t] - pv.found[i, t])
            y = pv.positions[j, t, :pv.found[j, t]].tolist() + [None] * int(pv.m[t] - pv.found[j, t])
            assert (pc.sgn[k, t], pc.rr[k, t]) == lx.lexiprecision_pair(x, y)


def test_hsd_without_p_values_flags_the_same_pairs():
    rng = np.random.default_rng(9)
    scores = rng.uniform(0, 1, (8, 10)) + np.linspace(0, 0.8, 8)[:, None]
    full = tukey_hsd(scores, confidence=0.95)
    fast = tukey_hsd(scores, confidence=0.95, p_values=False)
    assert fast["p_value"].isna().all()
    np.testing.assert_array_equal(fast["q"] > fast.attrs["q_crit"], full["p_value"] < 0.05)
    assert 0 < (full["p_value"] < 0.05).sum() < len(full)


@pytest.mark.parametrize("case", ["one_run", "two_runs", "no_relevant_topic"])
def test_degenerate_tracks_write_every_output(tmp_path, case):
    from reeval.io.ingest import write_track
    from reeval.analyses.lexiprecision_report import TRACK_FIGURES, TRACK_TABLES, track_lexiprecision

    tiny_tables()
    runs = sorted(glob.glob(str(TINY / "runs" / "*")))
    qrels = TINY / "qrels.txt"
    if case == "one_run":
        runs = runs[:1]
    elif case == "two_runs":
        runs = runs[:2]
    else:
        qrels = write_lines(tmp_path / "qrels", ["q1 0 a 0"])
    write_track(ingest_track(case, qrels, runs), tmp_path / "track")
    tables = track_lexiprecision(case, tmp_path / "track", tmp_path / "out", rel_level=1,
                                 config={"label_removal": {"samples": 2}})
    for name in TRACK_TABLES:
        assert (tmp_path / "out" / f"{name}.csv").is_file()
    for name in TRACK_FIGURES:
        assert (tmp_path / "out" / f"{name}.pdf").is_file()
    power = tables["table4_discriminative_power"]
    if case == "two_runs":
        assert (power.n_run_pairs == 1).all() and len(tables["pair_tests"]) == 1
    elif case == "one_run":
        assert (power.n_run_pairs == 0).all() and power.percent_significant.isna().all()
    else:   # 6 pairs, nothing to compare on: none significant
        assert (power.n_run_pairs == 6).all() and (power.n_significant == 0).all()
        assert (tables["pair_tests"].topics == 0).all() and tables["table3_ties"].n_pair_topics[0] == 0


def test_more_relevant_rows_than_relevant_documents_is_refused():
    tables = tiny_tables()
    judged = tables.judged.to_pandas()
    judged = pd.concat([judged, judged.iloc[[0]]], ignore_index=True)   # bypassing ingest
    with pytest.raises(ValueError, match="duplicate"):
        lx.position_vectors(judged, tables.qrels, tables.depth)
    # through ingest a repeated document is dropped (first occurrence kept) and nothing fails
    assert lx.position_vectors(tables.judged, tables.qrels, tables.depth).found.max() <= 3
