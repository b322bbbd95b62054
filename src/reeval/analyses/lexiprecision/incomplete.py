"""Figure 8 of the lexiprecision paper: agreement with full-data dRR_1 when relevance
labels or queries are removed at random.

Target: the preference of dRR_1 on the complete data (every label, every query).
Predictors, each computed on the incomplete data: dRR_1, rrLP and sgnLP.

- **Ranking agreement** (%): over the pair-topics (pair of runs x topic kept) whose
  full-data dRR_1 is not 0, the share where the predictor's sign equals the sign of the
  full-data dRR_1. A tie of the predictor (0) counts as a disagreement. sgnLP and rrLP
  always have the same sign, so their ranking agreements are equal (the paper omits
  sgnLP there).
- **System agreement** (%): over the pairs of runs whose full-data mean dRR_1 over all
  topics is not 0 (``|mean| > tol``), the share where the sign of the predictor's mean
  over the kept topics equals it.

Labels removed (fraction f): as figure 9 (:func:`reeval.analyses.lexiprecision.ties.
label_removal_ties`): per topic max(floor(n_q (1 - f)), 1) of its n_q judgments are kept,
those with the smallest u ~ U(0, 1) drawn from ``numpy.random.default_rng([seed, k])``
for sample k; removed documents count as non-relevant; every topic with a relevant
document in the full qrels stays. Queries removed (fraction f): max(round(T (1 - f)), 1)
of the T topics are kept, those with the smallest u ~ U(0, 1) from
``default_rng([seed, k, 1])``, every label of a kept topic stays. In both, the kept sets
are nested as f grows within a sample. With queries removed, a kept topic's preferences
are the full data's, so ranking agreement is 100% for dRR_1 and rrLP by construction;
only system agreement moves.

Loops run over samples x fractions (and chunks of pair-topics) only; the pairs of runs
are compared all at once (:func:`first_differences`): every pair up to :data:`MAX_PAIRS`
pairs, a seeded sample of that many above (said in the ``pairs`` column and on the figure).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd


from reeval.stats.compiled import kernels

from .core import UNRETRIEVED, PositionVectors, _assemble, _grid
from .ties import kept_rank, label_removal_row, label_rows, removed_label_vectors

#: the predictors of figure 8, in the paper's order and drawing (solid green dRR_1,
#: dashed red rrLP, dotted blue sgnLP)
PREDICTORS = ("dRR1", "rrLP", "sgnLP")
#: what is removed, as the ``removal`` column says it
REMOVED = ("labels", "queries")
#: columns of one row per (removal, fraction, sample); ``pairs``: the run pairs compared
SAMPLE_COLUMNS = (("removal", "fraction_removed", "sample", "pairs", "n_pair_topics", "n_run_pairs")
                  + tuple(f"ranking_{p}" for p in PREDICTORS) + tuple(f"system_{p}" for p in PREDICTORS))
#: the agreement columns averaged over samples
AGREEMENT = tuple(f"{kind}_{p}" for kind in ("ranking", "system") for p in PREDICTORS)
#: at most this many pairs of runs are compared (all of them up to 100 runs); above it a
#: seeded uniform sample of pairs, the same in every sample and fraction: the agreements
#: are shares, which a sample of 5,000 pairs estimates within about 1.4 percentage points
#: (two binomial standard errors at 50%), and a 3,000-run track (4.5 M pairs) stays cheap
MAX_PAIRS = 5000
#: pair-topics x columns compared at once (about 64 MB of temporaries)
CHUNK_CELLS = 1 << 23
#: columns of the position vectors compared per step (most pairs differ in the first)
STEP_COLUMNS = 8


def _inverse(p: np.ndarray) -> np.ndarray:
    """1/p, 0 where p is UNRETRIEVED."""
    return np.where(p == UNRETRIEVED, 0.0, 1.0 / np.maximum(p, 1))


def first_differences(pv: PositionVectors, ii: np.ndarray, jj: np.ndarray, drr1: np.ndarray | None = None) -> tuple:
    """(sgnLP, rrLP) of the runs ``ii`` against ``jj`` on every topic, pairs x topics:
    the first index where the two position vectors differ decides (sgnLP +1 when run i
    ranks its relevant document there higher, rrLP the difference of the reciprocal ranks
    there); identical vectors give 0. The first column, where most pairs differ, is
    compared for all pair-topics at once (whole rows of runs); the pair-topics still equal
    are then compared :data:`STEP_COLUMNS` columns at a time, and a pair-topic is tied as
    soon as both vectors are past the relevant documents they retrieved (the rest is
    UNRETRIEVED in both).

    rrLP is 1/x - 1/y of the positions x, y where the vectors first differ (0 for
    UNRETRIEVED); where they differ in the first column that is dRR_1, and where they
    never differ x = y, so 1/x - 1/y is 0.0: rrLP starts as dRR_1 (``drr1``, pairs x topics
    of ``RR[ii] - RR[jj]``, computed here when not given) and only the pair-topics first
    differing later are computed again, the same subtraction of the same reciprocals.
    The compiled kernel (``reeval.stats._kernels.first_differences``, used when built unless
    ``REEVAL_KERNELS=0``) scans each pair-topic's columns in C to the same first difference
    and computes the same sign and the same 1/x - 1/y, so both paths give the same bits."""
    P, found = pv.positions, pv.found
    S, T, L = P.shape
    n = len(ii)
    if not L or not n * T:
        return np.zeros((n, T), dtype=np.int8), np.zeros((n, T))
    compiled = kernels()
    if compiled is not None and P.dtype == np.int32:  # the same scan and the same arithmetic, in C
        sgn, rr = np.empty((n, T), dtype=np.int8), np.empty((n, T))
        compiled.first_differences(np.ascontiguousarray(P), np.ascontiguousarray(found, dtype=np.int64),
                                   np.ascontiguousarray(ii, dtype=np.int64), np.ascontiguousarray(jj, dtype=np.int64),
                                   sgn, rr, S, T, L)
        return sgn, rr
    first = P[:, :, 0]
    x = first[ii].ravel()                               # the relevant positions compared (int32),
    y = first[jj].ravel()                               # pair-major: index pair * T + topic
    k = np.where(x != y, 0, -1)                         # first differing column; -1 none (yet)
    reach = np.maximum(found[ii], found[jj]).ravel()
    open_ = np.flatnonzero((k < 0) & (reach > 1))
    for c0 in range(1, L, STEP_COLUMNS):
        open_ = open_[reach[open_] > c0]
        if not open_.size:
            break
        c1 = min(c0 + STEP_COLUMNS, L)
        step = max(1, CHUNK_CELLS // (c1 - c0))
        for a in range(0, open_.size, step):
            idx = open_[a:a + step]
            p, t = np.divmod(idx, T)
            neq = P[ii[p], t, c0:c1] != P[jj[p], t, c0:c1]
            hit = neq.any(axis=1)
            found_at = c0 + neq[hit].argmax(axis=1)
            idx, p, t = idx[hit], p[hit], t[hit]
            k[idx] = found_at
            x[idx] = P[ii[p], t, found_at]
            y[idx] = P[jj[p], t, found_at]
        open_ = open_[k[open_] < 0]
    # x = y where the vectors never differ, so the signs there are 0
    sgn = ((x < y).view(np.int8) - (x > y).view(np.int8)).reshape(n, T)
    if drr1 is None:
        rr1 = _inverse(first)
        drr1 = rr1[ii] - rr1[jj]
    rr = np.array(drr1, dtype=np.float64).reshape(n * T)
    later = np.flatnonzero(k > 0)
    rr[later] = _inverse(x[later]) - _inverse(y[later])
    return sgn, rr.reshape(n, T)


def agreement(full_drr1: np.ndarray, drr1: np.ndarray, rr: np.ndarray, sgn: np.ndarray, kept: np.ndarray,
              tol: float = 1e-12, targets: dict | None = None) -> dict:
    """Ranking and system agreement (%) of the predictors dRR_1, rrLP and sgnLP (on the
    incomplete data, pairs x all topics) with ``full_drr1`` (pairs x topics, complete
    data) over the topics where ``kept`` (bool per topic) is true; module docstring for
    the definitions. ``targets``: :func:`agreement_targets` of the same ``full_drr1``,
    ``kept`` and ``tol``, when several samples are compared with the same targets."""
    t = agreement_targets(full_drr1, kept, tol) if targets is None else targets
    every, n_rank = t["every"], t["n_rank"]
    out = {"n_pair_topics": n_rank, "n_run_pairs": t["n_sys"]}
    for name, v in zip(PREDICTORS, (drr1, rr, sgn)):
        v = v if every else v[:, kept]
        same = _same_signs(v, t)
        out[f"ranking_{name}"] = 100.0 * float(same) / n_rank if n_rank else math.nan
        out[f"system_{name}"] = _system_agreement(v, t, tol)
    return out


def _same_signs(v: np.ndarray, t: dict, axis=None):
    """Pair-topics where the predictor ``v`` has the sign of the full-data dRR_1, a
    target that is not 0 (``t["above"]``, ``t["below"]``: dRR_1 > 0, < 0); a predictor's
    0 or NaN never counts. Float predictors by two masks, sgnLP (int8) by its sign
    against the target's (``t["rank_or_nan"]``, NaN where dRR_1 = 0), whichever numpy
    does faster; the same counts."""
    if v.dtype == np.int8:
        return np.count_nonzero(np.sign(v) == t["rank_or_nan"], axis=axis)
    return np.count_nonzero((v > 0) & t["above"], axis=axis) + np.count_nonzero((v < 0) & t["below"], axis=axis)


def _system_agreement(v: np.ndarray, t: dict, tol: float) -> float:
    """System agreement (%) of a predictor ``v`` (pairs x the kept topics) with the
    targets ``t`` (:func:`agreement_targets`): the sign of its mean over the kept topics
    (0 within ``tol``) against the full data's, over the pairs ``t["sys_use"]``."""
    mean = v.sum(axis=1, dtype=np.float64) / t["n_kept"]  # sgnLP: exact integer sums in float64
    sign = np.where(np.abs(mean) > tol, np.sign(mean), 0.0)
    n_sys = t["n_sys"]
    return 100.0 * float((sign[t["sys_use"]] == t["target_sys"]).sum()) / n_sys if n_sys else math.nan


