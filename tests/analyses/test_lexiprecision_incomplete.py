"""Figure 8 of the lexiprecision paper: agreement with full-data dRR_1 as labels and
queries are removed (reeval.analyses.lexiprecision.incomplete)."""

import glob
import math

import numpy as np
import pandas as pd
import pytest

from conftest import REFERENCE, write_lines
from reeval.analyses.lexiprecision import core as lx
from reeval.analyses.lexiprecision import incomplete as li
from reeval.io.ingest import ingest_track

TINY = REFERENCE / "tiny"


def tiny_tables():
    if not (TINY / "qrels.txt").is_file():
        pytest.skip(f"reference track not found at {TINY}")
    return ingest_track("tiny", TINY / "qrels.txt", sorted(glob.glob(str(TINY / "runs" / "*"))))


def test_agreement_of_a_hand_made_comparison():
    # 3 pairs x 2 topics. Full dRR_1: pair 0 prefers i on both, pair 1 ties on topic 0 and
    # prefers j on topic 1, pair 2 ties everywhere (left out of both agreements).
    full = np.array([[0.5, 0.25], [0.0, -0.5], [0.0, 0.0]])
    drr1 = np.array([[0.5, 0.0], [0.2, 0.1], [0.3, 0.0]])                # incomplete dRR_1
    rr = np.array([[0.5, 0.1], [0.2, -0.1], [0.3, 0.0]])
    sgn = np.array([[1, 1], [1, -1], [1, 0]], dtype=np.int8)
    out = li.agreement(full, drr1, rr, sgn, np.array([True, True]))
    # ranking: pair-topics (0,0) (0,1) (1,1); dRR_1 agrees on (0,0) only (a tie disagrees,
    # 0.1 has the wrong sign); rrLP and sgnLP on all three
    assert out["n_pair_topics"] == 3
    assert out["ranking_dRR1"] == pytest.approx(100 / 3)
    assert out["ranking_rrLP"] == out["ranking_sgnLP"] == 100.0
    # system: full means + (pair 0) and - (pair 1); pair 2 is 0 and left out. Incomplete
    # means: dRR_1 0.25, 0.15; rrLP 0.3, 0.05; sgnLP 1, 0 (a tie disagrees): 1 of 2 each
    assert out["n_run_pairs"] == 2
    assert out["system_dRR1"] == out["system_rrLP"] == out["system_sgnLP"] == 50.0


def test_agreement_over_kept_queries_only():
    full = np.array([[0.5, -0.25]])
    kept = np.array([False, True])
    out = li.agreement(full, full, full, np.sign(full).astype(np.int8), kept)
    assert out["n_pair_topics"] == 1 and out["ranking_dRR1"] == 100.0   # same data on a kept topic
    assert out["n_run_pairs"] == 1 and out["system_dRR1"] == 0.0        # full mean +, kept mean -


def test_complete_data_agrees_with_table_2_and_queries_rank_as_the_full_data():
    t = tiny_tables()
    df = li.incomplete_agreement(t.judged, t.qrels, t.depth, fractions=(0.0, 0.5, 0.9), samples=4, seed=3)
    assert list(df.columns) == list(li.SAMPLE_COLUMNS)
    assert len(df) == 2 * 3 * 4
    pv = lx.position_vectors(t.judged, t.qrels, t.depth)
    pc = lx.compare_pairs(pv)
    table2 = lx.system_agreement(pc)
    full = df[df.fraction_removed == 0.0]
    assert (full.ranking_dRR1 == 100.0).all() and (full.system_dRR1 == 100.0).all()
    assert (full.system_rrLP == table2["rrLP_agree"]).all() and (full.system_sgnLP == table2["sgnLP_agree"]).all()
    assert (full.n_run_pairs == table2["n_run_pairs"]).all()
    # rrLP and sgnLP have the same sign: equal ranking agreement, always
    assert (df.ranking_rrLP == df.ranking_sgnLP).all()
    # queries removed: a kept topic's preferences are the full data's
    q = df[df.removal == "queries"]
    assert (q.ranking_dRR1 == 100.0).all() and (q.ranking_rrLP == 100.0).all()
    assert (q[q.fraction_removed == 0.9].n_pair_topics < full.n_pair_topics.iloc[0]).all()
    # labels removed: agreement falls below 100% somewhere
    lab = df[(df.removal == "labels") & (df.fraction_removed == 0.9)]
    assert (lab.ranking_dRR1 < 100.0).any()


