"""Statistics for IR evaluation: paired tests, all-pairs tests, rank correlation and
interpolated recall-precision.

Inputs are numpy arrays of per-topic scores (one run: shape ``(T,)``; a track:
``(S, T)``, runs x topics, the same topic order in every row); outputs are plain dicts
(one comparison) or tidy pandas DataFrames (one row per pair of runs, per level, ...).
Every function is pure; the randomized ones draw from
``numpy.random.default_rng(seed)`` only, so a seed gives the same p-value on every call
and in every process.

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
  percentile bootstrap interval of mean(d) from its own resamples.
- When every difference is 0 there is no evidence either way: every test reports
  statistic 0 and p-value 1.

Units: scores are whatever measure the caller computed (AP, nDCG@10, ...); p-values and
correlations are unitless.
"""

from __future__ import annotations

import functools
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
# scipy is imported by the functions that use it (scipy.stats takes 0.3-1 s): reading this
# module (the Snakefile, the measures' recall cut-offs) does not import it

from reeval.choices import ALTERNATIVES, PAIRED_TESTS  # noqa: E402 (names of the choices, re-exported)
from reeval.measures import RECALL_LEVELS, recall_cutoff_ranks  # noqa: E402
CORRECTIONS = ("bonferroni", "holm", "bh")
#: Wilcoxon: exact null distribution up to this many non-zero differences.
WILCOXON_EXACT_MAX = 50
#: Permutation test: exact enumeration of all 2^m sign flips up to m non-zero differences
#: (2^20 = 1,048,576 sums, 8 MiB), Monte Carlo beyond.
PERMUTATION_EXACT_MAX = 20
#: Resampling chunk: at most this many (resample x topic) cells at once (32 MiB float64).
RESAMPLE_CHUNK_CELLS = 1 << 22
IPREC_MEASURES = tuple(f"iprec_at_recall_{level:.2f}" for level in RECALL_LEVELS)

_RESULT_KEYS = ("mean_a", "mean_b", "diff", "statistic", "p_value", "ci_low", "ci_high",
                "effect_size", "n")


# --------------------------------------------------------------------------- helpers

def _check_alternative(alternative: str) -> None:
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {ALTERNATIVES}, got {alternative!r}")


def _check_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")


def _paired(x, y) -> tuple[np.ndarray, np.ndarray]:
    """Validate two per-topic score vectors (same length, 1-D, finite) as float64."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.ndim != 1 or y.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"x and y must be 1-D of the same length, got {x.shape} and {y.shape}")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError("x and y must be finite (no NaN or inf)")
    return x, y


def _p_from_null_tails(p_greater, p_less, alternative: str):
    """Two-sided p = min(1, 2 min(P_greater, P_less)) (symmetric nulls); else one tail."""
    if alternative == "greater":
        return p_greater
    if alternative == "less":
        return p_less
    return np.minimum(1.0, 2.0 * np.minimum(p_greater, p_less))


def _t_pvalue(t, df, alternative: str):
    """p-value of Student's t with ``df`` degrees of freedom (vectorized)."""
    from scipy import stats as _st

    t = np.asarray(t, dtype=np.float64)
    if alternative == "greater":
        return _st.t.sf(t, df)
    if alternative == "less":
        return _st.t.cdf(t, df)
    return np.minimum(1.0, 2.0 * _st.t.sf(np.abs(t), df))


