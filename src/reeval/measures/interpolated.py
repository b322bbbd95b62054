"""Interpolated precision at recall levels, registered: ``iprec_at_recall_L`` (the
points of the recall-precision curve) and ``11pt_avg`` (their mean), as trec_eval 10
computes them (``m_iprec_at_recall.c``, ``m_11pt_avg.c``).

A level L does not compare recall with L: it stands for a number of relevant documents
k_L (:func:`recall_cutoff_ranks`), rounded from L x R_q by trec_eval 10's rule (lround)
or, under 9.x semantics, by 9.x's ((long)(L R_q + 0.9)). The interpolated precision at
the r-th relevant document retrieved is the highest precision rel_so_far / pos at any
retrieved relevant document from the r-th on (:func:`interpolated_values`).
"""

from __future__ import annotations

import numpy as np

from reeval.io.arrays import group_starts

from .context import Context
from .params import double_cutoffs, double_params, format_cutoff, read_note, split_trec_eval
from .registry import Family, Measure, load_families, register

load_families(before=__name__)  # the family modules before this one register first

#: The 11 standard recall levels of trec_eval's ``iprec_at_recall_*`` and ``11pt_avg``.
RECALL_LEVELS = np.arange(11) / 10
IPREC_RULES = ("trec_eval9", "trec_eval10", "recall")


def c_lround(x: np.ndarray) -> np.ndarray:
    """C ``lround``: the nearest integer, halves away from zero (exact on doubles); LONG_MIN
    for nan, inf and anything beyond a long, as glibc's on x86-64 answers (a level
    ``11pt_avg.inf`` or ``nan`` of trec_eval's: no numpy warning)."""
    a = np.abs(x)
    with np.errstate(invalid="ignore"):
        low = np.floor(a)
        rounded = np.sign(x) * np.where(a - low >= 0.5, low + 1, low)
    inside = np.isfinite(rounded) & (rounded >= -2.0**63) & (rounded < 2.0**63)
    return np.where(inside, np.where(inside, rounded, 0).astype(np.int64), np.iinfo(np.int64).min)


