"""Measures about what was judged, registered: ``infAP`` (AP inferred from a sample of
judgments), ``num_nonrel_judged_ret``, ``unj_k`` (unjudged in the top k), ``relstring``
(the grades of the top k, as text) and ``runid`` (trec_eval 10), and ir_measures'
``Judged@k``.

trec_eval sorts a retrieved document into one of three: not in the qrels ("not in the
pool"), in the qrels with a negative grade ("in the pool, not judged", as infAP's
sampled qrels mark them with -1), or judged (grade >= 0).
"""

from __future__ import annotations

import numpy as np

from .context import Context, safe_div
from .grid import grouped_cumsum
from .params import c_long, double_params, plain_number, read_note, split_trec_eval
from .registry import Family, Measure, cutoffs, exact, load_families, register

load_families(before=__name__)  # the family modules before this one register first

#: the epsilon of trec_eval's infAP
INFAP_EPSILON = 0.00001


def inferred_ap(ctx: Context, m: Measure) -> np.ndarray:
    """infAP = (1/R_q) * sum over retrieved relevant d of: 1 at rank 1, else
    1/r + ((r-1)/r) * (a/(r-1)) * ((b + eps)/(b + n + 2 eps)) with r = pos_d, a the
    judged or sampled-but-unjudged documents above d, b the relevant and n the judged
    non-relevant documents above d, eps = 1e-5 (Yilmaz and Aslam; documents not in the
    qrels above d count only through r). Equals AP when every retrieved document is
    judged."""
    rel, is_rel = ctx.rel, ctx.is_rel
    nonrel = (rel >= 0) & ~is_rel
    unjudged = rel < 0
    above_nonrel = grouped_cumsum(nonrel, ctx.starts) - nonrel
    above_unjudged = grouped_cumsum(unjudged, ctx.starts) - unjudged
    b = ctx.cum_rel - 1
    j = (ctx.pos - 1).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((b + above_nonrel + above_unjudged) / j) * (
            (b + INFAP_EPSILON) / (b + above_nonrel + 2 * INFAP_EPSILON))
    term = np.where(j == 0, 1.0, term)
    return safe_div(ctx.count(is_rel, term), ctx.R[None, :])


def num_nonrel_judged_ret(ctx: Context, m: Measure) -> np.ndarray:
    """num_nonrel_judged_ret = the judged non-relevant documents retrieved (0 <= grade <
    level); the run value is the sum over topics."""
    return ctx.count((ctx.rel >= 0) & ~ctx.is_rel)


def unjudged(ctx: Context, m: Measure) -> np.ndarray:
    """unj_k = (documents in the top k that are not judged) / k: not in the qrels or graded
    < 0; beyond the documents retrieved the ranking counts as filled with judged ones."""
    k = m.cutoff
    return (np.minimum(k, ctx.n_ret) - ctx.count(ctx.judged & ctx.top(k))) / k


def judged(ctx: Context, m: Measure) -> np.ndarray:
    """Judged@k = (documents in the top k that are in the qrels, any grade) / min(k, n_q)
    (ir_measures' judgment rate; no k: over every document retrieved); 0 for a topic the
    run did not answer."""
    k = ctx.n_ret if m.cutoff is None else np.minimum(m.cutoff, ctx.n_ret)
    top = np.ones(len(ctx.pos), dtype=bool) if m.cutoff is None else ctx.top(m.cutoff)
    return safe_div(ctx.count(top), k)


