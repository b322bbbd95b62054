"""The ASL study (reeval.analyses.asl.study): hand-computed ladder, DeltaSort / Kendall tau on
constructed cases, 1/ASL exactness, headroom, per-document views, A.1 and table 1."""

import itertools
from fractions import Fraction as F
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from conftest import ROOT, write_lines
from reeval.io.ingest import ingest_track, write_track
from reeval.workflow.measures_step import track_measures
from reeval.workflow.config_check import section_with_defaults as defaults
from reeval.stats.correlation import kendall_tau
from reeval.analyses.asl.study import (
    COMPARISONS,
    Ordering,
    better_matrix,
    delta_sort,
    headroom,
    ladder,
    mean_std_range,
    reordering,
    reordering_across_tracks,
    track_matrices,
)
from reeval.analyses.asl.views import (
    bucket_counts,
    bucket_labels,
    difference_histogram,
    document_histogram,
    map_share,
    signed_bucket_counts,
    signed_bucket_labels,
    best_and_median_run,
    unit_histogram,
)
from reeval.analyses.asl.techniques import label_runs, rrie, technique_table
from reeval.synth.tracks import DEFAULT_CAMPAIGN, write_track as write_synthetic

STUDY_MEASURES = ["map", "P_20", "recip_rank", "ASL", "ASL@g1", "ASL@g1-10"]

# topic 1: A, B, C relevant, X judged non-relevant; topic 2: D relevant; topic 3: no
# relevant document (left out of every ladder step). n* are unjudged (non-relevant).
QRELS = ["1 0 A 1", "1 0 B 1", "1 0 C 1", "1 0 X 0", "2 0 D 1", "3 0 E 0"]
RUNS = {
    "r1": ["1 Q0 A 1 9 r1", "1 Q0 n1 2 8 r1", "1 Q0 B 3 7 r1", "1 Q0 X 4 6 r1", "1 Q0 n3 5 5 r1",
           "2 Q0 n4 1 9 r1", "2 Q0 n5 2 8 r1", "2 Q0 D 3 7 r1", "3 Q0 E 1 9 r1"],
    "r2": ["1 Q0 n1 1 9 r2", "1 Q0 A 2 8 r2", "1 Q0 B 3 7 r2", "1 Q0 C 4 6 r2",
           "2 Q0 D 1 9 r2"],
}


def measured_track(tmp: Path, qrels_lines, runs: dict, measures=STUDY_MEASURES):
    """Ingest and measure a small track as the workflow does; returns its folder."""
    q = write_lines(tmp / "qrels.txt", qrels_lines)
    paths = [write_lines(tmp / name, lines) for name, lines in runs.items()]
    d = tmp / "track"
    write_track(ingest_track("tiny", q, paths), d)
    track_measures("tiny", d, d, measures)
    return d


def load(d: Path):
    return (pd.read_parquet(d / "measures_by_topic.parquet"), pd.read_parquet(d / "measures_by_run.parquet"),
            pd.read_parquet(d / "asl_by_document.parquet"))


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return load(measured_track(tmp_path_factory.mktemp("tiny"), QRELS, RUNS))


