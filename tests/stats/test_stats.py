"""Tests of reeval.stats against scipy, statsmodels, pytrec_eval and worked examples."""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys
import tracemalloc

import numpy as np
import pandas as pd
import pytest
import scipy.stats as st

from reeval.stats import resampling as resampling
from reeval.stats import paired as paired
from reeval.stats import multiple as multiple
from reeval.stats import correlation as correlation
from reeval.stats import allpairs as allpairs

ALTS = ("two-sided", "greater", "less")
SEEDS = (0, 1, 2, 3)


def _pair(seed, n=25, shift=0.05):
    """Two correlated per-topic score vectors in [0, 1] with a small true difference."""
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.1, 0.8, n)
    x = np.clip(base + rng.normal(shift, 0.1, n), 0, 1)
    y = np.clip(base + rng.normal(0, 0.1, n), 0, 1)
    return x, y


def test_result_has_the_cli_keys():
    x, y = _pair(0)
    for test in paired.PAIRED_TESTS:
        res = paired.paired_test(x, y, test=test)
        assert list(res) == ["mean_a", "mean_b", "diff", "statistic", "p_value", "ci_low",
                             "ci_high", "effect_size", "n"]
        assert res["n"] == 25
        assert res["mean_a"] == pytest.approx(x.mean())
        assert res["mean_b"] == pytest.approx(y.mean())
        assert res["diff"] == pytest.approx(x.mean() - y.mean())
        d = x - y
        assert res["effect_size"] == pytest.approx(d.mean() / d.std(ddof=1))


# ------------------------------------------------------------ paired t-test

@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("alternative", ALTS)
def test_paired_t_matches_scipy(seed, alternative):
    x, y = _pair(seed, n=20 + seed)
    ref = st.ttest_rel(x, y, alternative=alternative)
    ci = ref.confidence_interval(0.9)
    res = paired.paired_test(x, y, "t", alternative, confidence=0.9)
    assert res["statistic"] == pytest.approx(ref.statistic, rel=1e-12)
    assert res["p_value"] == pytest.approx(ref.pvalue, rel=1e-10)
    assert res["ci_low"] == pytest.approx(ci.low, rel=1e-12)
    assert res["ci_high"] == pytest.approx(ci.high, rel=1e-12)


# ------------------------------------------------------------ Wilcoxon

@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("alternative", ALTS)
@pytest.mark.parametrize("n", [9, 30, 50, 80])
def test_wilcoxon_matches_scipy_untied(seed, alternative, n):
    # n <= 50: both exact; n = 80: both normal approximation without continuity correction
    x, y = _pair(seed, n=n)
    ref = st.wilcoxon(x, y, alternative=alternative)
    res = paired.paired_test(x, y, "wilcoxon", alternative)
    assert res["p_value"] == pytest.approx(ref.pvalue, rel=1e-9)
    d = x - y
    m = np.count_nonzero(d)
    w_plus = (res["statistic"] + m * (m + 1) / 2) / 2
    w_minus = m * (m + 1) / 2 - w_plus
    expected_stat = min(w_plus, w_minus) if alternative == "two-sided" else w_plus
    assert expected_stat == pytest.approx(ref.statistic)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("alternative", ALTS)
def test_wilcoxon_ties_and_zeros_match_scipy_permutation(seed, alternative):
    # scipy switches to an exact permutation test for n <= 13 with ties or zeros; ours is
    # the exact conditional distribution too (zeros dropped, mid-ranks)
    rng = np.random.default_rng(100 + seed)
    x = rng.integers(0, 6, 12).astype(float)
    y = rng.integers(0, 6, 12).astype(float)
    assert np.any(x == y)
    ref = st.wilcoxon(x, y, alternative=alternative)
    res = paired.paired_test(x, y, "wilcoxon", alternative)
    assert res["p_value"] == pytest.approx(ref.pvalue, rel=1e-12)


@pytest.mark.parametrize("alternative", ALTS)
def test_wilcoxon_normal_with_ties_matches_scipy_asymptotic(alternative):
    rng = np.random.default_rng(7)
    x = rng.integers(0, 20, 90).astype(float)
    y = rng.integers(0, 20, 90).astype(float)
    ref = st.wilcoxon(x, y, alternative=alternative, method="asymptotic")
    res = paired.wilcoxon_test(x, y, alternative, method="normal")
    assert res["p_value"] == pytest.approx(ref.pvalue, rel=1e-10)


