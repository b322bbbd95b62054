"""A PyTerrier ``pt.Experiment`` user's arguments in ``reeval.compare_runs`` (issue 39 item 6):
``baseline=0`` as an index into the runs given, ``correction=`` under statsmodels' names
(equal to ``statsmodels.stats.multitest.multipletests`` on the same p-values), ``test=``
beside ``tests=``, ``eval_metrics=`` beside ``measures=``; the arguments whose meaning differs
are refused (docs/api.md lists both)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import reeval

QRELS = pd.DataFrame({"query_id": [q for q in "12345678" for _ in range(4)],
                      "doc_id": [f"d{k}" for _ in range(8) for k in range(4)],
                      "relevance": [1, 0, 1, 0] * 8})


def runs_named(names, seed=0) -> dict:
    """One run per name over 8 topics x 4 documents, each ranking the relevant documents
    higher the earlier its name comes (with noise, so that the p-values differ)."""
    rng = np.random.default_rng(seed)
    rel = np.tile([1.0, 0.0, 1.0, 0.0], 8)
    return {name: pd.DataFrame({"query_id": QRELS.query_id, "doc_id": QRELS.doc_id,
                                "score": rel * (len(names) - k) * 0.25 + rng.random(32)})
            for k, name in enumerate(names)}


RUNS = runs_named(["bm25", "rm3", "monot5", "dense"])


def test_baseline_0_is_the_first_run_given_as_pyterrier_indexes_its_systems():
    by_index = reeval.compare_runs(QRELS, RUNS, "AP", baseline=0)
    by_name = reeval.compare_runs(QRELS, RUNS, "AP", baseline="bm25")
    pd.testing.assert_frame_equal(by_index, by_name)
    assert by_index.attrs["baseline"] == "bm25" and set(by_index.run_b) == {"bm25"}
    assert by_index.report() == by_name.report()
    assert reeval.compare_runs(QRELS, RUNS, "AP", baseline=np.int64(3)).attrs["baseline"] == "dense"


def test_baseline_as_an_index_into_the_per_topic_frames_runs():
    frame = reeval.evaluate(QRELS, RUNS, ["AP"], per_topic=True)
    assert set(reeval.compare_runs(frame, baseline=1).run_b) == {"rm3"}
    assert set(reeval.compare_runs(frame, ["dense", "bm25"], baseline=0).run_b) == {"dense"}  # the runs picked


def test_a_run_named_0_is_the_string_and_the_int_is_an_index():
    runs = runs_named(["1", "0", "2"])
    assert reeval.compare_runs(QRELS, runs, "AP", baseline="0").attrs["baseline"] == "0"
    assert reeval.compare_runs(QRELS, runs, "AP", baseline=0).attrs["baseline"] == "1"


@pytest.mark.parametrize("baseline, message", [
    (4, r"baseline 4 is not an index of the 4 runs given \(0 to 3\): bm25, rm3, monot5, dense"),
    (-1, r"baseline -1 is not an index of the 4 runs given \(0 to 3\)"),
    (True, r"baseline must be a run's name \(a str\) or its index \(an int\); got True"),
    (1.0, r"baseline must be a run's name \(a str\) or its index \(an int\); got 1.0"),
    ("BM25", r"baseline 'BM25' is not one of the runs: bm25, rm3, monot5, dense"),
])
def test_a_baseline_out_of_range_or_of_another_type_is_refused_naming_the_runs(baseline, message):
    with pytest.raises(reeval.InputError, match=message):
        reeval.compare_runs(QRELS, RUNS, "AP", baseline=baseline)


@pytest.mark.parametrize("method", ["fdr_bh", "holm", "bonferroni"])
@pytest.mark.parametrize("baseline", [None, 0])
def test_statsmodels_corrections_equal_multipletests_on_the_same_p_values(method, baseline):
    multipletests = pytest.importorskip("statsmodels.stats.multitest").multipletests
    rows = reeval.compare_runs(QRELS, RUNS, ["AP", "P@2"], tests=["t", "wilcoxon", "sign"], correction=method,
                               baseline=baseline)
    assert len(rows) == 2 * 3 * (3 if baseline == 0 else 6)
    for (measure, test), family in rows.groupby(["measure", "test"]):
        expected = multipletests(family.p_value.to_numpy(), method=method)[1]
        np.testing.assert_allclose(family.p_adjusted.to_numpy(), expected, rtol=1e-12, atol=0)
    assert rows.p_adjusted.nunique() > 3   # p-values that differ, so that the order matters


def test_fdr_bh_is_reeval_s_bh_and_none_is_no_correction():
    fdr = reeval.compare_runs(QRELS, RUNS, "AP", correction="fdr_bh")
    pd.testing.assert_frame_equal(fdr, reeval.compare_runs(QRELS, RUNS, "AP", correction="bh"))
    assert fdr.attrs["correction"] == "bh" and "Benjamini-Hochberg-adjusted" in fdr.report()
    unadjusted = reeval.compare_runs(QRELS, RUNS, "AP", correction=None)
    assert unadjusted.attrs["correction"] == "none" and (unadjusted.p_adjusted == unadjusted.p_value).all()


@pytest.mark.parametrize("method", ["sidak", "holm-sidak", "fdr_by", "hs", "fdr_tsbh"])
def test_statsmodels_corrections_reeval_does_not_offer_are_refused_naming_those_it_does(method):
    with pytest.raises(reeval.InputError, match=r"correction must be one of holm, bonferroni, bh, none "
                                                r"\(statsmodels' names: holm, bonferroni, fdr_bh; None: none\)"):
        reeval.compare_runs(QRELS, RUNS, "AP", correction=method)


def test_test_is_pyterrier_s_name_of_tests_one_name_or_a_list():
    one = reeval.compare_runs(QRELS, RUNS, "AP", test="wilcoxon")
    pd.testing.assert_frame_equal(one, reeval.compare_runs(QRELS, RUNS, "AP", tests="wilcoxon"))
    several = reeval.compare_runs(QRELS, RUNS, "AP", test=["t", "sign"])
    pd.testing.assert_frame_equal(several, reeval.compare_runs(QRELS, RUNS, "AP", tests=["t", "sign"]))
    assert list(reeval.compare_runs(QRELS, RUNS, "AP").test.unique()) == ["t"]   # neither: the t-test


def test_tests_and_test_together_or_a_test_function_are_refused():
    from scipy.stats import ttest_rel

    with pytest.raises(reeval.InputError, match=r"give tests= or test= \(PyTerrier's name\), not both"):
        reeval.compare_runs(QRELS, RUNS, "AP", tests="t", test="t")
    with pytest.raises(reeval.InputError, match="not a function"):
        reeval.compare_runs(QRELS, RUNS, "AP", test=ttest_rel)


def test_eval_metrics_is_pyterrier_s_name_of_measures_with_ir_measures_objects():
    ir_measures = pytest.importorskip("ir_measures")
    named = reeval.compare_runs(QRELS, RUNS, eval_metrics=[ir_measures.AP, ir_measures.nDCG @ 3])
    pd.testing.assert_frame_equal(named, reeval.compare_runs(QRELS, RUNS, ["AP", "nDCG@3"]))
    with pytest.raises(reeval.InputError, match=r"give measures= or eval_metrics= \(PyTerrier's name\), not both"):
        reeval.compare_runs(QRELS, RUNS, "AP", eval_metrics=["AP"])


def test_a_pyterrier_experiment_call_runs_as_written():
    rows = reeval.compare_runs(QRELS, RUNS, eval_metrics=["map", "P@2"], baseline=0, test="t", correction="fdr_bh")
    assert list(rows.run_a.unique()) == ["rm3", "monot5", "dense"] and set(rows.run_b) == {"bm25"}
    assert rows.report().splitlines()[1].split()[:2] == ["bm25", "(baseline)"]


@pytest.mark.parametrize("argument", ["names", "round", "highlight", "correction_alpha", "perquery", "topics"])
def test_pyterrier_arguments_whose_meaning_differs_are_refused(argument):
    with pytest.raises(TypeError, match=f"unexpected keyword argument '{argument}'"):
        reeval.compare_runs(QRELS, RUNS, "AP", **{argument: 2})


def test_compare_of_two_runs_takes_the_same_pyterrier_names_and_ties_as_compare_runs():
    """``reeval.compare`` (two runs) accepted neither ``test=`` nor ``eval_metrics=`` nor
    ``ties=``, which ``compare_runs`` takes."""
    a, b = RUNS["bm25"], RUNS["rm3"]
    ours = reeval.compare(QRELS, a, b, measures=["AP", "P@2"], tests=["t", "wilcoxon"])
    theirs = reeval.compare(QRELS, a, b, eval_metrics=["AP", "P@2"], test=["t", "wilcoxon"])
    pd.testing.assert_frame_equal(ours, theirs)
    assert list(reeval.compare(QRELS, a, b).measure) == ["map"]           # defaults unchanged
    assert list(reeval.compare(QRELS, a, b).test) == ["t"]
    tied = reeval.compare(QRELS, a, b, "RR@1", ties="ir_measures")
    pairs = reeval.compare_runs(QRELS, {"bm25": a, "rm3": b}, "RR@1", ties="ir_measures")
    assert tied.mean_a.iloc[0] == pairs.mean_a.iloc[0] and tied.p_value.iloc[0] == pairs.p_value.iloc[0]
    with pytest.raises(reeval.InputError, match=r"give tests= or test= \(PyTerrier's name\), not both"):
        reeval.compare(QRELS, a, b, tests="t", test="t")
    with pytest.raises(reeval.InputError, match=r"give measures= or eval_metrics="):
        reeval.compare(QRELS, a, b, "AP", eval_metrics="AP")
