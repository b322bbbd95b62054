"""trec_eval's measures of precision and recall along a ranking, registered (trec_eval 10's
definitions, ``m_<name>.c``).

Notation: ``pos`` is the 1-based rank in trec_eval order; R_q the qrels documents of topic
q with a grade >= the relevance level (and >= 0); a row is a judged document a run
retrieved; "relevant above d" counts d itself. Every measure here is 0 for a topic with
R_q = 0 and for a topic the run did not answer (trec_eval -c scores such a topic on a
ranking of one unjudged document, which gives the same values). Each value is the double
trec_eval computes, added in its order (ranking order; topics in sorted order for the run
value): equal bit for bit.
"""

from __future__ import annotations

import numpy as np

from .context import Context, safe_div
from .grid import grouped_cumsum
from .params import double_cutoffs, format_cutoff, read_note, split_trec_eval
from .registry import Family, Measure, cutoffs, exact, load_families, register

load_families(before=__name__)  # the family modules before this one register first


def precision_sum(ctx: Context) -> np.ndarray:
    """(S, T) the sum over retrieved relevant d of (relevant above d) / pos_d: AP x R_q."""
    return ctx.once("ap_sum", lambda: ctx.count(ctx.is_rel, ctx.cum_rel / ctx.pos))


def average_precision(ctx: Context, m: Measure) -> np.ndarray:
    """AP = (1/R_q) * sum over retrieved relevant d of (relevant above d) / pos_d."""
    return safe_div(precision_sum(ctx), ctx.R[None, :])


def ap_at(ctx: Context, m: Measure) -> np.ndarray:
    """map_cut_k = (1/R_q) * sum over relevant d with pos_d <= k of (relevant above d) / pos_d
    (AP of the top k, still divided by every relevant document)."""
    return safe_div(ctx.count(ctx.is_rel & ctx.top(m.cutoff), ctx.cum_rel / ctx.pos), ctx.R[None, :])


def yaap(ctx: Context, m: Measure) -> np.ndarray:
    """yaap = log((1 + s) / (1 + R_q - s)), s = AP x R_q (Robertson's smoothed AP; not 0 for
    a topic without relevant document: log(1 / (1 + 0)) = 0, nor for an unanswered one)."""
    s = precision_sum(ctx)
    return np.log((1.0 + s) / ((1.0 + ctx.R[None, :]) - s))


def precision(ctx: Context, m: Measure) -> np.ndarray:
    """P_k = (relevant in the top k) / k, also when fewer than k documents were retrieved."""
    return ctx.rel_in_top(m.cutoff) / m.cutoff


def recall(ctx: Context, m: Measure) -> np.ndarray:
    """recall_k = (relevant in the top k) / R_q."""
    return safe_div(ctx.rel_in_top(m.cutoff), ctx.R[None, :])


def relative_precision(ctx: Context, m: Measure) -> np.ndarray:
    """relative_P_k = (relevant in the top k) / min(k, R_q): precision up to R_q, recall after."""
    return safe_div(ctx.rel_in_top(m.cutoff), np.minimum(m.cutoff, ctx.R)[None, :])


def success(ctx: Context, m: Measure) -> np.ndarray:
    """success_k = 1 when a relevant document is in the top k, else 0."""
    return (ctx.rel_in_top(m.cutoff) > 0).astype(np.float64)


def r_precision(ctx: Context, m: Measure) -> np.ndarray:
    """Rprec = (relevant in the top R_q) / R_q."""
    return safe_div(ctx.rel_in_top(ctx.R), ctx.R[None, :])


def rprec_mult_cutoff(x: float, R: np.ndarray) -> np.ndarray:
    """The rank c = (long)(x * R_q + 0.9) at which Rprec_mult_x is measured: trec_eval 9.x's
    rule, kept in 10 for this measure (C truncation toward zero, in doubles). A product
    beyond a long (``Rprec_mult.1e300``) gives -2^63, as x86-64's conversion does in C
    (then c < 1: the value is 0), without a numpy warning."""
    with np.errstate(invalid="ignore"):
        return np.trunc(x * R + 0.9).astype(np.int64)


def r_precision_mult(ctx: Context, m: Measure) -> np.ndarray:
    """Rprec_mult_x = (relevant in the top c) / c with c = (long)(x R_q + 0.9)
    (:func:`rprec_mult_cutoff`); 0 when c < 1. Beyond the documents retrieved the ranking
    counts as filled with non-relevant ones."""
    c = rprec_mult_cutoff(m.cutoff, ctx.R)
    return safe_div(ctx.rel_in_top(c), np.maximum(c, 0)[None, :].astype(np.float64))


def reciprocal_rank(ctx: Context, m: Measure) -> np.ndarray:
    """recip_rank = 1 / (pos of the first relevant document), 0 when none was retrieved;
    ``RR@k`` (MRR@10 of MS MARCO: ir_measures' name, not trec_eval's) counts only the top k."""
    first = ctx.is_rel & (ctx.cum_rel == 1)
    if m.cutoff is not None:
        first &= ctx.top(m.cutoff)
    return ctx.count(first, 1.0 / ctx.pos)


def bpref(ctx: Context, m: Measure) -> np.ndarray:
    """bpref = (1/R_q) * sum over retrieved relevant d of 1 - min(n_d, R_q) / min(N_q, R_q),
    n_d the judged non-relevant documents (0 <= rel < rel_level) above d, N_q those in the
    qrels; a term is 1 when n_d = 0. Documents judged with a negative grade are skipped,
    as trec_eval skips them."""
    return ctx.once("bpref", lambda: _bpref(ctx))