# ------------------------------------------------------------ sign test

@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("alternative", ALTS)
def test_sign_test_matches_binomtest(seed, alternative):
    rng = np.random.default_rng(200 + seed)
    x = rng.integers(0, 4, 30).astype(float)
    y = rng.integers(0, 4, 30).astype(float)
    d = x - y
    k, n = int((d > 0).sum()), int((d != 0).sum())  # zeros dropped
    ref = st.binomtest(k, n, 0.5, alternative=alternative)
    res = paired.paired_test(x, y, "sign", alternative)
    assert res["statistic"] == k
    assert res["p_value"] == pytest.approx(ref.pvalue, rel=1e-12)
    keep = paired.sign_test(x, y, alternative, zero_method="keep")
    assert keep["p_value"] == pytest.approx(
        st.binomtest(k, 30, 0.5, alternative=alternative).pvalue, rel=1e-12)


# ------------------------------------------------------------ permutation test

def _scipy_paired_permutation(x, y, alternative, n_resamples=np.inf, seed=None):
    return st.permutation_test(
        (x, y), lambda a, b, axis: np.mean(a - b, axis=axis), permutation_type="samples",
        vectorized=True, n_resamples=n_resamples, alternative=alternative,
        rng=None if seed is None else np.random.default_rng(seed))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("alternative", ALTS)
