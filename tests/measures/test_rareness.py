"""Rareness measures: the authors' golden output, reversion to P@k / truncated AP, edge cases."""

import glob
import json

import numpy as np
import pandas as pd
import pytest

from conftest import REFERENCE, ingested, write_lines
from reeval.analyses.rareness import core as rr
from reeval.io.ingest import ingest_track
from reeval.measures import build_grid, evaluate_grid, parse_measures
from reeval.synth.tracks import DEFAULT_CAMPAIGN, write_track


def tiny_grid():
    qrels = REFERENCE / "tiny" / "qrels.txt"
    if not qrels.is_file():
        pytest.skip(f"reference outputs not found at {REFERENCE}")
    t = ingest_track("tiny", qrels, sorted(glob.glob(str(REFERENCE / "tiny" / "runs" / "*"))))
    return build_grid(t.judged, t.depth, t.qrels, keep_docno=True)


@pytest.mark.parametrize("k", [2, 3])
def test_reproduces_the_authors_code_on_tiny(k):
    """ecir2023 (commit b0a4410) on ../shared/reference/tiny: every run x topic, the means
    over all qrels topics (q3 has no relevant document, S0 misses q4, S3's q9 is unjudged,
    S1 has a relevant/non-relevant score tie), and the retrieval counts c_k(d)."""
    gold = json.loads((REFERENCE / "ecir2023_tiny.json").read_text())
    hits = rr.top_k_hits(tiny_grid(), k)
    assert hits.runs == ["S0", "S1", "S2", "S3"] and hits.topics == ["q1", "q2", "q3", "q4"]
    docs = rr.document_table(hits)
    found = docs[docs.c_k > 0]
    counts = {q: dict(zip(g.docno, g.c_k)) for q, g in found.groupby("qid")}
    expected = {q: v for q, v in gold[f"retrieve_counts@{k}"].items() if v}
    assert counts == expected
    checked = 0
    for family in ("P", "AP"):
        for alpha in (0.0, 0.5, 1.0, None):
            values = rr.scores(hits, f"{family}_rareness", "1/R" if alpha is None else alpha)
            ref = gold[f"{family.lower()}_rareness@{k}_alpha={alpha}"]
            for si, run in enumerate(hits.runs):
                want = [ref[run][q] for q in hits.topics]
                np.testing.assert_allclose(values[si], want, rtol=0, atol=1e-15)
                assert abs(values[si].mean() - ref[run]["all"]) <= 1e-15
                checked += 1
    assert checked == 32


def test_hand_checked_values_and_normalized_variant():
    """q1 at k = 3, S = 4 runs: c_3(a) = c_3(b) = 3, c_3(c) = 2 -> R = 1/4, 1/4, 1/2 and
    R' = 1/3, 1/3, 2/3. S2 ranks a, b, c (all relevant); |R_q1| = 3."""
    hits = rr.top_k_hits(tiny_grid(), 3)
    s2, q1 = 2, 0
    p = rr.scores(hits, "P_rareness", 1.0)[s2, q1]
    assert p == pytest.approx((1.25 + 1.25 + 1.5) / 3)
    ap = rr.scores(hits, "AP_rareness", 1.0)[s2, q1]
    assert ap == pytest.approx((1.25 / 1 + 2.5 / 2 + 4.0 / 3) / 3)
    alpha = 0.5
    w = [(1 - alpha) + alpha * r for r in (1 / 3, 1 / 3, 2 / 3)]
    assert rr.scores(hits, "P_rareness_norm", alpha)[s2, q1] == pytest.approx(sum(w) / 3)
    ap_norm = (w[0] / 1 + (w[0] + w[1]) / 2 + sum(w) / 3) / 3
    assert rr.scores(hits, "AP_rareness_norm", alpha)[s2, q1] == pytest.approx(ap_norm)
    # q2: x is found by all four runs: R = R' = 0; alpha = 1 in the normalized form gives 0
    assert rr.scores(hits, "P_rareness_norm", 1.0)[:, 1].max() == 0.0
    assert rr.scores(hits, "P_rareness", 1.0)[1, 1] == pytest.approx(1 / 3)


def test_rarity_bounds_and_single_system():
    assert rr.rarity([1, 2, 4], 4).tolist() == [0.75, 0.5, 0.0]
    assert rr.rarity([1, 2, 4], 4, normalized=True).tolist() == pytest.approx([1.0, 2 / 3, 0.0])
    assert rr.rarity([1], 1, normalized=True).tolist() == [1.0]  # one run: the rarest possible
    assert rr.rarity([1], 1).tolist() == [0.0]


@pytest.fixture(scope="module")
def synthetic_tables(tmp_path_factory):
    d = tmp_path_factory.mktemp("syn")
    write_track(d, DEFAULT_CAMPAIGN["syn-shallow"], seed=3)
    return ingest_track("syn", d / "qrels.txt", sorted(glob.glob(str(d / "runs" / "*"))))


def _check_alpha_zero_is_p_and_truncated_ap(tables, k, rel_level):
    grid = build_grid(tables.judged, tables.depth, tables.qrels, keep_docno=True)
    hits = rr.top_k_hits(grid, k, rel_level)
    base = evaluate_grid(grid, parse_measures([f"P.{k}"]), rel_level=rel_level).values[f"P_{k}"]
    cut = build_grid(tables.judged, tables.depth, tables.qrels, max_depth=k)
    ap = evaluate_grid(cut, parse_measures(["map"]), rel_level=rel_level).values["map"]
    for family, want in (("P", base), ("AP", ap)):
        for variant in ("_rareness", "_rareness_norm"):
            got = rr.scores(hits, family + variant, 0.0)
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    assert np.abs(ap).sum() > 0 and np.abs(base).sum() > 0


