"""Textbook measures trec_eval does not compute, registered: fallout, cumulative gain
(``CG@k``), DCG at a cutoff (``DCG@k``) and the lecture notes' DCG (``DCG_JK@k``), as the
lecture notes and the tutorial in ``../shared/papers/`` define them; the hits (``hits@k``)
and F1 at k (``f1@k``) of ranx, as ranx defines them.

Gains are :mod:`.graded`'s (trec_eval's): the grade of a judged document, 0 for a document
not judged or judged with a negative grade. Ranks are positions in trec_eval's order.
A name without a cutoff (``fallout``, ``cg``, ``dcg_jk``) measures the whole ranking.
"""

from __future__ import annotations

import re

import numpy as np

from .context import Context, safe_div
from .graded import topic_gains
from .registry import Family, Measure, load_families, register

load_families(before=__name__)  # the family modules before this one register first


def whole_or_cut(*prefixes: str, name: str, ir_name: str):
    """A parser for ``prefix`` (the whole ranking), ``prefix_k``, ``prefix.k1,k2`` and
    ``prefix@k`` or ``ir_name@k`` (case insensitive); measures named ``name`` and
    ``{name}_{k}``, as trec_eval names its cutoff measures."""
    from .params import long_cutoffs

    words = "|".join(re.escape(p.lower()) for p in (*prefixes, ir_name))
    pattern = re.compile(r"(%s)(?:([_@])([0-9]+)|\.(.+))?" % words)

    def parse(spec: str, family: Family):
        m = pattern.fullmatch(spec.lower())
        if not m:
            return None
        if m.group(3) is None and m.group(4) is None:
            return [family.measure(name, explicit=True)]  # the whole ranking, not a default set
        cuts = [int(m.group(3))] if m.group(3) is not None else long_cutoffs(spec, m.group(4))
        if min(cuts) <= 0:
            raise ValueError(f"measure {spec!r}: cutoffs must be positive integers")
        return [family.measure(f"{name}_{k}", k, explicit=True) for k in cuts]
    return parse


def _top(ctx: Context, m: Measure) -> np.ndarray:
    """Rows within the measure's cutoff (every row without one)."""
    return np.ones(ctx.pos.shape, dtype=bool) if m.cutoff is None else ctx.top(m.cutoff)


def fallout(ctx: Context, m: Measure) -> np.ndarray:
    """fallout = |non-relevant retrieved| / |non-relevant| (the notes' |A-bar and B| /
    |A-bar|), in the top k for ``fallout_k``. With the collection size N (trec_eval -N,
    ``num_docs``) the non-relevant documents are the N - R_q the topic does not judge
    relevant and the retrieved ones all retrieved documents not judged relevant (unjudged
    count as non-relevant); without N (0) both count only the judged non-relevant
    documents (0 <= grade < the relevance level), a fallout over the pool. 0 when there
    is no non-relevant document. Lower is better."""
    top = _top(ctx, m)
    if ctx.num_docs > 0:
        retrieved = ctx.n_ret if m.cutoff is None else np.minimum(ctx.n_ret, m.cutoff)
        return safe_div(retrieved - ctx.count(ctx.is_rel & top), (ctx.num_docs - ctx.R)[None, :])
    judged_nonrel = (ctx.grid.qrels_rel >= 0) & (ctx.grid.qrels_rel < ctx.rel_level)
    pool = np.bincount(ctx.grid.qrels_topic[judged_nonrel], minlength=ctx.T).astype(np.float64)
    return safe_div(ctx.count(ctx.judged & ~ctx.is_rel & top), pool[None, :])


def cumulative_gain(ctx: Context, m: Measure) -> np.ndarray:
    """CG@k = sum of the gains of the top k documents (the tutorial's CG@k(q) =
    sum_{i<=k} rel_i); ``cg`` sums the whole ranking. No discount: the order within the
    top k does not count."""
    gains = topic_gains(ctx, ())
    return ctx.count(_top(ctx, m) & (gains.row > 0), gains.row)