def test_ladder_hand_computed(tiny):
    by_topic, by_run, docs = tiny
    tm = track_matrices(by_topic, "tiny")
    assert tm.runs == ["r1", "r2"] and tm.use.tolist() == [True, True, False]
    per_topic, per_run = ladder(tm, docs)
    # r1 topic 1: A rank 1 (ASL 1, P 1), B rank 3 (ASL 2, P 2/3), C unretrieved (irrel 3 -> ASL 4, P 0)
    # r1 topic 2: D rank 3 (ASL 3, P 1/3).  r2 topic 1: A, B, C at 2, 3, 4 (ASL 2 each;
    # P 1/2, 2/3, 3/4); topic 2: D at 1.
    expect_topic = {
        "map": [[F(5, 9), F(1, 3)], [F(23, 36), F(1)]],
        "atomized_p": [[F(7, 12), F(1, 3)], [F(1, 2), F(1)]],
        "docs_harmonic": [[F(3, 7), F(1, 3)], [F(1, 2), F(1)]],
    }
    for step, rows in expect_topic.items():
        np.testing.assert_allclose(per_topic[step][:, :2], np.array(rows, dtype=float), rtol=1e-15)
    assert (per_topic["map"][:, 2] == 0).all()          # AP of a topic without relevant docs
    assert np.isnan(per_topic["atomized_p"][:, 2]).all() and np.isnan(per_topic["docs_harmonic"][:, 2]).all()
    expect_run = {"map": [F(4, 9), F(59, 72)], "atomized_p": [F(11, 24), F(3, 4)],
                  "docs_harmonic": [F(8, 21), F(3, 4)], "topics_harmonic": [F(3, 8), F(2, 3)]}
    for step, vals in expect_run.items():
        np.testing.assert_allclose(per_run[step], np.array(vals, dtype=float), rtol=1e-15)
    # unretrieved documents at precision 0 in the atomize step: r1 topic 1 = (1 + 1/2 + 0)/3
    per_topic0, per_run0 = ladder(tm, docs, unretrieved="zero")
    assert per_topic0["atomized_p"][0, 0] == pytest.approx(0.5)
    assert per_run0["atomized_p"][0] == pytest.approx((0.5 + 1 / 3) / 2)
    assert per_run0["docs_harmonic"].tolist() == per_run["docs_harmonic"].tolist()


def test_last_step_is_exactly_one_over_asl(tiny, tmp_path):
    by_topic, by_run, docs = tiny
    _, per_run = ladder(track_matrices(by_topic), docs)
    assert (per_run["topics_harmonic"] == 1.0 / by_run.sort_values("run").ASL.to_numpy()).all()
    for name, spec in DEFAULT_CAMPAIGN.items():  # uneven topics, shallow runs, missing topics
        out = tmp_path / name
        write_synthetic(out, spec, seed=3)
        d = out / "track"
        write_track(ingest_track(name, out / "qrels.txt", sorted((out / "runs").iterdir())), d)
        track_measures(name, d, d, STUDY_MEASURES)
        bt, br, dc = load(d)
        _, pr = ladder(track_matrices(bt), dc)
        assert (pr["topics_harmonic"] == 1.0 / br.sort_values("run").ASL.to_numpy()).all(), name


def test_missing_measure_is_named(tiny):
    with pytest.raises(ValueError, match="recip_rank"):
        track_matrices(tiny[0].drop(columns=["recip_rank"]), "tiny")


def _ordered(order, n_topics=20, gap=1.0, seed=0):
    """Per-topic values whose runs are clearly separated in ``order`` (best first)."""
    rng = np.random.default_rng(seed)
    S = len(order)
    level = np.empty(S)
    level[list(order)] = 10.0 + gap * np.arange(S)[::-1]
    X = level[:, None] + rng.normal(0, 0.05, (S, n_topics))
    return Ordering(X, X.mean(axis=1))


def test_delta_sort_known_answer():
    old = _ordered([0, 1, 2, 3], gap=2.0)     # levels 16, 14, 12, 10: run 0 best, all >10% apart
    new = _ordered([3, 2, 1, 0], gap=2.0)     # reversed
    ds, n0, n1 = delta_sort(old, new)
    assert n0.tolist() == [0, 1, 2, 3] and n1.tolist() == [3, 2, 1, 0]
    np.testing.assert_allclose(ds, [75.0, 25.0, 25.0, 75.0])
    assert kendall_tau(old.score, new.score) == pytest.approx(-1.0)
    # runs 5% apart are significantly different by the t-test but fail the 10% margin
    close = _ordered([0, 1], gap=0.5)          # levels 10.5 and 10
    assert delta_sort(close, _ordered([1, 0], gap=0.5))[0].tolist() == [0.0, 0.0]
    assert delta_sort(close, _ordered([1, 0], gap=0.5), margin=0.0)[0].tolist() == [50.0, 50.0]
    # a lower-is-better ordering of the same runs (search lengths) ranks them the same way
    low = Ordering(1.0 / old.per_topic, 1.0 / old.aggregate, higher_is_better=False)
    assert kendall_tau(old.score, low.score) == pytest.approx(1.0)
    assert delta_sort(old, low)[0].tolist() == [0, 0, 0, 0]


