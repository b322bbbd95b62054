"""The classic trec_eval measures, registered (conventions of trec_eval 9/10).

Notation: ``pos`` is the 1-based rank in trec_eval order; R_q the qrels documents of
topic q with rel >= rel_level; a row is a judged document a run retrieved. Every classic
measure is 0 for a topic with R_q = 0 and for a topic the run did not answer.
"""

from __future__ import annotations

import numpy as np

from reeval.io.arrays import group_starts, position_in_group

from .context import Context, safe_div
from .grid import Grid, grouped_cumsum
from .registry import SETS, Family, Measure, cutoffs, exact, register


def average_precision(ctx: Context, m: Measure) -> np.ndarray:
    """AP = (1/R_q) * sum over retrieved relevant d of (relevant at or above d) / pos_d."""
    return ctx.once("map", lambda: safe_div(ctx.count(ctx.is_rel, ctx.cum_rel / ctx.pos), ctx.R[None, :]))


def precision(ctx: Context, m: Measure) -> np.ndarray:
    """P_k = (relevant in the top k) / k, also when fewer than k documents were retrieved."""
    return ctx.count(ctx.is_rel & (ctx.pos <= m.cutoff)) / m.cutoff


def recall(ctx: Context, m: Measure) -> np.ndarray:
    """recall_k = (relevant in the top k) / R_q."""
    return safe_div(ctx.count(ctx.is_rel & (ctx.pos <= m.cutoff)), ctx.R[None, :])


def r_precision(ctx: Context, m: Measure) -> np.ndarray:
    """Rprec = (relevant in the top R_q) / R_q."""
    return safe_div(ctx.count(ctx.is_rel & (ctx.pos <= ctx.R[ctx.topic_of_row])), ctx.R[None, :])


def reciprocal_rank(ctx: Context, m: Measure) -> np.ndarray:
    """recip_rank = 1 / (pos of the first relevant document), 0 when none was retrieved."""
    return ctx.count(ctx.is_rel & (ctx.cum_rel == 1), 1.0 / ctx.pos)


def bpref(ctx: Context, m: Measure) -> np.ndarray:
    """bpref = (1/R_q) * sum over retrieved relevant d of 1 - min(n_d, R_q) / min(N_q, R_q),
    n_d the judged non-relevant documents (0 <= rel < rel_level) above d, N_q those in the
    qrels; a term is 1 when n_d = 0. Documents judged with a negative grade are skipped,
    as trec_eval skips them."""
    grid, R = ctx.grid, ctx.R
    judged_nonrel = (grid.rel >= 0) & (grid.rel < ctx.rel_level)
    n_d = grouped_cumsum(judged_nonrel, ctx.starts).astype(np.float64)  # for a relevant row: rows above
    N = np.bincount(grid.qrels_topic[(grid.qrels_rel >= 0) & (grid.qrels_rel < ctx.rel_level)],
                    minlength=ctx.T).astype(np.float64)
    t = ctx.topic_of_row
    denom = np.minimum(N, R)[t]
    term = np.where(n_d > 0, 1.0 - np.minimum(n_d, R[t]) / np.where(denom > 0, denom, 1), 1.0)
    return safe_div(ctx.count(ctx.is_rel, term), R[None, :])


def ideal_dcg(topic: np.ndarray, rel: np.ndarray, T: int, cutoffs) -> dict:
    """Ideal DCG per topic at each cutoff (None = no cutoff): the qrels grades > 0 sorted
    descending, discount log2(rank + 1)."""
    gain_mask = rel > 0
    t, gain = topic[gain_mask], rel[gain_mask].astype(np.float64)
    order = np.lexsort((-gain, t))
    t, gain = t[order], gain[order]
    rank = position_in_group(group_starts(t))
    disc = gain / np.log2(rank + 1.0)
    out = {}
    for k in cutoffs:
        sel = rank <= k if k is not None else np.ones(len(rank), dtype=bool)
        out[k] = np.bincount(t[sel], weights=disc[sel], minlength=T)
    return out


