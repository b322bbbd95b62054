"""Randomised Tukey HSD (Carterette 2012; Sakai's discriminative power): all pairs of runs
tested at once by permuting, topic by topic, which run produced which score.

Under the null hypothesis that every run is as good as every other, the run labels are
exchangeable within each topic. Each of B resamples draws, for every topic t
independently, a permutation pi_t of the S runs and gives run s the score its row pi_t(s)
had on t. The statistic of a resample is the largest difference between two runs:

- scores (:func:`randomised_tukey_hsd`): with totals M_s = sum_t X[pi_t(s), t],
  max_s M_s - min_s M_s;
- pairwise preferences (:func:`randomised_tukey_hsd_preferences`, e.g. rrLP, sgnLP, which
  exist only between two rankings): with totals M_ij = sum_t F_t[pi_t(i), pi_t(j)] of the
  per-topic preferences F_t (F_t[j, i] = -F_t[i, j]), max_{i<j} |M_ij|.

A pair is compared with the distribution of that largest difference, so every pair's
p-value is corrected for all S(S-1)/2 comparisons at once (the family-wise error of
Tukey's HSD, without its normality):

    p_ij = (1 + #{b : max_b >= observed_ij}) / (1 + B),

observed_ij = |M_i - M_j| (scores) or |M_ij| (preferences), on the unpermuted data; the
observed arrangement counts once, so p > 0. Totals are compared within a tolerance of
1e-10 * T * max|value| so that sums equal in exact arithmetic count as ties.

Monte Carlo error: p is a binomial proportion over B resamples, standard error
sqrt(p (1 - p) / B), reported per pair (``mc_se``). The default B = :data:`HSD_RESAMPLES`
= 2000 keeps it at 0.0049 for p near 0.05 (below 0.005 needs B >= 1900).

Permutations are drawn with ``numpy.random.default_rng(seed).permuted``, which shuffles
slice after slice, so the stream of permutations depends on the seed alone (not on the
batch size): a seed gives the same p-values on every call, in every process, and the same
permutations to the score and the preference forms. Resamples are processed in batches,
never one at a time and never pair by pair: for scores one gather and one sum per batch
(at most :data:`HSD_BATCH_CELLS` cells); for preferences one gather per topic and batch,
accumulating batch x pairs totals (at most :data:`HSD_PAIR_CELLS` cells, cache-sized).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from reeval.errors import InputError

from .checks import check_resamples, check_seed
from .compiled import kernels
from .frames import score_matrix

#: Default resamples: Monte Carlo standard error sqrt(0.05 * 0.95 / 2000) = 0.0049 at p = 0.05.
HSD_RESAMPLES = 2000
#: At most this many (resample x topic x run) cells are gathered at once (scores).
HSD_BATCH_CELLS = 1 << 21
#: Preferences: at most this many (resample x pair) cells per gather (fits in cache).
HSD_PAIR_CELLS = 1 << 18


def mc_standard_error(p, resamples: int):
    """Monte Carlo standard error of an estimated p-value: sqrt(p (1 - p) / B)."""
    p = np.asarray(p, dtype=np.float64)
    return np.sqrt(p * (1.0 - p) / resamples)


def _check_resamples(resamples) -> int:
    return check_resamples(resamples, "resamples")


#: :func:`drawn_permutations` draws the whole stream at once up to this many cells
#: (resamples x topics x runs, int32: 256 MB)
SHARED_PERMUTATION_CELLS = 1 << 26


def topic_permutations(seed: int, resamples: int, T: int, S: int, batch: int, drawn=None):
    """Yield ``(start, perms)`` batches of at most ``batch`` resamples (int32, batch x T x
    S): perms[b, t] is a permutation of range(S), drawn independently per resample b and
    topic t, resample after resample from ``default_rng(seed)`` (the same stream whatever
    the batch size). ``drawn``: that stream already drawn whole (:func:`drawn_permutations`
    of the same seed, resamples, T and S), handed out in the same batches instead."""
    step = max(1, int(batch))
    if drawn is not None:
        if drawn.shape != (resamples, T, S):
            raise ValueError(f"drawn permutations of shape {drawn.shape}, not (resamples, topics, runs) = "
                             f"{(resamples, T, S)}")
        for start in range(0, resamples, step):
            yield start, drawn[start:start + step]
        return
    rng = np.random.default_rng(seed)
    base = np.arange(S, dtype=np.int32)
    for start in range(0, resamples, step):
        b = min(resamples, start + step) - start
        perms = np.broadcast_to(base, (b, T, S)).copy()
        yield start, rng.permuted(perms, axis=2, out=perms)   # in place: the same values, no copy


def drawn_permutations(seed: int, resamples: int, T: int, S: int, max_cells: int = SHARED_PERMUTATION_CELLS):
    """The whole stream of :func:`topic_permutations` (resamples x T x S int32) in one array,
    for several tests with the same seed and shape to share (the randomised HSD of RR, rrLP
    and sgnLP in the lexiprecision study draw the same permutations), or None above
    ``max_cells`` cells (each test then draws its own, batch by batch)."""
    if resamples * T * S > max_cells:
        return None
    return next(topic_permutations(seed, resamples, T, S, max(resamples, 1)), (0, None))[1]


def _p_values(null_batches, observed: np.ndarray, tol: float, resamples: int) -> np.ndarray:
    """(1 + #{null >= observed - tol}) / (1 + B) for each observed value, counted batch by
    batch as the resampled statistics arrive (``null_batches``: arrays of them, B in all), so
    that memory does not grow with B (10^9 resamples held at once took 7.45 GiB). The observed
    thresholds are sorted once; a null value v counts for every threshold <= v: the index
    where v falls among them (a sorted search), tallied, then summed from the right."""
    thresholds = observed - tol
    order = np.argsort(thresholds, kind="stable")
    ordered = thresholds[order]
    tally = np.zeros(ordered.size + 1, dtype=np.int64)
    for null in null_batches:
        tally += np.bincount(np.searchsorted(ordered, null, side="right"), minlength=ordered.size + 1)
    at_least = np.empty(ordered.size, dtype=np.int64)
    at_least[order] = np.cumsum(tally[::-1])[::-1][1:]
    return (1.0 + at_least) / (1.0 + resamples)


def null_range_batches(X: np.ndarray, seed: int = 0, resamples: int = HSD_RESAMPLES, permutations=None):
    """Yield the B resampled statistics max_s M_s - min_s M_s of a runs x topics matrix
    (totals over topics, see the module docstring) batch after batch. ``permutations``:
    :func:`drawn_permutations` of the same seed, or None to draw them."""
    S, T = X.shape
    topic = np.arange(T)[None, :, None]
    for _, perms in topic_permutations(seed, resamples, T, S, HSD_BATCH_CELLS // max(1, T * S), permutations):
        totals = X[perms, topic].sum(axis=1)               # (b, S): sum_t X[pi_t(s), t]
        yield totals.max(axis=1) - totals.min(axis=1)


def randomised_tukey_hsd(scores, runs=None, resamples: int = HSD_RESAMPLES, seed: int = 0,
                         permutations=None) -> pd.DataFrame:
    """Randomised Tukey HSD of every pair of runs of a runs x topics matrix.

    ``scores``: a runs x topics matrix or ``reeval.evaluate(per_topic=True)``'s frame (one
    measure), see :func:`reeval.stats.frames.score_matrix`. Returns one row per pair i < j
    (order of ``numpy.triu_indices``): run_i, run_j, mean_i, mean_j, diff = mean_i -
    mean_j, p_value (module docstring), mc_se (its Monte Carlo standard error).
    ``attrs``: resamples, seed, statistic. Edge cases: fewer than 2 runs give an empty
    table; no topic gives NaN means and p-values; identical runs give p = 1.
    ``permutations``: :func:`drawn_permutations` (seed, resamples, topics, runs), shared
    with other tests of the same seed; the same p-values as drawing them here.
    """
    resamples, seed = _check_resamples(resamples), check_seed(seed)
    X, labels, _ = score_matrix(scores, runs)
    S, T = X.shape
    ii, jj = np.triu_indices(S, 1)
    means = X.mean(axis=1) if T else np.full(S, np.nan)
    if T and S >= 2:
        totals = X.sum(axis=1)
        tol = 1e-10 * T * float(np.abs(X).max(initial=0.0))
        p = _p_values(null_range_batches(X, seed, resamples, permutations), np.abs(totals[ii] - totals[jj]), tol,
                      resamples)
    else:
        p = np.full(ii.size, np.nan)
    out = pd.DataFrame({"run_i": labels[ii], "run_j": labels[jj], "mean_i": means[ii],
                        "mean_j": means[jj], "diff": means[ii] - means[jj], "p_value": p,
                        "mc_se": mc_standard_error(p, resamples)})
    out.attrs.update(resamples=resamples, seed=seed, statistic="max_s mean_s - min_s mean_s")
    return out


def preference_tensor(values: np.ndarray, S: int) -> np.ndarray:
    """Per-topic antisymmetric preference matrices F (T x S x S) from pairs x topics
    values of the pairs i < j (``numpy.triu_indices(S, 1)`` order): F[t, i, j] =
    values[pair, t], F[t, j, i] = -values[pair, t], 0 on the diagonal. Integer-valued
    preferences in [-127, 127] (sgnLP) are kept as int8 so sums stay exact."""
    ii, jj = np.triu_indices(S, 1)
    exact = values.size == 0 or (np.all(values == np.round(values)) and np.abs(values).max() <= 127)
    F = np.zeros((values.shape[1], S, S), dtype=np.int8 if exact else np.float64)
    F[:, ii, jj] = values.T
    F[:, jj, ii] = -values.T
    return F


def null_max_preference(F: np.ndarray, seed: int = 0, resamples: int = HSD_RESAMPLES,
                        permutations=None) -> np.ndarray:
    """The B statistics of :func:`null_max_preference_batches` in one array."""
    return np.concatenate([np.empty(0), *null_max_preference_batches(F, seed, resamples, permutations)])


def null_max_preference_batches(F: np.ndarray, seed: int = 0, resamples: int = HSD_RESAMPLES, permutations=None):
    """Yield the B resampled statistics max_{i<j} |sum_t F_t[pi_t(i), pi_t(j)]| (module
    docstring) batch after batch.

    Per batch of resamples the totals (batch x pairs) are accumulated topic by topic, one
    vectorised gather from F_t per topic: the temporaries stay at batch x pairs cells
    (:data:`HSD_PAIR_CELLS`, cache-sized), three times faster than one gather over
    batch x topics x pairs. The compiled kernel (``reeval.stats._kernels``, used when built
    unless ``REEVAL_KERNELS=0``) runs the same loop in C, summing in the same order, so
    both give the same bits. ``permutations``: :func:`drawn_permutations` of the same
    seed, or None to draw them."""
    T, S, _ = F.shape
    ii, jj = np.triu_indices(S, 1)
    batches = topic_permutations(seed, resamples, T, S, HSD_PAIR_CELLS // max(1, ii.size), permutations)
    exact = F.dtype == np.int8
    compiled = kernels() if not exact or T * 127 < 2**31 else None  # int8: int32 totals in C
    if compiled is not None:  # the same sums in the same order, in C (stats/_kernels.c)
        F = np.ascontiguousarray(F, dtype=np.int8 if exact else np.float64)
        for _, perms in batches:
            out = np.empty(len(perms))
            compiled.preference_null_max(F, perms, out, T, S, exact)
            yield out
        return
    acc = np.int64 if F.dtype == np.int8 else np.float64
    planes = F.reshape(T, S * S)
    for _, perms in batches:
        totals = np.zeros((len(perms), ii.size), dtype=acc)
        rows = perms.astype(np.int64) * S
        for t in range(T):  # topics of one batch of resamples: every pair and resample at once
            cells = rows[:, t, :].take(ii, axis=1)
            cells += perms[:, t, :].take(jj, axis=1)              # F_t[pi_t(i), pi_t(j)]
            totals += planes[t].take(cells, mode="clip")
        yield np.abs(totals).max(axis=1, initial=0).astype(np.float64)


def _preference_matrix(preferences, runs, what: str):
    """(pairs x topics values, run labels) from a matrix in triu order or a long frame
    with run_i, run_j, query_id and one preference column (``reeval.prefer``'s)."""
    if isinstance(preferences, pd.DataFrame):
        value = [c for c in preferences.columns if c not in ("run_i", "run_j", "query_id", "qid")]
        if len(value) != 1:
            raise InputError(f"{what}: expected run_i, run_j, query_id and one preference column "
                             f"(select it: frame[['run_i', 'run_j', 'query_id', 'rrLP']]); got {list(preferences.columns)}")
        return _pivot_pairs(preferences, value[0], runs, what)
    V = np.asarray(preferences, dtype=np.float64)
    if V.ndim != 2:
        raise InputError(f"{what} must be 2-D (pairs x topics), got shape {V.shape}")
    S = int(round((1 + math.sqrt(1 + 8 * V.shape[0])) / 2))
    if S * (S - 1) // 2 != V.shape[0]:
        raise InputError(f"{what}: {V.shape[0]} rows is not S(S-1)/2 pairs of S runs")
    labels = np.arange(S) if runs is None else np.asarray(list(runs), dtype=object)
    if labels.size != S:
        raise InputError(f"{what}: {labels.size} run names for {S} runs")
    return V, labels


def _pivot_pairs(frame, column, runs, what):
    """The long preference frame as pairs x topics in triu order of ``runs`` (default:
    order of first appearance); a pair given as (j, i) has its values negated."""
    topic = "query_id" if "query_id" in frame.columns else "qid"
    names = list(runs) if runs is not None else list(pd.unique(frame[["run_i", "run_j"]].to_numpy().ravel("F")))
    order = {n: k for k, n in enumerate(names)}
    a, b = frame.run_i.map(order), frame.run_j.map(order)
    if a.isna().any() or b.isna().any():
        raise InputError(f"{what}: a run of the frame is not among the runs given")
    a, b = a.to_numpy(np.int64), b.to_numpy(np.int64)
    S = len(names)
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    pair = lo * S - lo * (lo + 1) // 2 + (hi - lo - 1)
    topics, t = np.unique(frame[topic].astype(str), return_inverse=True)
    V = np.full((S * (S - 1) // 2, topics.size), np.nan)
    V[pair, t] = np.where(a < b, 1.0, -1.0) * frame[column].to_numpy(np.float64)
    if np.isnan(V).any() or (a == b).any():
        raise InputError(f"{what}: every pair of distinct runs needs one value per topic")
    return V, np.asarray(names, dtype=object)


def randomised_tukey_hsd_preferences(preferences, runs=None, resamples: int = HSD_RESAMPLES,
                                     seed: int = 0, permutations=None) -> pd.DataFrame:
    """Randomised Tukey HSD of pairwise preferences (rrLP, sgnLP: values that exist only
    between two rankings).

    ``preferences``: pairs x topics values of run i over run j for the pairs i < j in
    ``numpy.triu_indices`` order (S inferred, ``runs`` names them), or a long frame with
    run_i, run_j, query_id and one preference column (``reeval.prefer``'s, one column
    selected). Within each topic the rankings are permuted among the runs, every pair's
    total preference recomputed, and the largest absolute one taken (module docstring).

    Returns one row per pair: run_i, run_j, mean (mean preference of i over j), p_value,
    mc_se; ``attrs``: resamples, seed, statistic. No topic gives NaN. ``permutations``: as
    for :func:`randomised_tukey_hsd`.
    """
    resamples, seed = _check_resamples(resamples), check_seed(seed)
    V, labels = _preference_matrix(preferences, runs, "preferences")
    if not np.isfinite(V).all():
        raise InputError("preferences must be finite (no NaN or inf)")
    S = labels.size
    ii, jj = np.triu_indices(S, 1)
    T = V.shape[1]
    if T and S >= 2:
        tol = 1e-10 * T * float(np.abs(V).max(initial=0.0))
        null = null_max_preference_batches(preference_tensor(V, S), seed, resamples, permutations)
        p = _p_values(null, np.abs(V.sum(axis=1)), tol, resamples)
    else:
        p = np.full(ii.size, np.nan)
    out = pd.DataFrame({"run_i": labels[ii], "run_j": labels[jj],
                        "mean": V.mean(axis=1) if T else np.full(ii.size, np.nan),
                        "p_value": p, "mc_se": mc_standard_error(p, resamples)})
    out.attrs.update(resamples=resamples, seed=seed, statistic="max_{i<j} |mean preference_ij|")
    return out
