"""Tests over every pair of runs of a track: paired t-tests for all pairs, Tukey's HSD over
all runs, and the two-group HSD of each pair alone (the rareness authors' procedure).

Input: a runs x topics score matrix (``(S, T)``, the same topic order in every row), a
DataFrame with one column per topic, or ``reeval.evaluate(per_topic=True)``'s frame with
one measure (:func:`reeval.stats.frames.score_matrix`); output: a tidy DataFrame, one row
per pair of runs.
"""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np
import pandas as pd

from .frames import score_matrix
from .multiple import p_adjust
from .conventions import _check_alternative, _check_confidence, _ratio, _t_pvalue


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
    X, labels, _ = score_matrix(scores, runs)
    S, T = X.shape
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


#: The spline's grid ends where the studentized range's tail falls under this; far beyond,
#: scipy's integration returns noise of about 1e-12 instead of the tail.
SF_FLOOR = 1e-10


@functools.lru_cache(maxsize=32)
def _log_sf_grid(k: int, df: float, grid_size: int) -> tuple:
    """(grid, log sf) of the studentized range (k groups, df), ``grid_size`` evenly spaced
    q in [0, q_end], q_end the first of 4, 6, 9, ... (x 1.5, at most ~1e3) where sf <
    SF_FLOOR; cached, so every measure of a comparison with the same k and df shares one grid."""
    from scipy import stats as _st

    q_end = 4.0
    while q_end < 1e3 and _st.studentized_range.sf(q_end, k, df) >= SF_FLOOR:
        q_end *= 1.5
    grid = np.linspace(0.0, q_end, grid_size)
    logp = np.log(np.clip(_st.studentized_range.sf(grid, k, df), 1e-300, 1.0))
    return grid, logp


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
            grid, logp = _log_sf_grid(int(k), float(df), int(grid_size))
            slope = (logp[-1] - logp[-2]) / (grid[-1] - grid[-2])   # beyond the grid: log-linear tail
            vals = np.exp(np.where(uq <= grid[-1], CubicSpline(grid, logp)(np.minimum(uq, grid[-1])),
                                   logp[-1] + slope * (uq - grid[-1])))
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


#: Designs of :func:`tukey_hsd`: topic-blocked two-way ANOVA, or one-way (topics as replicates).
HSD_DESIGNS = ("blocked", "oneway")


def _hsd_error(X: np.ndarray, run_means: np.ndarray, design: str) -> tuple[float, int]:
    """(residual sum of squares, df) of the ANOVA behind :func:`tukey_hsd`; df = 0 without runs or topics."""
    S, T = X.shape
    if S == 0 or T == 0:
        return math.nan, 0
    if design == "blocked":
        resid = X - run_means[:, None] - X.mean(axis=0)[None, :] + X.mean()
        return float((resid ** 2).sum()), (S - 1) * (T - 1)
    return float(((X - run_means[:, None]) ** 2).sum()), S * (T - 1)


def tukey_hsd(scores, runs=None, confidence: float = 0.95, max_exact: int = 500,
              grid_size: int = 400, p_values: bool = True, design: str = "blocked") -> pd.DataFrame:
    """Tukey HSD over all pairs of runs, topic-blocked (default) or one-way.

    ``design="blocked"``: two-way ANOVA without replication, score_st = mu + system_s +
    topic_t + e_st. With run means m_s, topic means m_t and grand mean m: residuals
    e_st = score_st - m_s - m_t + m, MSE = sum e_st^2 / ((S-1)(T-1)) on
    df = (S-1)(T-1). ``design="oneway"``: the topics are S x T replicates of the runs
    (no topic effect, as ``scipy.stats.tukey_hsd(*scores)``): MSE = sum (score_st -
    m_s)^2 / (S(T-1)) on df = S(T-1). For each pair i < j,
    q = |m_i - m_j| / sqrt(MSE / T) and p = ``scipy.stats.studentized_range.sf(q, S,
    df)``. Simultaneous intervals: diff +- q_crit sqrt(MSE / T), q_crit =
    ``studentized_range.ppf(confidence, S, df)``.

    scipy integrates the studentized range numerically (~10 ms per value for df < 1e5),
    so when there are more than ``max_exact`` distinct q values the p-values come from a
    cubic spline through log sf at ``grid_size`` evenly spaced q in [0, q_end], q_end
    where sf falls below 1e-10 (absolute error below 1e-7 in our checks); beyond q_end
    log sf is extended linearly (p < 1e-10: scipy's own values there are integration
    noise of about 1e-12).
    The grid depends on (S, df) only and is cached: the measures of one comparison share it. ``p_values=False`` skips them (NaN column): a pair is then significant
    at level 1 - confidence exactly when q > q_crit (the interval excludes 0), at no
    integration cost.

    Returns one row per pair (same order as :func:`all_pairs_ttest`): run_i, run_j,
    mean_i, mean_j, diff, q, p_value, ci_low, ci_high. ``DataFrame.attrs`` holds mse, df,
    q_crit. Edge cases: S < 2 gives an empty table; T < 2 (df = 0, either design) NaN q and p;
    MSE = 0 gives q = inf (p = 0) for unequal means, q = 0 (p = 1) for equal ones.
    """
    _check_confidence(confidence)
    if design not in HSD_DESIGNS:
        raise ValueError(f"design must be one of {HSD_DESIGNS}, got {design!r}")
    X, labels, _ = score_matrix(scores, runs)
    S, T = X.shape
    ii, jj = np.triu_indices(S, 1)
    run_means = X.mean(axis=1) if T else np.full(S, np.nan)
    ss, df = _hsd_error(X, run_means, design)
    diff = run_means[ii] - run_means[jj]
    if df > 0:
        mse = ss / df
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