def test_better_matrix_matches_scipy_pairwise():
    rng = np.random.default_rng(7)
    S, T = 7, 15
    X = rng.normal(0.4, 0.1, (S, 1)) + rng.normal(0, 0.08, (S, T))
    for higher in (True, False):
        o = Ordering(X, X.mean(axis=1), higher_is_better=higher)
        B = better_matrix(o, margin=0.1, alpha=0.05)
        agg = X.mean(axis=1)
        for i, j in itertools.permutations(range(S), 2):   # the oracle: one scipy test per pair
            p = st.ttest_rel(X[i], X[j]).pvalue
            better = agg[i] >= 1.1 * agg[j] if higher else agg[i] <= 0.9 * agg[j]
            assert B[i, j] == (better and p <= 0.05), (i, j)
        assert B.any() and not B.diagonal().any()


def test_identical_runs_and_too_few_topics_are_never_better():
    X = np.array([[0.2, 0.4], [0.2, 0.4]])
    assert not better_matrix(Ordering(X, X.mean(axis=1))).any()
    X1 = np.array([[0.9], [0.1]])
    assert not better_matrix(Ordering(X1, X1.mean(axis=1))).any()


def test_reordering_table(tiny):
    by_topic, _, docs = tiny
    runs, summary = reordering(track_matrices(by_topic, "tiny"), docs)
    assert summary.comparison.tolist() == [c[0] for c in COMPARISONS]
    assert len(runs) == 2 * len(COMPARISONS)
    cum = runs[runs.comparison == "cumulative"].set_index("run")
    np.testing.assert_allclose(cum.value_ratio, [(3 / 8) / (4 / 9), (2 / 3) / (59 / 72)])
    # two topics, two runs: r2 is better everywhere but no t-test reaches 0.05 with 1 df
    assert (summary.max_delta_sort == 0).all()
    assert summary.loc[summary.comparison == "cumulative", "kendall_tau"].item() == 1.0
    assert summary.delta_value.isna().tolist() == [False] * 4 + [True] * 2
    across = reordering_across_tracks(summary, runs)
    assert across.n_tracks.tolist() == [1] * 6 and across.delta_sort_std.isna().all()


def test_rate_space_changes_only_the_search_length_rows(tmp_path):
    out = tmp_path / "syn"
    write_synthetic(out, DEFAULT_CAMPAIGN["syn-graded"], seed=5)
    d = out / "track"
    write_track(ingest_track("syn", out / "qrels.txt", sorted((out / "runs").iterdir())), d)
    track_measures("syn", d, d, STUDY_MEASURES)
    bt, _, dc = load(d)
    tm = track_matrices(bt, "syn")
    ra, a = reordering(tm, dc, space="aggregate")
    rb, b = reordering(tm, dc, space="rate")
    pd.testing.assert_series_equal(a.kendall_tau, b.kendall_tau)   # same orderings
    same = ["atomize_p", "docs_within_query"]                        # no search-length side
    pd.testing.assert_frame_equal(ra[ra.comparison.isin(same)], rb[rb.comparison.isin(same)])
    # the search-length side is tested on ASL_q or on 1/ASL_q: direct check of one pair
    sl = tm.values["ASL"][:, tm.use]
    o_agg = better_matrix(Ordering(sl, sl.mean(axis=1), higher_is_better=False))
    o_rate = better_matrix(Ordering(1 / sl, 1 / sl.mean(axis=1)))
    from reeval.analyses.asl.study import sl_ordering
    assert (better_matrix(sl_ordering(tm.values["ASL"], tm.use, "aggregate")) == o_agg).all()
    assert (better_matrix(sl_ordering(tm.values["ASL"], tm.use, "rate")) == o_rate).all()
    n1_rate = rb[rb.comparison == "cumulative"].n1.to_numpy()
    assert (n1_rate == o_rate.sum(axis=0)).all()


