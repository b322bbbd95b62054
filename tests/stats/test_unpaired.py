"""One-sample and unpaired two-sample tests (reeval.stats.unpaired) against scipy and,
for the pooled bootstrap, against the lecture notes' algorithm written as a loop."""

import numpy as np
import pytest
from scipy import stats

from reeval.errors import InputError
from reeval.stats import one_sample_test, sign_test, two_sample_test
from reeval.stats.paired import paired_test

ALTS = ("two-sided", "greater", "less")
RNG = np.random.default_rng(11)
X = RNG.normal(0.4, 0.1, 12)
Y = RNG.normal(0.33, 0.15, 9)


@pytest.mark.parametrize("alternative", ALTS)
def test_one_sample_t_and_wilcoxon_are_scipy_s(alternative):
    t = one_sample_test(X, 0.35, "t", alternative)
    ref = stats.ttest_1samp(X, 0.35, alternative=alternative)
    assert (t["statistic"], t["p_value"]) == (pytest.approx(ref.statistic, rel=1e-12), pytest.approx(ref.pvalue,
                                                                                                       rel=1e-9))
    w = one_sample_test(X, 0.35, "wilcoxon", alternative)
    assert w["p_value"] == pytest.approx(stats.wilcoxon(X - 0.35, alternative=alternative).pvalue, rel=1e-9)


@pytest.mark.parametrize("test", ("t", "wilcoxon", "bootstrap"))
def test_a_one_sample_test_is_the_paired_test_of_the_differences(test):
    """x against mu is the paired test of x and a run scoring mu on every topic."""
    one = one_sample_test(X, 0.35, test, "greater", seed=3, n_resamples=999)
    paired = paired_test(X, np.full(X.size, 0.35), test, "greater", seed=3, n_resamples=999)
    assert one["p_value"] == pytest.approx(paired["p_value"], rel=1e-12)
    assert one["diff"] == pytest.approx(X.mean() - 0.35)


@pytest.mark.parametrize("alternative", ALTS)
@pytest.mark.parametrize("equal_var", (False, True))
def test_two_sample_t_is_welch_or_student(alternative, equal_var):
    got = two_sample_test(X, Y, "t", alternative, equal_var=equal_var)
    ref = stats.ttest_ind(X, Y, equal_var=equal_var, alternative=alternative)
    assert got["p_value"] == pytest.approx(ref.pvalue, rel=1e-12) and (got["n_x"], got["n_y"]) == (12, 9)


@pytest.mark.parametrize("alternative", ALTS)
def test_rank_sum_is_mann_whitney(alternative):
    got = two_sample_test(X, Y, "rank_sum", alternative)
    ref = stats.mannwhitneyu(X, Y, alternative=alternative)
    assert (got["statistic"], got["p_value"]) == (ref.statistic, pytest.approx(ref.pvalue, rel=1e-12))


def notes_bootstrap(x, y, alternative, seed, B):
    """The lecture notes' two-sample bootstrap, one resample at a time: pool, draw n + m
    with replacement, the first n are x*; p = (1 + #{theta* as extreme}) / (1 + B)."""
    rng = np.random.default_rng(seed)
    pooled, n = np.concatenate([x, y]), len(x)
    theta, count = np.mean(x) - np.mean(y), 0
    for _ in range(B):
        draw = pooled[rng.integers(0, len(pooled), len(pooled))]
        star = draw[:n].mean() - draw[n:].mean()
        count += {"greater": star >= theta, "less": star <= theta, "two-sided": abs(star) >= abs(theta)}[alternative]
    return (1 + count) / (1 + B)


@pytest.mark.parametrize("alternative", ALTS)
def test_the_pooled_bootstrap_is_the_notes_algorithm(alternative):
    got = two_sample_test(X, Y, "bootstrap", alternative, seed=5, n_resamples=400)
    assert got["p_value"] == notes_bootstrap(X, Y, alternative, 5, 400)
    assert got["statistic"] == pytest.approx(X.mean() - Y.mean())


def test_the_pooled_bootstrap_separates_far_samples_and_not_equal_ones():
    far = two_sample_test(X + 1, Y, "bootstrap", "greater", n_resamples=2000)
    same = two_sample_test(X, X[::-1], "bootstrap", n_resamples=2000)
    assert far["p_value"] == 1 / 2001 and same["p_value"] > 0.9


def test_bad_input_is_refused_with_a_message():
    with pytest.raises(InputError, match="finite"):
        two_sample_test([0.1, np.nan], [0.2, 0.3])
    with pytest.raises(InputError, match="1-D"):
        one_sample_test([[0.1, 0.2]])
    with pytest.raises(ValueError, match="test must be one of"):
        two_sample_test(X, Y, "wilcoxon")
    assert np.isnan(two_sample_test([0.1], [0.2, 0.3])["p_value"])


def test_the_notes_sign_test_convention_is_an_option():
    """Lecture notes: B better on 7 of 10 queries, one tie: "test statistic is 7, p-value
    = 0.17" (one-sided, the tie kept in n); the default drops the tie: 0.18 two-sided."""
    a = [25, 43, 39, 75, 43, 15, 20, 52, 49, 50]
    b = [35, 84, 15, 75, 68, 85, 80, 50, 58, 75]
    notes = sign_test(b, a, "greater", zero_method="keep")
    assert (notes["statistic"], round(notes["p_value"], 2)) == (7, 0.17)
    assert round(sign_test(b, a)["p_value"], 2) == 0.18
    assert paired_test(b, a, "sign", "greater", zero_method="keep")["p_value"] == notes["p_value"]
