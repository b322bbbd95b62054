"""Measures of graded gain, registered: the nDCG family (``ndcg``, ``ndcg_cut``,
``ndcg_rel``, ``Rndcg``, ``dcg``, ``ideal_dcg``), trec_eval's experimental ``G``,
rank-biased precision (``rbp``, ``rbp_resid``) and expected reciprocal rank (``ERR@k``,
ir_measures' name, as gdeval computes it).

Gains (trec_eval's ``setup_gains``, :func:`topic_gains`): the gain of grade i is i unless
a ``i=gain`` parameter says otherwise (``ndcg.1=3,2=9``); a document not judged, or
judged with a negative grade, has gain 0. The ideal ranking of topic q lists the gains
of its judged documents from the highest down, stopping at the first gain <= 0; L_q is
its length and IDCG_q(j) the DCG of its first j documents. The discount of rank r is
log2(r + 1). Sums are formed in ranking order, as trec_eval forms them. Gains are
doubles, as in trec_eval: grades up to 2^53 (:data:`MAX_GAIN_GRADE`), whose doubles are
the grades themselves, are taken; a larger grade is refused (InputError).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from reeval.errors import InputError
from reeval.io.arrays import group_starts, position_in_group

from .context import PADDED_CELLS, Context, safe_div, sequential_cumsum
from .params import c_atol, check_persistence, pairs, read_note, split_trec_eval
from .registry import STANDARD_CUTOFFS, Family, Measure, cutoffs, load_families, register

load_families(before=__name__)  # the family modules before this one register first

#: Grades above this many levels are not enumerated one by one (trec_eval would allocate
#: and sort an entry for every level up to the largest grade)
MAX_ENUMERATED_LEVELS = 4096


def gain_levels(params: tuple) -> tuple[tuple[int, float], ...]:
    """The (grade, gain) overrides of a measure's ``name=value`` parameters: the names that
    are integers (trec_eval's ``valid_int``), in the order given; other names (``p``) are
    not gains."""
    out = []
    for name, value in params:
        digits = name[1:] if name[:1] in "+-" else name
        if digits.isdigit() and digits.isascii():
            out.append((c_atol(name), float(value)))
    return tuple(out)


def glibc_msort(items: list, cmp) -> list:
    """glibc's ``qsort`` for small arrays (a top-down merge sort taking from the left half
    while cmp <= 0): the order trec_eval gets, also where its comparator is not a total
    order (gains compared by ``(int)(g1 - g2)``: 2.5 and 2 compare equal)."""
    if len(items) <= 1:
        return list(items)
    half = len(items) // 2
    left, right = glibc_msort(items[:half], cmp), glibc_msort(items[half:], cmp)
    out, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        if cmp(left[i], right[j]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def _gain_cmp(a, b) -> int:
    """trec_eval's ``comp_rel_gain``: ``(int)(g1 - g2)``, truncated toward 0, and INT_MIN
    (a negative answer, whatever the sign) for a difference beyond a C int, as x86-64's
    ``cvttsd2si`` converts it (C leaves it undefined): ``ndcg.2=3000000000`` sorts the
    gain 3e9 below 0 there, and reeval sorts it so, giving trec_eval's numbers."""
    diff = a[1] - b[1]
    return int(diff) if -2.0**31 - 1 < diff < 2.0**31 else -2**31


def sorted_entries(overrides, n_levels: int) -> list:
    """trec_eval's gain table of a topic whose grades run 0 .. n_levels - 1: the overrides,
    then each grade not overridden (gain = grade), as (grade, gain) sorted by
    :func:`glibc_msort` on ``(int)(gain difference)``."""
    given = {level for level, _ in overrides}
    levels = range(n_levels) if n_levels <= MAX_ENUMERATED_LEVELS else ()
    entries = list(overrides) + [(i, float(i)) for i in levels if i not in given]
    return glibc_msort(entries, _gain_cmp)