def test_mean_std_range():
    s = mean_std_range([1.0, 3.0, np.nan])
    assert s["mean"] == 2.0 and s["std"] == pytest.approx(np.sqrt(2)) and s["n"] == 2
    assert s["low"] == pytest.approx(2 - np.sqrt(2))


def test_headroom_and_histograms():
    by_run = pd.DataFrame({"run": ["b", "a", "c"], "P_20": [0.5, 0.5, 0.2],
                           "ASL@g1-10": [3.0, 4.0, 30.0], "map": [0.1, 0.3, 0.2],
                           "ASL": [200.0, np.nan, 150.0]})
    h = headroom(by_run, "t")
    assert (h["P_20"], h["P_20_run"]) == (0.5, "a")          # tie: first by name
    assert (h["ASL@g1-10_run"], h["map_run"], h["ASL_run"]) == ("b", "a", "c")
    assert bucket_labels([1, 10, 20, 50]) == ["1\u20139", "10\u201319", "20\u201349", "\u226550"]
    assert bucket_counts([1, 9.9, 10, 49.5, 50, 5000], [1, 10, 20, 50]).tolist() == [2, 1, 1, 2]
    assert unit_histogram([0.0, 0.05, 0.1, 0.95, 1.0, np.nan]).tolist() == [2, 1, 0, 0, 0, 0, 0, 0, 0, 2]
    assert signed_bucket_labels([1, 10]) == ["\u2264\u221210", "\u22129 \u2013 \u22121", "0 \u2013 9", "\u226510"]
    assert signed_bucket_counts([-12, -3, 0, 0, 4, 10, 11], [1, 10]).tolist() == [1, 1, 3, 2]  # 0 with the smallest losses, as the paper's middle two buckets



def test_real_valued_buckets_are_labelled_half_open_so_that_neighbours_share_no_end():
    """Issue 39 item 7: figures 2 and 4 (the best run's ASL@g1-10 and ASL per track, means)
    labelled their buckets "1\u201310", "10\u201320": 10 seemed to fall in both."""
    from reeval.analyses.asl.report import headroom_histograms

    assert bucket_labels([1, 10, 20, 50], integer=False) == ["[1, 10)", "[10, 20)", "[20, 50)", "\u226550"]
    head = pd.DataFrame({"P_20": [0.1, 1.0], "map": [0.05, 0.2], "ASL@g1-10": [10.0, 9.5], "ASL": [60.0, 1000.0]})
    hist = headroom_histograms(head, [1, 10, 20, 50, 100, 1000])
    assert hist["P_20"][0][0] == "[0.0, 0.1)" and hist["P_20"][0][-1] == "[0.9, 1.0]"
    assert list(hist["P_20"][1]) == [0, 1, 0, 0, 0, 0, 0, 0, 0, 1]  # 1.0 in the last, closed bin
    assert dict(zip(*hist["ASL@g1-10"])) == {"[1, 10)": 1, "[10, 20)": 1, "[20, 50)": 0, "[50, 100)": 0,
                                             "[100, 1000)": 0, "\u22651000": 0}

