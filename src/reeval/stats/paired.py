"""Paired tests: two runs compared over the same topics, and row-wise tests on differences.

Conventions shared by the paired tests (``d = x - y``, topic by topic):

- ``alternative``: ``"two-sided"``, ``"greater"`` (H1: mean(x) > mean(y), i.e. the
  differences are shifted up) or ``"less"``.
- ``diff = mean(d)``; ``effect_size`` is Cohen's d_z = mean(d) / sd(d) with the sample
  standard deviation (ddof=1), in units of that sd. When sd(d) = 0 it is 0 if every
  difference is 0 and +-inf otherwise; NaN for fewer than 2 topics.
- Confidence intervals are for the mean difference, in the units of the scores, at
  level ``confidence``. They follow the alternative, as scipy does: two-sided gives
  ``[low, high]``, "greater" gives ``[low, inf)`` and "less" ``(-inf, high]``. The
  t-test, the Wilcoxon, the sign and the permutation test all report the t-based
  interval ``mean(d) +- t_{n-1} * sd(d) / sqrt(n)``; the bootstrap test reports the
  percentile bootstrap interval of mean(d) from its own resamples. (``reeval.compare``
  and ``compare_runs`` show an interval only beside the test that produced it, labelled
  by ``ci_method``: :data:`reeval.stats.comparisons.CI_METHODS`.)
- When every difference is 0 there is no evidence either way: every test reports
  statistic 0 and p-value 1.

Units: scores are whatever measure the caller computed (AP, nDCG@10, ...); p-values are
unitless.
"""

from __future__ import annotations

import math

import numpy as np

from reeval.choices import ALTERNATIVES, PAIRED_TESTS  # the choices, re-exported

from .checks import numbers
from .conventions import (_check_alternative, _check_confidence, _p_from_null_tails, _paired, _ratio, _result,
                          _t_pvalue, effect_size_dz, t_confidence_interval)  # the last two re-exported
from .resampling import bootstrap_test, permutation_test

#: Wilcoxon: exact null distribution up to this many non-zero differences.
WILCOXON_EXACT_MAX = 50


def paired_t(x, y, alternative: str = "two-sided", confidence: float = 0.95) -> dict:
    """Student's paired t-test of d = x - y over topics.

    t = mean(d) / (sd(d) / sqrt(n)), sd with ddof=1, n - 1 degrees of freedom;
    p from Student's t (one tail for "greater"/"less", 2 x the smaller tail for
    "two-sided"), as ``scipy.stats.ttest_rel``. CI: :func:`t_confidence_interval`.

    Edge cases: fewer than 2 topics gives NaN statistic, p-value and CI; all differences
    0 gives t = 0, p = 1; constant non-zero differences give t = +-inf (p 0 or 1).
    Returns the dict of :func:`paired_test` (statistic = t).
    """
    _check_alternative(alternative)
    _check_confidence(confidence)
    x, y = _paired(x, y)
    d = x - y
    n = d.size
    if n < 2:
        return _result(x, y, math.nan, math.nan, (math.nan, math.nan), math.nan)
    if np.all(d == 0):
        return _result(x, y, 0.0, 1.0, t_confidence_interval(d, confidence, alternative), 0.0)
    t = _ratio(d.mean(), d.std(ddof=1) / math.sqrt(n))
    p = float(_t_pvalue(t, n - 1, alternative))
    ci = t_confidence_interval(d, confidence, alternative)
    return _result(x, y, t, p, ci, effect_size_dz(d))