def test_seeded_and_summarized():
    t = tiny_tables()
    a = li.incomplete_agreement(t.judged, t.qrels, t.depth, fractions=(0.0, 0.6), samples=3, seed=7)
    b = li.incomplete_agreement(t.judged, t.qrels, t.depth, fractions=(0.0, 0.6), samples=3, seed=7)
    pd.testing.assert_frame_equal(a, b)
    s = li.summarize_agreement(a)
    assert list(s.columns[:2]) == ["removal", "fraction_removed"] and (s.samples == 3).all()
    g = a[(a.removal == "labels") & (a.fraction_removed == 0.6)]
    row = s[(s.removal == "labels") & (s.fraction_removed == 0.6)].iloc[0]
    assert row.ranking_dRR1_mean == pytest.approx(g.ranking_dRR1.mean())
    assert row.ranking_dRR1_std == pytest.approx(g.ranking_dRR1.std(ddof=1))
    one = li.summarize_agreement(a[a["sample"] == 0])
    assert one.ranking_dRR1_std.isna().all()


def test_removing_labels_matches_the_per_pair_loop_on_explicitly_reduced_qrels(tmp_path):
    # the predictors on incomplete data are the measures computed on the reduced qrels:
    # drop one relevant label by hand and compare with the one-pair-at-a-time reference
    t = tiny_tables()
    lines = [ln for ln in (TINY / "qrels.txt").read_text().splitlines() if ln.strip()]
    rel = [k for k, ln in enumerate(lines) if int(ln.split()[3]) > 0]
    reduced = ingest_track("tiny", write_lines(tmp_path / "q", [ln for k, ln in enumerate(lines) if k != rel[0]]),
                           sorted(glob.glob(str(TINY / "runs" / "*"))))
    pv_full = lx.position_vectors(t.judged, t.qrels, t.depth)
    full = np.nan_to_num(lx.compare_pairs(pv_full).drr[:, :, 0])
    pv = lx.position_vectors(reduced.judged, reduced.qrels, reduced.depth)
    assert pv.topics == pv_full.topics  # (the removed label leaves its topic a relevant document)
    pc = lx.compare_pairs(pv)
    out = li.agreement(full, np.nan_to_num(pc.drr[:, :, 0]), pc.rr, pc.sgn, np.ones(len(pv.topics), dtype=bool))
    vec = pv.to_frame().set_index(["run", "qid"])
    agree = total = 0
    for a, (i, j) in enumerate(zip(pc.ii, pc.jj)):
        for k, q in enumerate(pv.topics):
            if full[a, k] == 0:
                continue
            def positions(run):
                row = vec.loc[(pv.runs[run], q)]
                return list(row.positions) + [None] * int(row.m - row.found)
            sgn, _ = lx.lexiprecision_pair(positions(i), positions(j))
            total += 1
            agree += sgn == np.sign(full[a, k])
    assert out["n_pair_topics"] == total
    assert out["ranking_rrLP"] == pytest.approx(100.0 * agree / total) if total else math.isnan(out["ranking_rrLP"])


@pytest.mark.parametrize("step, chunk", [(8, 1 << 23), (1, 5), (3, 7)])
def test_first_differences_equal_compare_pairs(step, chunk, monkeypatch):
    """The comparator of figure 8 gives compare_pairs' sgnLP and rrLP on every pair and
    topic, whatever its column step and chunk size."""
    monkeypatch.setattr(li, "STEP_COLUMNS", step)
    monkeypatch.setattr(li, "CHUNK_CELLS", chunk)
    t = tiny_tables()
    pv = lx.position_vectors(t.judged, t.qrels, t.depth)
    pc = lx.compare_pairs(pv)
    sgn, rr = li.first_differences(pv, pc.ii, pc.jj)
    np.testing.assert_array_equal(sgn, pc.sgn)
    np.testing.assert_array_equal(rr, pc.rr)
    # any order of the pair, and one pair alone
    sgn2, rr2 = li.first_differences(pv, pc.jj[::-1], pc.ii[::-1])
    np.testing.assert_array_equal(sgn2, -pc.sgn[::-1])
    np.testing.assert_array_equal(rr2, -pc.rr[::-1])


