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

Loops run over samples x fractions only; every pair of runs is compared at once
(:func:`reeval.analyses.lexiprecision.core.compare_pairs`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from reeval.io.arrays import group_starts, position_in_group

from .core import PairComparison, _assemble, _grid, compare_pairs

#: the predictors of figure 8, in the paper's order and drawing (solid green dRR_1,
#: dashed red rrLP, dotted blue sgnLP)
PREDICTORS = ("dRR1", "rrLP", "sgnLP")
#: what is removed, as the ``removed`` column says it
REMOVED = ("labels", "queries")
#: columns of one row per (removed, fraction, sample)
SAMPLE_COLUMNS = (("removed", "fraction_removed", "sample", "n_pair_topics", "n_run_pairs")
                  + tuple(f"ranking_{p}" for p in PREDICTORS) + tuple(f"system_{p}" for p in PREDICTORS))
#: the agreement columns averaged over samples
AGREEMENT = tuple(f"{kind}_{p}" for kind in ("ranking", "system") for p in PREDICTORS)


def _predictors(pc: PairComparison) -> dict:
    """Per predictor its pairs x topics values (dRR_1 with NaN, a topic without a relevant
    label, as 0)."""
    return {"dRR1": np.nan_to_num(pc.drr[:, :, 0], nan=0.0), "rrLP": pc.rr, "sgnLP": pc.sgn.astype(np.float64)}


def agreement(full_drr1: np.ndarray, pc: PairComparison, kept: np.ndarray, tol: float = 1e-12) -> dict:
    """Ranking and system agreement (%) of the predictors of ``pc`` (incomplete data,
    pairs x all topics) with ``full_drr1`` (pairs x topics, complete data) over the
    topics where ``kept`` (bool per topic) is true; module docstring for the definitions."""
    target_rank = np.sign(full_drr1[:, kept])
    use = target_rank != 0
    T = full_drr1.shape[1]
    mean_full = full_drr1.sum(axis=1) / max(T, 1)
    sys_use = np.abs(mean_full) > tol
    target_sys = np.sign(mean_full[sys_use])
    n_rank, n_sys = int(use.sum()), int(sys_use.sum())
    out = {"n_pair_topics": n_rank, "n_run_pairs": n_sys}
    for name, v in _predictors(pc).items():
        v = v[:, kept]
        out[f"ranking_{name}"] = 100.0 * float((np.sign(v)[use] == target_rank[use]).sum()) / n_rank if n_rank else math.nan
        mean = v.sum(axis=1) / max(int(kept.sum()), 1)
        sign = np.where(np.abs(mean) > tol, np.sign(mean), 0.0)
        out[f"system_{name}"] = 100.0 * float((sign[sys_use] == target_sys).sum()) / n_sys if n_sys else math.nan
    return out


def _kept_rank(groups: np.ndarray, rng) -> np.ndarray:
    """Per item, its 0-based rank by a fresh u ~ U(0, 1) within its group (``groups``
    int codes): keeping ranks < n keeps n items of a group uniformly at random, nested in n."""
    u = rng.random(groups.size)
    order = np.lexsort((u, groups))
    rank = np.empty(groups.size, dtype=np.int64)
    rank[order] = position_in_group(group_starts(groups[order])) - 1
    return rank


def incomplete_agreement(judged, qrels, depth, runs=None, rel_level: int = 1,
                         fractions=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
                         samples: int = 10, seed: int = 0) -> pd.DataFrame:
    """Figure 8's samples: one row per (removed, fraction, sample) with the agreements of
    :func:`agreement` (columns :data:`SAMPLE_COLUMNS`); aggregate with
    :func:`summarize_agreement`. Central tables as :func:`reeval.analyses.lexiprecision.
    core.position_vectors` takes them."""
    grid = _grid(judged, qrels, depth, runs, keep_docno=True)
    T_all = grid.shape[1]
    qt = grid.qrels_topic
    n_q = np.bincount(qt, minlength=T_all)
    is_rel_q = grid.qrels_rel >= rel_level
    m_full = np.bincount(qt[is_rel_q], minlength=T_all)
    is_rel = grid.rel >= rel_level
    g, pos = grid.g[is_rel], grid.pos[is_rel]
    full = compare_pairs(_assemble(grid, g, pos, m_full, m_full, rel_level, levels=1), levels=1)
    full_drr1 = np.nan_to_num(full.drr[:, :, 0], nan=0.0)
    T = full_drr1.shape[1]
    every_topic = np.ones(T, dtype=bool)
    labels = pd.MultiIndex.from_arrays([qt, grid.qrels_docno])
    row_label = labels.get_indexer(pd.MultiIndex.from_arrays([g % T_all, grid.docno[is_rel]]))
    rows = []
    for k in range(samples):
        label_rank = _kept_rank(qt, np.random.default_rng([seed, k]))
        topic_rank = _kept_rank(np.zeros(T, dtype=np.int64), np.random.default_rng([seed, k, 1]))
        for f in fractions:
            n_keep = np.maximum(np.floor(n_q * (1.0 - f) + 1e-9), 1)
            keep = label_rank < n_keep[qt]
            m = np.bincount(qt[keep & is_rel_q], minlength=T_all)
            sel = keep[row_label]
            pc = compare_pairs(_assemble(grid, g[sel], pos[sel], m_full, m, rel_level, levels=1), levels=1)
            rows.append({"removed": "labels", "fraction_removed": float(f), "sample": k,
                         **agreement(full_drr1, pc, every_topic)})
            kept_topics = topic_rank < max(int(round(T * (1.0 - f))), 1)
            rows.append({"removed": "queries", "fraction_removed": float(f), "sample": k,
                         **agreement(full_drr1, full, kept_topics)})
    out = pd.DataFrame(rows, columns=list(SAMPLE_COLUMNS))
    return out.sort_values(["removed", "fraction_removed", "sample"], kind="stable").reset_index(drop=True)


def summarize_agreement(samples: pd.DataFrame) -> pd.DataFrame:
    """Mean and standard deviation (ddof 1; NaN with one sample) over the samples of each
    (removed, fraction): ``<agreement>_mean`` and ``<agreement>_std`` for each of
    :data:`AGREEMENT`, plus ``samples``."""
    g = samples.groupby(["removed", "fraction_removed"], sort=True)
    cols = list(AGREEMENT)
    out = g[cols].mean().add_suffix("_mean").join(g[cols].std(ddof=1).add_suffix("_std"))
    out["samples"] = g.size()
    order = [c for a in cols for c in (f"{a}_mean", f"{a}_std")] + ["samples"]
    return out[order].reset_index()
