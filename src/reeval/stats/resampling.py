"""Resampling paired tests: the permutation test (exact or Monte Carlo sign flips) and the studentized bootstrap test.

Conventions (alternative, confidence interval, effect size, all-zero differences) are those of
:mod:`reeval.stats.paired`. Both draw from ``numpy.random.default_rng(seed)`` only, so a seed
gives the same p-value on every call and in every process; resamples are drawn in chunks of at
most :data:`RESAMPLE_CHUNK_CELLS` (resample x topic) cells, so memory stays bounded (the
bootstrap's interval keeps resamples x rows means: at most :data:`BOOTSTRAP_MAX_VALUES`).
Seeds are integers from 0 to 2^63 - 1 and resamples from 1 to 10^9
(:mod:`reeval.stats.checks`): anything else is an InputError.
"""

from __future__ import annotations

import math

import numpy as np

from reeval.errors import InputError

from .checks import check_resamples, check_seed, numbers
from .conventions import (_check_alternative, _check_confidence, _paired, _ratio, _result, effect_size_dz,
                          t_confidence_interval)

#: Permutation test: exact enumeration of all 2^m sign flips up to m non-zero differences
#: (2^20 = 1,048,576 sums, 8 MiB), Monte Carlo beyond.
PERMUTATION_EXACT_MAX = 20


#: Resampling chunk: at most this many (resample x topic) cells at once (32 MiB float64).
RESAMPLE_CHUNK_CELLS = 1 << 22

#: The bootstrap keeps every resampled mean (resamples x rows) for its percentile
#: interval: at most this many (2 GiB of float64), else InputError before drawing any.
BOOTSTRAP_MAX_VALUES = 1 << 28


