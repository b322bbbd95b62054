"""trec_eval's ranking order: score descending, ties by docno descending (byte order), per topic.

Scores are compared as IEEE floats mapped to unsigned integers that sort the same way
(:func:`descending_float_bits`), so one integer sort orders topics and scores; tied scores
are then ordered by docno descending, with the compiled kernels when built, else pyarrow's
string sort (or :meth:`reeval.io.strings.Strings.order` for escaped ids).

The other tie rules (:data:`TIE_RULES`) are those of ir_measures' own providers
(:mod:`reeval.measures.providers`): docno ascending, or the lines' input order
(:func:`ranked_order`).
"""

from __future__ import annotations

import numpy as np

from reeval.choices import PRECISIONS

from . import compiled
from .strings import Strings


def descending_float_bits(key: np.ndarray) -> np.ndarray:
    """Unsigned integers whose ascending order is the descending order of ``key``.

    IEEE floats map to integers that sort like them (flip every bit of negatives, the
    sign bit of the rest); inverting those gives the descending order. -0.0 must have
    been turned into 0.0 first; NaN is not expected.
    """
    if key.dtype == np.float32:
        bits = key.view(np.uint32).astype(np.uint64)
        sign = np.uint64(1 << 31)
        ordered = np.where(bits & sign, ~bits & np.uint64(0xFFFFFFFF), bits | sign)
        return np.uint64(0xFFFFFFFF) - ordered
    bits = key.view(np.uint64)
    sign = np.uint64(1 << 63)
    return ~np.where(bits & sign, ~bits, bits | sign)


def topic_score_order(qcodes: np.ndarray, key: np.ndarray) -> np.ndarray:
    """Row order by topic code ascending, then score descending (ties in input order).

    Rows already in that order (as most run files are) are recognized in one pass;
    otherwise float32 scores and topic codes fit one 64-bit key (one sort), and float64
    scores are sorted first and the topics then by a stable radix-friendly sort.
    ``key`` holds no NaN, and no -0.0 (it would tie with 0.0 here but not in the sort).
    """
    if len(key) > 1:
        step = np.diff(qcodes)
        if ((step > 0) | ((step == 0) & (key[1:] <= key[:-1]))).all():
            return np.arange(len(key))
    desc = descending_float_bits(key)
    if key.dtype == np.float32 and qcodes.max(initial=0) < 2**31:
        return np.argsort((qcodes.astype(np.uint64) << np.uint64(32)) | desc, kind="stable")
    by_score = np.argsort(desc, kind="stable")
    small = np.int16 if qcodes.max(initial=0) < 2**15 else np.int64
    return by_score[np.argsort(qcodes[by_score].astype(small), kind="stable")]


#: how tied scores are ordered: trec_eval's docno descending (byte order), docno ascending
#: (ir_measures' msmarco and judged providers), or the order of the lines as read (a stable
#: sort, ir_measures' cwl_eval provider)
TIE_RULES = ("docno_desc", "docno_asc", "input")