def test_document_views(tiny):
    _, by_run, docs = tiny
    best, median = best_and_median_run(by_run)
    assert (best, median) == ("r2", "r2")     # two runs: the better of the middle two
    h = document_histogram(docs, "r1", [1, 2, 3, 5])
    # r1: A 1, B 2, D 3 retrieved; C not retrieved
    assert h["count"].tolist() == [1, 1, 1, 0, 1] and h.bucket.iloc[-1] == "not retrieved"
    d = difference_histogram(docs, "r2", "r1", [1, 10])
    # r2 - r1: A 2-1 = 1, B 2-2 = 0, C 2-4 = -2, D 1-3 = -2
    assert d["count"].tolist() == [0, 2, 2, 0]            # the tie (B) with the smallest losses
    assert d.attrs["ties"] == 1


def test_map_share_hand_computed(tiny):
    _, _, docs = tiny
    s = map_share(docs).set_index("run")
    # r1: P = 1, 2/3, 1/3, 0 -> SL 1, 1.5, 3, inf; pooled mean P = 1/2 -> target SL 2;
    # prefix means 1, 1.25, 1.833, inf -> closest n = 3 of 4
    assert s.loc["r1", "target_sl"] == pytest.approx(2.0)
    assert (s.loc["r1", "n_closest"], s.loc["r1", "share"]) == (3, 0.75)
    # r2: P = 1, 3/4, 2/3, 1/2 -> SL 1, 4/3, 3/2, 2; mean P = 35/48 -> SL 48/35 = 1.371;
    # prefix means 1, 1.167, 1.278, 1.458: distances .371, .205, .094, .087 -> n = 4
    assert s.loc["r2", "n_closest"] == 4
    m = map_share(docs, target="map").set_index("run")
    # r1: MAP over topics with relevant docs = 4/9 -> SL 2.25: prefix 1.833 (n = 3) closest
    assert m.loc["r1", "target_sl"] == pytest.approx(9 / 4) and m.loc["r1", "n_closest"] == 3
    nothing = docs.assign(precision=0.0)
    assert map_share(nothing).share.isna().all()


@pytest.mark.parametrize("target", ["pooled", "map"])
def test_map_share_of_no_document_is_an_empty_table(tiny, target):
    """A track with no included run (or no relevant document) has no per-document rows."""
    _, _, docs = tiny
    empty = map_share(docs.iloc[:0], target=target)
    assert empty.empty and list(empty.columns) == list(map_share(docs, target=target).columns)


def test_techniques():
    assert rrie(0.5, 0.75, True) == 0.5 and rrie(11.0, 6.0, False) == 0.5
    assert np.isnan(rrie(1.0, 1.0, False))
    assert label_runs(["p_bm25", "p_bm25rm3", "pash_f1", "x"],
                      {"bm25": ["p_bm25*"], "neural": ["pash_*"]}) == {
        "p_bm25": "bm25", "p_bm25rm3": "bm25", "pash_f1": "neural"}
    with pytest.raises(ValueError, match="p_bm25"):
        label_runs(["p_bm25"], {"a": ["p_*"], "b": ["*bm25"]})
    by_run = pd.DataFrame({"run": ["p_bm25", "p_bm25b", "nn1", "nn2"], "P_20": [0.5, 0.4, 0.7, 0.75],
                           "ASL@g1-10": [51.0, 60, 6, 8], "map": [0.4, 0.3, 0.55, 0.5],
                           "ASL": [264.0, 250, 215, 300]})
    t = technique_table(by_run, {"baseline": "bm25", "groups": {"bm25": ["p_bm25*"], "neural": ["nn*"]}})
    n = t[t.group == "neural"].set_index("measure")
    assert n.loc["P_20", "run"] == "nn2" and n.loc["P_20", "rrie"] == pytest.approx(0.5)
    assert n.loc["ASL@g1-10", "rrie"] == pytest.approx((50 - 5) / 50)
    assert n.loc["ASL", "baseline_value"] == 250.0 and n.loc["ASL", "rrie"] == pytest.approx(35 / 249)
    assert t[t.group == "bm25"].rrie.isna().all() and t.n_runs.tolist() == [2] * 4 + [2] * 4
    with pytest.raises(ValueError, match="baseline"):
        technique_table(by_run, {"baseline": "trad", "groups": {"bm25": ["p*"]}})