def topic_agreement_counts(full_drr1: np.ndarray, predictors: tuple) -> np.ndarray:
    """(1 + len(predictors), topics) int64: per topic, the pairs whose full-data dRR_1
    is not 0, then for each predictor (pairs x topics) the pairs whose sign equals the
    full-data dRR_1's there. Summed over kept topics these are :func:`agreement`'s
    ``n_pair_topics`` and ranking counts (integers: the same whatever the order)."""
    t = agreement_targets(full_drr1, np.ones(full_drr1.shape[1], dtype=bool))
    return np.stack([np.count_nonzero(full_drr1 != 0, axis=0)]
                    + [_same_signs(v, t, axis=0) for v in predictors]).astype(np.int64)


def query_removal_agreement(full: tuple, kept: np.ndarray, counts: np.ndarray, targets: dict,
                            tol: float = 1e-12) -> dict:
    """:func:`agreement` of the full-data predictors ``full`` (dRR_1, rrLP, sgnLP) with
    the full-data dRR_1 (``full[0]``) over the topics ``kept`` (queries removed), from
    ``counts`` (:func:`topic_agreement_counts` of them) and ``targets``
    (:func:`agreement_targets` over every topic, whose system targets do not depend on
    the kept topics): the ranking counts are sums of kept topics' counts; the means over
    the kept topics are summed as :func:`agreement` sums them."""
    per = counts[:, kept].sum(axis=1)
    n_rank = int(per[0])
    every = bool(kept.all())
    t = dict(targets, n_kept=max(int(np.count_nonzero(kept)), 1))
    out = {"n_pair_topics": n_rank, "n_run_pairs": t["n_sys"]}
    for i, (name, v) in enumerate(zip(PREDICTORS, full)):
        out[f"ranking_{name}"] = 100.0 * float(per[i + 1]) / n_rank if n_rank else math.nan
        out[f"system_{name}"] = _system_agreement(v if every else v[:, kept], t, tol)
    return out