def test_permutation_exact_matches_scipy(seed, alternative):
    x, y = _pair(seed, n=12)
    ref = _scipy_paired_permutation(x, y, alternative)  # 2^12 arrangements, exact
    res = paired.paired_test(x, y, "permutation", alternative)
    assert res["statistic"] == pytest.approx(ref.statistic)
    assert res["p_value"] == pytest.approx(ref.pvalue, rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("alternative", ALTS)
def test_permutation_monte_carlo_close_to_exact_and_scipy(seed, alternative):
    x, y = _pair(seed, n=14, shift=0.03)
    exact = resampling.permutation_test(x, y, alternative)["p_value"]
    mc = resampling.permutation_test(x, y, alternative, seed=seed, n_resamples=20000,
                            exact_max=0)["p_value"]
    ref = _scipy_paired_permutation(x, y, alternative, n_resamples=20000, seed=seed).pvalue
    # Monte Carlo standard error is at most 0.5 / sqrt(20000) = 0.0035
    assert abs(mc - exact) < 0.015
    assert abs(mc - ref) < 0.02


def test_permutation_monte_carlo_large_n_matches_scipy():
    x, y = _pair(5, n=60, shift=0.02)
    for alternative in ALTS:
        mine = paired.paired_test(x, y, "permutation", alternative, seed=1, n_resamples=20000)
        ref = _scipy_paired_permutation(x, y, alternative, n_resamples=20000, seed=2)
        assert abs(mine["p_value"] - ref.pvalue) < 0.02


# ------------------------------------------------------------ bootstrap test

@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("alternative", ALTS)
def test_bootstrap_ci_matches_scipy_and_p_matches_reference_loop(seed, alternative):
    x, y = _pair(seed, n=30, shift=0.03)
    d = x - y
    B = 2000
    res = paired.paired_test(x, y, "bootstrap", alternative, seed=seed, n_resamples=B,
                        confidence=0.9)
    ref = st.bootstrap((d,), np.mean, n_resamples=B, method="percentile",
                       confidence_level=0.9, alternative=alternative, vectorized=True,
                       rng=np.random.default_rng(seed))
    # same generator, same draws: the percentile interval is identical
    assert res["ci_low"] == pytest.approx(ref.confidence_interval.low, rel=1e-12)
    assert res["ci_high"] == pytest.approx(ref.confidence_interval.high, rel=1e-12)
    # p-value from a plain loop over resamples of the shifted differences (studentized)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, d.size, (B, d.size))
    z = d - d.mean()
    t_obs = d.mean() / (d.std(ddof=1) / math.sqrt(d.size))
    count = 0
    for row in idx:
        zs = z[row]
        t_star = zs.mean() / (zs.std(ddof=1) / math.sqrt(d.size))
        if alternative == "greater":
            count += t_star >= t_obs
        elif alternative == "less":
            count += t_star <= t_obs
        else:
            count += abs(t_star) >= abs(t_obs)
    assert res["p_value"] == pytest.approx((count + 1) / (B + 1), rel=1e-12)
    assert res["statistic"] == pytest.approx(st.ttest_rel(x, y).statistic)


def test_bootstrap_p_close_to_t_test_on_normal_data():
    rng = np.random.default_rng(3)
    d = rng.normal(0.3, 1.0, 40)
    boot = resampling.bootstrap_test(d, np.zeros(40), "two-sided", n_resamples=20000)["p_value"]
    assert boot == pytest.approx(st.ttest_1samp(d, 0).pvalue, abs=0.02)


# ------------------------------------------------------------ determinism

def _seeded_pvalues():
    x, y = _pair(11, n=40, shift=0.02)
    return [paired.paired_test(x, y, test, alt, seed=42, n_resamples=3000)["p_value"]
            for test in ("permutation", "bootstrap") for alt in ALTS]


def test_seeded_tests_are_deterministic_across_calls_and_processes():
    first = _seeded_pvalues()
    assert _seeded_pvalues() == first
    # a different seed gives different Monte Carlo p-values (the seed is used)
    x, y = _pair(11, n=40, shift=0.02)
    other = paired.paired_test(x, y, "permutation", seed=43, n_resamples=3000)["p_value"]
    assert other != first[0]
    code = (
        "import json, numpy as np\n"
        "from reeval.stats import paired\n"
        "rng = np.random.default_rng(11)\n"
        "base = rng.uniform(0.1, 0.8, 40)\n"
        "x = np.clip(base + rng.normal(0.02, 0.1, 40), 0, 1)\n"
        "y = np.clip(base + rng.normal(0, 0.1, 40), 0, 1)\n"
        "print(json.dumps([paired.paired_test(x, y, t, a, seed=42, n_resamples=3000)['p_value']"
        " for t in ('permutation', 'bootstrap')"
        " for a in ('two-sided', 'greater', 'less')]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={"PYTHONHASHSEED": "123", "PATH": ""})
    assert json.loads(out.stdout) == first


# ------------------------------------------------------------ lecture-notes example

# ../shared/papers/ir-evaluation-lecture-notes.txt, "Example Experimental Results":
# ten queries, B - A = 10, 41, -24, 0, 25, 70, 60, -2, 9, 25. H1: B better than A, so
# x = B, y = A and alternative="greater" (all the notes' p-values are one-sided).
NOTES_A = np.array([25, 43, 39, 75, 43, 15, 20, 52, 49, 50], dtype=float)
NOTES_B = np.array([35, 84, 15, 75, 68, 85, 80, 50, 58, 75], dtype=float)


def test_lecture_notes_t_test():
    d = NOTES_B - NOTES_A
    assert round(d.mean(), 1) == 21.4
    assert round(d.std(ddof=1), 1) == 29.1  # sigma in the notes is the sample sd
    res = paired.paired_test(NOTES_B, NOTES_A, "t", "greater")
    assert round(res["statistic"], 2) == 2.33
    assert round(res["p_value"], 2) == 0.02  # 0.0225, one-sided, 9 df


def test_lecture_notes_wilcoxon():
    # The zero difference (query 4) is dropped: 9 non-zero differences, mid-rank 5.5 for
    # the two 25s, w = sum of signed ranks = 40 - 5 = 35 as in the notes.
    res = paired.paired_test(NOTES_B, NOTES_A, "wilcoxon", "greater")
    assert res["statistic"] == 35
    # The notes' "p-value = 0.025" is read from a critical-value table: for N = 9 the
    # one-sided critical value at alpha = 0.025 is W- <= 5 (and at 0.01 it is W- <= 3),
    # and here W- = 5, so the table gives p <= 0.025. The exact probability is smaller:
    # P(W- <= 5) = 10/512 = 0.0195 under the untied null (scipy method="exact"), and
    # 9/512 = 0.0176 under the exact null given the tied mid-ranks (what we report).
    assert 0.01 < res["p_value"] <= 0.025
    assert res["p_value"] == pytest.approx(9 / 512, rel=1e-12)
    assert st.wilcoxon(NOTES_B, NOTES_A, alternative="greater",
                       method="exact").pvalue == pytest.approx(10 / 512)


def test_lecture_notes_sign_test():
    # 7 of the 10 queries favour B. The notes' p = 0.17 is P(K >= 7) for K ~ Bin(10, 1/2)
    # = 176/1024 = 0.172: the tied query 4 stays in n and counts as "B not better"
    # (zero_method="keep"). The usual sign test drops the tie (the default): 7 of 9,
    # p = 46/512 = 0.090.
    keep = paired.sign_test(NOTES_B, NOTES_A, "greater", zero_method="keep")
    assert keep["statistic"] == 7
    assert round(keep["p_value"], 2) == 0.17
    drop = paired.paired_test(NOTES_B, NOTES_A, "sign", "greater")
    assert drop["p_value"] == pytest.approx(46 / 512)


# ------------------------------------------------------------ edge cases

def test_identical_runs_give_p_one():
    x = np.array([0.1, 0.5, 0.3, 0.9])
    for test in paired.PAIRED_TESTS:
        for alt in ALTS:
            res = paired.paired_test(x, x.copy(), test, alt)
            assert res["p_value"] == 1.0, (test, alt)
            assert res["statistic"] == 0.0
            assert res["effect_size"] == 0.0


def test_one_sided_t_with_zero_mean_is_one_half():
    res = paired.paired_t([1.0, 2.0, 3.0], [2.0, 2.0, 2.0], "greater")
    assert res["statistic"] == 0.0 and res["p_value"] == pytest.approx(0.5)


def test_input_validation():
    with pytest.raises(ValueError):
        paired.paired_test([1, 2], [1, 2, 3])
    with pytest.raises(ValueError):
        paired.paired_test([1, 2], [1, np.nan])
    with pytest.raises(ValueError):
        paired.paired_test([1, 2], [1, 2], test="anova")
    with pytest.raises(ValueError):
        paired.paired_test([1, 2], [1, 2], alternative="bigger")
    res = paired.paired_test([1.0], [0.5], "t")
    assert math.isnan(res["p_value"]) and res["n"] == 1


# ------------------------------------------------------------ all pairs

@pytest.mark.parametrize("alternative", ALTS)
def test_all_pairs_ttest_equals_scipy_loop(alternative):
    rng = np.random.default_rng(5)
    scores = rng.uniform(0, 1, (9, 30)) + rng.normal(0, 0.05, (9, 1))
    names = [f"run{i}" for i in range(9)]
    # a tiny byte budget forces many chunks
    out = allpairs.all_pairs_ttest(scores, names, alternative, correction="holm", max_bytes=4000)
    assert len(out) == 36
    expected = []
    for i, j in itertools.combinations(range(9), 2):
        ref = st.ttest_rel(scores[i], scores[j], alternative=alternative)
        expected.append((names[i], names[j], ref.statistic, ref.pvalue))
    assert list(out["run_i"]) == [e[0] for e in expected]
    assert list(out["run_j"]) == [e[1] for e in expected]
    np.testing.assert_allclose(out["t"], [e[2] for e in expected], rtol=1e-12)
    np.testing.assert_allclose(out["p_value"], [e[3] for e in expected], rtol=1e-10)
    np.testing.assert_allclose(out["diff"], out["mean_i"] - out["mean_j"])
    np.testing.assert_allclose(out["p_adjusted"], multiple.holm(out["p_value"]))
    default = allpairs.all_pairs_ttest(scores, alternative=alternative)
    assert list(default["run_i"][:3]) == [0, 0, 0]
    np.testing.assert_array_equal(default["t"], out["t"])


def test_all_pairs_ttest_memory_is_bounded():
    rng = np.random.default_rng(0)
    scores = rng.uniform(0, 1, (500, 250))
    tracemalloc.start()
    try:
        out = allpairs.all_pairs_ttest(scores)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(out) == 500 * 499 // 2
    # all the differences at once would be 124,750 x 250 x 8 B = 250 MB
    assert peak < 150 * 2**20, peak
    ref = st.ttest_rel(scores[17], scores[402])
    row = out[(out.run_i == 17) & (out.run_j == 402)].iloc[0]
    assert row["t"] == pytest.approx(ref.statistic, rel=1e-12)


# ------------------------------------------------------------ Tukey HSD

@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tukey_hsd_matches_statsmodels_two_way_anova(seed):
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    rng = np.random.default_rng(seed)
    n_sys, n_top = 5, 12
    scores = (rng.uniform(0, 1, (1, n_top)) + rng.normal(0, 0.1, (n_sys, 1))
              + rng.normal(0, 0.1, (n_sys, n_top)))
    long = pd.DataFrame({
        "score": scores.ravel(),
        "system": np.repeat([f"s{i}" for i in range(n_sys)], n_top),
        "topic": np.tile([f"t{j}" for j in range(n_top)], n_sys),
    })
    fit = smf.ols("score ~ C(system) + C(topic)", data=long).fit()
    table = anova_lm(fit)
    mse = table.loc["Residual", "mean_sq"]
    df = table.loc["Residual", "df"]
    means = long.groupby("system")["score"].mean()
    out = allpairs.tukey_hsd(scores, [f"s{i}" for i in range(n_sys)])
    assert out.attrs["df"] == df == (n_sys - 1) * (n_top - 1)
    assert out.attrs["mse"] == pytest.approx(mse, rel=1e-10)
    assert len(out) == n_sys * (n_sys - 1) // 2
    for row in out.itertuples():
        q = abs(means[row.run_i] - means[row.run_j]) / math.sqrt(mse / n_top)
        assert row.q == pytest.approx(q, rel=1e-9)
        assert row.p_value == pytest.approx(
            st.studentized_range.sf(q, n_sys, df), rel=1e-6, abs=1e-12)
    q_crit = st.studentized_range.ppf(0.95, n_sys, df)
    np.testing.assert_allclose(out["ci_high"] - out["diff"], q_crit * math.sqrt(mse / n_top))


def test_one_way_tukey_hsd_matches_scipy():
    rng = np.random.default_rng(4)
    scores = rng.uniform(0, 1, (6, 9)) + np.linspace(0, 0.6, 6)[:, None] + rng.uniform(0, 2, (1, 9))
    out = allpairs.tukey_hsd(scores, design="oneway")
    ref = st.tukey_hsd(*scores)
    ii, jj = np.triu_indices(6, 1)
    assert out.attrs["df"] == 6 * 8
    np.testing.assert_allclose(out["p_value"], ref.pvalue[ii, jj], rtol=1e-6, atol=1e-10)
    # the topic effect (a constant per column) inflates the one-way error only
    blocked = allpairs.tukey_hsd(scores)
    assert out.attrs["mse"] > blocked.attrs["mse"]
    with pytest.raises(ValueError, match="design must be one of"):
        allpairs.tukey_hsd(scores, design="twoway")


def test_tukey_hsd_interpolated_p_close_to_exact():
    rng = np.random.default_rng(9)
    scores = rng.uniform(0, 1, (8, 10)) + np.linspace(0, 0.5, 8)[:, None]
    exact = allpairs.tukey_hsd(scores)
    approx = allpairs.tukey_hsd(scores, max_exact=0, grid_size=200)
    np.testing.assert_allclose(approx["q"], exact["q"])
    np.testing.assert_allclose(approx["p_value"], exact["p_value"], atol=1e-6)


# ------------------------------------------------------------ corrections

@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("method,sm_method", [("bonferroni", "bonferroni"),
                                              ("holm", "holm"), ("bh", "fdr_bh")])
def test_corrections_match_statsmodels(seed, method, sm_method):
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(seed)
    p = np.concatenate([rng.uniform(0, 1, 40), rng.uniform(0, 0.01, 10), [0.03, 0.03, 1.0]])
    rng.shuffle(p)
    ref = multipletests(p, method=sm_method)[1]
    np.testing.assert_allclose(multiple.p_adjust(p, method), ref, rtol=1e-12)
    # NaN stays NaN and does not count in m
    with_nan = np.insert(p, [3, 20], np.nan)
    adj = multiple.p_adjust(with_nan, method)
    assert np.isnan(adj[[3, 21]]).all()
    np.testing.assert_allclose(adj[~np.isnan(with_nan)], ref, rtol=1e-12)


def test_correction_names():
    p = [0.01, 0.04, 0.03]
    np.testing.assert_allclose(multiple.bonferroni(p), [0.03, 0.12, 0.09])
    np.testing.assert_allclose(multiple.holm(p), [0.03, 0.06, 0.06])
    np.testing.assert_allclose(multiple.benjamini_hochberg(p), [0.03, 0.04, 0.04])
    with pytest.raises(ValueError):
        multiple.p_adjust(p, "sidak")


# ------------------------------------------------------------ rank correlation

@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kendall_tau_matches_scipy(seed):
    rng = np.random.default_rng(seed)
    a = rng.uniform(0, 1, 30)
    b = a + rng.normal(0, 0.2, 30)
    b[:5] = np.round(b[:5], 1)  # some ties
    assert correlation.kendall_tau(a, b) == pytest.approx(st.kendalltau(a, b).statistic, rel=1e-12)


def _tau_ap_paper(reference, estimate):
    """Direct transcription of the paper's formula (no ties): positions in ``estimate``."""
    order = np.argsort(-np.asarray(estimate))
    n = len(order)
    total = 0.0
    for i in range(1, n):
        run = order[i]
        correct = sum(reference[order[j]] > reference[run] for j in range(i))
        total += correct / i
    return 2 / (n - 1) * total - 1


def test_tau_ap_hand_example():
    ref = [4, 3, 2, 1]  # A > B > C > D
    # swap at the top, estimate B > A > C > D: C(2) = 0, C(3) = 2, C(4) = 3
    # tau_AP = 2/3 (0/1 + 2/2 + 3/3) - 1 = 1/3 (Kendall tau is 2/3)
    assert correlation.tau_ap(ref, [3, 4, 2, 1]) == pytest.approx(1 / 3)
    # swap at the bottom, A > B > D > C: 2/3 (1 + 2/2 + 2/3) - 1 = 7/9
    assert correlation.tau_ap(ref, [4, 3, 1, 2]) == pytest.approx(7 / 9)
    assert correlation.kendall_tau(ref, [3, 4, 2, 1]) == pytest.approx(2 / 3)


def test_tau_ap_identity_reversal_and_paper_formula():
    rng = np.random.default_rng(4)
    a = rng.uniform(0, 1, 40)
    assert correlation.tau_ap(a, a) == pytest.approx(1.0)
    assert correlation.tau_ap(a, -a) == pytest.approx(-1.0)
    assert correlation.tau_ap(a, 2 * a + 1) == pytest.approx(1.0)  # only the order matters
    tied = np.round(a, 1)
    assert correlation.tau_ap(tied, tied) == pytest.approx(1.0)
    assert correlation.tau_ap(tied, -tied) == pytest.approx(-1.0)
    b = a + rng.normal(0, 0.3, 40)
    assert correlation.tau_ap(a, b, chunk_cells=100) == pytest.approx(_tau_ap_paper(a, b), rel=1e-12)
    assert correlation.tau_ap(a, b, symmetric=True) == pytest.approx(
        (_tau_ap_paper(a, b) + _tau_ap_paper(b, a)) / 2)
    # the no-ties example of the R package ircor's documentation: tauAP(x, y) = 0.3928571
    x = [0.67, 0.45, 0.29, 0.12, 0.57, 0.24, 0.94, 0.75, 0.08, 0.54]
    y = [0.48, 0.68, 0.32, 0.09, 0.06, 0.61, 0.87, 0.22, 0.44, 0.84]
    assert correlation.tau_ap(x, y) == pytest.approx(0.3928571, abs=1e-7)


@pytest.mark.parametrize("shape", [(3, 0), (0, 5), (1, 5)])
@pytest.mark.parametrize("design", ["blocked", "oneway"])
def test_tukey_hsd_without_topics_or_runs_warns_nothing(shape, design):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = allpairs.tukey_hsd(np.zeros(shape), design=design)
    S = shape[0]
    assert len(out) == S * (S - 1) // 2
    assert out["p_value"].isna().all()


@pytest.mark.parametrize("design", ["blocked", "oneway"])
def test_tukey_hsd_significant_is_the_tables_verdict_without_the_table(design):
    from reeval.stats.allpairs import tukey_hsd, tukey_hsd_significant

    rng = np.random.default_rng(4)
    X = rng.random((30, 8)) + np.linspace(0, 1, 30)[:, None]
    X[5] = X[4]                                   # a pair with q = 0
    for confidence in (0.95, 0.99):
        table = tukey_hsd(X, confidence=confidence, p_values=False, design=design)
        want = (table["q"] > table.attrs["q_crit"]).to_numpy()
        got = tukey_hsd_significant(X, confidence=confidence, design=design)
        assert got.dtype == bool and np.array_equal(got, want) and 0 < want.sum() < want.size
    assert not tukey_hsd_significant(X[:, :1]).any()   # one topic: df = 0