def dcg_cut(ctx: Context, m: Measure) -> np.ndarray:
    """DCG@k = sum_{i<=k} rel_i / log2(i + 1) (the tutorial's, trec_eval's discount: the
    numerator of ndcg_cut_k; at k >= the ranking's length, and for ``dcg_cut`` without k,
    it is trec_eval's dcg)."""
    gains = topic_gains(ctx, ())
    keep = _top(ctx, m) & (gains.row > 0)
    return ctx.count(keep, gains.row / np.log2(ctx.pos + 1.0))


def dcg_jk(ctx: Context, m: Measure) -> np.ndarray:
    """DCG_JK@k = rel_1 + sum_{i=2..k} rel_i / log2 i (the lecture notes' DCG_p, Jarvelin
    and Kekalainen's original form with log base 2: no discount at ranks 1 and 2, then
    1/log2 i; rank 2 gets 1 where trec_eval's discount gives 1/log2 3). ``dcg_jk`` sums the
    whole ranking."""
    gains = topic_gains(ctx, ())
    keep = _top(ctx, m) & (gains.row > 0)
    return ctx.count(keep, gains.row / np.maximum(1.0, np.log2(ctx.pos.astype(np.float64))))


def hits(ctx: Context, m: Measure) -> np.ndarray:
    """hits@k = the relevant documents in the top k (ranx's ``hits@k``, averaged over the
    topics like any measure); ``hits`` counts the whole ranking (trec_eval's num_rel_ret
    per topic, which trec_eval sums over topics instead)."""
    return ctx.count(ctx.is_rel & _top(ctx, m))


def f1(ctx: Context, m: Measure) -> np.ndarray:
    """f1@k = 2 P R / (P + R) with P = hits@k / k and R = hits@k / R_q (ranx's ``f1@k``:
    P divides by k also when fewer than k documents were retrieved, as P_k does); 0 when
    hits@k is 0 or the topic has no relevant document. ``f1`` measures the whole ranking
    (k = the documents retrieved: trec_eval's set_F)."""
    found = hits(ctx, m)
    k = ctx.n_ret if m.cutoff is None else np.full(found.shape, float(m.cutoff))
    return safe_div(2.0 * found, k + ctx.R[None, :])


_TEXT = "the lecture notes and tutorial's worked examples (tests/measures/test_textbook.py)"
register(Family("fallout", ("fallout", "fallout_k", "fallout.k1,k2", "fallout@k"),
                "non-relevant retrieved / non-relevant (judged, or N - R with -N)",
                whole_or_cut("fallout", name="fallout", ir_name="fallout"), fallout, higher_is_better=False,
                doc=fallout.__doc__, oracle="hand-checked (trec_eval has no fallout)"))
register(Family("cg", ("cg", "cg_k", "cg.k1,k2", "CG@k"), "cumulative gain: the gains of the top k summed",
                whole_or_cut("cg", name="cg", ir_name="cg"), cumulative_gain, doc=cumulative_gain.__doc__,
                oracle=_TEXT))
register(Family("dcg_cut", ("dcg_cut_k", "dcg_cut.k1,k2", "DCG@k"), "DCG at k (trec_eval's discount log2(i + 1))",
                whole_or_cut("dcg_cut", name="dcg_cut", ir_name="dcg"), dcg_cut,
                doc=dcg_cut.__doc__, oracle=f"trec_eval 10's dcg at k >= depth; {_TEXT}"))
register(Family("dcg_jk", ("dcg_jk", "dcg_jk_k", "dcg_jk.k1,k2", "DCG_JK@k"),
                "the lecture notes' DCG: rel_1 + sum_{i>=2} rel_i / log2 i",
                whole_or_cut("dcg_jk", name="dcg_jk", ir_name="dcg_jk"), dcg_jk, doc=dcg_jk.__doc__, oracle=_TEXT))
_RANX = "ranx (tests/api/test_api_ranx.py)"
register(Family("hits", ("hits", "hits_k", "hits.k1,k2", "hits@k"), "relevant documents in the top k (ranx's hits)",
                whole_or_cut("hits", name="hits", ir_name="hits"), hits, doc=hits.__doc__, oracle=_RANX))
register(Family("f1", ("f1", "f1_k", "f1.k1,k2", "f1@k"), "F1 of P@k and recall@k (ranx's f1)",
                whole_or_cut("f1", name="f1", ir_name="f1"), f1, doc=f1.__doc__, oracle=_RANX))