def test_first_differences_of_no_pairs_is_an_empty_pairs_by_topics_table():
    t = tiny_tables()
    pv = lx.position_vectors(t.judged, t.qrels, t.depth)
    none = np.zeros(0, dtype=np.int64)
    sgn, rr = li.first_differences(pv, none, none)
    assert sgn.shape == rr.shape == (0, len(pv.topics)) and sgn.dtype == np.int8 and rr.dtype == np.float64


def test_first_differences_on_a_real_track_equal_compare_pairs():
    from conftest import ingested

    t = ingested("trec2019-dl-passage")
    pv = lx.position_vectors(t.judged, t.qrels, t.depth, rel_level=2)
    pc = lx.compare_pairs(pv)
    sgn, rr = li.first_differences(pv, pc.ii, pc.jj)
    np.testing.assert_array_equal(sgn, pc.sgn)
    np.testing.assert_array_equal(rr, pc.rr)


def test_above_max_pairs_a_seeded_sample_of_pairs_is_compared():
    ii, jj = li.compared_pairs(10, seed=1, max_pairs=7)
    assert len(ii) == 7 and (ii < jj).all() and len(set(zip(ii, jj))) == 7
    assert (li.compared_pairs(10, seed=1, max_pairs=7)[0] == ii).all()
    assert len(li.compared_pairs(10, max_pairs=45)[0]) == 45
    t = tiny_tables()
    df = li.incomplete_agreement(t.judged, t.qrels, t.depth, fractions=(0.0,), samples=2, max_pairs=3)
    assert (df.pairs == 3).all() and (df.ranking_dRR1 == 100.0).all()


def _tables_of(lines_by_run, qrels_lines, tmp_path):
    qrels = write_lines(tmp_path / "qrels.txt", qrels_lines)
    runs = [write_lines(tmp_path / name, lines) for name, lines in lines_by_run.items()]
    return ingest_track("t", qrels, runs)


def _figures_8_and_9_one_by_one(t, fractions, samples, seed, rel_level=1):
    """Figure 8 as it was computed before it shared figure 9's vectors (its own grid, its
    own labels removed per sample and fraction), and figure 9 alone."""
    from reeval.analyses.lexiprecision import ties as lt
    grid = lx._grid(t.judged, t.qrels, t.depth, None, keep_docno=True)
    S, T_all = grid.shape
    qt = grid.qrels_topic
    n_q, m_full, is_rel_q, g, pos, row_label = lt.label_rows(grid, rel_level)
    ii, jj = li.compared_pairs(S, seed)
    full = li._predictors(lx._assemble(grid, g, pos, m_full, m_full, rel_level, levels=1), ii, jj)
    T = full[0].shape[1]
    rows = []
    for k in range(samples):
        label_rank = lt.kept_rank(qt, np.random.default_rng([seed, k]))
        topic_rank = lt.kept_rank(np.zeros(T, dtype=np.int64), np.random.default_rng([seed, k, 1]))
        for f in fractions:
            keep = label_rank < np.maximum(np.floor(n_q * (1.0 - f) + 1e-9), 1)[qt]
            m = np.bincount(qt[keep & is_rel_q], minlength=T_all)
            sel = keep[row_label]
            part = li._predictors(lx._assemble(grid, g[sel], pos[sel], m_full, m, rel_level, levels=1), ii, jj)
            rows.append({"removal": "labels", "fraction_removed": float(f), "sample": k, "pairs": len(ii),
                         **li.agreement(full[0], *part, np.ones(T, dtype=bool))})
            rows.append({"removal": "queries", "fraction_removed": float(f), "sample": k, "pairs": len(ii),
                         **li.agreement(full[0], *full, topic_rank < max(int(round(T * (1.0 - f))), 1))})
    agreement = pd.DataFrame(rows, columns=list(li.SAMPLE_COLUMNS)).sort_values(
        ["removal", "fraction_removed", "sample"], kind="stable").reset_index(drop=True)
    return agreement, lt.label_removal_ties(t.judged, t.qrels, t.depth, fractions=fractions, samples=samples,
                                            seed=seed, rel_level=rel_level)