def recall_cutoff_ranks(num_rel, rule: str = "trec_eval10", levels=RECALL_LEVELS) -> np.ndarray:
    """For each topic, the relevant-document count k_L that stands for recall level L.

    Shape ``(len(num_rel), len(levels))`` of int64, one column per level (default L = 0.0,
    0.1, ..., 1.0, the doubles written in C). trec_eval does not compare recall with L; it
    turns L into a number of relevant documents first:

    - ``"trec_eval10"`` (trec_eval 10, the default): k_L = lround(L * R), the nearest
      integer, halves away from 0 (R = 3, L = 0.5: 2).
    - ``"trec_eval9"`` (trec_eval <= 9.x and pytrec_eval-terrier): k_L = (long)(L * R + 0.9),
      evaluated in doubles exactly as C does. So k_L is ceil(L R - 0.1) up to rounding:
      R = 3, L = 0.7 gives 0.7*3 + 0.9 = 2.9999999999999996 and k_L = 2, although recall
      2/3 < 0.7.
    - ``"recall"``: the textbook rule "recall >= L": k_L = ceil(L R) in integer arithmetic
      (standard levels only).

    A level with k_L < 1 behaves as k_L = 1 (the maximum over the whole ranking).
    """
    if rule not in IPREC_RULES:
        raise ValueError(f"rule must be one of {IPREC_RULES}, got {rule!r}")
    R = np.asarray(num_rel, dtype=np.int64)[:, None]
    levels = np.asarray(levels, dtype=np.float64)[None, :]
    if rule == "recall":
        j = np.rint(levels * 10).astype(np.int64)
        return -(-(j * R) // 10)
    with np.errstate(invalid="ignore"):  # inf * 0 is nan, as in C
        x = levels * R.astype(np.float64)
    if rule == "trec_eval9":
        return np.trunc(x + 0.9).astype(np.int64)
    return c_lround(x)


def suffix_max_precision(ctx: Context):
    """(best, first, rel_ret): for each retrieved relevant row, in ranking order, the highest
    precision rel_so_far / pos at it or any relevant row below it in its ranking; the
    index in ``best`` of each (run, topic)'s first relevant row; relevant rows per (run,
    topic) (flat, length S T)."""
    def make():
        is_rel = ctx.is_rel
        g = ctx.g[is_rel]
        prec = ctx.cum_rel[is_rel] / ctx.pos[is_rel]
        # suffix maximum inside each (run, topic): on the ranks of the values (exact
        # integers, unlike offsets added to the floats), reversed, each group offset above
        # the ones before it, then a running maximum
        values_sorted, rank = np.unique(prec, return_inverse=True)
        span = np.int64(len(values_sorted))
        rev = slice(None, None, -1)
        offset = np.cumsum(group_starts(g[rev])) * span
        best = values_sorted[(np.maximum.accumulate(rank[rev] + offset) - offset)[rev]]
        rel_ret = np.bincount(g, minlength=ctx.S * ctx.T)
        first = np.cumsum(rel_ret) - rel_ret  # (no run or no topic: empty)
        return best, first, rel_ret
    return ctx.once("iprec_suffix", make)


def interpolated_values(ctx: Context, levels) -> tuple[np.ndarray, np.ndarray]:
    """(values, counted), each (S, T, len(levels)): trec_eval's interpolated precision at each
    level, in the order given, and whether trec_eval reached that level at all.

    trec_eval walks the relevant documents retrieved from the last up (the r-th at each
    step) and the levels from the last given down: a level with k_L = r takes the
    interpolated precision at the r-th relevant document; levels at the end of the list
    with k_L above the relevant documents retrieved are skipped (value 0, not counted);
    from the first level with k_L < 1, or above the k of the level after it, every level
    takes the interpolated precision at the first relevant document (0 if none was
    retrieved; NaN for a topic answered with no document left to rank, as under -J when
    every document retrieved is unjudged: trec_eval divides 0 by 0) and is counted. With
    levels in ascending order (iprec_at_recall) this is:
    k_L < 1 -> the value at the first relevant document, k_L above the relevant retrieved
    -> 0, else the value at the k_L-th.
    """
    best, first, rel_ret_flat = suffix_max_precision(ctx)
    S, T, n = ctx.S, ctx.T, len(levels)
    rule = "trec_eval10" if ctx.version == 10 else "trec_eval9"
    k = recall_cutoff_ranks(ctx.R, rule, levels)                  # (T, n)
    rel_ret = rel_ret_flat.reshape(S, T)
    first = first.reshape(S, T)
    top = np.where(rel_ret > 0, best[np.minimum(first, max(len(best) - 1, 0))] if len(best) else 0.0, 0.0)
    # a topic answered with nothing left to rank (-J: every document unjudged): trec_eval's
    # precision 0 / 0 documents, a NaN (negative, as C's 0.0 / 0.0 on x86), at the levels it reaches
    empty = (ctx.answered | ctx.judged_only) & (ctx.grid.n_ret == 0)  # a missed topic under -J too
    top = np.where(empty, -np.nan, top)
    values = np.zeros((S, T, n))
    counted = np.zeros((S, T, n), dtype=bool)
    skipping = np.ones((S, T), dtype=bool)
    stuck = np.zeros((S, T), dtype=bool)
    reach = rel_ret.copy()
    for j in reversed(range(n)):
        kj = k[None, :, j]
        skipping &= kj > rel_ret
        active = ~skipping
        ok = active & ~stuck & (kj >= 1) & (kj <= reach)
        stuck |= active & ~ok
        at = np.where(ok, first + kj - 1, 0)
        values[:, :, j] = np.where(ok, best[at] if len(best) else 0.0, np.where(active, top, 0.0))
        counted[:, :, j] = active
        reach = np.where(ok, kj, reach)
    return values, counted


def iprec_at_recall(ctx: Context, m: Measure) -> np.ndarray:
    """iprec_at_recall_L: the interpolated precision at recall level L
    (:func:`interpolated_values`): the highest precision at a retrieved relevant document
    from the k_L-th on, k_L = lround(L R_q) (9.x: (long)(L R_q + 0.9)); 0 when fewer than
    k_L relevant documents were retrieved; for k_L < 1 the highest precision at any."""
    return interpolated_values(ctx, (m.cutoff,))[0][:, :, 0]


def eleven_point_average(ctx: Context, m: Measure) -> np.ndarray:
    """11pt_avg = (sum of the interpolated precisions at the levels L given, default 0.0, 0.1,
    ..., 1.0) / (number of levels); levels trec_eval skips (see
    :func:`interpolated_values`) add 0. The sum runs over the levels from the last given."""
    values, counted = interpolated_values(ctx, m.params)
    total = np.zeros((ctx.S, ctx.T))
    for j in reversed(range(len(m.params))):
        total = np.where(counted[:, :, j], total + values[:, :, j], total)
    return total / len(m.params)


DEFAULT_LEVELS = tuple(float(x) for x in RECALL_LEVELS)


def _iprec_parse(spec: str, family: Family):
    base, params = split_trec_eval(spec)
    if base.lower() == "iprec_at_recall":
        levels = DEFAULT_LEVELS if params is None else tuple(double_cutoffs(spec, params))
        note = "" if params is None else read_note(spec, params)
        return [_iprec(family, x, params is not None, note) for x in levels]
    if spec.lower().startswith("iprec_at_recall_"):
        try:
            x = float(spec[len("iprec_at_recall_"):])
        except ValueError:
            return None
        return [_iprec(family, x, True)]
    return None


def _iprec(family: Family, level: float, explicit: bool, note: str = "") -> Measure:
    return family.measure(f"iprec_at_recall_{format_cutoff(level)}", level, explicit=explicit, read_as=note)


def _eleven_parse(spec: str, family: Family):
    base, params = split_trec_eval(spec)
    if base.lower() != "11pt_avg":
        if not spec.lower().startswith("11pt_avg_"):
            return None
        params = spec[len("11pt_avg_"):]
    if params is None:
        return [family.measure("11pt_avg", params=DEFAULT_LEVELS)]
    return [family.measure(f"11pt_avg_{params}", params=double_params(params), explicit=True,
                           read_as=read_note(spec, params))]


register(Family("iprec_at_recall", ('iprec_at_recall', 'iprec_at_recall_L', 'iprec_at_recall.L1,L2', 'IPrec@L'),
                "interpolated precision at recall level L = 0.00, 0.10, ..., 1.00 (all 11 without L)",
                _iprec_parse, iprec_at_recall, trec_eval=True, doc=iprec_at_recall.__doc__))
register(Family("11pt_avg", ('11pt_avg', '11pt_avg.L1,L2'), "interpolated precision averaged over recall levels "
                "(default the 11 standard ones)", _eleven_parse, eleven_point_average, trec_eval=True,
                doc=eleven_point_average.__doc__))