def _ratio(num, den):
    """num / den elementwise, with 0/0 = 0 and c/0 = +-inf (no warnings)."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = num / den
    out = np.where(den == 0, np.where(num == 0, 0.0, np.copysign(np.inf, num)), out)
    return out if out.ndim else float(out)


def effect_size_dz(d) -> float:
    """Cohen's d_z of paired differences: mean(d) / sd(d), sd with ddof=1 (unitless).

    Edge cases: NaN for fewer than 2 differences; when sd(d) = 0, 0 if mean(d) = 0 and
    +-inf otherwise.
    """
    d = np.asarray(d, dtype=np.float64)
    if d.size < 2:
        return math.nan
    return float(_ratio(d.mean(), d.std(ddof=1)))


def t_confidence_interval(d, confidence: float = 0.95,
                          alternative: str = "two-sided") -> tuple[float, float]:
    """t-based confidence interval for the mean of ``d`` (units of ``d``).

    Two-sided: mean +- t_{(1+c)/2, n-1} * sd / sqrt(n); "greater": [mean - t_{c, n-1} *
    sd / sqrt(n), inf); "less": (-inf, mean + t_{c, n-1} * sd / sqrt(n)]. sd has ddof=1.
    NaN bounds for fewer than 2 values; a zero sd gives the degenerate [mean, mean].
    """
    from scipy import stats as _st

    _check_alternative(alternative)
    _check_confidence(confidence)
    d = np.asarray(d, dtype=np.float64)
    n = d.size
    if n < 2:
        return math.nan, math.nan
    mean = float(d.mean())
    se = float(d.std(ddof=1)) / math.sqrt(n)
    if alternative == "two-sided":
        half = float(_st.t.ppf((1 + confidence) / 2, n - 1)) * se
        return mean - half, mean + half
    half = float(_st.t.ppf(confidence, n - 1)) * se
    return (mean - half, math.inf) if alternative == "greater" else (-math.inf, mean + half)


def _result(x, y, statistic, p_value, ci, effect) -> dict:
    return dict(zip(_RESULT_KEYS, (
        float(x.mean()) if x.size else math.nan,
        float(y.mean()) if y.size else math.nan,
        float((x - y).mean()) if x.size else math.nan,
        float(statistic), float(p_value), float(ci[0]), float(ci[1]), float(effect),
        int(x.size))))


# ------------------------------------------------------------------ paired tests

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


def _signed_rank_null_counts(doubled_ranks: np.ndarray) -> np.ndarray:
    """Exact null counts of S = sum of the doubled ranks that get a + sign.

    Under H0 each sign is + or - with probability 1/2 independently, so the generating
    function is prod_i (1 + z^{r_i}); counts[s] = number of the 2^m sign vectors with
    S = s. Ranks are doubled so that mid-ranks (k + 0.5) are integers. One pass per
    difference (m <= WILCOXON_EXACT_MAX), each a vectorized shift-and-add; counts fit in
    int64 since 2^50 < 2^63.
    """
    counts = np.zeros(int(doubled_ranks.sum()) + 1, dtype=np.int64)
    counts[0] = 1
    for r in doubled_ranks:  # a product of m small polynomials, not a loop over trials
        shifted = np.zeros_like(counts)
        shifted[r:] = counts[: counts.size - r]
        counts += shifted
    return counts


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
    from scipy import stats as _st

    _check_alternative(alternative)
    _check_confidence(confidence)
    if method not in ("auto", "exact", "normal"):
        raise ValueError(f"method must be auto, exact or normal, got {method!r}")
    x, y = _paired(x, y)
    d = x - y
    ci = t_confidence_interval(d, confidence, alternative)
    effect = effect_size_dz(d)
    dz = d[d != 0]
    m = dz.size
    if m == 0:
        return _result(x, y, 0.0, 1.0, ci, effect)
    ranks = _st.rankdata(np.abs(dz))  # average ranks for ties
    positive = dz > 0
    w = float(np.where(positive, ranks, -ranks).sum())
    if method == "exact" or (method == "auto" and m <= WILCOXON_EXACT_MAX):
        doubled = np.rint(2 * ranks).astype(np.int64)
        counts = _signed_rank_null_counts(doubled)
        s_obs = int(doubled[positive].sum())
        total = float(2 ** m)
        p_greater = counts[s_obs:].sum() / total
        p_less = counts[: s_obs + 1].sum() / total
    else:
        w_plus = float(ranks[positive].sum())
        _, ties = np.unique(ranks, return_counts=True)
        var = m * (m + 1) * (2 * m + 1) / 24 - float((ties ** 3 - ties).sum()) / 48
        z = (w_plus - m * (m + 1) / 4) / math.sqrt(var)
        p_greater, p_less = _st.norm.sf(z), _st.norm.cdf(z)
    p = _p_from_null_tails(p_greater, p_less, alternative)
    return _result(x, y, w, p, ci, effect)


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


def _chunk_rows(n_rows: int, width: int, cells: int = RESAMPLE_CHUNK_CELLS):
    """Yield (start, stop) row ranges of at most ``cells`` cells each (width >= 1)."""
    step = max(1, cells // max(1, width))
    for start in range(0, n_rows, step):
        yield start, min(n_rows, start + step)


def permutation_test(x, y, alternative: str = "two-sided", seed: int = 0,
                     n_resamples: int = 10000, confidence: float = 0.95,
                     exact_max: int = PERMUTATION_EXACT_MAX) -> dict:
    """Paired randomization (sign-flip) test of the mean difference.

    Under H0 the labels x/y of each topic are exchangeable, so each difference keeps or
    flips its sign with probability 1/2; the statistic is mean(d) (the p-value is
    computed on the equivalent sum over the m non-zero differences; zeros do not move).

    - m <= ``exact_max`` (default 20): all 2^m sign vectors are enumerated; p =
      #{null >= observed} / 2^m for "greater" (<= for "less", |null| >= |observed| for
      "two-sided"). ``seed`` and ``n_resamples`` are unused.
    - otherwise Monte Carlo: ``n_resamples`` sign vectors from
      ``numpy.random.default_rng(seed)``, p = (1 + #{...}) / (1 + n_resamples) (the
      observed arrangement counts once, so p > 0 and the test stays valid).

    Comparisons use an absolute tolerance of 1e-11 * sum|d| so that sums equal in exact
    arithmetic but not in floating point count as ties (as scipy does). CI: t-based
    interval of mean(d). m = 0 gives p = 1.
    """
    _check_alternative(alternative)
    _check_confidence(confidence)
    x, y = _paired(x, y)
    d = x - y
    ci = t_confidence_interval(d, confidence, alternative)
    effect = effect_size_dz(d)
    observed = float(d.mean()) if d.size else 0.0
    dz = d[d != 0]
    m = dz.size
    if m == 0:
        return _result(x, y, 0.0, 1.0, ci, effect)
    s_obs = float(dz.sum())
    tol = 1e-11 * float(np.abs(dz).sum())

    def counts(null):
        return (np.count_nonzero(null >= s_obs - tol), np.count_nonzero(null <= s_obs + tol),
                np.count_nonzero(np.abs(null) >= abs(s_obs) - tol))

    if m <= exact_max:
        null = np.zeros(1)
        for v in dz:  # doubling: sums over 2^m sign vectors, m <= exact_max steps
            null = np.concatenate((null + v, null - v))
        c = np.array(counts(null), dtype=np.float64)
        p_all = c / null.size
    else:
        if n_resamples < 1:
            raise ValueError("n_resamples must be >= 1")
        rng = np.random.default_rng(seed)
        c = np.zeros(3)
        for a, b in _chunk_rows(n_resamples, m):
            signs = 1.0 - 2.0 * rng.integers(0, 2, size=(b - a, m), dtype=np.int8)
            c += counts(signs @ dz)
        p_all = (c + 1) / (n_resamples + 1)
    p = {"greater": p_all[0], "less": p_all[1], "two-sided": p_all[2]}[alternative]
    return _result(x, y, observed, min(1.0, p), ci, effect)


def bootstrap_test(x, y, alternative: str = "two-sided", seed: int = 0,
                   n_resamples: int = 10000, confidence: float = 0.95) -> dict:
    """Paired bootstrap test (Efron & Tibshirani 1993, sec. 16.4; Sakai 2006).

    The n topic differences are shifted to mean 0 (z_i = d_i - mean(d), H0 true) and
    ``n_resamples`` samples of n topics are drawn with replacement (indices from
    ``numpy.random.default_rng(seed).integers(0, n, (B, n))``, in row chunks). The
    statistic is studentized, t = mean / (sd / sqrt(n)) (ddof=1): observed t(d) versus
    t*(z*). p = (1 + #{t* >= t}) / (1 + B) for "greater", <= for "less",
    |t*| >= |t| for "two-sided" (Davison & Hinkley 1997, eq. 4.11; never 0). A
    resample with sd 0 has t* = 0 if its mean is 0, else +-inf.

    CI: percentile bootstrap of mean(d) from the same resamples of the unshifted d:
    quantiles (linear interpolation) at (1-c)/2 and (1+c)/2, or the one-sided bound at
    1-c, as ``scipy.stats.bootstrap(method="percentile")`` with the same generator.
    Fewer than 2 topics give NaN p and CI.
    """
    _check_alternative(alternative)
    _check_confidence(confidence)
    if n_resamples < 1:
        raise ValueError("n_resamples must be >= 1")
    x, y = _paired(x, y)
    d = x - y
    n = d.size
    effect = effect_size_dz(d)
    if n < 2:
        return _result(x, y, math.nan, math.nan, (math.nan, math.nan), effect)
    mean = float(d.mean())
    sqrt_n = math.sqrt(n)
    t_obs = float(_ratio(mean, d.std(ddof=1) / sqrt_n))
    if np.all(d == 0):
        return _result(x, y, 0.0, 1.0, (0.0, 0.0) if alternative == "two-sided" else
                       ((0.0, math.inf) if alternative == "greater" else (-math.inf, 0.0)),
                       effect)
    rng = np.random.default_rng(seed)
    boot_means = np.empty(n_resamples)
    c = np.zeros(3)
    for a, b in _chunk_rows(n_resamples, n):
        sample = d[rng.integers(0, n, size=(b - a, n))]
        means = sample.mean(axis=1)
        boot_means[a:b] = means
        t_star = _ratio(means - mean, sample.std(axis=1, ddof=1) / sqrt_n)
        c += (np.count_nonzero(t_star >= t_obs), np.count_nonzero(t_star <= t_obs),
              np.count_nonzero(np.abs(t_star) >= abs(t_obs)))
    p_all = (c + 1) / (n_resamples + 1)
    p = {"greater": p_all[0], "less": p_all[1], "two-sided": p_all[2]}[alternative]
    if alternative == "two-sided":
        lo, hi = np.quantile(boot_means, [(1 - confidence) / 2, (1 + confidence) / 2])
    elif alternative == "greater":
        lo, hi = np.quantile(boot_means, 1 - confidence), math.inf
    else:
        lo, hi = -math.inf, np.quantile(boot_means, confidence)
    return _result(x, y, t_obs, min(1.0, p), (lo, hi), effect)


def paired_test(x, y, test: str = "t", alternative: str = "two-sided", seed: int = 0,
                n_resamples: int = 10000, confidence: float = 0.95) -> dict:
    """Compare two runs over the same topics (x = run A, y = run B, same topic order).

    ``test``: "t" (:func:`paired_t`), "wilcoxon" (:func:`wilcoxon_test`), "sign"
    (:func:`sign_test`, zeros dropped), "permutation" (:func:`permutation_test`) or
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
        return sign_test(x, y, alternative, confidence)
    if test == "permutation":
        return permutation_test(x, y, alternative, seed, n_resamples, confidence)
    if test == "bootstrap":
        return bootstrap_test(x, y, alternative, seed, n_resamples, confidence)
    raise ValueError(f"test must be one of {PAIRED_TESTS}, got {test!r}")


# --------------------------------------------------------- multiple comparisons

def p_adjust(p, method: str = "holm") -> np.ndarray:
    """Adjust a vector of p-values for multiple comparisons (any shape, NaN kept).

    With m the number of non-NaN p-values and p_(1) <= ... <= p_(m):

    - "bonferroni": min(1, m p).
    - "holm" (step-down): adj_(k) = min(1, max_{j <= k} (m - j + 1) p_(j)).
    - "bh" (Benjamini-Hochberg FDR step-up): adj_(k) = min(1, min_{j >= k} m p_(j) / j).

    These equal ``statsmodels.stats.multitest.multipletests`` methods "bonferroni",
    "holm" and "fdr_bh". NaN entries stay NaN and do not count in m.
    """
    if method not in CORRECTIONS:
        raise ValueError(f"method must be one of {CORRECTIONS}, got {method!r}")
    p = np.asarray(p, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    flat = p.ravel()
    ok = ~np.isnan(flat)
    vals = flat[ok]
    m = vals.size
    if m == 0:
        return out
    if method == "bonferroni":
        adj = np.minimum(1.0, m * vals)
    else:
        order = np.argsort(vals, kind="stable")
        ps = vals[order]
        k = np.arange(1, m + 1)
        if method == "holm":
            adj_sorted = np.minimum(1.0, np.maximum.accumulate((m - k + 1) * ps))
        else:
            adj_sorted = np.minimum(1.0, np.minimum.accumulate((m * ps / k)[::-1])[::-1])
        adj = np.empty(m)
        adj[order] = adj_sorted
    res = out.ravel()
    res[ok] = adj
    return res.reshape(p.shape)


def bonferroni(p) -> np.ndarray:
    """Bonferroni-adjusted p-values, :func:`p_adjust` with method "bonferroni"."""
    return p_adjust(p, "bonferroni")


def holm(p) -> np.ndarray:
    """Holm step-down adjusted p-values, :func:`p_adjust` with method "holm"."""
    return p_adjust(p, "holm")


def benjamini_hochberg(p) -> np.ndarray:
    """Benjamini-Hochberg FDR adjusted p-values, :func:`p_adjust` with method "bh"."""
    return p_adjust(p, "bh")


# ------------------------------------------------------------- all-pairs tests

def _scores_matrix(scores) -> np.ndarray:
    X = np.asarray(scores, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"scores must be 2-D (runs x topics), got shape {X.shape}")
    if not np.isfinite(X).all():
        raise ValueError("scores must be finite (no NaN or inf)")
    return X


def _run_labels(runs, S: int):
    if runs is None:
        return np.arange(S)
    labels = np.asarray(list(runs), dtype=object)
    if labels.size != S:
        raise ValueError(f"{labels.size} run names for {S} runs")
    return labels


def all_pairs_ttest(scores, runs=None, alternative: str = "two-sided",
                    correction: str | None = None,
                    max_bytes: int = 100 * 2**20) -> pd.DataFrame:
    """Paired t-tests between every pair of runs i < j of a runs x topics matrix.

    For each pair, d = scores[i] - scores[j] over the T topics, t = mean(d) /
    (sd(d) / sqrt(T)) (ddof=1), p from Student's t with T - 1 df (``alternative``
    "greater" means run i better), the same as ``scipy.stats.ttest_rel(scores[i],
    scores[j])``. Differences are formed directly (not from a covariance matrix, which
    would cancel badly for near-identical runs), in chunks of pairs so that at most about
    ``max_bytes`` of temporaries exist at once (500 runs x 250 topics: 124,750 pairs,
    about 100 MB of differences, in chunks).

    Returns one row per pair, in the order (0,1), (0,2), ..., (1,2), ...: run_i, run_j
    (names from ``runs`` or row indices), mean_i, mean_j, diff = mean_i - mean_j, t,
    p_value, and p_adjusted when ``correction`` ("bonferroni", "holm", "bh") is given,
    adjusted over all pairs. Edge cases as :func:`paired_t`: identical runs give t = 0,
    p = 1; constant non-zero differences +-inf; T < 2 gives NaN.
    """
    _check_alternative(alternative)
    X = _scores_matrix(scores)
    S, T = X.shape
    labels = _run_labels(runs, S)
    ii, jj = np.triu_indices(S, 1)
    n_pairs = ii.size
    means = X.mean(axis=1)
    t = np.full(n_pairs, np.nan)
    same = np.zeros(n_pairs, dtype=bool)  # every difference 0
    if T >= 2:
        rows_per_chunk = max(1, int(max_bytes // (6 * 8 * T)))  # ~6 (chunk x T) temporaries
        for a in range(0, n_pairs, rows_per_chunk):
            b = min(n_pairs, a + rows_per_chunk)
            D = X[ii[a:b]] - X[jj[a:b]]
            t[a:b] = _ratio(D.mean(axis=1), D.std(axis=1, ddof=1) / math.sqrt(T))
            same[a:b] = ~D.any(axis=1)
            del D
        p = np.where(same, 1.0, _t_pvalue(t, T - 1, alternative))
    else:
        p = np.full(n_pairs, np.nan)
    out = pd.DataFrame({
        "run_i": labels[ii], "run_j": labels[jj],
        "mean_i": means[ii], "mean_j": means[jj], "diff": means[ii] - means[jj],
        "t": t, "p_value": p,
    })
    if correction is not None:
        out["p_adjusted"] = p_adjust(p, correction)
    return out


def _studentized_range_sf(q: np.ndarray, k: int, df: float, max_exact: int,
                          grid_size: int) -> np.ndarray:
    """P(Q_{k,df} >= q) by scipy, exact or through a spline of log sf (see tukey_hsd)."""
    from scipy import stats as _st
    from scipy.integrate import IntegrationWarning
    from scipy.interpolate import CubicSpline

    q = np.asarray(q, dtype=np.float64)
    p = np.ones(q.shape)
    finite = np.isfinite(q)
    p[~finite] = np.where(np.isnan(q[~finite]), np.nan, 0.0)
    pos = finite & (q > 0)
    if not pos.any():
        return p
    uq, inv = np.unique(q[pos], return_inverse=True)
    with warnings.catch_warnings():
        # far in the tail scipy's quadrature warns; those p-values are < ~1e-13 anyway
        warnings.simplefilter("ignore", IntegrationWarning)
        if uq.size <= max_exact:
            vals = _st.studentized_range.sf(uq, k, df)
        else:
            grid = np.linspace(0.0, uq[-1], grid_size)
            logp = np.log(np.clip(_st.studentized_range.sf(grid, k, df), 1e-300, 1.0))
            vals = np.exp(CubicSpline(grid, logp)(uq))
    p[pos] = np.clip(vals[inv], 0.0, 1.0)
    return p


@functools.lru_cache(maxsize=64)
def _studentized_range_ppf(confidence: float, k: int, df: float) -> float:
    """q_crit = studentized_range.ppf(confidence, k, df), cached (scipy takes ~0.3 s)."""
    from scipy import stats as _st
    from scipy.integrate import IntegrationWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IntegrationWarning)
        return float(_st.studentized_range.ppf(confidence, k, df))


def tukey_hsd(scores, runs=None, confidence: float = 0.95, max_exact: int = 500,
              grid_size: int = 400, p_values: bool = True) -> pd.DataFrame:
    """Topic-blocked Tukey HSD over all pairs of runs (two-way ANOVA, no replication).

    Model: score_st = mu + system_s + topic_t + e_st. With run means m_s, topic means
    m_t and grand mean m: residuals e_st = score_st - m_s - m_t + m,
    MSE = sum e_st^2 / ((S-1)(T-1)) on df = (S-1)(T-1). For each pair i < j,
    q = |m_i - m_j| / sqrt(MSE / T) and p = ``scipy.stats.studentized_range.sf(q, S,
    df)``. Simultaneous intervals: diff +- q_crit sqrt(MSE / T), q_crit =
    ``studentized_range.ppf(confidence, S, df)``.

    scipy integrates the studentized range numerically (~10 ms per value for df < 1e5),
    so when there are more than ``max_exact`` distinct q values the p-values come from a
    cubic spline through log sf at ``grid_size`` evenly spaced q in [0, max q]
    (absolute error below 1e-7 in our checks; p-values under ~1e-13 are scipy's noise
    floor anyway). ``p_values=False`` skips them (NaN column): a pair is then significant
    at level 1 - confidence exactly when q > q_crit (the interval excludes 0), at no
    integration cost.

    Returns one row per pair (same order as :func:`all_pairs_ttest`): run_i, run_j,
    mean_i, mean_j, diff, q, p_value, ci_low, ci_high. ``DataFrame.attrs`` holds mse, df,
    q_crit. Edge cases: S < 2 gives an empty table; T < 2 (df = 0) NaN q and p;
    MSE = 0 gives q = inf (p = 0) for unequal means, q = 0 (p = 1) for equal ones.
    """
    _check_confidence(confidence)
    X = _scores_matrix(scores)
    S, T = X.shape
    labels = _run_labels(runs, S)
    ii, jj = np.triu_indices(S, 1)
    run_means = X.mean(axis=1)
    df = (S - 1) * (T - 1)
    diff = run_means[ii] - run_means[jj]
    if df > 0:
        resid = X - run_means[:, None] - X.mean(axis=0)[None, :] + X.mean()
        mse = float((resid ** 2).sum() / df)
        se = math.sqrt(mse / T)
        q = _ratio(np.abs(diff), np.full(diff.shape, se))
        p = (_studentized_range_sf(q, S, df, max_exact, grid_size) if p_values
             else np.full(diff.shape, np.nan))
        q_crit = _studentized_range_ppf(float(confidence), S, df)
        half = q_crit * se
    else:
        mse, q, p, q_crit, half = math.nan, np.full(diff.shape, np.nan), \
            np.full(diff.shape, np.nan), math.nan, math.nan
    out = pd.DataFrame({
        "run_i": labels[ii], "run_j": labels[jj],
        "mean_i": run_means[ii], "mean_j": run_means[jj], "diff": diff,
        "q": q, "p_value": p, "ci_low": diff - half, "ci_high": diff + half,
    })
    out.attrs.update(mse=mse, df=df, q_crit=q_crit)
    return out


# ------------------------------------------------------------- rank correlation

def kendall_tau(a, b) -> float:
    """Kendall's tau-b between two score vectors over the same runs (unitless, [-1, 1]).

    tau_b = (C - D) / sqrt((C + D + T_a)(C + D + T_b)), T_a/T_b the pairs tied only in
    a/b; wraps ``scipy.stats.kendalltau(a, b, variant="b")``. NaN when either vector is
    constant or has fewer than 2 entries.
    """
    from scipy import stats as _st

    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError("a and b must be 1-D of the same length")
    if a.size < 2:
        return math.nan
    return float(_st.kendalltau(a, b, variant="b").statistic)


def tau_ap(reference, estimate, symmetric: bool = False, chunk_cells: int = 1 << 21) -> float:
    """AP rank correlation tau_AP (Yilmaz, Aslam & Robertson, SIGIR 2008).

    ``reference`` holds the scores of the true (reference) ordering and ``estimate``
    those of the ordering being evaluated, for the same runs; higher = better (ranked
    first). Without ties, with the runs ordered by ``estimate`` (positions 1..N) and
    C(i) the number of runs above position i that the reference also ranks above the
    run at i:

        tau_AP = 2/(N-1) * sum_{i=2..N} C(i)/(i-1) - 1,

    in [-1, 1]: 1 for the same ordering, -1 for the reversed one. Swaps near the top
    cost more than swaps at the bottom. It is asymmetric; ``symmetric=True`` returns the
    mean of tau_AP(a, b) and tau_AP(b, a).

    Ties (documented choice; the paper assumes none). Equivalently, tau_AP is the mean
    over runs r that have at least one run strictly above them in ``estimate`` of
    (1/|A_r|) sum_{s in A_r} sign(reference_s - reference_r), A_r = runs strictly above
    r in ``estimate``. This form is used as the definition with ties: runs tied in
    ``estimate`` are not compared with each other (and a run's position counts only
    the runs strictly above it), and a pair tied in ``reference`` contributes 0, neither
    concordant nor discordant. Identical orderings (ties included) still give 1 and
    reversed ones -1. NaN when fewer than 2 runs or every estimate is tied.

    Vectorized O(N^2) in row chunks of at most ``chunk_cells`` cells.
    """
    ref = np.asarray(reference, dtype=np.float64)
    est = np.asarray(estimate, dtype=np.float64)
    if ref.shape != est.shape or ref.ndim != 1:
        raise ValueError("reference and estimate must be 1-D of the same length")
    if symmetric:
        return 0.5 * (tau_ap(ref, est, chunk_cells=chunk_cells)
                      + tau_ap(est, ref, chunk_cells=chunk_cells))
    n = ref.size
    if n < 2:
        return math.nan
    total = 0.0
    counted = 0
    for a, b in _chunk_rows(n, n, chunk_cells):  # rows r = the run being placed
        above = est[None, :] > est[a:b, None]                      # s strictly above r
        agree = np.sign(ref[None, :] - ref[a:b, None])              # +1 ref agrees
        n_above = above.sum(axis=1)
        score = np.where(above, agree, 0.0).sum(axis=1)
        has = n_above > 0
        total += float((score[has] / n_above[has]).sum())
        counted += int(has.sum())
    return total / counted if counted else math.nan


# ------------------------------------------------- interpolated recall-precision

def _topic_index(num_rel) -> pd.Index:
    if not isinstance(num_rel, pd.Series):
        raise TypeError("num_rel must be a pandas Series indexed by qid")
    if num_rel.index.has_duplicates:
        raise ValueError("num_rel has duplicate qids")
    return num_rel.index


def interpolated_precision(judged: pd.DataFrame, num_rel: pd.Series, rel_level: int = 1,
                           runs=None, rule: str = "trec_eval9") -> pd.DataFrame:
    """Interpolated precision at the 11 standard recall levels, per (run, topic).

    trec_eval's ``iprec_at_recall_L`` for L = 0.0, 0.1, ..., 1.0. Precision at rank r is
    (relevant in the top r) / r; with the k-th relevant retrieved document at rank
    pos_k, iprec(L) = max_{k >= k_L} k / pos_k (the maximum precision at any rank at or
    below the k_L-th relevant document: between relevant documents precision only
    falls), and 0 when fewer than k_L relevant documents are retrieved. k_L is the
    number of relevant documents standing for recall L, see :func:`recall_cutoff_ranks`:
    by default trec_eval 9's rounding (what pytrec_eval computes), which is "recall >= L"
    except at some levels where L R falls just above an integer.

    ``judged``: columns run, qid, pos (1-based rank in trec_eval order), rel (integer
    judgment): the judged documents each run retrieved (unjudged ones only shift pos).
    ``num_rel``: Series qid -> R_q, the number of documents with rel >= ``rel_level``
    in the qrels. Rows of qids not in ``num_rel`` are ignored. ``runs``: the runs to
    report (default: those in ``judged``, sorted).

    Returns the dense grid runs x qrels topics x 11 levels: columns run, qid, recall,
    precision, measure (``iprec_at_recall_0.00`` ...). Topics with R_q = 0 and topics a
    run did not retrieve a relevant document for give 0 at every level. Unit: precision
    in [0, 1]. Group operations only, no loop over topics or runs.
    """
    topics = _topic_index(num_rel)
    k_cut = recall_cutoff_ranks(num_rel.to_numpy(), rule)          # (T, 11)
    R = num_rel.to_numpy().astype(np.int64)
    run_names = (pd.Index(sorted(pd.unique(judged["run"]))) if runs is None
                 else pd.Index(list(runs)))
    S, T, L = len(run_names), len(topics), RECALL_LEVELS.size
    grid = np.zeros((S * T, L))

    run_code = run_names.get_indexer(judged["run"])
    topic_code = topics.get_indexer(judged["qid"])
    rel = judged["rel"].to_numpy()
    keep = (run_code >= 0) & (topic_code >= 0) & (rel >= rel_level)
    if keep.any():
        g = run_code[keep].astype(np.int64) * T + topic_code[keep]
        pos = judged["pos"].to_numpy()[keep].astype(np.float64)
        order = np.lexsort((pos, g))
        g, pos = g[order], pos[order]
        starts = np.ones(g.size, dtype=bool)
        starts[1:] = g[1:] != g[:-1]
        start_idx = np.flatnonzero(starts)
        n_rel_ret = np.diff(np.append(start_idx, g.size))
        k = np.arange(g.size) - np.repeat(start_idx, n_rel_ret) + 1
        prec = k / pos
        # suffix maximum within each (run, topic): cummax over the reversed rows
        suffix = (pd.Series(prec[::-1]).groupby(g[::-1], sort=False).cummax()
                  .to_numpy()[::-1])
        gid = g[start_idx]
        topic_of_group = gid % T
        k_level = np.maximum(1, k_cut[topic_of_group])              # (G, 11)
        reached = (k_level <= n_rel_ret[:, None]) & (R[topic_of_group][:, None] > 0)
        take = np.minimum(start_idx[:, None] + k_level - 1, g.size - 1)
        grid[gid] = np.where(reached, suffix[take], 0.0)
    return pd.DataFrame({
        "run": np.repeat(np.asarray(run_names, dtype=object), T * L),
        "qid": np.tile(np.repeat(np.asarray(topics, dtype=object), L), S),
        "recall": np.tile(RECALL_LEVELS, S * T),
        "precision": grid.ravel(),
        "measure": np.tile(np.asarray(IPREC_MEASURES, dtype=object), S * T),
    })


def recall_precision_curves(judged: pd.DataFrame, num_rel: pd.Series, rel_level: int = 1,
                            runs=None, rule: str = "trec_eval9") -> pd.DataFrame:
    """11-point interpolated recall-precision curve of each run, averaged over topics.

    The mean of :func:`interpolated_precision` over every topic of ``num_rel`` (trec_eval
    -c: topics with R_q = 0 and topics the run missed count as 0), i.e. trec_eval's
    summary ``iprec_at_recall_*`` lines. Returns columns run, recall, precision, measure
    (11 rows per run, runs in the order of ``interpolated_precision``).
    """
    per_topic = interpolated_precision(judged, num_rel, rel_level, runs, rule)
    out = (per_topic.groupby(["run", "recall", "measure"], sort=False, as_index=False)
           ["precision"].mean())
    return out[["run", "recall", "precision", "measure"]]


def plot_recall_precision(curves_df: pd.DataFrame, path, title: str | None = None,
                          legend_max: int = 20) -> Path:
    """Plot recall-precision curves, one line per run, to ``path`` (PNG, PDF or SVG).

    ``curves_df``: columns run, recall, precision (as :func:`recall_precision_curves`).
    Saved by :func:`reeval.io.tables.save_figure` (Agg canvas, the format follows the
    suffix, no timestamp). Axes span [0, 1]; a legend is drawn when there are at most
    ``legend_max`` runs. Returns the path written.
    """
    from reeval.io.tables import pyplot, save_figure

    path = Path(path)
    fig, ax = pyplot().subplots(figsize=(6.4, 4.8))
    runs = list(pd.unique(curves_df["run"]))
    for run, part in curves_df.groupby("run", sort=False):
        part = part.sort_values("recall")
        ax.plot(part["recall"], part["precision"], marker="o", markersize=3,
                linewidth=1, label=str(run))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("recall")
    ax.set_ylabel("interpolated precision")
    ax.grid(True, alpha=0.3)
    if title:
        ax.set_title(title)
    if 0 < len(runs) <= legend_max:
        ax.legend(fontsize="small", loc="upper right")
    fig.tight_layout()
    save_figure(fig, path)
    return path


# ------------------------------------------------ row-wise tests on differences

def ttest_rows(D, alternative: str = "two-sided") -> dict:
    """One-sample t-test of each row of ``D`` (pairs x topics differences) against 0.

    t = mean(d) / (sd(d) / sqrt(T)) (ddof=1) with T - 1 df, the paired t-test on the
    differences: equals ``scipy.stats.ttest_1samp(D[k], 0)`` row by row. Rows whose
    differences are all 0 get t = 0, p = 1; constant non-zero rows +-inf, p = 0;
    T < 2 gives NaN. Returns {"t": array, "p_value": array}.
    """
    _check_alternative(alternative)
    D = np.asarray(D, dtype=np.float64)
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
    from scipy import stats as _st

    _check_alternative(alternative)
    k = np.asarray(wins, dtype=np.int64)
    n = k + np.asarray(losses, dtype=np.int64)
    if (k < 0).any() or (n < k).any():
        raise ValueError("wins and losses must be non-negative counts")
    p = _p_from_null_tails(_st.binom.sf(k - 1, n, 0.5), _st.binom.cdf(k, n, 0.5), alternative)
    return np.where(n == 0, 1.0, p)