def ndcg(ctx: Context, m: Measure) -> np.ndarray:
    """nDCG (``ndcg``, ``ndcg_cut_k``): gain = rel when rel > 0 (whatever rel_level), the
    discount of rank r is log2(r + 1) (trec_eval 9.0.5 and later), the ideal ranking sorts
    the qrels grades > 0 descending; 0 when the ideal gain is 0."""
    k, grid = m.cutoff, ctx.grid
    idcg = ctx.once(("idcg", k), lambda: ideal_dcg(grid.qrels_topic, grid.qrels_rel, ctx.T, [k])[k])[None, :]
    sel = (ctx.rel > 0) & (ctx.pos <= k) if k is not None else ctx.rel > 0
    dcg = ctx.count(sel, ctx.rel / np.log2(ctx.pos + 1.0))
    return np.where(idcg > 0, safe_div(dcg, idcg), dcg)


#: The 11 standard recall levels of trec_eval's ``iprec_at_recall_*``.
RECALL_LEVELS = np.arange(11) / 10
IPREC_RULES = ("trec_eval9", "trec_eval10", "recall")


def recall_cutoff_ranks(num_rel, rule: str = "trec_eval9") -> np.ndarray:
    """For each topic, the relevant-document count k_L that stands for recall level L.

    Shape ``(len(num_rel), 11)`` of int64, one column per level L = 0.0, 0.1, ..., 1.0
    (the doubles 0.1 ... as written in C). trec_eval does not compare recall with L; it
    turns L into a number of relevant documents first (m_iprec_at_recall.c):

    - ``"trec_eval9"`` (trec_eval <= 9.x and pytrec_eval-terrier):
      k_L = (long)(L * R + 0.9), evaluated in doubles exactly as C does. So k_L is
      ceil(L R - 0.1) up to rounding: R = 3, L = 0.7 gives 0.7*3 + 0.9 =
      2.9999999999999996 and k_L = 2, although recall 2/3 < 0.7.
    - ``"trec_eval10"`` (trec_eval 10): k_L = lround(L * R), nearest, halves away from 0.
    - ``"recall"``: the textbook rule "recall >= L": k_L = ceil(L R) in integer arithmetic.

    A level with k_L = 0 behaves as k_L = 1 (the maximum over the whole ranking).
    """
    if rule not in IPREC_RULES:
        raise ValueError(f"rule must be one of {IPREC_RULES}, got {rule!r}")
    R = np.asarray(num_rel, dtype=np.int64)[:, None]
    if rule == "recall":
        j = np.arange(RECALL_LEVELS.size, dtype=np.int64)[None, :]
        return -(-(j * R) // 10)
    x = RECALL_LEVELS[None, :] * R.astype(np.float64)
    if rule == "trec_eval9":
        return np.floor(x + 0.9).astype(np.int64)
    low = np.floor(x)
    return np.where(x - low >= 0.5, low + 1, low).astype(np.int64)


def interpolated_precision(grid: Grid, is_rel, cum_rel, R) -> np.ndarray:
    """trec_eval's 11-point interpolated precision, shape (S, T, 11).

    Level L = j/10 stands for k_L = (long)(L * R_q + 0.9) relevant documents (trec_eval
    9.x and pytrec_eval; see recall_cutoff_ranks); the value is the
    highest precision rel_so_far/pos at any relevant document with rel_so_far >= max(k_L, 1),
    0 when the run retrieved fewer than k_L relevant documents.
    """
    S, T = grid.shape
    g = grid.g[is_rel]
    prec = cum_rel[is_rel] / grid.pos[is_rel]
    # suffix maximum of precision inside each (run, topic): on the ranks of the values
    # (exact integers, unlike offsets added to the floats), reversed, each group offset
    # above the ones before it, then a running maximum
    values_sorted, rank = np.unique(prec, return_inverse=True)
    span = np.int64(len(values_sorted))
    rev = slice(None, None, -1)
    offset = np.cumsum(group_starts(g[rev])) * span
    suffix_max = values_sorted[(np.maximum.accumulate(rank[rev] + offset) - offset)[rev]]
    rel_ret = np.bincount(g, minlength=S * T)
    first = np.concatenate([[0], np.cumsum(rel_ret)[:-1]])  # index of each group's first relevant row
    k = np.maximum(recall_cutoff_ranks(R.astype(np.int64)), 1)  # (T, 11)
    k_full = np.broadcast_to(k[None, :, :], (S, T, 11)).reshape(S * T, 11)
    reached = k_full <= rel_ret[:, None]
    idx = np.where(reached, first[:, None] + k_full - 1, 0)
    values = np.where(reached, suffix_max[idx] if len(suffix_max) else 0.0, 0.0)
    return values.reshape(S, T, 11)


def iprec_at_recall(ctx: Context, m: Measure) -> np.ndarray:
    """iprec_at_recall_L: :func:`interpolated_precision` at level L = cutoff / 10."""
    levels = ctx.once("iprec", lambda: interpolated_precision(ctx.grid, ctx.is_rel, ctx.cum_rel, ctx.R))
    return levels[:, :, m.cutoff]


def _iprec_parse(spec: str, family: Family):
    low = spec.lower()
    if low == "iprec_at_recall":
        return [_iprec(family, j) for j in range(11)]
    if low.startswith("iprec_at_recall_"):
        levels = {f"{j / 10:.2f}": j for j in range(11)}
        j = levels.get(low[len("iprec_at_recall_"):])
        return None if j is None else [_iprec(family, j)]
    return None


def _iprec(family: Family, j: int) -> Measure:
    return family.measure(f"iprec_at_recall_{j / 10:.2f}", j)


def _count(what):
    def compute(ctx: Context, m: Measure) -> np.ndarray:
        return what(ctx)
    compute.__doc__ = what.__doc__
    return compute


def _classic(name, names, description, parse, compute, **kw):
    return register(Family(name, names, description, parse, compute, trec_eval=True, doc=compute.__doc__ or "", **kw))


_classic("map", ('map', 'AP'), "mean average precision", exact("map", "ap"), average_precision)
_classic("gm_map", ('gm_map',), "geometric mean of AP over topics (AP floored at 1e-5)", exact("gm_map"),
         average_precision, aggregate="gmean")
_classic("P", ('P', 'P_k', 'P.k1,k2', 'P@k'), "precision at k (P alone: the standard cutoffs)", cutoffs("p"), precision)
_classic("recall", ('recall', 'recall_k', 'recall.k1,k2', 'R@k'), "recall at k", cutoffs("recall", "r"), recall)
_classic("Rprec", ('Rprec',), "precision at R_q, the number of relevant documents", exact("rprec", name="Rprec"),
         r_precision)
_classic("recip_rank", ('recip_rank', 'RR', 'MRR'), "reciprocal rank of the first relevant document",
         exact("recip_rank", "rr", "mrr"), reciprocal_rank)
_classic("bpref", ('bpref',), "binary preference: relevant above judged non-relevant", exact("bpref"), bpref)
_classic("ndcg", ('ndcg', 'nDCG'), "nDCG over the whole ranking (graded gains)", exact("ndcg"), ndcg)
_classic("ndcg_cut", ('ndcg_cut', 'ndcg_cut_k', 'ndcg_cut.k1,k2', 'nDCG@k'), "nDCG at k",
         cutoffs("ndcg_cut", "ndcg"), ndcg)
_classic("iprec_at_recall", ('iprec_at_recall', 'iprec_at_recall_L'),
         "interpolated precision at recall level L = 0.00, 0.10, ..., 1.00 (all 11 without L)", _iprec_parse, iprec_at_recall)
_classic("num_q", ('num_q',), "topics averaged over", exact("num_q"),
         _count(lambda ctx: np.ones((ctx.S, ctx.T))), aggregate="count")
_classic("num_ret", ('num_ret',), "documents retrieved (sum over topics)", exact("num_ret"),
         _count(lambda ctx: ctx.grid.n_ret.astype(np.float64)), aggregate="sum")
_classic("num_rel", ('num_rel',), "relevant documents in the qrels (sum over topics)", exact("num_rel"),
         _count(lambda ctx: np.broadcast_to(ctx.R[None, :], (ctx.S, ctx.T)).copy()), aggregate="sum")
_classic("num_rel_ret", ('num_rel_ret',), "relevant documents retrieved (sum over topics)", exact("num_rel_ret"),
         _count(lambda ctx: ctx.rel_ret), aggregate="sum")

#: trec_eval's default set of the measures reeval implements, and every classic measure
OFFICIAL = ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
            "recip_rank", "iprec_at_recall", "P")
SETS["official"] = OFFICIAL
SETS["all_trec"] = OFFICIAL + ("recall", "ndcg", "ndcg_cut")