@dataclass
class TopicGains:
    """Gains of one measure's parameters on a grid: ``row`` the gain of each judged row;
    ``ideal`` (T, Lmax) the ideal gains of each topic, 0 beyond ``length`` (T,) = L_q;
    ``idcg`` (T, Lmax + 1) IDCG_q(j) for j = 0 .. Lmax; ``entries`` per topic the sorted
    (grade, gain) table (its gains bound rbp's normalisation)."""

    row: np.ndarray
    ideal: np.ndarray
    length: np.ndarray
    idcg: np.ndarray
    low: np.ndarray
    high: np.ndarray


#: The largest grade the gain measures take: 2^53, the last integer float64 holds exactly
#: (gains are doubles, as in trec_eval; beyond it a grade's gain is not the grade)
MAX_GAIN_GRADE = 2**53


def check_gain_grades(ctx: Context) -> None:
    """InputError when a qrels grade exceeds :data:`MAX_GAIN_GRADE` (one line, naming it)."""
    grades = ctx.grid.qrels_rel
    if len(grades) and int(grades.max()) > MAX_GAIN_GRADE:
        raise InputError(f"qrels grade {int(grades.max())}: the gain measures (nDCG, G, dcg, rbp ...) take "
                         f"grades up to 2^53 = {MAX_GAIN_GRADE}, the integers a double holds exactly")


def topic_gains(ctx: Context, params: tuple = ()) -> TopicGains:
    """The gains of ``params`` (see the module doc) on ctx's grid, once per parameters;
    InputError for a grade above :data:`MAX_GAIN_GRADE`."""
    check_gain_grades(ctx)
    return ctx.once(("gains", params), lambda: _topic_gains(ctx, gain_levels(params)))


def _topic_gains(ctx: Context, overrides) -> TopicGains:
    grid, T = ctx.grid, ctx.T
    judged = grid.qrels_rel >= 0
    qt, qrel = grid.qrels_topic[judged], grid.qrels_rel[judged]
    n_levels = np.zeros(T, dtype=np.int64)
    np.maximum.at(n_levels, qt, qrel + 1)
    low, high = np.zeros(T), np.zeros(T)
    parts = []  # (topics, their ideal gains (topics x longest))
    for n in np.unique(n_levels):  # topics sharing a number of grades share a sorted table
        topics = np.flatnonzero(n_levels == n)
        if n <= MAX_ENUMERATED_LEVELS:
            entries = sorted_entries(overrides, int(n))
        else:
            given = {level for level, _ in overrides}
            grades = [(int(x), float(x)) for x in np.unique(qrel) if int(x) not in given]
            entries = sorted(list(overrides) + grades, key=lambda e: e[1])
        gains = np.array([e[1] for e in entries], dtype=np.float64)
        if len(gains):
            low[topics], high[topics] = gains.min(), gains.max()
        parts.append((topics, _ideal(gains, _entry_counts(entries, qt, qrel, topics, T))))
    width = max([p.shape[1] for _, p in parts], default=0)
    ideal = np.zeros((T, width))
    for topics, part in parts:
        ideal[topics, :part.shape[1]] = part
    length = (ideal > 0).sum(axis=1)
    disc = np.log2(np.arange(2, width + 2, dtype=np.float64))
    idcg = np.concatenate([np.zeros((T, 1)), np.cumsum(ideal / disc, axis=1)], axis=1)
    row = grid.rel.astype(np.float64)
    row[grid.rel < 0] = 0.0
    for level, gain in reversed(overrides):  # the first override of a grade wins
        row[grid.rel == level] = gain
    return TopicGains(row=row, ideal=ideal, length=length, idcg=idcg, low=low, high=high)


