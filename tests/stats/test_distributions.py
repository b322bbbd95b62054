"""reeval.stats.distributions: scipy.stats' values bit for bit, without importing scipy.stats;
kendall_tau's pairwise count: scipy's tau-b bit for bit, ties, infinities and signed zeros
included."""
import math
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from reeval.stats import correlation, distributions

DFS = [0.5, 1, 2, 3, 9, 49, 142, 1e6, np.inf]


def _grid():
    rng = np.random.default_rng(0)
    return np.concatenate([rng.normal(0, 5, 20000), [0.0, -0.0, np.inf, -np.inf, np.nan, 1e300, -1e300, 5e-324]])


@pytest.mark.parametrize("df", DFS + [0, -1, np.nan])
def test_t_tails_are_scipys_bit_for_bit(df):
    x = _grid()
    np.testing.assert_array_equal(distributions.t_sf(x, df), stats.t.sf(x, df))
    np.testing.assert_array_equal(distributions.t_cdf(x, df), stats.t.cdf(x, df))


@pytest.mark.parametrize("df", DFS)
def test_t_quantiles_inside_zero_one_are_scipys_bit_for_bit(df):
    p = np.concatenate([np.random.default_rng(1).random(20000), [0.5, 0.975, 0.995, 1e-300, 1 - 2**-53]])
    np.testing.assert_array_equal(distributions.t_ppf(p, df), stats.t.ppf(p, df))


def test_normal_tails_are_scipys_bit_for_bit():
    z = _grid()
    np.testing.assert_array_equal(distributions.norm_sf(z), stats.norm.sf(z))
    np.testing.assert_array_equal(distributions.norm_cdf(z), stats.norm.cdf(z))


def test_the_t_test_of_a_track_does_not_import_scipy_stats():
    code = ("import sys, numpy as np\n"
            "from reeval.stats.allpairs import all_pairs_ttest\n"
            "from reeval.stats.correlation import kendall_tau\n"
            "all_pairs_ttest(np.random.default_rng(0).random((4, 9)))\n"
            "kendall_tau([1, 2, 3, 3], [2, 1, 3, 4])\n"
            "print('scipy.stats' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def _tie_heavy_pairs(seed, count):
    rng = np.random.default_rng(seed)
    for case in range(count):
        n = int(rng.integers(2, 70))
        a = rng.integers(0, int(rng.integers(1, 6)), n).astype(float)
        b = rng.integers(0, int(rng.integers(1, 6)), n).astype(float)
        if case % 3 == 0:
            a = rng.normal(size=n)
        if case % 5 == 0:
            a[int(rng.integers(0, n))] = np.inf
            b[int(rng.integers(0, n))] = -np.inf
        if case % 7 == 0:
            b[0], b[-1] = -0.0, 0.0
        yield a, b


def test_kendall_tau_counted_pairwise_is_scipys_tau_b_bit_for_bit():
    for a, b in _tie_heavy_pairs(3, 1500):
        want = stats.kendalltau(a, b, variant="b").statistic
        got = correlation.kendall_tau(a, b)
        assert (np.isnan(want) and np.isnan(got)) or got == want, (a, b, got, want)


def test_kendall_tau_constant_short_or_nan_vectors_are_nan():
    assert np.isnan(correlation.kendall_tau([1, 1, 1], [1, 2, 3]))
    assert np.isnan(correlation.kendall_tau([1], [2]))
    assert np.isnan(correlation.kendall_tau([1, np.nan, 3], [1, 2, 3]))


def test_kendall_tau_long_vectors_go_to_scipy_and_agree_on_both_sides_of_the_bound(monkeypatch):
    rng = np.random.default_rng(5)
    a = np.round(rng.normal(size=300), 1)
    b = np.round(a + rng.normal(size=300), 1)
    pairwise = correlation.kendall_tau(a, b)
    monkeypatch.setattr(correlation, "KENDALL_PAIRWISE_MAX", 10)
    assert correlation.kendall_tau(a, b) == pairwise == stats.kendalltau(a, b).statistic


def test_kendall_tau_of_many_runs_is_no_pass_over_every_pair(monkeypatch):
    """Issue 41 item 1: 3,000 runs counted 4.5 M pairs per call (pair by pair up to 4,096);
    above 1,000 runs scipy's O(n log n) count gives the same value."""
    rng = np.random.default_rng(41)
    a = np.round(rng.normal(size=3000), 2)
    b = np.round(a + rng.normal(size=3000), 2)
    monkeypatch.setattr(correlation, "_chunk_rows", lambda *args: pytest.fail("pair by pair at 3,000 runs"))
    assert correlation.kendall_tau(a, b) == stats.kendalltau(a, b).statistic


@pytest.mark.parametrize("p", [0.5, 0.3])
def test_binomial_tails_are_scipys_bit_for_bit(p):
    rng = np.random.default_rng(5)
    n = np.concatenate([rng.integers(0, 3000, 50000), np.arange(0, 60)])
    k = (rng.random(n.size) * (n + 3)).astype(np.int64) - 1          # -1 .. n + 1
    for kk in (k, k - 1, np.zeros_like(n), n, n - 1):
        np.testing.assert_array_equal(distributions.binom_sf(kk, n, p), stats.binom.sf(kk, n, p))
        np.testing.assert_array_equal(distributions.binom_cdf(kk, n, p), stats.binom.cdf(kk, n, p))


@pytest.mark.parametrize("confidence", [0.5, 0.9, 0.95, 0.99, 0.999, 1 - 1e-9])
def test_the_two_group_critical_value_is_scipys_t_quantile_bit_for_bit(confidence):
    """sqrt(2) t_{(1 + c)/2, df} from scipy.special, as it was from scipy.stats: df = 2T - 2
    for every topic count T up to 5,000 and beyond up to ~10^6."""
    from reeval.stats.allpairs import _two_group_q_crit

    dfs = np.array([*range(2, 10002, 2), 20000, 99998, 100000, 2_000_000])
    want = math.sqrt(2.0) * stats.t.ppf((1.0 + confidence) / 2.0, dfs)
    got = np.array([_two_group_q_crit(confidence, int(df)) for df in dfs])
    np.testing.assert_array_equal(got, want)
