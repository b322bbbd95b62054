"""Resampling paired tests: the permutation test (exact or Monte Carlo sign flips) and the studentized bootstrap test.

Conventions (alternative, confidence interval, effect size, all-zero differences) are those of
:mod:`reeval.stats.paired`. Both draw from ``numpy.random.default_rng(seed)`` only, so a seed
gives the same p-value on every call and in every process; resamples are drawn in chunks of at
most :data:`RESAMPLE_CHUNK_CELLS` (resample x topic) cells, so memory stays bounded.
"""

from __future__ import annotations

import math

import numpy as np

from .paired import (_check_alternative, _check_confidence, _paired, _ratio, _result, effect_size_dz,
                     t_confidence_interval)

#: Permutation test: exact enumeration of all 2^m sign flips up to m non-zero differences
#: (2^20 = 1,048,576 sums, 8 MiB), Monte Carlo beyond.
PERMUTATION_EXACT_MAX = 20


#: Resampling chunk: at most this many (resample x topic) cells at once (32 MiB float64).
RESAMPLE_CHUNK_CELLS = 1 << 22


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