def agreement_targets(full_drr1: np.ndarray, kept: np.ndarray, tol: float = 1e-12) -> dict:
    """What :func:`agreement` compares the predictors with, over the topics ``kept``: the
    sign of the full-data dRR_1 per pair-topic (``rank_or_nan``: NaN where it is 0, so
    that no predictor's sign equals it there; ``above``, ``below``: where it is > 0,
    < 0), the pairs whose full-data mean dRR_1 over
    every topic is beyond ``tol`` (``sys_use``) and its sign (``target_sys``), their counts
    (``n_rank``, ``n_sys``) and the kept topics' count (``n_kept``, at least 1)."""
    every = bool(kept.all())                            # no copy when every topic is kept
    target_rank = np.sign(full_drr1 if every else full_drr1[:, kept])
    use = target_rank != 0
    T = full_drr1.shape[1]
    mean_full = full_drr1.sum(axis=1) / max(T, 1)
    sys_use = np.abs(mean_full) > tol
    return {"every": every, "rank_or_nan": np.where(use, target_rank, np.nan), "above": target_rank > 0,
            "below": target_rank < 0, "sys_use": sys_use,
            "target_sys": np.sign(mean_full[sys_use]), "n_rank": int(np.count_nonzero(use)),
            "n_sys": int(np.count_nonzero(sys_use)), "n_kept": max(int(np.count_nonzero(kept)), 1)}


def compared_pairs(S: int, seed: int = 0, max_pairs: int = MAX_PAIRS) -> tuple:
    """(ii, jj): every pair of runs i < j, or above ``max_pairs`` a uniform sample of that
    many (``default_rng([seed, 2])``), sorted."""
    ii, jj = np.triu_indices(S, 1)
    if ii.size > max_pairs:
        pick = np.sort(np.random.default_rng([seed, 2]).choice(ii.size, max_pairs, replace=False))
        ii, jj = ii[pick], jj[pick]
    return ii, jj