def relstring(ctx: Context, m: Measure) -> np.ndarray:
    """relstring_k: the grades of the top min(k, n_q) documents as text, one character each:
    the grade 0-9, ``>`` above 9, ``-`` not in the qrels, ``.`` graded < 0 (default k =
    10); per topic only. An array of str. k is trec_eval's ``(long) k`` (:func:`.params.c_long`:
    truncated; nan, inf and anything beyond +-2^63 give LONG_MIN, hence ``''``, as x86-64
    builds of trec_eval print). A topic the run did not answer (under -c) shows
    ``-`` with parameters (``relstring.5``), trec_eval's ranking of one document not in
    the qrels, which it clears by the name ``relstring`` only (:attr:`Context.phantom`)."""
    k = c_long(m.params[0])
    width = int(min(max(k, 0), int(ctx.grid.n_ret.max()) if ctx.grid.n_ret.size else 0))
    n = np.minimum(ctx.grid.n_ret.ravel(), width)
    chars = np.where(np.arange(width)[None, :] < n[:, None], ord("-"), 0).astype(np.uint8)
    top = ctx.pos <= width
    rel = ctx.rel[top]
    code = np.where(rel > 9, ord(">"), np.where(rel >= 0, ord("0") + np.clip(rel, 0, 9), ord(".")))
    chars[ctx.g[top], ctx.pos[top] - 1] = code
    text = chars.view(f"S{width}").ravel() if width else np.full(len(n), b"", dtype="S1")
    out = text.astype(str).astype(object).reshape(ctx.S, ctx.T)
    if m.name != "relstring" and ctx.phantom and k >= 1:
        out[~ctx.answered] = "-"  # trec_eval's missed-topic ranking, zeroed by the name "relstring" only
    return out


def runid(ctx: Context, m: Measure) -> np.ndarray:
    """runid: the run's tag (the last line's, as trec_eval prints it); no per-topic value
    (filled in by the caller, which knows the tags)."""
    return np.full((ctx.S, ctx.T), "", dtype=object)


def _relstring_parse(spec: str, family: Family):
    base, text = split_trec_eval(spec)
    if base.lower() != "relstring":
        if not spec.lower().startswith("relstring_") or not plain_number(spec[10:]):
            return None
        text = spec[10:]
    elif text is None:
        return [family.measure("relstring", params=(10.0,))]
    return [family.measure(f"relstring_{text}", params=double_params(text), explicit=True,
                           read_as=read_note(spec, text))]


register(Family("runid", ('runid',), "the run's tag, as trec_eval prints it", exact("runid"), runid,
                aggregate="none", trec_eval=True, kind="text", doc=runid.__doc__))
register(Family("relstring", ('relstring', 'relstring.k'), "the grades of the top k documents, as text "
                "(per topic only)", _relstring_parse, relstring, aggregate="none", trec_eval=True, kind="text",
                doc=relstring.__doc__))
register(Family("infAP", ('infAP',), "inferred AP: AP estimated from sampled judgments (-1: sampled, unjudged)",
                exact("infAP"), inferred_ap, trec_eval=True, doc=inferred_ap.__doc__))
register(Family("num_nonrel_judged_ret", ('num_nonrel_judged_ret',), "judged non-relevant documents retrieved "
                "(sum over topics)", exact("num_nonrel_judged_ret"), num_nonrel_judged_ret, aggregate="sum",
                trec_eval=True, doc=num_nonrel_judged_ret.__doc__))
register(Family("unj", ('unj', 'unj_k', 'unj.k1,k2'), "fraction of the top k not judged (default k = 5, 10, 20)",
                cutoffs("unj", default=(5, 10, 20)), unjudged, higher_is_better=False, trec_eval=True,
                doc=unjudged.__doc__))
register(Family("Judged", ('Judged', 'Judged@k'), "ir_measures' judgment rate of the top k",
                lambda spec, family: _judged_parse(spec, family), judged, doc=judged.__doc__,
                oracle="ir_measures (its judged provider; tied documents in its order with ties='ir_measures')"))


def _judged_parse(spec: str, family: Family):
    low = spec.lower()
    if low == "judged":
        return [family.measure("Judged")]
    if low.startswith("judged@") and low[7:].isdigit():
        k = int(low[7:])
        if k <= 0:
            raise ValueError(f"measure {spec!r}: the cutoff must be a positive integer")
        return [family.measure(f"Judged@{k}", k)]
    return None