def _signed_rank_null_counts(doubled: np.ndarray) -> np.ndarray:
    """Exact null counts of S = the sum of the doubled ranks that get a + sign, per row.

    ``doubled``: rows x k integer doubled ranks (mid-ranks k + 0.5 become integers; 0 for
    a dropped zero difference). Under H0 each sign is + or - with probability 1/2, so the
    generating function of a row is prod_i (1 + z^{r_i}) over its non-zero r_i;
    counts[row, s] = number of sign vectors with S = s. The product is built one factor
    (column) at a time for every row at once, a vectorised shift-and-add; counts fit in
    int64 for up to 62 factors (WILCOXON_EXACT_MAX = 50).
    """
    rows, k = doubled.shape
    width = int(doubled.sum(axis=1).max(initial=0)) + 1
    counts = np.zeros((rows, width), dtype=np.int64)
    counts[:, 0] = 1
    at = np.arange(width)[None, :]
    for c in range(k):  # one factor per column: a product of k polynomials, not a loop over trials
        r = doubled[:, c:c + 1]
        source = at - r
        shifted = np.take_along_axis(counts, np.maximum(source, 0), axis=1)
        counts += np.where((source >= 0) & (r > 0), shifted, 0)
    return counts


def _tie_correction(ranks: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """sum over tie groups (t^3 - t) of each row's ranks where ``keep`` (sorted runs of
    equal values, found for all rows at once)."""
    rows, k = ranks.shape
    if rows == 0 or k == 0:
        return np.zeros(rows)
    values = np.sort(np.where(keep, ranks, -1.0), axis=1).ravel()
    row = np.repeat(np.arange(rows), k)
    start = np.ones(values.size, dtype=bool)
    start[1:] = (values[1:] != values[:-1]) | (row[1:] != row[:-1])
    group = np.cumsum(start) - 1
    size = np.bincount(group).astype(np.float64)
    first = np.flatnonzero(start)
    valid = values[first] >= 0
    return np.bincount(row[first][valid], weights=(size ** 3 - size)[valid], minlength=rows)


def wilcoxon_rows(D, alternative: str = "two-sided", method: str = "auto") -> dict:
    """The Wilcoxon signed-rank test of every row of ``D`` (rows x topics differences)
    against 0, all rows at once; the conventions of :func:`wilcoxon_test`.

    Zeros are dropped (m_r non-zero differences in row r); |d| are mid-ranked among the
    non-zero ones (ranks among all minus the zeros, which rank first). Returns
    {"statistic": w = sum of signed ranks, "p_value"}: exact (the distribution of the
    doubled positive-rank sum, :func:`_signed_rank_null_counts`) for m_r <= 50 under
    "auto", the normal approximation with tie correction beyond; m_r = 0 gives w = 0, p = 1.
    """
    from scipy import stats as _st

    from .distributions import norm_cdf, norm_sf

    _check_alternative(alternative)
    if method not in ("auto", "exact", "normal"):
        raise ValueError(f"method must be auto, exact or normal, got {method!r}")
    D = numbers(D, "D")
    nonzero = D != 0
    m = nonzero.sum(axis=1)
    ranks = np.where(nonzero, _st.rankdata(np.abs(D), axis=1) - (~nonzero).sum(axis=1, keepdims=True), 0.0)
    positive = D > 0
    w = np.where(positive, ranks, -ranks).sum(axis=1)
    p_greater, p_less = np.ones(len(D)), np.ones(len(D))
    exact = (m > 0) & ((method == "exact") | ((method == "auto") & (m <= WILCOXON_EXACT_MAX)))
    normal = (m > 0) & ~exact
    if exact.any():
        p_greater[exact], p_less[exact] = _exact_tails(ranks[exact], positive[exact], m[exact])
    if normal.any():
        mm = m[normal].astype(np.float64)
        w_plus = np.where(positive[normal], ranks[normal], 0.0).sum(axis=1)
        var = mm * (mm + 1) * (2 * mm + 1) / 24 - _tie_correction(ranks[normal], nonzero[normal]) / 48
        z = (w_plus - mm * (mm + 1) / 4) / np.sqrt(var)
        p_greater[normal], p_less[normal] = norm_sf(z), norm_cdf(z)
    p = np.where(m == 0, 1.0, _p_from_null_tails(p_greater, p_less, alternative))
    return {"statistic": w, "p_value": p}


def _exact_tails(ranks, positive, m):
    """(P(S >= s_obs), P(S <= s_obs)) of the doubled positive-rank sum, per row."""
    doubled = np.rint(2 * ranks).astype(np.int64)
    order = np.argsort(doubled == 0, axis=1, kind="stable")[:, : int(m.max())]   # non-zero first
    counts = _signed_rank_null_counts(np.take_along_axis(doubled, order, axis=1))
    cumulative = np.cumsum(counts, axis=1)
    s_obs = np.where(positive, doubled, 0).sum(axis=1)
    total = np.ldexp(1.0, m)
    below = np.take_along_axis(cumulative, (s_obs - 1)[:, None].clip(0), axis=1)[:, 0]
    below = np.where(s_obs > 0, below, 0)
    at_most = np.take_along_axis(cumulative, s_obs[:, None], axis=1)[:, 0]
    return (cumulative[:, -1] - below) / total, at_most / total


def wilcoxon_test(x, y, alternative: str = "two-sided", confidence: float = 0.95,
                  method: str = "auto") -> dict:
    """Wilcoxon signed-rank test of d = x - y over topics.

    Zero differences are dropped (Wilcoxon's convention; m = number of non-zero
    differences). |d| are ranked 1..m with mid-ranks for ties; the statistic reported is
    the sum of signed ranks w = sum_i sign(d_i) R_i (as in the lecture notes), so
    W+ = (w + m(m+1)/2) / 2 is scipy's one-sided statistic and min(W+, W-) its two-sided
    one.

    p-value (``method``):

    - ``"exact"``: the exact permutation distribution of W+ given the observed ranks
      (each sign +-1 with probability 1/2), mid-ranks included, so it stays exact with
      ties. Without ties it equals scipy's exact test.
    - ``"normal"``: z = (W+ - m(m+1)/4) / sqrt(m(m+1)(2m+1)/24 - sum(t^3 - t)/48) over
      tie groups of size t, no continuity correction (scipy's default).
    - ``"auto"`` (default): exact for m <= 50 (``WILCOXON_EXACT_MAX``), normal beyond,
      the thresholds scipy uses for untied data.

    Two-sided p = min(1, 2 x smaller tail). CI: the t-based interval of mean(d) (the test
    itself is about the centre of the differences, not their mean; the interval is given
    so every test reports the same quantity). m = 0 gives w = 0, p = 1.
    """
    _check_confidence(confidence)
    x, y = _paired(x, y)
    d = x - y
    r = wilcoxon_rows(d[None, :], alternative, method)
    return _result(x, y, r["statistic"][0], r["p_value"][0], t_confidence_interval(d, confidence, alternative),
                   effect_size_dz(d))


def sign_test(x, y, alternative: str = "two-sided", confidence: float = 0.95,
              zero_method: str = "drop") -> dict:
    """Sign test: k = #{topics with x > y} against Binomial(n, 1/2).

    ``zero_method="drop"`` (default, the usual test): ties (d = 0) are dropped and n is
    the number of non-zero differences. ``"keep"``: n is every topic and a tie counts as
    a topic where x is not better (the test statistic "number of pairs where x > y" out
    of all pairs, as in the lecture notes' example).

    p: "greater" P(K >= k), "less" P(K <= k), "two-sided" min(1, 2 x smaller tail),
    which for p = 1/2 equals ``scipy.stats.binomtest``. Statistic = k. CI: t-based
    interval of mean(d), as for the t-test. n = 0 gives p = 1.
    """
    from scipy import stats as _st

    _check_alternative(alternative)
    _check_confidence(confidence)
    if zero_method not in ("drop", "keep"):
        raise ValueError(f"zero_method must be drop or keep, got {zero_method!r}")
    x, y = _paired(x, y)
    d = x - y
    k = int((d > 0).sum())
    n = int((d != 0).sum()) if zero_method == "drop" else d.size
    if n == 0:
        p = 1.0
    else:
        p = _p_from_null_tails(_st.binom.sf(k - 1, n, 0.5), _st.binom.cdf(k, n, 0.5),
                               alternative)
    return _result(x, y, k, p, t_confidence_interval(d, confidence, alternative),
                   effect_size_dz(d))


def paired_test(x, y, test: str = "t", alternative: str = "two-sided", seed: int = 0,
                n_resamples: int = 10000, confidence: float = 0.95, zero_method: str = "drop") -> dict:
    """Compare two runs over the same topics (x = run A, y = run B, same topic order).

    ``test``: "t" (:func:`paired_t`), "wilcoxon" (:func:`wilcoxon_test`), "sign"
    (:func:`sign_test`: zeros dropped, or with ``zero_method="keep"`` kept in n as the
    lecture notes keep them; the other tests ignore ``zero_method``), "permutation" (:func:`permutation_test`) or
    "bootstrap" (:func:`bootstrap_test`). ``alternative="greater"`` means mean(x) >
    mean(y). ``seed`` and ``n_resamples`` matter only to the resampling tests.

    Returns a dict: mean_a, mean_b (run means), diff (mean of x - y), statistic (t;
    signed-rank sum w; number of topics with x > y; mean(d); studentized bootstrap t),
    p_value, ci_low, ci_high (interval for the mean difference, see the module
    docstring), effect_size (Cohen's d_z), n (number of topics).
    """
    if test == "t":
        return paired_t(x, y, alternative, confidence)
    if test == "wilcoxon":
        return wilcoxon_test(x, y, alternative, confidence)
    if test == "sign":
        return sign_test(x, y, alternative, confidence, zero_method)
    if test == "permutation":
        return permutation_test(x, y, alternative, seed, n_resamples, confidence)
    if test == "bootstrap":
        return bootstrap_test(x, y, alternative, seed, n_resamples, confidence)
    raise ValueError(f"test must be one of {PAIRED_TESTS}, got {test!r}")


def ttest_rows(D, alternative: str = "two-sided") -> dict:
    """One-sample t-test of each row of ``D`` (pairs x topics differences) against 0.

    t = mean(d) / (sd(d) / sqrt(T)) (ddof=1) with T - 1 df, the paired t-test on the
    differences: equals ``scipy.stats.ttest_1samp(D[k], 0)`` row by row. Rows whose
    differences are all 0 get t = 0, p = 1; constant non-zero rows +-inf, p = 0;
    T < 2 gives NaN. Returns {"t": array, "p_value": array}.
    """
    _check_alternative(alternative)
    D = numbers(D, "D")
    if D.ndim != 2:
        raise ValueError(f"D must be 2-D (rows x topics), got shape {D.shape}")
    n_rows, T = D.shape
    if T < 2:
        return {"t": np.full(n_rows, np.nan), "p_value": np.full(n_rows, np.nan)}
    t = _ratio(D.mean(axis=1), D.std(axis=1, ddof=1) / math.sqrt(T))
    p = np.where(~D.any(axis=1), 1.0, _t_pvalue(t, T - 1, alternative))
    return {"t": t, "p_value": p}


def sign_test_counts(wins, losses, alternative: str = "two-sided") -> np.ndarray:
    """Sign-test p-values from counts, element-wise: k = wins out of n = wins + losses
    (ties already dropped) against Binomial(n, 1/2); the same conventions as
    :func:`sign_test` ("greater": P(K >= k), "less": P(K <= k), "two-sided": min(1, 2 x
    the smaller tail), which equals ``scipy.stats.binomtest(k, n).pvalue``); n = 0
    gives 1."""
    from .distributions import binom_cdf, binom_sf

    _check_alternative(alternative)
    k = numbers(wins, "wins").astype(np.int64)
    n = k + numbers(losses, "losses").astype(np.int64)
    if (k < 0).any() or (n < k).any():
        raise ValueError("wins and losses must be non-negative counts")
    p = _p_from_null_tails(binom_sf(k - 1, n, 0.5), binom_cdf(k, n, 0.5), alternative)
    return np.where(n == 0, 1.0, p)