def _predictors(pv: PositionVectors, ii, jj) -> tuple:
    """(dRR_1, rrLP, sgnLP) of the pairs on every topic of ``pv``."""
    rr1 = _inverse(pv.positions[:, :, 0])
    drr1 = rr1[ii] - rr1[jj]
    sgn, rr = first_differences(pv, ii, jj, drr1)
    return drr1, rr, sgn


def incomplete_agreement(judged, qrels, depth, runs=None, rel_level: int = 1,
                         fractions=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
                         samples: int = 10, seed: int = 0, max_pairs: int = MAX_PAIRS) -> pd.DataFrame:
    """Figure 8's samples: one row per (removal, fraction, sample) with the agreements of
    :func:`agreement` (columns :data:`SAMPLE_COLUMNS`) over the pairs of
    :func:`compared_pairs`; aggregate with :func:`summarize_agreement`. Central tables as
    :func:`reeval.analyses.lexiprecision.core.position_vectors` takes them."""
    return label_removal_studies(judged, qrels, depth, runs, rel_level, fractions, samples, seed, max_pairs)[0]


def label_removal_studies(judged, qrels, depth, runs=None, rel_level: int = 1,
                          fractions=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
                          samples: int = 10, seed: int = 0, max_pairs: int = MAX_PAIRS) -> tuple:
    """(figure 8's samples, figure 9's samples): :func:`incomplete_agreement` and
    :func:`reeval.analyses.lexiprecision.ties.label_removal_ties` with the same arguments,
    the same tables, from one grid and one set of position vectors per (sample, fraction)
    with labels removed (both figures remove the same labels: ``default_rng([seed, k])``),
    built once for both instead of once per figure."""
    return grid_label_removal_studies(_grid(judged, qrels, depth, runs, keep_docno=True), rel_level, fractions,
                                      samples, seed, max_pairs)


def grid_label_removal_studies(grid, rel_level: int = 1,
                               fractions=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
                               samples: int = 10, seed: int = 0, max_pairs: int = MAX_PAIRS) -> tuple:
    """:func:`label_removal_studies` of a track's grid with its docnos
    (``build_grid(..., keep_docno=True)``)."""
    S, T_all = grid.shape
    labels = label_rows(grid, rel_level)
    _, m_full, _, g, pos, _ = labels
    ii, jj = compared_pairs(S, seed, max_pairs)
    full = _predictors(_assemble(grid, g, pos, m_full, m_full, rel_level, levels=1), ii, jj)
    full_drr1 = full[0]
    T = full_drr1.shape[1]
    every_topic = np.ones(T, dtype=bool)
    labels_target = agreement_targets(full_drr1, every_topic)     # the same for every labels row
    query_counts = topic_agreement_counts(full_drr1, full)        # the same full data in every queries row
    rows, ties, topic_rank, drawn = [], [], None, -1
    for k, f, pv in removed_label_vectors(grid, labels, rel_level, fractions, samples, seed):
        if k != drawn:
            topic_rank, drawn = kept_rank(np.zeros(T, dtype=np.int64), np.random.default_rng([seed, k, 1])), k
        ties.append(label_removal_row(k, f, pv))
        rows.append({"removal": "labels", "fraction_removed": float(f), "sample": k, "pairs": len(ii),
                     **agreement(full_drr1, *_predictors(pv, ii, jj), every_topic, targets=labels_target)})
        kept_topics = topic_rank < max(int(round(T * (1.0 - f))), 1)
        rows.append({"removal": "queries", "fraction_removed": float(f), "sample": k, "pairs": len(ii),
                     **query_removal_agreement(full, kept_topics, query_counts, labels_target)})
    out = pd.DataFrame(rows, columns=list(SAMPLE_COLUMNS))
    out = out.sort_values(["removal", "fraction_removed", "sample"], kind="stable").reset_index(drop=True)
    return out, pd.DataFrame(ties)


def summarize_agreement(samples: pd.DataFrame) -> pd.DataFrame:
    """Mean and standard deviation (ddof 1; NaN with one sample) over the samples of each
    (removal, fraction): ``<agreement>_mean`` and ``<agreement>_std`` for each of
    :data:`AGREEMENT`, plus ``samples`` and ``pairs`` (the run pairs compared)."""
    g = samples.groupby(["removal", "fraction_removed"], sort=True)
    cols = list(AGREEMENT)
    out = g[cols].mean().add_suffix("_mean").join(g[cols].std(ddof=1).add_suffix("_std"))
    out["samples"] = g.size()
    out["pairs"] = g["pairs"].max()
    order = [c for a in cols for c in (f"{a}_mean", f"{a}_std")] + ["samples", "pairs"]
    return out[order].reset_index()