def test_figures_8_and_9_from_one_set_of_vectors_are_the_figures_computed_one_by_one(tmp_path):
    # the tiny reference track, and two runs on one topic with tied scores and a relevant
    # document neither run retrieved
    two = _tables_of({"a": ["1 Q0 d1 1 2.0 a", "1 Q0 d2 2 2.0 a", "1 Q0 d3 3 1.0 a"],
                      "b": ["1 Q0 d3 1 2.0 b", "1 Q0 d1 2 1.0 b"]},
                     ["1 0 d1 1", "1 0 d2 0", "1 0 d3 1", "1 0 d4 1"], tmp_path)
    cases = [(two, {"fractions": (0.0, 0.5, 0.9), "samples": 3, "seed": 1})]
    if (TINY / "qrels.txt").is_file():
        cases.append((tiny_tables(), {"fractions": (0.0, 0.3, 0.6, 0.9), "samples": 4, "seed": 5, "rel_level": 2}))
    for t, kw in cases:
        agreement, removal = li.label_removal_studies(t.judged, t.qrels, t.depth, **kw)
        one_agreement, one_removal = _figures_8_and_9_one_by_one(t, **kw)
        pd.testing.assert_frame_equal(agreement, one_agreement)
        pd.testing.assert_frame_equal(li.incomplete_agreement(t.judged, t.qrels, t.depth, **kw), one_agreement)
        pd.testing.assert_frame_equal(removal, one_removal)
        assert len(removal) == kw["samples"] * len(kw["fractions"])


@pytest.mark.parametrize("kept", [[True, True, True, True], [True, False, True, False], [False, False, False, True]])
def test_agreement_with_its_targets_computed_once_is_the_agreement_computed_alone(kept):
    rng = np.random.default_rng(4)
    full = rng.integers(-2, 3, (6, 4)) / 4.0             # ties (dRR_1 = 0) and pairs whose mean is 0
    full[0] = 0.0
    drr1, rr = rng.integers(-2, 3, (2, 6, 4)) / 4.0
    sgn = np.sign(rr).astype(np.int8)
    kept = np.array(kept)
    alone = li.agreement(full, drr1, rr, sgn, kept)
    once = li.agreement(full, drr1, rr, sgn, kept, targets=li.agreement_targets(full, kept))
    assert alone.keys() == once.keys()
    for key, value in alone.items():
        assert value == once[key] or (math.isnan(value) and math.isnan(once[key]))


@pytest.mark.parametrize("kept", [[True, True, True, True], [True, False, True, False], [False, False, False, True],
                                  [False, False, False, False]])
def test_queries_removed_from_per_topic_counts_is_the_agreement_computed_alone(kept):
    """Figure 8's queries-removed rows: ranking counts summed from per-topic counts and the
    system means over the kept topics give :func:`agreement`'s values, bit for bit."""
    rng = np.random.default_rng(5)
    full = rng.integers(-3, 4, (7, 4)) / 8.0             # ties (dRR_1 = 0) and pairs whose mean is 0
    full[0] = 0.0
    full[1] = [0.125, -0.125, 0.0, 0.0]
    rr = np.where(full != 0, full, rng.integers(-1, 2, (7, 4)) / 3.0)   # later differences where dRR_1 ties
    predictors = (full, rr, np.sign(rr).astype(np.int8))
    kept = np.array(kept)
    counts = li.topic_agreement_counts(full, predictors)
    assert counts.dtype == np.int64 and counts.shape == (4, 4)
    targets = li.agreement_targets(full, np.ones(4, dtype=bool))
    alone = li.agreement(full, *predictors, kept)
    summed = li.query_removal_agreement(predictors, kept, counts, targets)
    assert alone.keys() == summed.keys()
    for key, value in alone.items():
        assert value == summed[key] or (math.isnan(value) and math.isnan(summed[key])), key


def test_ranking_agreement_counts_signs_with_signed_zeros_nans_and_infinities():
    """A predictor's 0, -0.0 or NaN never agrees; +-inf has its sign; a full-data dRR_1 of
    0 or -0.0 is no target (the pair-topic is not counted)."""
    full = np.array([[0.5, -0.5, 0.0, -0.0, 0.25, -0.25]])
    v = np.array([[np.inf, -0.0, 1.0, -1.0, np.nan, -np.inf]])
    kept = np.ones(6, dtype=bool)
    out = li.agreement(full, v, v, np.sign(np.nan_to_num(v)).astype(np.int8), kept)
    assert out["n_pair_topics"] == 4
    assert out["ranking_dRR1"] == out["ranking_rrLP"] == 50.0       # inf and -inf agree, -0.0 and NaN do not
    assert out["ranking_sgnLP"] == 50.0