def _bpref(ctx: Context) -> np.ndarray:
    grid, R = ctx.grid, ctx.R
    judged_nonrel = (grid.rel >= 0) & (grid.rel < ctx.rel_level)
    n_d = grouped_cumsum(judged_nonrel, ctx.starts).astype(np.float64)  # for a relevant row: rows above
    N = np.bincount(grid.qrels_topic[(grid.qrels_rel >= 0) & (grid.qrels_rel < ctx.rel_level)],
                    minlength=ctx.T).astype(np.float64)
    t = ctx.topic_of_row
    denom = np.minimum(N, R)[t]
    term = np.where(n_d > 0, 1.0 - np.minimum(n_d, R[t]) / np.where(denom > 0, denom, 1), 1.0)
    return safe_div(ctx.count(ctx.is_rel, term), R[None, :])


def binary_g(ctx: Context, m: Measure) -> np.ndarray:
    """binG = (1/R_q) * sum over retrieved relevant d of 1 / log2(2 + non-relevant above d)
    (trec_eval's experimental binary G)."""
    return safe_div(ctx.count(ctx.is_rel, 1.0 / np.log2((2 + ctx.pos - ctx.cum_rel).astype(np.float64))),
                    ctx.R[None, :])


def _classic(name, names, description, parse, compute, doc=None, **kw):
    return register(Family(name, names, description, parse, compute, trec_eval=True,
                           doc=doc or compute.__doc__ or "", **kw))


def real_cutoffs(prefix: str, default: tuple, *, as_name=format_cutoff):
    """A parser for a family measured at real-valued cutoffs (``Rprec_mult``): ``prefix``
    (the default cutoffs), ``prefix.x1,x2`` (trec_eval's real cutoffs) and ``prefix_x``
    (a printed name); measures named ``prefix_{%3.2f}``."""
    def parse(spec: str, family: Family):
        base, params = split_trec_eval(spec)
        if base.lower() == prefix.lower():
            cuts = default if params is None else double_cutoffs(spec, params)
            note = "" if params is None else read_note(spec, params)
            return [family.measure(f"{prefix}_{as_name(x)}", x, explicit=params is not None, read_as=note)
                    for x in cuts]
        if spec.lower().startswith(prefix.lower() + "_"):
            try:
                x = float(spec[len(prefix) + 1:])
            except ValueError:
                return None
            return [family.measure(f"{prefix}_{as_name(x)}", x, explicit=True)]
        return None
    return parse


_classic("map", ('map', 'AP'), "mean average precision", exact("map", "ap"), average_precision)
GEOMETRIC = ("{0} = exp((1/n) * sum over the n topics averaged of log(max({1}_q, 1e-5))): the geometric mean of "
             "{1} (see {1}), each topic floored at 1e-5; a run value only (trec_eval prints no per-topic line).")
_classic("gm_map", ('gm_map',), "geometric mean of AP over topics (AP floored at 1e-5)", exact("gm_map"),
         average_precision, aggregate="gmean", doc=GEOMETRIC.format("gm_map", "AP"))
_classic("Rprec", ('Rprec',), "precision at R_q, the number of relevant documents", exact("rprec", name="Rprec"),
         r_precision)
_classic("bpref", ('bpref',), "binary preference: relevant above judged non-relevant", exact("bpref"), bpref)
_classic("recip_rank", ('recip_rank', 'RR', 'MRR', 'RR@k'), "reciprocal rank of the first relevant document "
         "(RR@k: within the top k)", exact("recip_rank", "RR", "MRR"), reciprocal_rank, native=lambda m: m.cutoff is None,
         oracle="RR@k: ir_measures (its msmarco provider; tied documents in its order with ties='ir_measures')")
_classic("P", ('P', 'P_k', 'P.k1,k2', 'P@k'), "precision at k (P alone: the standard cutoffs)", cutoffs("p"), precision)
_classic("recall", ('recall', 'recall_k', 'recall.k1,k2', 'R@k'), "recall at k", cutoffs("recall", "r"), recall)
_classic("gm_bpref", ('gm_bpref',), "geometric mean of bpref over topics (bpref floored at 1e-5)", exact("gm_bpref"),
         bpref, aggregate="gmean", doc=GEOMETRIC.format("gm_bpref", "bpref"))
_classic("Rprec_mult", ('Rprec_mult', 'Rprec_mult.x1,x2', 'Rprec_mult_x'),
         "precision at x R_q, x = 0.2, 0.4, ..., 2.0 by default",
         real_cutoffs("Rprec_mult", (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)), r_precision_mult)
_classic("binG", ('binG',), "binary G: relevant documents discounted by the non-relevant above them",
         exact("binG"), binary_g)
_classic("map_cut", ('map_cut', 'map_cut_k', 'map_cut.k1,k2', 'AP@k'), "AP of the top k (divided by R_q)",
         cutoffs("map_cut"), ap_at)
_classic("relative_P", ('relative_P', 'relative_P_k', 'relative_P.k1,k2'), "precision at k relative to the best "
         "possible, min(k, R_q)", cutoffs("relative_P"), relative_precision)
_classic("success", ('success', 'success_k', 'success.k1,k2', 'Success@k'), "1 if a relevant document is in "
         "the top k (default k = 1, 5, 10)", cutoffs("success", default=(1, 5, 10)), success)
_classic("yaap", ('yaap',), "yet another AP: log((1 + AP R_q) / (1 + R_q - AP R_q))", exact("yaap"), yaap)