def tukey_hsd_significant(scores, confidence: float = 0.95, design: str = "blocked") -> np.ndarray:
    """Per pair i < j (``numpy.triu_indices`` order): is q > q_crit, the verdict of
    :func:`tukey_hsd` with ``p_values=False`` (same arithmetic, the same bits), without its
    table: a bool and a few float arrays of P = S(S-1)/2 values instead of a 9-column
    frame (4.5 M pairs at 3,000 runs). df = 0 (fewer than 2 topics): nothing significant.
    q_crit is not integrated by scipy unless a q lies near it (:func:`_exceeds_q_crit`): the
    verdicts are scipy's, and a track's job need not import ``scipy.stats``. :func:`tukey_hsd`,
    which writes q_crit into its intervals and attrs, keeps scipy's value."""
    _check_confidence(confidence)
    if design not in HSD_DESIGNS:
        raise ValueError(f"design must be one of {HSD_DESIGNS}, got {design!r}")
    X, _, _ = score_matrix(scores, None)
    S, T = X.shape
    ii, jj = np.triu_indices(S, 1)
    run_means = X.mean(axis=1) if T else np.full(S, np.nan)
    ss, df = _hsd_error(X, run_means, design)
    if df <= 0:
        return np.zeros(ii.size, dtype=bool)
    se = math.sqrt(ss / df / T)
    q = _ratio(np.abs(run_means[ii] - run_means[jj]), np.full(ii.size, se))
    return _exceeds_q_crit(q, float(confidence), S, df)


def _exceeds_q_crit(q: np.ndarray, confidence: float, k: int, df: float) -> np.ndarray:
    """q > ``studentized_range.ppf(confidence, k, df)`` (scipy's q_crit) per element, without
    scipy unless a q is near it: q_hat = :func:`reeval.stats.studentized_range.quantile`
    differs from scipy's q_crit by at most ``MEASURED_ERROR`` q_crit where it was measured
    (``validated``), so every q outside the band |q - q_hat| <= ``BAND`` q_hat (BAND >= 100
    MEASURED_ERROR) is on the same side of both; the q inside it, and every q outside the
    validated domain, are compared with scipy's q_crit itself. NaN q: False."""
    from . import studentized_range

    if not studentized_range.validated(confidence, k, df):
        return q > _studentized_range_ppf(confidence, k, df)
    q_hat = studentized_range.quantile(confidence, k, df)
    verdict = q > q_hat
    near = np.abs(q - q_hat) <= studentized_range.BAND * q_hat
    if near.any():
        verdict[near] = q[near] > _studentized_range_ppf(confidence, k, df)
    return verdict


def two_group_hsd_significant(scores, confidence: float = 0.95) -> np.ndarray:
    """Per pair i < j (``numpy.triu_indices`` order): is the pair significant under a Tukey
    HSD whose only two groups are runs i and j, each run's T per-topic scores a sample
    (topics not paired, their order ignored)? The rareness authors' ``discriminative_power(...,
    test='hsd')`` runs this, one statsmodels ``pairwise_tukeyhsd`` per pair of runs.

    With run means m_i and within-run sums of squares SS_i = sum_t (x_it - m_i)^2:
    MSE_ij = (SS_i + SS_j) / (2T - 2) on df = 2T - 2, q_ij = |m_i - m_j| / sqrt(MSE_ij / T),
    significant when q_ij > q_crit, the studentized range's ``confidence`` quantile for k = 2
    groups and df (statsmodels' test, reject = q > q_crit). With k = 2, Q = sqrt(2) |T| for
    T Student's t on df, so q_crit = sqrt(2) t_{(1 + confidence)/2, df} exactly (computed so:
    ``scipy.stats.studentized_range.ppf`` integrates for seconds to give the same number), and
    q = sqrt(2) |t| with t the pooled two-sample t statistic (``scipy.stats.ttest_ind(x_i,
    x_j)``): the verdict of that t-test at 1 - confidence.
    Every pair from the S run means and SS_i: O(S T + S^2) arithmetic, no loop over pairs.
    Edge cases: T < 2 (df = 0): nothing significant; MSE_ij = 0 (both runs constant):
    significant exactly when the means differ.
    """
    _check_confidence(confidence)
    X, _, _ = score_matrix(scores, None)
    S, T = X.shape
    ii, jj = np.triu_indices(S, 1)
    if T < 2:
        return np.zeros(ii.size, dtype=bool)
    means = X.mean(axis=1)
    ss = ((X - means[:, None]) ** 2).sum(axis=1)
    df = 2 * T - 2
    se = np.sqrt((ss[ii] + ss[jj]) / df / T)
    q = _ratio(np.abs(means[ii] - means[jj]), se)
    return q > _two_group_q_crit(float(confidence), df)


@functools.lru_cache(maxsize=64)
def _two_group_q_crit(confidence: float, df: int) -> float:
    """The studentized range's ``confidence`` quantile for k = 2: sqrt(2) t_{(1 + confidence)/2, df}."""
    from .distributions import t_ppf

    return math.sqrt(2.0) * float(t_ppf((1.0 + confidence) / 2.0, df))
