"""Ties and where two rankings first differ, for lexicographic precision (the paper's
figures 2, 3, 5-7 and 9) and the profile of a track.

Notation as in :mod:`reeval.analyses.lexiprecision.core`: position vectors, ``i*`` the first
index where two vectors differ, p_1 the position of the first relevant document.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from reeval.io.arrays import group_starts, position_in_group
from reeval.stats.compiled import kernels

from .core import UNRETRIEVED, PairComparison, PositionVectors, _assemble, _grid


def theoretical_tie_probability(n: int, m: int, p1: np.ndarray) -> np.ndarray:
    """Figure 2: P(p'_1 = p_1 | p_1) = C(n - p_1, m - 1) / C(n, m) for a second ranking
    whose m relevant positions are drawn uniformly among n (0 where p_1 > n - m + 1)."""
    from scipy.special import gammaln

    p1 = np.asarray(p1, dtype=np.float64)
    ok = (p1 >= 1) & (p1 <= n - m + 1)
    a = np.where(ok, n - p1, m - 1)
    log_num = gammaln(a + 1) - gammaln(m) - gammaln(a - m + 2)
    log_den = gammaln(n + 1) - gammaln(m + 1) - gammaln(n - m + 1)
    return np.where(ok, np.exp(log_num - log_den), 0.0)


def tie_probability_by_p1(pv: PositionVectors) -> pd.DataFrame:
    """Figure 3: for each first-relevant position p_1 reached by some ranking, the
    probability that another run's ranking of the same topic has the same p_1:
    sum_q c_q(p)(c_q(p) - 1) / sum_q c_q(p)(S - 1), c_q(p) = rankings of q with p_1 = p.
    Rankings without a retrieved relevant document are left out."""
    S, T = pv.shape
    p1 = pv.positions[:, :, 0].astype(np.int64)
    ok = p1 != UNRETRIEVED
    t = np.broadcast_to(np.arange(T)[None, :], (S, T))[ok]
    keys, counts = np.unique(np.stack([p1[ok], t]), axis=1, return_counts=True)
    df = pd.DataFrame({"p1": keys[0], "tied": counts * (counts - 1), "rankings": counts})
    out = df.groupby("p1", as_index=False)[["tied", "rankings"]].sum()
    out["probability"] = out["tied"] / (out["rankings"] * max(S - 1, 1))
    return out


def tie_probability_by_level(pc: PairComparison) -> pd.DataFrame:
    """Figure 5: per recall level i, the share of pair-topics (with m >= i) where
    p_i = p'_i (dRR_i = 0, both unretrieved included)."""
    return tie_probability_by_level_from(level_tie_counts(pc))


def level_tie_counts(pc: PairComparison) -> np.ndarray:
    """(2, levels) int64: pair-topics with dRR_i defined, and with dRR_i = 0 (add up over blocks)."""
    L = pc.drr.shape[2]
    defined = ~np.isnan(pc.drr)
    return np.stack([defined.reshape(-1, L).sum(axis=0), (pc.drr == 0).reshape(-1, L).sum(axis=0)]).astype(np.int64)


def tie_probability_by_level_from(counts: np.ndarray) -> pd.DataFrame:
    """:func:`tie_probability_by_level` from :func:`level_tie_counts`."""
    n, ties = counts
    return pd.DataFrame({"level": np.arange(1, n.size + 1), "pair_topics": n, "ties": ties,
                         "probability": np.where(n > 0, ties / np.maximum(n, 1), np.nan)})


def i_star_distribution(pc: PairComparison) -> pd.DataFrame:
    """Figure 6: the empirical CDF of i* over pair-topics that are not tied."""
    return i_star_distribution_from(i_star_counts(pc))


def i_star_counts(pc: PairComparison) -> np.ndarray:
    """Pair-topics by i* (index i* = 0 .. max i*), int64; arrays of two blocks add up
    after padding the shorter with zeros (:func:`add_counts`)."""
    return np.bincount(pc.i_star.ravel().astype(np.int64)).astype(np.int64)


def add_counts(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a + b for count vectors of possibly different lengths (the shorter padded with 0)."""
    if a.size < b.size:
        a, b = b, a
    out = a.copy()
    out[:b.size] += b
    return out


def i_star_distribution_from(counts: np.ndarray) -> pd.DataFrame:
    """:func:`i_star_distribution` from :func:`i_star_counts`: the i* > 0 with a count."""
    levels = np.flatnonzero(counts[1:] > 0) + 1
    c = counts[levels]
    return pd.DataFrame({"i_star": levels.astype(np.int32), "count": c,
                         "ecdf": np.cumsum(c) / max(int(c.sum()), 1)})


#: Figure 7's recall levels and lags.
LOCALITY_LEVELS, LOCALITY_LAGS = 8, 4


def locality_rows(pc: PairComparison, max_level: int = LOCALITY_LEVELS) -> np.ndarray:
    """The rows figure 7 uses: dRR_1..dRR_max_level of the pair-topics with m >= max_level,
    pairs x those topics, in one orientation (:func:`locality` adds -D)."""
    if pc.drr.shape[2] < max_level:
        raise ValueError(f"need dRR up to level {max_level}")
    use = pc.m >= max_level
    return pc.drr[:, use, :max_level].reshape(-1, max_level)


def locality(pc: PairComparison, max_level: int = LOCALITY_LEVELS, lags: int = LOCALITY_LAGS):
    """Figure 7: Pearson correlations among dRR_1..dRR_max_level, and for i = 1 ..
    max_level - lags the least-squares regression of dRR_i on dRR_{i+1..i+lags} (with an
    intercept). Uses the pair-topics with m >= max_level, each pair in both orientations
    (D and -D), so nothing depends on which run of a pair comes first.

    Returns (correlation DataFrame max_level x max_level, regression DataFrame with
    columns i, j (lag 1..lags), coefficient, plus r2 and n per i).
    """
    return locality_from(locality_rows(pc, max_level), max_level, lags)


def locality_from(D: np.ndarray, max_level: int = LOCALITY_LEVELS, lags: int = LOCALITY_LAGS):
    """:func:`locality` from the :func:`locality_rows` of every pair (blocks concatenated)."""
    D = np.concatenate([D, -D])
    names = [f"dRR_{k}" for k in range(1, max_level + 1)]
    if D.shape[0] < 3:
        return pd.DataFrame(np.nan, index=names, columns=names), pd.DataFrame(
            columns=["i", "j", "coefficient", "r2", "n"])
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = pd.DataFrame(np.corrcoef(D, rowvar=False), index=names, columns=names)
    rows = []
    for i in range(max_level - lags):
        y = D[:, i]
        X = np.column_stack([np.ones(D.shape[0]), D[:, i + 1:i + 1 + lags]])
        coef, *_ = np.linalg.lstsq(X, y, rcond=None)
        resid = y - X @ coef
        ss = float(((y - y.mean()) ** 2).sum())
        r2 = 1.0 - float((resid ** 2).sum()) / ss if ss > 0 else math.nan
        rows += [{"i": i + 1, "j": j + 1, "coefficient": float(coef[j + 1]), "r2": r2,
                  "n": D.shape[0]} for j in range(lags)]
    return corr, pd.DataFrame(rows)


def locality_from_moments(gram: np.ndarray, n_rows: int, lags: int = LOCALITY_LAGS):
    """:func:`locality` from the cross-products gram = D^T D of its rows (one orientation,
    ``n_rows`` of them), for tracks whose rows are too many to hold. With both orientations
    every column's mean is 0 and the intercept 0, so correlation_ab = G_ab / sqrt(G_aa G_bb),
    the coefficients solve G[x, x] b = G[x, y] and r2 = b . G[x, y] / G_yy. The same
    statistics as :func:`locality_from`; their last digits may differ (another summation)."""
    max_level = gram.shape[0]
    names = [f"dRR_{k}" for k in range(1, max_level + 1)]
    n = 2 * n_rows
    if n < 3:
        return locality_from(np.zeros((n_rows, max_level)), max_level, lags)
    d = np.sqrt(np.diag(gram))
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = pd.DataFrame(gram / np.outer(d, d), index=names, columns=names)
    rows = []
    for i in range(max_level - lags):
        x = slice(i + 1, i + 1 + lags)
        coef = np.linalg.lstsq(gram[x, x], gram[x, i], rcond=None)[0]
        ss = float(gram[i, i])
        r2 = float(coef @ gram[x, i]) / ss if ss > 0 else math.nan
        rows += [{"i": i + 1, "j": j + 1, "coefficient": float(coef[j]), "r2": r2, "n": n}
                 for j in range(lags)]
    return corr, pd.DataFrame(rows)


def tie_counts(pv: PositionVectors) -> tuple[int, int, int]:
    """(pairs of rankings, tied under RR, tied under lexiprecision) over all topics,
    by counting equal p_1 values and identical position vectors per topic (each row's
    bytes as one key: no pair loop). The compiled kernel (``reeval.stats._kernels.
    tied_pairs``, unless ``REEVAL_KERNELS=0``) sorts each topic's vectors and counts the
    same groups: the same integers."""
    S, T = pv.shape
    total = T * S * (S - 1) // 2
    if S < 2 or T == 0:
        return total, 0, 0
    width = max(int(pv.found.max(initial=0)), 1)
    compiled = kernels()
    if compiled is not None and pv.positions.dtype == np.int32:
        rr_tied, lp_tied = compiled.tied_pairs(np.ascontiguousarray(pv.positions), S, T, pv.positions.shape[2], width)
        return total, rr_tied, lp_tied
    rows = np.ascontiguousarray(pv.positions[:, :, :width]).reshape(S * T, width)
    topic = np.tile(np.arange(T, dtype=np.int64), S)
    _, vector_id = np.unique(rows.view(np.dtype((np.void, rows.itemsize * width))).ravel(),
                             return_inverse=True)
    _, c_lp = np.unique(vector_id.ravel() * T + topic, return_counts=True)
    _, c_rr = np.unique(rows[:, 0].astype(np.int64) * T + topic, return_counts=True)
    pairs = (lambda c: int((c * (c - 1) // 2).sum()))
    return total, pairs(c_rr), pairs(c_lp)


def kept_rank(groups: np.ndarray, rng) -> np.ndarray:
    """Per item, its 0-based rank by a fresh u ~ U(0, 1) within its group (``groups``
    int codes): keeping ranks < n keeps n items of a group uniformly at random, nested in n."""
    u = rng.random(groups.size)
    order = np.lexsort((u, groups))
    rank = np.empty(groups.size, dtype=np.int64)
    rank[order] = position_in_group(group_starts(groups[order])) - 1
    return rank


def label_rows(grid, rel_level: int):
    """What removing relevance labels needs of a grid built with docnos: per topic its
    judged count ``n_q`` and its relevant count ``m_full`` (>= ``rel_level``), which qrels
    rows are relevant (``is_rel_q``), the retrieved relevant rows' cells ``g`` and positions
    ``pos``, and for each of them its qrels row (``row_label``)."""
    T_all = grid.shape[1]
    qt = grid.qrels_topic
    n_q = np.bincount(qt, minlength=T_all)
    is_rel_q = grid.qrels_rel >= rel_level
    m_full = np.bincount(qt[is_rel_q], minlength=T_all)
    is_rel = grid.rel >= rel_level
    g, pos = grid.g[is_rel], grid.pos[is_rel]
    labels = pd.MultiIndex.from_arrays([qt, grid.qrels_docno])
    row_label = labels.get_indexer(pd.MultiIndex.from_arrays([g % T_all, grid.docno[is_rel]]))
    return n_q, m_full, is_rel_q, g, pos, row_label


def removed_label_vectors(grid, labels: tuple, rel_level: int, fractions, samples: int, seed: int):
    """Yield ``(k, f, PositionVectors)`` for each sample k and fraction f in turn (samples
    outer, fractions inner): the position vectors (one level) of ``grid`` (built with
    docnos) with the fraction f of its relevance labels removed as
    :func:`label_removal_ties` removes them (``default_rng([seed, k])``, nested in f).
    ``labels``: :func:`label_rows` of ``grid`` at ``rel_level``. Figures 8 and 9 both
    read these vectors (:func:`reeval.analyses.lexiprecision.incomplete.label_removal_studies`
    builds them once for both)."""
    T_all, qt = grid.shape[1], grid.qrels_topic
    n_q, m_full, is_rel_q, g, pos, row_label = labels
    for k in range(samples):
        rank = kept_rank(qt, np.random.default_rng([seed, k]))
        for f in fractions:
            n_keep = np.maximum(np.floor(n_q * (1.0 - f) + 1e-9), 1)
            keep = rank < n_keep[qt]
            m = np.bincount(qt[keep & is_rel_q], minlength=T_all)
            sel = keep[row_label]
            yield k, f, _assemble(grid, g[sel], pos[sel], m_full, m, rel_level, levels=1)


def label_removal_row(k: int, f: float, pv: PositionVectors) -> dict:
    """Figure 9's row of sample ``k`` and fraction ``f`` from its position vectors ``pv``
    (:func:`removed_label_vectors`): pair_topics and the tied shares (%) under RR and LP."""
    total, rr_ties, lp_ties = tie_counts(pv)
    return {"fraction_removed": float(f), "sample": k, "pair_topics": total,
            "RR_ties": 100.0 * rr_ties / total if total else math.nan,
            "LP_ties": 100.0 * lp_ties / total if total else math.nan}


def label_removal_ties(judged, qrels, depth, runs=None, rel_level: int = 1,
                       fractions=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
                       samples: int = 10, seed: int = 0) -> pd.DataFrame:
    """Figure 9: ties (%) under RR and lexiprecision when a fraction f of the relevance
    labels is removed at random (a removed document counts as non-relevant).

    As the authors' pref_eval (``--label_fraction``): per topic with n_q judgments (any
    grade), max(floor(n_q (1 - f)), 1) of them are kept, uniformly at random. Sample k
    draws u ~ U(0, 1) per qrels row from ``numpy.random.default_rng([seed, k])`` and keeps
    each topic's judgments with the smallest u, so within a sample the removed sets are
    nested as f grows. The topics are those with a relevant document in the full qrels; a
    topic left without a relevant label has every pair tied. One row per (fraction,
    sample); aggregate with :func:`summarize_label_removal`.
    """
    grid = _grid(judged, qrels, depth, runs, keep_docno=True)
    vectors = removed_label_vectors(grid, label_rows(grid, rel_level), rel_level, fractions, samples, seed)
    return pd.DataFrame([label_removal_row(k, f, pv) for k, f, pv in vectors])


def summarize_label_removal(df: pd.DataFrame) -> pd.DataFrame:
    """Mean and standard deviation (ddof=1) over samples per removed fraction."""
    g = df.groupby("fraction_removed")[["RR_ties", "LP_ties"]]
    out = g.mean().add_suffix("_mean").join(g.std(ddof=1).add_suffix("_std"))
    return out.reset_index()


def track_profile(pv: PositionVectors, depth) -> dict:
    """Table 1 of the paper for a track: requests, runs, relevant per request, documents
    retrieved per request (mean over runs x requests with a relevant document), and the
    relevant documents retrieved per ranking (run x request): mean and standard deviation
    (population, ddof 0; NaN without a ranking)."""
    d = pd.DataFrame({"run": np.asarray(depth["run"]), "qid": np.asarray(depth["qid"]),
                      "n_ret": np.asarray(depth["n_ret"])})
    d = d[d.qid.isin(pv.topics) & d.run.isin(pv.runs)]
    S, T = pv.shape
    return {"requests": T, "runs": S, "rel_per_request": float(pv.m.mean()) if T else math.nan,
            "docs_per_request": float(d.n_ret.sum()) / (S * T) if S * T else math.nan,
            "rel_retrieved_per_ranking": float(pv.found.mean()) if S * T else math.nan,
            "rel_retrieved_sd_per_ranking": float(pv.found.std()) if S * T else math.nan}