def test_track_study_and_study_write_every_file(tiny, tmp_path):
    from reeval.analyses.asl.report import (STUDY_FIGURES, STUDY_TABLES, TRACK_STUDY_FIGURES,
                                     TRACK_STUDY_TABLES, study, study_options, track_study,
                                     track_study_options)
    d = tmp_path / "tracks" / "tiny"
    d.mkdir(parents=True)
    for name, df in zip(("measures_by_topic", "measures_by_run", "asl_by_document"), tiny):
        df.to_parquet(d / f"{name}.parquet")
    opts = study_options(defaults("study", {"techniques": {"tiny": {"baseline": "a", "groups": {"a": ["r1"], "b": ["r2"],
                                                                               "empty": ["zz*"]}},
                                         "absent": {"baseline": "a", "groups": {"a": ["x"], "b": ["y"]}}},
                          "reorder": {"ttest_space": "rate"}}))
    assert opts["reorder"] == {"margin": 0.1, "alpha": 0.05, "ttest_space": "rate",
                               "unretrieved_precision": "asl"}
    info = track_study("tiny", d, d / "study", track_study_options(opts))
    assert (info["best"], info["median"]) == ("r2", "r2")
    for name in TRACK_STUDY_TABLES:
        assert (d / "study" / name).is_file()
    for stem in TRACK_STUDY_FIGURES:
        assert (d / "study" / f"{stem}.png").read_bytes()[:4] == b"\x89PNG"
        assert (d / "study" / f"{stem}.pdf").read_bytes()[:4] == b"%PDF"
    out = tmp_path / "study"
    study({"tiny": d}, out, opts)
    for name in STUDY_TABLES:
        assert (out / f"{name}.parquet").is_file() and (out / f"{name}.csv").is_file()
    for stem in STUDY_FIGURES:
        assert (out / f"{stem}.png").is_file() and (out / f"{stem}.pdf").is_file()
    tech = pd.read_parquet(out / "techniques.parquet")
    assert tech.track.unique().tolist() == ["tiny"]        # labels of an absent track: skipped
    assert tech[tech.group == "empty"].value.isna().all()
    text = (out / "summary.md").read_text()
    assert "../tracks/tiny/study/fig5_document_asl.png" in text and "`rate`" in text
    assert "| P@20 | 0.050 (r1) | 0.067 (r2) | 2% | n/a | n/a |" in text  # 3 decimals, as the paper prints P@20
    cells = pd.read_csv(out / "paper_comparison.csv")
    assert set(cells["item"]) == {"table 1", "table 2", "appendix A.1", "headline claims",
                                  "appendix A.1 worked example", "section 4.1", "section 4.3", "section 4.4", "section 4.5"}
    assert (cells[cells["item"] == "table 1"].status == "data not here").all()  # study.paper names no track
    from reeval.analyses.asl.summary import SECTIONS
    sections = [line for line in text.splitlines() if line.startswith("## ")]
    assert sections == [f"## {s}" for s in SECTIONS]
    assert "\n### tiny\n\nBest run of each group" in text and "\n### tiny\n\n![figure 5, tiny]" in text