def _entry_counts(entries, qt, qrel, topics, T) -> np.ndarray:
    """(topics, entries) judged documents of each entry's grade (an entry repeating a grade
    given before gets none)."""
    first: dict = {}
    for j, (level, _) in enumerate(entries):
        first.setdefault(level, j)
    keys = np.array(sorted(first), dtype=np.int64)
    index = np.array([first[k] for k in keys], dtype=np.int64)
    at = np.minimum(np.searchsorted(keys, qrel), max(len(keys) - 1, 0))
    e = np.where((len(keys) > 0) & (keys[at] == qrel), index[at], -1) if len(keys) else np.full(len(qrel), -1)
    row_of = np.full(T, -1, dtype=np.int64)
    row_of[topics] = np.arange(len(topics))
    r = row_of[qt]
    ok = (r >= 0) & (e >= 0)
    flat = np.bincount(r[ok] * len(entries) + e[ok], minlength=len(topics) * len(entries))
    return flat.reshape(len(topics), len(entries))


def _ideal(gains: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """(topics, longest) ideal gains, 0-padded: per topic the entries from the last (highest
    gain) down, each repeated by its count, up to the first entry with documents and a
    gain <= 0; none when the last entry's gain is <= 0 (trec_eval's loop starts only on a
    positive gain)."""
    n_topics = counts.shape[0]
    if not len(gains) or gains[-1] <= 0:
        return np.zeros((n_topics, 0))
    rev_gains, rev_counts = gains[::-1], counts[:, ::-1]
    ends = (rev_counts > 0) & (rev_gains <= 0)[None, :]
    take = np.where(np.logical_or.accumulate(ends, axis=1), 0, rev_counts)
    length = take.sum(axis=1)
    flat = np.repeat(np.broadcast_to(rev_gains, take.shape).ravel(), take.ravel())
    out = np.zeros((n_topics, int(length.max()) if n_topics else 0))
    rows = np.repeat(np.arange(n_topics), length)
    cols = np.arange(len(flat)) - np.repeat(np.cumsum(length) - length, length)
    out[rows, cols] = flat
    return out


def _discounted(ctx: Context, gain: np.ndarray) -> np.ndarray:
    """gain / log2(pos + 1) per row."""
    return gain / np.log2(ctx.pos + 1.0)


def dcg_of(ctx: Context, m: Measure) -> np.ndarray:
    """(S, T) DCG = sum over retrieved d with gain g_d != 0 of g_d / log2(pos_d + 1)."""
    gains = topic_gains(ctx, m.params)
    return ctx.once(("dcg", m.params), lambda: ctx.count(gains.row != 0, _discounted(ctx, gains.row)))


def dcg(ctx: Context, m: Measure) -> np.ndarray:
    """dcg = sum over retrieved d with gain g_d != 0 of g_d / log2(pos_d + 1)."""
    return dcg_of(ctx, m)


def ideal_dcg(ctx: Context, m: Measure) -> np.ndarray:
    """ideal_dcg = IDCG_q(L_q), the DCG of the ideal ranking (also for a topic the run did
    not answer)."""
    g = topic_gains(ctx, m.params)
    return np.broadcast_to(g.idcg[np.arange(ctx.T), g.length][None, :], (ctx.S, ctx.T)).copy()


def ndcg(ctx: Context, m: Measure) -> np.ndarray:
    """ndcg = DCG / IDCG_q(L_q) (0 when IDCG is 0), over the whole ranking; gains by grade
    unless ``ndcg.grade=gain,...`` maps them (zero and negative gains allowed)."""
    return safe_div(dcg_of(ctx, m), ideal_dcg(ctx, m))


def ndcg_cut(ctx: Context, m: Measure) -> np.ndarray:
    """ndcg_cut_k = DCG of the top k (documents of gain > 0) / IDCG_q(min(k, L_q)); the DCG
    itself when the ideal is 0. Gains are the grades (trec_eval takes no gain map here;
    ir_measures' ``nDCG(gains={...})@k`` maps the grades first, as it does for trec_eval)."""
    g = topic_gains(ctx, m.params)
    k = m.cutoff
    top = (g.row > 0) & ctx.top(k)
    value = ctx.count(top, _discounted(ctx, g.row))
    ideal = g.idcg[np.arange(ctx.T), np.minimum(k, g.length)][None, :]
    return np.where(ideal > 0, safe_div(value, ideal), value)


def ndcg_rel(ctx: Context, m: Measure) -> np.ndarray:
    """ndcg_rel = (1/L_q) * (sum over retrieved d of gain > 0 of DCG(pos_d) / IDCG_q(min(pos_d,
    L_q)) + (L_q - n) DCG / IDCG_q(L_q)), n the retrieved documents of gain > 0: nDCG
    averaged at the gainful documents, the unretrieved ones at the end; 0 when the sum is
    not positive."""
    g = topic_gains(ctx, m.params)
    nonzero, gainful, t = g.row != 0, g.row > 0, ctx.topic_of_row
    prefix = np.zeros(len(g.row))
    prefix[nonzero] = sequential_cumsum(_discounted(ctx, g.row)[nonzero], ctx.g[nonzero])
    at = g.idcg[t, np.minimum(ctx.pos, g.length[t])]
    with np.errstate(divide="ignore", invalid="ignore"):  # a gain map can make IDCG 0 there: inf, as C
        terms = np.divide(prefix, at, out=np.zeros(len(prefix)), where=gainful)
    L = g.length.astype(np.float64)[None, :]
    idcg = g.idcg[np.arange(ctx.T), g.length][None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        total = ctx.count(gainful, terms) + (L - ctx.count(gainful)) * dcg_of(ctx, m) / idcg
        return np.where(total > 0, total / np.where(L > 0, L, 1), 0.0)


def r_ndcg(ctx: Context, m: Measure) -> np.ndarray:
    """Rndcg = the mean of nDCG at the R-levels of the ideal ranking: the ranks b where the
    ideal gain changes (the last of each gain, b <= L_q), each DCG(min(b, retrieved)) /
    IDCG_q(b), plus DCG / IDCG_q(L_q) when more than L_q + 1 documents were retrieved
    (trec_eval's loop adds it only then). 0 for a topic with R_q = 0; NaN when no R-level
    has a positive ideal DCG (a gain map making every gain <= 0)."""
    g = topic_gains(ctx, m.params)
    width = g.ideal.shape[1]
    ahead = np.concatenate([g.ideal[:, 1:], np.zeros((ctx.T, 1))], axis=1) if width else g.ideal
    change = (g.ideal > 0) & (ahead != g.ideal)
    t_idx, cols = np.nonzero(change)
    n_levels = np.zeros(ctx.T, dtype=np.int64)
    order = position_in_topic(t_idx)
    levels = np.zeros((ctx.T, int(order.max()) if len(order) else 0), dtype=np.int64)
    levels[t_idx, order - 1] = cols + 1
    nonzero = g.row != 0
    weights = _discounted(ctx, g.row)
    total = np.zeros((ctx.S, ctx.T))
    for j in range(levels.shape[1]):  # the R-levels of every topic, from the first
        b = levels[:, j]
        value = ctx.count(nonzero & ctx.top(b), weights) / np.where(b > 0, g.idcg[np.arange(ctx.T), b], 1.0)
        total = np.where(b[None, :] > 0, total + value, total)
        n_levels += b > 0
    full = dcg_of(ctx, m)
    idcg = g.idcg[np.arange(ctx.T), g.length][None, :]
    extra = (ctx.n_ret > g.length[None, :] + 1) & (idcg > 0)
    total = np.where(extra, total + full / np.where(idcg > 0, idcg, 1.0), total)
    n = n_levels[None, :] + extra
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ctx.R[None, :] > 0, total / n, 0.0)


def position_in_topic(t_idx: np.ndarray) -> np.ndarray:
    """1-based position of each entry among the entries of its topic (sorted by topic)."""
    return position_in_group(group_starts(t_idx)) if len(t_idx) else t_idx


def g_measure(ctx: Context, m: Measure) -> np.ndarray:
    """G = (1/sum of the ideal gains) * sum over retrieved d of gain != 0 of
    g_d / log2(2 + C(pos_d) - G_d), where G_d sums the gains down to d and C(r) sums
    max(ideal gain at rank j, 1) for j <= r (1 beyond the ideal ranking): trec_eval's
    experimental gain measure; 0 when the ideal gains sum to 0."""
    g = topic_gains(ctx, m.params)
    nonzero = g.row != 0
    if not nonzero.any():
        return np.zeros((ctx.S, ctx.T))
    width = int(ctx.pos[nonzero].max())
    ideal = np.zeros((ctx.T, width))
    ideal[:, :min(width, g.ideal.shape[1])] = g.ideal[:, :width]
    cost = np.cumsum(np.where(ideal >= 1.0, ideal, 1.0), axis=1)
    gained = sequential_cumsum(g.row[nonzero], ctx.g[nonzero])
    rows = np.flatnonzero(nonzero)
    terms = np.zeros(len(g.row))
    with np.errstate(divide="ignore", invalid="ignore"):  # gain maps can make the log's argument <= 0: NaN, as C
        terms[rows] = g.row[rows] / np.log2((2 + cost[ctx.topic_of_row[rows], ctx.pos[rows] - 1]) - gained)
    ideal_sum = np.cumsum(g.ideal, axis=1)[:, -1] if g.ideal.shape[1] else np.zeros(ctx.T)
    return safe_div(ctx.count(nonzero, terms), ideal_sum[None, :])


def persistence(m: Measure, default: float) -> float:
    """The p of ``rbp.p=0.95`` (the last ``p=`` given), else ``default``."""
    found = [value for name, value in m.params if name == "p"]
    return found[-1] if found else default


def rbp_gains(ctx: Context, m: Measure) -> np.ndarray:
    """Per row the gain rbp uses: binary (grade >= rel) for ``RBP(rel=...)``; else the graded
    gains, rescaled per topic to (g - min) / (max - min) when a gain of the topic's table
    lies outside [0, 1] (documents not judged keep gain 0), min and max taken over the
    table's gains and 0: trec_eval's ``m_rbp.c`` never sets them before the loop, and the
    default build starts both at 0 (measured, ``-m rbp.0=0.5`` alone: min 0, not 0.5).
    With the default gains (grade 0's is 0) that is the table's own min and max."""
    if m.rel is not None:
        return ctx.is_rel.astype(np.float64)
    g = topic_gains(ctx, m.params)
    t = ctx.topic_of_row
    low, high = np.minimum(g.low[t], 0.0), np.maximum(g.high[t], 0.0)
    scale = ((low < 0) | (high > 1)) & (ctx.rel >= 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(scale, (g.row - low) / (high - low), g.row)


def rbp(ctx: Context, m: Measure) -> np.ndarray:
    """rbp = (1 - p) * sum over retrieved d of gain_d p^(pos_d - 1) (rank-biased precision;
    p = 0.9 for trec_eval's ``rbp``, 0.8 for ir_measures' ``RBP``; gains by
    :func:`rbp_gains`; it ignores the relevance level unless ``RBP(rel=...)``)."""
    p = persistence(m, 0.9)
    gain = rbp_gains(ctx, m)
    powers = ctx.powers(p, int(ctx.pos.max()) if len(ctx.pos) else 0)
    nonzero = gain != 0
    return (1.0 - p) * ctx.count(nonzero, gain * powers[ctx.pos - 1]) if len(ctx.pos) else np.zeros((ctx.S, ctx.T))


def rbp_resid(ctx: Context, m: Measure) -> np.ndarray:
    """rbp_resid = p^n + (1 - p) * sum over the unjudged documents d among the n retrieved of
    p^(pos_d - 1): the most rbp could rise if every unjudged document had gain 1 (and the
    ranking went on with such documents); 0 when every document retrieved is judged. A
    topic the run did not answer (counted under -c) scores 0 as ``rbp_resid`` and with
    parameters (``rbp_resid.p=0.8``) the value of trec_eval's ranking of one unjudged
    document, 1 (0 under -J, :attr:`Context.phantom`): trec_eval 10.0 zeroes the missed
    topics' value by its name, which the parameters change (docs/semantics.md)."""
    p = persistence(m, 0.9)
    n = ctx.grid.n_ret.ravel()
    powers = ctx.powers(p, int(n.max()) if len(n) else 0)
    judged = np.bincount(ctx.g[ctx.judged], minlength=len(n))
    todo = np.flatnonzero(n > judged)
    total = np.zeros(len(n))
    row_of = np.full(len(n), -1, dtype=np.int64)
    row_of[todo] = np.arange(len(todo))
    jg, jpos = ctx.g[ctx.judged], ctx.pos[ctx.judged]
    step = max(1, PADDED_CELLS // max(int(n.max()) if len(n) else 1, 1))
    for lo in range(0, len(todo), step):  # blocks of (run, topic) x rank, in bounded memory
        part = todo[lo:lo + step]
        width = int(n[part].max())
        block = np.where(np.arange(width)[None, :] < n[part][:, None], powers[None, :width], 0.0)
        sel = np.isin(jg, part)
        block[row_of[jg[sel]] - lo, jpos[sel] - 1] = 0.0
        total[part] = np.cumsum(block, axis=1)[:, -1]
    value = np.where(n > judged, powers[n] + (1.0 - p) * total, 0.0).reshape(ctx.S, ctx.T)
    if m.params:  # trec_eval 10 -c zeroes a missed topic's "rbp_resid" only, not "rbp_resid_p=x"
        value = np.where(ctx.answered, value, float(ctx.phantom))
    return value


#: gdeval's largest grade: ERR's stopping probability is (2^grade - 1) / 2^4
ERR_MAX_GRADE = 4


def err(ctx: Context, m: Measure) -> np.ndarray:
    """ERR@k = sum over retrieved d of grade > 0 with pos_d <= k of r_d prod_(e above d) (1 - r_e)
    / pos_d, r_d = (2^g_d - 1) / 16 with g_d the grade capped at 4 (expected reciprocal
    rank, as gdeval, ir_measures' provider, computes it; gdeval refuses grades above 4 and
    leaves out topics without a positive grade)."""
    gainful = ctx.rel > 0
    r = (np.exp2(np.minimum(ctx.rel[gainful], ERR_MAX_GRADE)) - 1) / 2.0 ** ERR_MAX_GRADE
    g = ctx.g[gainful]
    kept = sequential_cumsum(1.0 - r, g, op=np.multiply)
    same = np.r_[False, g[1:] == g[:-1]]
    decay = np.where(same, np.r_[1.0, kept[:-1]], 1.0)
    terms = np.zeros(len(ctx.rel))
    terms[gainful] = r * decay / ctx.pos[gainful]
    mask = gainful if m.cutoff is None else gainful & ctx.top(m.cutoff)
    return ctx.count(mask, terms)


def gain_params(prefix: str, case: bool = False, keys: tuple = ()):
    """A parser for a family taking ``grade=gain`` parameters (and ``keys``, such as rbp's
    ``p``): ``prefix`` (gains by grade), ``prefix.1=3,2=9`` (trec_eval's pairs) and
    ``prefix_1=3,2=9`` (the printed name); measures named ``prefix_<the pairs as written>``.
    Grades must be integers >= 0, each given once (trec_eval would ignore other names,
    and give a negative grade's gain to documents it did not judge)."""
    def same(a: str, b: str) -> bool:
        return a == b if case else a.lower() == b.lower()

    def parse(spec: str, family: Family):
        base, text = split_trec_eval(spec)
        if not same(base, prefix):
            if not same(spec[:len(prefix) + 1], prefix + "_") or not _pairs_ok(spec[len(prefix) + 1:], keys):
                return None
            text = spec[len(prefix) + 1:]
        elif text is None:
            return [family.measure(prefix)]
        found = pairs(spec, text)
        check_gain_pairs(spec, found, keys)
        return [family.measure(f"{prefix}_{text}", params=found, explicit=True,
                               read_as=read_note(spec, text, paired=True))]
    return parse


def _pairs_ok(text: str, keys: tuple) -> bool:
    try:
        check_gain_pairs(text, pairs(text, text), keys)
    except ValueError:
        return False
    return True


def check_gain_pairs(spec: str, found: tuple, keys: tuple = ()) -> None:
    """ValueError unless every name is a grade (an integer >= 0, given once) or one of ``keys``,
    every value finite (trec_eval reads ``inf`` and prints 0 or -nan) and rbp's p in (0, 1]."""
    grades = []
    for name, value in found:
        if name == "p":
            check_persistence(spec, value)
        if not math.isfinite(value):
            raise ValueError(f"measure {spec!r}: {name}={value} is not a finite number")
        if name in keys:
            continue
        if not (name.isascii() and name.lstrip("+").isdigit()):
            raise ValueError(f"measure {spec!r}: {name!r} is not a grade (gains are written grade=gain, "
                             f"grade an integer >= 0)")
        grades.append(int(name))
    if len(set(grades)) < len(grades):
        raise ValueError(f"measure {spec!r}: a grade is given two gains")


def _err_parse(spec: str, family: Family):
    m = re.fullmatch(r"err(?:@([0-9]+))?", spec.lower())
    if not m:
        return None
    k = int(m.group(1)) if m.group(1) else None
    if k is not None and k <= 0:
        raise ValueError(f"measure {spec!r}: the cutoff must be a positive integer")
    return [family.measure("ERR" if k is None else f"ERR@{k}", k)]


def _graded(name, names, description, parse, compute, **kw):
    return register(Family(name, names, description, parse, compute, doc=compute.__doc__ or "", **kw))


_TREC = dict(trec_eval=True)
_graded("G", ('G', 'G.grade=gain,...'), "trec_eval's experimental normalized gain", gain_params("G", case=True),
        g_measure, **_TREC)
_graded("dcg", ('dcg', 'dcg.grade=gain,...'), "discounted cumulative gain (not normalized)", gain_params("dcg"),
        dcg, **_TREC)
_graded("ideal_dcg", ('ideal_dcg', 'ideal_dcg.grade=gain,...'), "DCG of the ideal ranking", gain_params("ideal_dcg"),
        ideal_dcg, **_TREC)
_graded("ndcg", ('ndcg', 'nDCG', 'ndcg.grade=gain,...'), "nDCG over the whole ranking (graded gains)",
        gain_params("ndcg"), ndcg, **_TREC)
_graded("ndcg_rel", ('ndcg_rel', 'ndcg_rel.grade=gain,...'), "nDCG averaged at the documents of positive gain",
        gain_params("ndcg_rel"), ndcg_rel, **_TREC)
_graded("Rndcg", ('Rndcg', 'Rndcg.grade=gain,...'), "nDCG averaged at the R-levels of the ideal ranking",
        gain_params("Rndcg"), r_ndcg, **_TREC)
_graded("ndcg_cut", ('ndcg_cut', 'ndcg_cut_k', 'ndcg_cut.k1,k2', 'nDCG@k'), "nDCG at k",
        cutoffs("ndcg_cut", "ndcg", default=STANDARD_CUTOFFS), ndcg_cut, native=lambda m: not m.params,
        oracle="nDCG(gains=...)@k: ir_measures (pytrec_eval on the mapped grades)", **_TREC)
_graded("rbp", ('rbp', 'rbp.p=x', 'RBP(p=x)', 'RBP(rel=n)'), "rank-biased precision (p = 0.9; ir_measures' RBP: 0.8)",
        gain_params("rbp", case=True, keys=("p",)), rbp, native=lambda m: m.rel is None and not m.name.startswith("RBP"),
        oracle="RBP(rel=n): ir_measures (its cwl_eval provider; tied documents in its order with "
               "ties='ir_measures')", **_TREC)
_graded("rbp_resid", ('rbp_resid', 'rbp_resid.p=x'), "how much rbp could rise if every unjudged document had gain 1",
        gain_params("rbp_resid", case=True, keys=("p",)), rbp_resid, **_TREC)
_graded("ERR", ('ERR', 'ERR@k'), "expected reciprocal rank (gdeval's: grades capped at 4)", _err_parse, err,
        oracle="ir_measures (its gdeval provider)")