def ordering_key(score: np.ndarray, precision: str = "float64") -> np.ndarray:
    """The scores as the ranking compares them: ``-0.0`` turned into ``0.0`` (they tie), and
    with ``precision="float32"`` rounded to float32 (beyond its range infinite, as a C cast)."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, not {precision!r}")
    key = score + 0.0  # + 0.0 turns -0.0 into 0.0
    if precision == "float32":
        with np.errstate(over="ignore"):
            key = key.astype(np.float32)
    return key


def ranked_order(topic: np.ndarray, docno: Strings, score: np.ndarray, precision: str = "float64",
                 keep: np.ndarray | None = None, rule: str = "docno_desc") -> np.ndarray:
    """Rows of a run in the order of topic code ascending, score descending, ties by ``rule``.

    ``docno_desc`` is :func:`trec_order`; ``input`` keeps tied rows in the order read (one
    stable sort by topic and score); ``docno_asc`` reverses each block of tied rows of
    trec_eval's order (rows with the same docno in a block, which ingest drops as duplicates,
    would come out in the reverse of their input order).
    """
    if rule not in TIE_RULES:
        raise ValueError(f"tie rule must be one of {TIE_RULES}, not {rule!r}")
    if rule == "input":
        rows = None if keep is None or keep.all() else np.flatnonzero(keep)
        key = ordering_key(score, precision)
        local = topic_score_order(topic if rows is None else topic[rows], key if rows is None else key[rows])
        return local if rows is None else rows[local]
    order = trec_order(topic, docno, score, precision, keep)
    return order if rule == "docno_desc" else reverse_ties(order, topic, ordering_key(score, precision))


def reverse_ties(order: np.ndarray, topic: np.ndarray, key: np.ndarray) -> np.ndarray:
    """``order`` with each maximal block of consecutive rows of equal (topic, key) reversed."""
    if len(order) < 2:
        return order
    same = (topic[order][1:] == topic[order][:-1]) & (key[order][1:] == key[order][:-1])
    if not same.any():
        return order
    new = np.r_[True, ~same]
    starts = np.flatnonzero(new)
    ends = np.r_[starts[1:], len(order)]
    block = np.cumsum(new) - 1
    return order[starts[block] + ends[block] - 1 - np.arange(len(order))]


def uniform_topics(n_ret: np.ndarray, key: np.ndarray) -> int:
    """Topics with two documents or more whose scores are all equal: ``n_ret`` documents per
    topic, ``key`` the ranking's scores (:func:`ordering_key`) sorted by topic, each topic's
    descending (so a topic's scores are all equal when its first equals its last)."""
    ends = np.cumsum(n_ret)
    starts = ends - n_ret
    several = n_ret >= 2
    return int((key[starts[several]] == key[ends[several] - 1]).sum())


def trec_order(topic: np.ndarray, docno: Strings, score: np.ndarray, precision: str = "float64",
               keep: np.ndarray | None = None) -> np.ndarray:
    """Rows of a run (indices into its parsed lines) in trec_eval order.

    Order: topic code ascending (``topic``, codes that sort as the topic ids), then
    score descending, then docno descending (byte order); with ``precision="float32"``
    scores are compared as float32 (beyond its range they are infinite, as in a C
    cast). ``-0.0`` ties with ``0.0``. ``keep`` (boolean mask) restricts the lines ordered.
    """
    rows = None if keep is None or keep.all() else np.flatnonzero(keep)
    key = ordering_key(score, precision)
    codes = topic if rows is None else topic[rows]
    local = topic_score_order(codes, key if rows is None else key[rows])
    order = local if rows is None else rows[local]
    # docno decides only among equal (topic, score): the tie groups are contiguous in order
    kernels = compiled.kernels()
    if kernels is not None and not docno.has_backslash():  # each group found and sorted in C, in place
        # (escaped texts are ordered by the bytes they stand for, below)
        kernels.sort_ties(order, np.ascontiguousarray(topic, dtype=np.int64), key, docno.offsets, docno.data)
        return order
    q_sorted, k_sorted = topic[order], key[order]
    same = (q_sorted[1:] == q_sorted[:-1]) & (k_sorted[1:] == k_sorted[:-1])
    tied = np.zeros(len(order), dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    if tied.any():  # reorder the tied rows by docno descending, group by group
        slots = np.flatnonzero(tied)
        first = np.r_[True, ~same][tied]  # a new group where the row is not tied to its predecessor
        tied_rows = order[slots]
        order[slots] = tied_rows[_tie_order(docno.take(tied_rows), np.cumsum(first))]
    return order


def _tie_order(docno: Strings, group: np.ndarray) -> np.ndarray:
    """Indices sorting tied rows by group, then docno descending, stably (no kernels):
    pyarrow's string sort, or :meth:`Strings.order` for escaped texts (byte order of the
    bytes they stand for)."""
    if docno.has_backslash():
        return docno.order(descending=True, groups=group)
    import pyarrow as pa
    import pyarrow.compute as pc

    table = pa.table({"group": group, "docno": docno.to_arrow()})
    return pc.sort_indices(table, sort_keys=[("group", "ascending"), ("docno", "descending")]).to_numpy()


#: where :func:`first_reordered` finds no document placed otherwise on a topic
NOT_REORDERED = np.iinfo(np.int64).max


def first_reordered(topic: np.ndarray, pos: np.ndarray, key: np.ndarray, line: np.ndarray, n_topics: int) -> dict:
    """Per topic, the 1-based position of the first document that another tie rule
    (:data:`TIE_RULES`) puts elsewhere than trec_eval's order does; :data:`NOT_REORDERED`
    where it puts none elsewhere (no tie, or a rule that agrees).

    The rows are a run's kept lines in trec_eval order: ``topic`` codes (sorted, below
    ``n_topics``), ``pos`` their 1-based positions, ``key`` the scores as ranked
    (:func:`ordering_key`), ``line`` each row's index among the lines read. A block of
    equal (topic, key) holds tied documents, in docno descending order. ``docno_asc``
    reverses every block of two or more, so its first differing position is the block's
    first; ``input`` sorts a block by ``line``, so it first differs where a row's line is
    not the least of the lines from that row to the block's end (a segmented suffix
    minimum, one pass over the tied rows). A measure cut at k ranks otherwise on a topic
    exactly when that position is <= k.

    ``float32`` (pytrec_eval's reading of the scores, which then ties documents by docno
    descending) marks the first row of each block of equal (topic, float32 score) that
    holds two float64 scores apart: there the float32 order may differ (it does unless the
    docnos happen to fall in the float64 order); never when ``key`` is float32 already."""
    out = {rule: np.full(n_topics, NOT_REORDERED, dtype=np.int64) for rule in ("docno_asc", "input", "float32")}
    if len(key) < 2:
        return out
    same_topic = topic[1:] == topic[:-1]
    same = same_topic & (key[1:] == key[:-1])  # row i + 1 ties with row i
    if same.any():
        start = np.r_[same, False]
        start[1:] &= ~same  # the first row of each block of two or more
        _first_per_topic(out["docno_asc"], topic[start], pos[start])
        member = np.flatnonzero(start | np.r_[False, same])  # the rows of those blocks (few, in most runs)
        block = np.cumsum(start[member])
        shift = (block[-1] - block) * (np.int64(line.max()) + 1)  # larger for earlier blocks: read backwards,
        ahead = line[member]                                       # the minimum restarts at each block
        suffix_min = np.minimum.accumulate((ahead - shift)[::-1])[::-1] + shift
        moved = member[ahead != suffix_min]
        _first_per_topic(out["input"], topic[moved], pos[moved])
    if key.dtype != np.float32:
        narrow = ordering_key(key, "float32")
        apart = np.flatnonzero(same_topic & (narrow[1:] == narrow[:-1]) & ~same)  # float32 ties, float64 apart
        if len(apart):
            start32 = np.flatnonzero(np.r_[True, ~(same_topic & (narrow[1:] == narrow[:-1]))])
            first = start32[np.searchsorted(start32, apart, side="right") - 1]
            _first_per_topic(out["float32"], topic[first], pos[first])
    return out


def _first_per_topic(out: np.ndarray, topic: np.ndarray, pos: np.ndarray) -> None:
    """``out[t]`` = the least of ``pos`` on topic ``t`` (rows sorted by topic, ``pos``
    ascending within a topic: the first row of each topic's)."""
    if len(topic):
        at = np.r_[True, topic[1:] != topic[:-1]]
        out[topic[at]] = pos[at]