def test_dl2020_passage_labels_and_exactness(tmp_path):
    """Real data: the shipped DL-2020 technique labels name existing runs; 1/ASL exact."""
    import yaml
    from conftest import ingested
    tables = ingested("trec2020-dl-passage")
    d = tmp_path / "dl20"
    write_track(tables, d)
    track_measures("trec2020-dl-passage", d, d, ["official", "P_20", "ASL", "ASL@g1", "ASL@g1-10"],
                   rel_level=2)
    by_topic, by_run, docs = load(d)
    spec = yaml.safe_load((ROOT / "config" / "shared-data.yaml").read_text())["study"]["techniques"][
        "trec2020-dl-passage"]
    labels = label_runs(by_run.run.tolist(), spec["groups"])
    for group, patterns in spec["groups"].items():
        for pat in patterns:      # every name or pattern matches a run of the track
            assert any(label_runs([r], {group: [pat]}) for r in by_run.run), pat
    assert labels["p_bm25"] == "bm25" and labels["pash_f1"] == "neural"
    tm = track_matrices(by_topic, "trec2020-dl-passage")
    _, per_run = ladder(tm, docs)
    assert (per_run["topics_harmonic"] == 1.0 / by_run.sort_values("run").ASL.to_numpy()).all()
    # MAP over the 54 judged topics (all have a relevant document at level 2) is the official one
    assert per_run["map"][tm.runs.index("p_bm25")] == pytest.approx(0.2856, abs=5e-5)
    share = map_share(docs)
    assert share.share.between(0, 1).all()
    t = technique_table(by_run, spec, "trec2020-dl-passage")
    assert (t[t.group == "neural"].rrie > 0).all()


def test_study_options_are_checked():
    from reeval.analyses.asl.report import study_options
    with pytest.raises(ValueError, match="document_buckets"):
        study_options(defaults("study", {"document_buckets": [1, 10, 5]}))
    with pytest.raises(ValueError, match="baseline 'x'"):
        study_options(defaults("study", {"techniques": {"t": {"baseline": "x", "groups": {"a": ["r"], "b": ["s"]}}}}))
    # key order of the YAML does not change the options (Snakemake params compare equal)
    a = study_options(defaults("study", {"techniques": {"t": {"baseline": "a", "groups": {"a": ["r"], "b": ["s"]}}}}))
    b = study_options(defaults("study", {"techniques": {"t": {"groups": {"b": ["s"], "a": ["r"]}, "baseline": "a"}}}))
    assert repr(a) == repr(b)


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    out = tmp_path_factory.mktemp("synshallow")
    write_synthetic(out, DEFAULT_CAMPAIGN["syn-shallow"], seed=11)   # shallow runs, missing topics
    d = out / "track"
    write_track(ingest_track("syn", out / "qrels.txt", sorted((out / "runs").iterdir())), d)
    track_measures("syn", d, d, STUDY_MEASURES)
    return load(d)


def test_ladder_against_scipy_harmonic_means(synthetic):
    """Oracle: each step recomputed per (run, topic) with pandas groupby and scipy's hmean."""
    by_topic, by_run, docs = synthetic
    tm = track_matrices(by_topic, "syn")
    per_topic, per_run = ladder(tm, docs)
    docs = docs.assign(inv=1.0 / docs.asl)
    g = docs.groupby(["run", "qid"])
    ap = g.precision.mean().unstack().reindex(index=tm.runs, columns=tm.topics).to_numpy()
    atom = g.inv.mean().unstack().reindex(index=tm.runs, columns=tm.topics).to_numpy()
    hm = g.inv.agg(st.hmean).unstack().reindex(index=tm.runs, columns=tm.topics).to_numpy()
    u = tm.use
    np.testing.assert_allclose(per_topic["map"][:, u], ap[:, u], rtol=1e-12)
    np.testing.assert_allclose(per_topic["atomized_p"][:, u], atom[:, u], rtol=1e-12)
    np.testing.assert_allclose(per_topic["docs_harmonic"][:, u], hm[:, u], rtol=1e-12)
    np.testing.assert_allclose(per_run["topics_harmonic"], st.hmean(hm[:, u], axis=1), rtol=1e-12)
    np.testing.assert_allclose(per_run["docs_harmonic"], hm[:, u].mean(axis=1), rtol=1e-12)
    # MAP over the topics with a relevant document = trec_eval -c MAP rescaled by the topic count
    np.testing.assert_allclose(per_run["map"] * u.sum() / len(u),
                               by_run.sort_values("run")["map"].to_numpy(), rtol=1e-12)