def _chunk_rows(n_rows: int, width: int, cells: int = RESAMPLE_CHUNK_CELLS):
    """Yield (start, stop) row ranges of at most ``cells`` cells each (width >= 1)."""
    step = max(1, cells // max(1, width))
    for start in range(0, n_rows, step):
        yield start, min(n_rows, start + step)


def _tail_counts(null: np.ndarray, observed: np.ndarray, tol: np.ndarray) -> np.ndarray:
    """(3, rows): #{null >= obs}, #{null <= obs}, #{|null| >= |obs|} per column of ``null``
    (resamples x rows), within ``tol``."""
    return np.stack([np.count_nonzero(null >= observed - tol, axis=0),
                     np.count_nonzero(null <= observed + tol, axis=0),
                     np.count_nonzero(np.abs(null) >= np.abs(observed) - tol, axis=0)]).astype(np.float64)


def _pick_tail(p_all: np.ndarray, alternative: str) -> np.ndarray:
    return np.minimum(1.0, p_all[{"greater": 0, "less": 1, "two-sided": 2}[alternative]])


def _exact_sign_flips(D: np.ndarray, s_obs: np.ndarray, tol: np.ndarray, m: np.ndarray) -> np.ndarray:
    """(3, rows) tail proportions over all 2^m sign vectors of each row's non-zero
    differences. Rows are taken in order of m, in chunks of at most RESAMPLE_CHUNK_CELLS
    sums; a row with fewer non-zero values than its chunk's widest is padded with zeros,
    which repeat every sum 2^(pad) times and leave the proportions unchanged."""
    order = np.argsort(m, kind="stable")
    nz_first = np.argsort(D == 0, axis=1, kind="stable")
    out = np.zeros((3, len(D)))
    start = 0
    while start < order.size:   # chunks of rows: a memory bound, not a loop over pairs
        width = int(m[order[start]])
        rows = max(1, RESAMPLE_CHUNK_CELLS >> width)
        chunk = order[start:start + rows]
        width = int(m[chunk].max())
        vals = np.take_along_axis(D[chunk], nz_first[chunk, :width], axis=1)
        null = np.zeros((len(chunk), 1))
        for k in range(width):  # doubling: sums over 2^width sign vectors, width <= exact_max steps
            null = np.concatenate((null + vals[:, k:k + 1], null - vals[:, k:k + 1]), axis=1)
        out[:, chunk] = _tail_counts(null.T, s_obs[chunk], tol[chunk]) / null.shape[1]
        start += len(chunk)
    return out


def _monte_carlo_sign_flips(D, s_obs, tol, seed, n_resamples) -> np.ndarray:
    """(3, rows) tail counts over ``n_resamples`` sign vectors over all n topics (a zero
    difference ignores its sign), shared by every row: drawn from default_rng(seed) in
    chunks that depend on (n_resamples, n) only, so every row sees the same signs."""
    rng = np.random.default_rng(seed)
    n = D.shape[1]
    c = np.zeros((3, len(D)))
    for a, b in _chunk_rows(n_resamples, n):
        signs = 1.0 - 2.0 * rng.integers(0, 2, size=(b - a, n), dtype=np.int8)
        for lo, hi in _chunk_rows(b - a, max(1, len(D))):
            c += _tail_counts(signs[lo:hi] @ D.T, s_obs, tol)
    return c


def permutation_rows(D, alternative: str = "two-sided", seed: int = 0, n_resamples: int = 10000,
                     exact_max: int = PERMUTATION_EXACT_MAX) -> dict:
    """The paired permutation (sign-flip) test of every row of ``D`` (rows x topics
    differences) against 0, all rows at once; the conventions of :func:`permutation_test`.

    A row with m <= ``exact_max`` non-zero differences is tested exactly (all 2^m sign
    vectors); the other rows share ``n_resamples`` Monte Carlo sign vectors over the n
    topics, p = (1 + count) / (1 + n_resamples). Returns {"statistic": mean(d),
    "p_value"}; a row without a non-zero difference has p = 1.
    """
    _check_alternative(alternative)
    seed, n_resamples = check_seed(seed), check_resamples(n_resamples)
    D = numbers(D, "D")
    m = np.count_nonzero(D, axis=1)
    s_obs = D.sum(axis=1)
    tol = 1e-11 * np.abs(D).sum(axis=1)
    p = np.ones(len(D))
    exact = (m > 0) & (m <= exact_max)
    if exact.any():
        p[exact] = _pick_tail(_exact_sign_flips(D[exact], s_obs[exact], tol[exact], m[exact]), alternative)
    sampled = m > exact_max
    if sampled.any():
        c = _monte_carlo_sign_flips(D[sampled], s_obs[sampled], tol[sampled], seed, n_resamples)
        p[sampled] = _pick_tail((c + 1) / (n_resamples + 1), alternative)
    mean = D.mean(axis=1) if D.shape[1] else np.zeros(len(D))
    return {"statistic": mean, "p_value": p}


def permutation_test(x, y, alternative: str = "two-sided", seed: int = 0,
                     n_resamples: int = 10000, confidence: float = 0.95,
                     exact_max: int = PERMUTATION_EXACT_MAX) -> dict:
    """Paired randomization (sign-flip) test of the mean difference.

    Under H0 the labels x/y of each topic are exchangeable, so each difference keeps or
    flips its sign with probability 1/2; the statistic is mean(d) (the p-value is
    computed on the equivalent sum; zeros do not move).

    - m <= ``exact_max`` (default 20) non-zero differences: all 2^m sign vectors are
      enumerated; p = #{null >= observed} / 2^m for "greater" (<= for "less", |null| >=
      |observed| for "two-sided"). ``seed`` and ``n_resamples`` are unused.
    - otherwise Monte Carlo: ``n_resamples`` sign vectors over all n topics from
      ``numpy.random.default_rng(seed)`` (``integers(0, 2, (rows, n), int8)`` in chunks of
      RESAMPLE_CHUNK_CELLS cells), p = (1 + #{...}) / (1 + n_resamples) (the observed
      arrangement counts once, so p > 0 and the test stays valid). Every pair of runs of
      :func:`permutation_rows` draws the same signs, so this p-value is that of the pair.

    Comparisons use an absolute tolerance of 1e-11 * sum|d| so that sums equal in exact
    arithmetic but not in floating point count as ties (as scipy does). CI: t-based
    interval of mean(d). m = 0 gives p = 1.
    """
    _check_confidence(confidence)
    x, y = _paired(x, y)
    d = x - y
    r = permutation_rows(d[None, :], alternative, seed, n_resamples, exact_max)
    return _result(x, y, r["statistic"][0] if d.size else 0.0, r["p_value"][0],
                   t_confidence_interval(d, confidence, alternative), effect_size_dz(d))


def _resample_counts(rng, b: int, n: int) -> np.ndarray:
    """(b, n) multiplicities of the n topics in b bootstrap samples drawn as
    ``rng.integers(0, n, (b, n))`` (the draws of scipy.stats.bootstrap)."""
    idx = rng.integers(0, n, size=(b, n))
    flat = (np.arange(b)[:, None] * n + idx).ravel()
    return np.bincount(flat, minlength=b * n).reshape(b, n).astype(np.float64)


def bootstrap_rows(D, alternative: str = "two-sided", seed: int = 0, n_resamples: int = 10000,
                   confidence: float = 0.95) -> dict:
    """The studentized paired bootstrap test of every row of ``D`` (rows x topics
    differences) against 0, all rows at once, sharing the resamples; the conventions of
    :func:`bootstrap_test`.

    With W (B x n) the multiplicity of each topic in each resample and z = d - mean(d):
    mean* = W z / n and var* = (W z^2 - n mean*^2) / (n - 1) (matrix products over all
    rows). Returns {"statistic": t_obs, "p_value", "ci_low", "ci_high"} (percentile
    interval of mean(d) + mean*); rows with every difference 0 get t = 0, p = 1 and the
    degenerate interval at 0; fewer than 2 topics give NaN.
    """
    _check_alternative(alternative)
    _check_confidence(confidence)
    seed, n_resamples = check_seed(seed), check_resamples(n_resamples)
    D = numbers(D, "D")
    rows, n = D.shape
    if n_resamples * rows > BOOTSTRAP_MAX_VALUES:
        raise InputError(f"n_resamples {n_resamples:,} x {rows:,} rows: the bootstrap interval keeps every "
                         f"resampled mean, at most {BOOTSTRAP_MAX_VALUES:,} (2 GiB); use fewer resamples")
    nan = np.full(rows, np.nan)
    if n < 2:
        return {"statistic": nan, "p_value": nan, "ci_low": nan, "ci_high": nan.copy()}
    mean = D.mean(axis=1)
    sqrt_n = math.sqrt(n)
    t_obs = _ratio(mean, D.std(axis=1, ddof=1) / sqrt_n)
    Z = D - mean[:, None]
    rng = np.random.default_rng(seed)
    boot = np.empty((n_resamples, rows))
    c = np.zeros((3, rows))
    for a, b in _chunk_rows(n_resamples, n):
        W = _resample_counts(rng, b - a, n)
        mean_z = (W @ Z.T) / n
        var = np.maximum((W @ (Z * Z).T - n * mean_z * mean_z) / (n - 1), 0.0)
        t_star = _ratio(mean_z, np.sqrt(var) / sqrt_n)
        boot[a:b] = mean[None, :] + mean_z
        c += _tail_counts(t_star, t_obs, np.zeros(rows))
    p = _pick_tail((c + 1) / (n_resamples + 1), alternative)
    low, high = _percentile_interval(boot, confidence, alternative)
    zero = ~D.any(axis=1)
    return {"statistic": np.where(zero, 0.0, t_obs), "p_value": np.where(zero, 1.0, p),
            "ci_low": np.where(zero, 0.0 if alternative != "less" else -math.inf, low),
            "ci_high": np.where(zero, 0.0 if alternative != "greater" else math.inf, high)}


def _percentile_interval(boot: np.ndarray, confidence: float, alternative: str):
    """Percentile bounds of each column of ``boot`` (linear interpolation)."""
    if alternative == "two-sided":
        low, high = np.quantile(boot, [(1 - confidence) / 2, (1 + confidence) / 2], axis=0)
        return low, high
    if alternative == "greater":
        return np.quantile(boot, 1 - confidence, axis=0), np.full(boot.shape[1], math.inf)
    return np.full(boot.shape[1], -math.inf), np.quantile(boot, confidence, axis=0)


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
    Fewer than 2 topics give NaN p and CI. Computed by :func:`bootstrap_rows` (the same
    resamples for every pair of runs).
    """
    x, y = _paired(x, y)
    d = x - y
    r = bootstrap_rows(d[None, :], alternative, seed, n_resamples, confidence)
    return _result(x, y, r["statistic"][0], r["p_value"][0], (r["ci_low"][0], r["ci_high"][0]),
                   effect_size_dz(d))