@pytest.mark.parametrize("k", [5, 20, 100])
def test_alpha_zero_is_p_at_k_and_ap_truncated_at_k_synthetic(synthetic_tables, k):
    """syn-shallow: shallow runs, runs missing topics, a topic with no relevant document."""
    _check_alpha_zero_is_p_and_truncated_ap(synthetic_tables, k, 1)


@pytest.mark.parametrize("track,level", [("trec-covid-round1", 1), ("trec2020-dl-passage", 2)])
def test_alpha_zero_is_p_at_k_and_ap_truncated_at_k_real(track, level):
    _check_alpha_zero_is_p_and_truncated_ap(ingested(track), 100, level)


def test_bounds_and_monotonicity(synthetic_tables):
    grid = build_grid(synthetic_tables.judged, synthetic_tables.depth, synthetic_tables.qrels,
                      keep_docno=True)
    hits = rr.top_k_hits(grid, 20)
    for alpha in (0.25, 1.0):
        p = rr.scores(hits, "P_rareness", alpha)
        assert (p >= 0).all() and (p < 2).all()
        assert (p >= rr.scores(hits, "P_rareness", 0.0) - 1e-15).all()
        pn = rr.scores(hits, "P_rareness_norm", alpha)
        assert (pn >= 0).all() and (pn <= 1 + 1e-15).all()
        apn = rr.scores(hits, "AP_rareness_norm", alpha)
        assert (apn >= 0).all() and (apn <= 1 + 1e-15).all()
    R = hits.num_rel
    assert (R == 0).any(), "syn-shallow has a topic without a relevant document"
    for family in rr.FAMILIES:
        v = rr.scores(hits, family, 1.0)
        assert (v[:, R == 0] == 0).all() and (v[~hits.answered] == 0).all()


def test_systems_answered_counts_only_runs_that_answered(tmp_path):
    """Run r3 skips topic 2: with systems='answered', S_2 = 2 instead of 3."""
    q = write_lines(tmp_path / "q", ["1 0 A 1", "1 0 B 1", "2 0 C 1", "2 0 D 1"])
    runs = [write_lines(tmp_path / "r1", ["1 Q0 A 1 2 r1", "1 Q0 B 2 1 r1", "2 Q0 C 1 1 r1"]),
            write_lines(tmp_path / "r2", ["1 Q0 A 1 1 r2", "2 Q0 C 1 2 r2", "2 Q0 D 2 1 r2",
                                          "2 Q0 C 3 0 r2"]),  # duplicate C is dropped by ingest
            write_lines(tmp_path / "r3", ["1 Q0 B 1 1 r3"])]
    t = ingest_track("t", q, runs)
    hits = rr.top_k_hits(build_grid(t.judged, t.depth, t.qrels, keep_docno=True), 2)
    assert rr.retrieval_counts(hits).tolist() == [2, 2, 2, 1]       # A, B, C, D
    assert rr.n_systems(hits, "answered").tolist() == [3, 2]
    all_ = rr.scores(hits, "P_rareness", 1.0)
    ans = rr.scores(hits, "P_rareness", 1.0, systems="answered")
    assert all_[1, 1] == pytest.approx((1 + 1 / 3 + 1 + 2 / 3) / 2)  # C: 1 - 2/3, D: 1 - 1/3
    assert ans[1, 1] == pytest.approx((1 + 0 + 1 + 1 / 2) / 2)       # C: 1 - 2/2, D: 1 - 1/2
    np.testing.assert_allclose(ans[:, 0], all_[:, 0])


def test_measure_names_and_alpha():
    assert rr.parse_rareness("P_rareness@100").name == "P_rareness@100"
    assert rr.parse_rareness("ap_rareness_norm.10").name == "AP_rareness_norm@10"
    assert rr.parse_rareness("AP_rareness").cutoff == 100
    assert rr.parse_rareness("map") is None
    with pytest.raises(ValueError):
        rr.parse_rareness("P_rareness@0")
    from reeval.measures import family_of, parse_measures
    measures = parse_measures(["map", "P_rareness@10", "P.5", "P_rareness@10"])  # one registry for both
    assert [m.name for m in measures] == ["map", "P_rareness@10", "P_5"]
    assert [m.name for m in measures if family_of(m).needs_runs] == ["P_rareness@10"]
    assert rr.check_alpha("1/r") == "1/R" and rr.check_alpha("0.5") == 0.5
    assert rr.alpha_label(1.0) == "1" and rr.alpha_label(0.25) == "0.25"
    for bad in (-0.1, "x", float("nan")):
        with pytest.raises(ValueError):
            rr.check_alpha(bad)


def test_document_table_marks_unfound_documents():
    docs = rr.document_table(rr.top_k_hits(tiny_grid(), 1))
    assert isinstance(docs, pd.DataFrame)
    unfound = docs[docs.c_k == 0]
    assert len(unfound) and unfound.rarity.isna().all() and unfound.rarity_norm.isna().all()
    assert docs.loc[docs.c_k > 0, "rarity"].between(0, 1).all()