def test_map_share_against_a_direct_search(synthetic):
    _, _, docs = synthetic
    got = map_share(docs).set_index("run")
    for run, d in docs.groupby("run"):            # oracle: one run at a time, plain Python
        p = sorted(d.precision.tolist(), reverse=True)
        target = 1.0 / (sum(p) / len(p))
        best_n, best_dist, total = 0, float("inf"), 0.0
        for n, x in enumerate(p, start=1):
            total += 1.0 / x if x > 0 else float("inf")
            dist = abs(total / n - target)
            if dist < best_dist:
                best_n, best_dist = n, dist
        assert got.loc[run, "n_closest"] == best_n, run
        assert got.loc[run, "share"] == pytest.approx(best_n / len(p))


def test_technique_groups_from_manifest_labels():
    import fnmatch
    import yaml
    from reeval.analyses.asl.report import study_options, techniques_from_labels
    tracks = {
        "labelled": {"urls": {"runs": [{"run": "bm25[a]", "technique": "bm25"}, {"run": "bert*", "technique": "neural"},
                                       {"run": "other"}]}},
        "bm25-only": {"urls": {"runs": [{"run": "x", "technique": "bm25"}]}},
        "local": {"qrels": "q", "runs": "r"},
    }
    got = techniques_from_labels(tracks)
    assert list(got) == ["labelled"] and got["labelled"]["baseline"] == "bm25"
    patterns = got["labelled"]["groups"]
    # escaped: each pattern matches its own run name only
    assert fnmatch.fnmatchcase("bm25[a]", patterns["bm25"][0]) and not fnmatch.fnmatchcase("bm25a", patterns["bm25"][0])
    assert fnmatch.fnmatchcase("bert*", patterns["neural"][0]) and not fnmatch.fnmatchcase("bertX", patterns["neural"][0])
    # the config's own technique groups win; selection keys are not analysis options
    mine = {"baseline": "a", "groups": {"a": ["a*"], "b": ["b*"]}}
    opts = study_options(defaults("study", {"tracks": "all", "min_runs": 5, "techniques": {"labelled": mine}}), got)
    assert opts["techniques"]["labelled"] == mine and "tracks" not in opts and "min_runs" not in opts
    # the study manifest: the DL tracks of 2019 on get bm25 vs neural groups
    manifest = yaml.safe_load((ROOT / "config" / "trec-manifest.yaml").read_text())
    labelled = techniques_from_labels(manifest["tracks"])
    assert labelled and all(set(v["groups"]) >= {"bm25"} and len(v["groups"]) >= 2 for v in labelled.values())
    assert all(manifest["tracks"][t]["year"] >= 2019 for t in labelled)


def test_atomized_precision_of_an_eq3_search_length_of_0_is_1_not_infinite():
    """Under eq. 3 an unretrieved relevant document of a topic where the run retrieved only
    relevant documents has ASL_qd = irrel_q = 0 (config/asl-paper.yaml on DL-2019 stopped
    with "scores must be finite"): the atomize step takes its precision as 1."""
    from reeval.analyses.asl.study import atomized_precision

    by_topic = pd.DataFrame({"track": "t", "run": "r", "qid": ["q"], "ASL": [0.5], "map": [0.5], "P_20": [0.05],
                             "recip_rank": [1.0], "ASL@g1": [1.0], "ASL@g1-10": [0.5]})
    docs = pd.DataFrame({"run": "r", "qid": "q", "docno": ["a", "b"], "asl": [1.0, 0.0],
                         "precision": [1.0, 0.0], "retrieved": [True, False]})
    tm = track_matrices(by_topic, "t")
    p = atomized_precision(docs, tm)
    assert np.isfinite(p).all() and p[0, 0] == 1.0
