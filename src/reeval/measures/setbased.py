"""Measures of the retrieved set as a whole and counts, registered (trec_eval 10):
``num_q``, ``num_ret``, ``num_rel``, ``num_rel_ret``, ``set_P``, ``set_relative_P``,
``set_recall``, ``set_map``, ``set_F`` and ``utility``.

With n_q the documents a run retrieved for topic q, r_q the relevant ones among them and
R_q the relevant documents in the qrels. Each is 0 where its denominator is 0, and for
a topic the run did not answer.
"""

from __future__ import annotations

import numpy as np

from .context import Context, safe_div
from .params import double_params, plain_number, read_note, split_trec_eval
from .registry import Family, Measure, exact, load_families, register

load_families(before=__name__)  # the family modules before this one register first


def num_q(ctx: Context, m: Measure) -> np.ndarray:
    """num_q: 1 per topic; the run value counts the topics averaged over."""
    return np.ones((ctx.S, ctx.T))


def num_ret(ctx: Context, m: Measure) -> np.ndarray:
    """num_ret = n_q; the run value is the sum over topics."""
    return ctx.n_ret.copy()


def num_rel(ctx: Context, m: Measure) -> np.ndarray:
    """num_rel = R_q; the run value is the sum over topics, except that with trec_eval -c
    (averaging over every qrels topic) trec_eval sums the qrels documents graded > 0,
    whatever the relevance level (as reeval's ``complete`` run value does)."""
    return np.broadcast_to(ctx.R[None, :], (ctx.S, ctx.T)).copy()


def num_rel_ret(ctx: Context, m: Measure) -> np.ndarray:
    """num_rel_ret = r_q; the run value is the sum over topics."""
    return ctx.rel_ret.copy()


def set_precision(ctx: Context, m: Measure) -> np.ndarray:
    """set_P = r_q / n_q."""
    return safe_div(ctx.rel_ret, ctx.n_ret)


def set_relative_precision(ctx: Context, m: Measure) -> np.ndarray:
    """set_relative_P = r_q / min(n_q, R_q)."""
    return safe_div(ctx.rel_ret, np.minimum(ctx.n_ret, ctx.R[None, :]))


def set_recall(ctx: Context, m: Measure) -> np.ndarray:
    """set_recall = r_q / R_q."""
    return safe_div(ctx.rel_ret, ctx.R[None, :])


def set_map(ctx: Context, m: Measure) -> np.ndarray:
    """set_map = r_q^2 / (n_q R_q): set precision times set recall."""
    return safe_div(ctx.rel_ret * ctx.rel_ret, ctx.n_ret * ctx.R[None, :])


def set_f(ctx: Context, m: Measure) -> np.ndarray:
    """set_F_x = (x + 1) P R / (x P + R) with P = r_q / n_q, R = r_q / R_q and x the first
    parameter (default 1: the harmonic mean); 0 when r_q = 0."""
    x = m.params[0]
    hit = ctx.rel_ret > 0
    P = safe_div(ctx.rel_ret, ctx.n_ret)
    R = safe_div(ctx.rel_ret, ctx.R[None, :])
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(hit, (x + 1.0) * P * R / (x * P + R), 0.0)


def utility(ctx: Context, m: Measure) -> np.ndarray:
    """utility = c1 r_q + c2 (n_q - r_q) + c3 (R_q - r_q) + c4 (N + r_q - n_q - R_q), the
    coefficients ``utility.c1,c2,c3,c4`` (default 1, -1, 0, 0), N the documents in the
    collection (trec_eval -N, default 0); for a topic the run did not answer (under -c) 0
    as ``utility``, and with parameters the value of trec_eval's ranking of one document
    not in the qrels (:attr:`Context.phantom`; none under -J): trec_eval 10.0 zeroes the
    missed topic's value by the name ``utility`` only.

    N + r_q - n_q - R_q is counted in integers, as trec_eval counts it, so an N above 2^53
    gives its value to the bit; infinite coefficients give inf, or NaN where one
    multiplies a count of 0, as there."""
    c1, c2, c3, c4 = m.params
    r, n, R = ctx.rel_ret, ctx.n_ret, ctx.R[None, :]
    # trec_eval adds in a C long: so here in int64 (r - n - R <= 0 and small: no overflow)
    rest = np.int64(ctx.num_docs) + (r - n - R).astype(np.int64)
    rest_missed = np.int64(ctx.num_docs) - (ctx.phantom + R).astype(np.int64)
    with np.errstate(invalid="ignore", over="ignore"):  # inf * 0, inf - inf, 1e308 + 1e308: as C
        value = c1 * r + c2 * (n - r) + c3 * (R - r) + c4 * rest
        missed = 0.0 if m.name == "utility" else c1 * 0.0 + c2 * ctx.phantom + c3 * R + c4 * rest_missed
    return np.where(ctx.answered, value, missed)


