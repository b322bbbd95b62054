"""Every pair under every test (reeval.stats.comparisons): each pair's p-value is the
two-run test's, chunking changes nothing, the public names import, and the stats accept
reeval.evaluate's frames."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.stats as st

from reeval.errors import InputError
from reeval.stats import comparisons, paired, resampling

ALTS = ("two-sided", "greater", "less")


def _track(seed=0, S=5, T=18, discrete=False):
    rng = np.random.default_rng(seed)
    X = np.clip(rng.uniform(0.1, 0.7, T)[None, :] + np.linspace(0, 0.2, S)[:, None]
                + rng.normal(0, 0.15, (S, T)), 0, 1)
    if discrete:   # P@10-like values: ties and zero differences
        X = np.round(X * 10) / 10
    X[1] = X[0]    # two identical runs
    return X


@pytest.mark.parametrize("test", ["t", "wilcoxon", "sign", "permutation", "bootstrap"])
@pytest.mark.parametrize("alternative", ALTS)
def test_every_pair_gets_the_two_run_tests_p_value(test, alternative):
    X = _track(1, discrete=True)
    table = comparisons.all_pairs_tests(X, tests=[test], alternative=alternative, seed=3, resamples=500,
                                        correction="none")
    ii, jj = np.triu_indices(5, 1)
    expected = [paired.paired_test(X[i], X[j], test, alternative, seed=3, n_resamples=500)["p_value"]
                for i, j in zip(ii, jj)]
    np.testing.assert_allclose(table.p_value, expected, rtol=1e-12, atol=1e-15)
    assert (table.p_adjusted == table.p_value).all()
    d = X[ii] - X[jj]
    np.testing.assert_allclose(table["diff"], d.mean(axis=1), atol=1e-15)


def test_chunking_the_pairs_changes_no_p_value(monkeypatch):
    X = _track(2, S=7, T=30)
    whole = comparisons.all_pairs_tests(X, tests=["permutation", "bootstrap", "wilcoxon"], resamples=300)
    monkeypatch.setattr(comparisons, "PAIR_CHUNK_CELLS", 400)
    monkeypatch.setattr(resampling, "RESAMPLE_CHUNK_CELLS", 1000)
    chunked = comparisons.all_pairs_tests(X, tests=["permutation", "bootstrap", "wilcoxon"], resamples=300)
    np.testing.assert_allclose(chunked.p_value, whole.p_value, rtol=1e-12)


def test_exact_permutation_with_few_non_zero_differences_matches_scipy():
    rng = np.random.default_rng(4)
    X = np.zeros((4, 12))
    X[0, :5] = rng.normal(0.2, 0.3, 5)       # pairs with 5 to 12 non-zero differences
    X[2] = rng.normal(0, 0.3, 12)
    X[3, :8] = rng.normal(0.1, 0.3, 8)
    table = comparisons.all_pairs_tests(X, tests=["permutation"], correction="none")
    ii, jj = np.triu_indices(4, 1)
    for k, (i, j) in enumerate(zip(ii, jj)):
        ref = st.permutation_test((X[i], X[j]), lambda a, b, axis: np.mean(a - b, axis=axis),
                                  permutation_type="samples", n_resamples=np.inf, vectorized=True)
        assert table.p_value[k] == pytest.approx(ref.pvalue, rel=1e-9)


def test_tukey_rows_are_the_procedures_own_and_not_adjusted_again():
    from reeval.stats import randomised_tukey_hsd, tukey_hsd

    X = _track(3)
    table = comparisons.all_pairs_tests(X, tests=["tukey_hsd", "randomised_tukey_hsd"], resamples=400, seed=2)
    np.testing.assert_allclose(table.p_value[:10], tukey_hsd(X).p_value)
    np.testing.assert_array_equal(table.p_value[10:], randomised_tukey_hsd(X, resamples=400, seed=2).p_value)
    assert (table.p_adjusted == table.p_value).all()
    with pytest.raises(InputError, match="two-sided"):
        comparisons.all_pairs_tests(X, tests=["tukey_hsd"], alternative="greater")


def test_a_baseline_compares_every_other_run_with_it_and_corrects_over_those_pairs():
    from reeval.stats import holm, tukey_hsd

    X = _track(4)
    runs = ["a", "b", "c", "d", "e"]
    table = comparisons.all_pairs_tests(X, runs=runs, tests=["t", "tukey_hsd"], baseline="c")
    t = table[table.test == "t"]
    assert list(t.run_a) == ["a", "b", "d", "e"] and set(t.run_b) == {"c"}
    expected = [st.ttest_rel(X[k], X[2]).pvalue for k in (0, 1, 3, 4)]
    np.testing.assert_allclose(t.p_value, expected, rtol=1e-12)
    np.testing.assert_allclose(t.p_adjusted, holm(np.array(expected)), rtol=1e-12)
    np.testing.assert_allclose(t["diff"], X[[0, 1, 3, 4]].mean(axis=1) - X[2].mean())
    full = tukey_hsd(X, runs=runs).set_index(["run_i", "run_j"]).p_value
    hsd = table[table.test == "tukey_hsd"]
    assert hsd.p_value.tolist() == [full["a", "c"], full["b", "c"], full["c", "d"], full["c", "e"]]
    with pytest.raises(InputError, match="baseline 'z'"):
        comparisons.all_pairs_tests(X, runs=runs, baseline="z")


def test_bad_choices_are_one_line_input_errors():
    X = _track(5)
    with pytest.raises(InputError, match="tests must be among"):
        comparisons.all_pairs_tests(X, tests=["anova"])
    with pytest.raises(InputError, match="correction must be one of"):
        comparisons.all_pairs_tests(X, correction="sidak")
    with pytest.raises(InputError, match="alpha"):
        comparisons.discriminative_power(X, alpha=5)


def test_discriminative_power_per_measure_of_a_per_topic_frame():
    X, Y = _track(6), _track(7)
    runs, topics = [f"r{s}" for s in range(5)], [f"q{t}" for t in range(18)]
    index = pd.MultiIndex.from_product([runs, topics], names=["run", "query_id"])
    frame = pd.DataFrame({"AP": X.ravel(), "P@10": Y.ravel()}, index=index)
    power = comparisons.discriminative_power(frame, test="t", correction="bonferroni")
    assert list(power.measure) == ["AP", "P@10"] and (power.n_pairs == 10).all()
    table = comparisons.all_pairs_tests(X, tests=["t"], correction="bonferroni")
    assert power.n_significant[0] == (table.p_adjusted < 0.05).sum()
    assert power.percent[0] == pytest.approx(10 * power.n_significant[0])
    one = comparisons.discriminative_power(X, resamples=300)
    assert one.measure[0] is None and one.test[0] == "randomised_tukey_hsd"


def test_the_public_names_import_from_reeval_stats():
    import reeval.stats
    from reeval.stats import holm, tukey_hsd

    assert tukey_hsd is reeval.stats.allpairs.tukey_hsd and list(holm([0.01, 0.04])) == [0.02, 0.04]
    for name in ("paired_t", "wilcoxon_test", "sign_test", "permutation_test", "bootstrap_test", "p_adjust",
                 "bonferroni", "benjamini_hochberg", "randomised_tukey_hsd", "randomised_tukey_hsd_preferences",
                 "all_pairs_tests", "discriminative_power", "kendall_tau", "tau_ap"):
        assert callable(getattr(reeval.stats, name)) and name in reeval.stats.__all__
    assert all(getattr(reeval.stats, name) is not None for name in reeval.stats.__all__)
    assert "tukey_hsd" in dir(reeval.stats)
    with pytest.raises(AttributeError):
        reeval.stats.nope  # noqa: B018


def test_stats_take_evaluates_frames():
    from reeval.stats import holm, kendall_tau, paired_t, tau_ap, tukey_hsd

    X = _track(8)
    runs, topics = [f"r{s}" for s in range(5)], [f"q{t}" for t in range(18)]
    by_topic = pd.DataFrame({"AP": X.ravel()}, index=pd.MultiIndex.from_product([runs, topics],
                                                                                names=["run", "query_id"]))
    assert tukey_hsd(by_topic).equals(tukey_hsd(X, runs=runs))
    # one run's topics, aligned by query_id whatever their order
    a, b = by_topic.loc["r0", "AP"], by_topic.loc["r3", "AP"].iloc[::-1]
    assert paired_t(a, b) == paired_t(X[0], X[3])
    with pytest.raises(InputError, match="same labels"):
        paired_t(a, b.iloc[1:])
    per_run = by_topic.groupby(level="run").AP.mean()
    other = per_run.iloc[::-1] * 2
    assert kendall_tau(per_run, other) == pytest.approx(1.0)
    assert tau_ap(per_run, other) == pytest.approx(1.0)
    adjusted = holm(pd.Series([0.01, 0.04], index=["x", "y"]))
    assert list(adjusted.index) == ["x", "y"] and adjusted["x"] == pytest.approx(0.02)
    # ASL-like: a topic no run has a value for is dropped; one only some runs have is refused
    asl = by_topic.copy()
    asl.loc[(slice(None), "q0"), "AP"] = np.nan
    assert tukey_hsd(asl).equals(tukey_hsd(X[:, 1:], runs=runs))
    asl.loc[("r0", "q1"), "AP"] = np.nan
    with pytest.raises(InputError, match="topic 'q1' has values for some runs only"):
        tukey_hsd(asl)


@pytest.mark.parametrize("alternative", ALTS)
def test_each_interval_is_labelled_with_the_method_that_produced_it(alternative):
    X = _track(9)
    tests = ["t", "wilcoxon", "sign", "permutation", "bootstrap"]
    table = comparisons.all_pairs_tests(X, tests=tests, alternative=alternative, resamples=400)
    ii, jj = np.triu_indices(5, 1)
    for test, method in zip(tests, ["t", "", "", "", "bootstrap percentile"]):
        rows = table[table.test == test]
        assert (rows.ci_method == method).all()
        if not method:
            assert rows.ci_low.isna().all() and rows.ci_high.isna().all()
            continue
        for k, (i, j) in enumerate(zip(ii, jj)):
            ref = paired.paired_test(X[i], X[j], test, alternative, n_resamples=400)
            assert rows.ci_low.iloc[k] == pytest.approx(ref["ci_low"], rel=1e-12)
            assert rows.ci_high.iloc[k] == pytest.approx(ref["ci_high"], rel=1e-12)


def test_tukey_intervals_follow_the_pair_orientation():
    from reeval.stats import tukey_hsd

    X = _track(10)
    runs = list("abcde")
    full = tukey_hsd(X, runs=runs).set_index(["run_i", "run_j"])
    table = comparisons.all_pairs_tests(X, runs=runs, tests=["tukey_hsd"], baseline="b").set_index("run_a")
    assert (table.ci_method == "Tukey simultaneous").all()
    assert table.loc["a", "ci_low"] == full.loc[("a", "b"), "ci_low"]
    assert table.loc["e", "ci_low"] == -full.loc[("b", "e"), "ci_high"]
    assert table.loc["e", "ci_low"] <= table.loc["e", "diff"] <= table.loc["e", "ci_high"]