def real_params(prefix: str, default: tuple, count: int | None = None):
    """A parser for a family taking real parameters in order (trec_eval's ``utility.1,-1,0,0``,
    ``set_F.0.5``): ``prefix`` (``default``), ``prefix.x,y`` and ``prefix_x,y`` (the printed
    name); ``count`` parameters exactly when given."""
    def parse(spec: str, family: Family):
        base, text = split_trec_eval(spec)
        if base.lower() != prefix.lower():
            if not spec.lower().startswith(prefix.lower() + "_"):
                return None
            text = spec[len(prefix) + 1:]
            if not _numbers(text):
                return None
        elif text is None:
            return [family.measure(prefix, params=default)]
        values = double_params(text)
        if count is not None and len(values) != count:
            raise ValueError(f"measure {spec!r}: {prefix} takes {count} parameters, not {len(values)}")
        return [family.measure(f"{prefix}_{text}", params=values, explicit=True, read_as=read_note(spec, text))]
    return parse


def _numbers(text: str) -> bool:
    """Every item of a printed name's parameters (``utility_1,-1,0,0``) a plain decimal
    number, so that the name says the values computed (``utility_\\xa01,...`` is no name:
    atof would read the 1 as 0)."""
    return all(plain_number(item) for item in text.split(","))


def _set(name, names, description, parse, compute, **kw):
    return register(Family(name, names, description, parse, compute, trec_eval=True,
                           doc=compute.__doc__ or "", **kw))


_set("num_q", ('num_q', 'NumQ'), "topics averaged over", exact("num_q", "numq"), num_q, aggregate="count")
_set("num_ret", ('num_ret', 'NumRet'), "documents retrieved (sum over topics)", exact("num_ret", "numret"), num_ret,
     aggregate="sum")
_set("num_rel", ('num_rel', 'NumRel'), "relevant documents in the qrels (sum over topics)",
     exact("num_rel", "numrel"), num_rel, aggregate="sum")
_set("num_rel_ret", ('num_rel_ret', 'NumRelRet'), "relevant documents retrieved (sum over topics)",
     exact("num_rel_ret", "numrelret"), num_rel_ret, aggregate="sum")
_set("utility", ('utility', 'utility.c1,c2,c3,c4'), "gain of the retrieved set: c1 per relevant, c2 per "
     "non-relevant ... (default 1, -1, 0, 0)", real_params("utility", (1.0, -1.0, 0.0, 0.0), 4), utility)
_set("set_P", ('set_P', 'SetP'), "precision of the retrieved set", exact("set_P", "setp"), set_precision)
_set("set_relative_P", ('set_relative_P', 'SetP(relative=True)'), "set precision relative to the best possible",
     exact("set_relative_P"), set_relative_precision)
_set("set_recall", ('set_recall', 'SetR'), "recall of the retrieved set", exact("set_recall", "setr"), set_recall)
_set("set_map", ('set_map', 'SetAP'), "set precision x set recall", exact("set_map", "setap"), set_map)
_set("set_F", ('set_F', 'set_F.x', 'SetF', 'SetF(beta=x)'), "F measure of the retrieved set (beta x, default 1)",
     real_params("set_F", (1.0,)), set_f)
