"""Normalizing one track (a qrels file and its run files) into the central tables.

The work is numpy and the compiled kernels only (no pyarrow, no pandas, unless a file
needs the general reader or the kernels are not built); the Arrow tables are built
when asked for (:class:`TrackTables`, written as Parquet by :func:`write_track`):

- ``runs``: run, qid, docno, score (float64 as written), tag, pos. ``pos`` is the
  1-based position in trec_eval order: score descending, ties by docno descending
  (byte order). With ``precision="float32"`` the scores are rounded to float32 before
  ordering, as trec_eval 9.x and pytrec_eval do, so scores equal in float32 tie.
  Sorted by run, qid, pos.
- ``qrels``: qid, docno, rel (raw integer grade; the relevance level is applied by
  the measures), sorted by qid and docno in byte order.
- ``judged``: one row per judged document a run retrieved: run, qid, docno, pos, rel.
  Its run and qid columns are dictionary-encoded in memory (``JUDGED_ENCODED``);
  ``judged.parquet`` holds plain strings (``JUDGED_SCHEMA``: every table is typed by
  the column registry of :mod:`reeval.io.tables`).
- ``depth``: run, qid, n_ret (documents the run retrieved for the topic).
- ``report``: one row per input file with the outcome of every line.

The measures read the numpy parts directly (:func:`reeval.measures.grid_from_track`):
per run (:class:`RunPart`) the topic, position and qrels row of every kept line, and
the documents retrieved per topic.

Track-level drops, counted per file: lines of topics that have no judgment in the
qrels (``unjudged_topic``) and repeated docnos within a run's topic (``duplicate``;
the first occurrence in trec_eval order is kept, so the best-scored copy). A docno
judged twice for a topic in the qrels keeps the last judgment (as dict-based tools
such as pytrec_eval do) and counts the others as ``duplicate``.

How (fast by design): each run file is parsed, ordered, deduplicated and matched
against the qrels on its own, ``threads`` files at once (in threads: the compiled
kernels and numpy release the GIL for most of the work). Document ids are compared
through 64-bit hashes of their bytes; every hash equality is confirmed on the bytes,
so a collision can cost time but never change a result. With the compiled kernels
(``_kernels.c``, see :mod:`reeval.io.compiled`) one pass per file deduplicates and
matches through per-topic hash tables (:func:`dedupe_and_match`); without them numpy
(and pandas' hash index) does it (:func:`string_hash64`, :func:`exact_duplicates`,
:meth:`QrelsLookup.match`), with the same results.
"""

from __future__ import annotations

import ctypes
import os
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from . import compiled
from .arrays import positions_from_counts
from reeval.choices import PRECISIONS
from .notes import nothing_kept
from .strings import Strings
from .trecio import InputError, LineCounts, QrelsLines, read_qrels, read_run, run_names


@dataclass
class Qrels:
    """Deduplicated judgments sorted by topic then docno, in byte order.

    ``topics`` are the judged topic ids in byte order; row i judges document
    ``docno[i]`` of topic ``topics[topic[i]]`` with grade ``rel[i]``.
    """

    topics: list
    topic: np.ndarray
    docno: Strings
    rel: np.ndarray

    def __len__(self) -> int:
        return len(self.rel)

    def to_table(self):
        """qid, docno, rel as an Arrow table (``qrels.parquet``)."""
        import pyarrow as pa

        return pa.table({"qid": _text_column(self.topic, self.topics), "docno": self.docno.to_arrow(),
                         "rel": pa.array(self.rel, pa.int64())}, schema=_schema("qrels"))

    @classmethod
    def from_table(cls, table) -> "Qrels":
        """From an Arrow table (qid, docno, rel) without repeated (qid, docno)."""
        from .trecio import _encoded

        qids, qid = _encoded(table["qid"].combine_chunks())
        lines = QrelsLines(qids, qid, Strings.from_arrow(table["docno"]), table["rel"].to_numpy().astype(np.int64),
                           np.arange(1, table.num_rows + 1), LineCounts())
        qrels, repeats = prepare_qrels(lines)
        if repeats.any():
            raise ValueError("Qrels.from_table needs qrels without repeated (qid, docno)")
        return qrels


def _text_column(codes: np.ndarray, values: list, encoded: bool = False):
    """An Arrow string column of ``values[codes]`` (dictionary-encoded if asked)."""
    import pyarrow as pa

    dictionary = pa.array(values, type=pa.string())
    column = pa.DictionaryArray.from_arrays(pa.array(np.asarray(codes, dtype=np.int32)), dictionary)
    return column if encoded else column.cast(pa.string())


def sorted_ids(values: list) -> tuple[list, np.ndarray]:
    """(the distinct ids ``values`` in byte order, the rank of each of them in it)."""
    codes = Strings.from_list(values).codes()
    ordered = [None] * len(values)
    for v, c in zip(values, codes.tolist()):
        ordered[c] = v
    return ordered, codes


def prepare_qrels(lines: QrelsLines, grade_map: dict | None = None) -> tuple[Qrels, np.ndarray]:
    """Judgments by topic and docno in byte order, the last of a repeated (qid, docno)
    kept; -> (qrels, mask of the lines dropped as repeats, in file order).

    ``grade_map`` relabels grades first (:func:`remap_grades`). A stable sort brings a
    pair's lines together in file order; all but the last of each run are dropped.
    """
    topics, rank = sorted_ids(lines.qids)
    topic = rank[lines.qid] if len(lines.qid) else np.zeros(0, dtype=np.int64)
    doc_code = lines.docno.codes()
    order = np.lexsort((doc_code, topic))
    repeat = np.zeros(len(order), dtype=bool)  # row i equals row i + 1: not the last
    if len(order) > 1:
        repeat[:-1] = (topic[order[1:]] == topic[order[:-1]]) & (doc_code[order[1:]] == doc_code[order[:-1]])
    dup = np.zeros(len(order), dtype=bool)
    dup[order[repeat]] = True
    keep = order[~repeat]
    rel = remap_grades(lines.rel, grade_map)[keep]
    return Qrels(topics, topic[keep], lines.docno.take(keep), rel), dup


def remap_grades(rel: np.ndarray, grade_map: dict | None) -> np.ndarray:
    """Relevance grades replaced by ``grade_map`` (e.g. {1: 0}); other grades unchanged.

    Reproduces evaluations run on relabelled qrels, such as the DL-2020 passage
    ``trec_eval`` block, whose nDCG treats grade 1 as 0.
    """
    if not grade_map:
        return rel
    new = rel.copy()
    for src, dst in grade_map.items():
        new[rel == int(src)] = int(dst)
    return new


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


_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xBF58476D1CE4E5B9)
_M3 = np.uint64(0x94D049BB133111EB)


def _mix64(h: np.ndarray) -> np.ndarray:
    """splitmix64's finalizer: a bijection of uint64 that spreads every input bit."""
    h = h ^ (h >> np.uint64(30))
    h = h * _M2
    h = h ^ (h >> np.uint64(27))
    h = h * _M3
    return h ^ (h >> np.uint64(31))


def string_buffers(values) -> tuple[np.ndarray, np.ndarray]:
    """(offsets int64, data uint8) of strings: a :class:`~reeval.io.strings.Strings` or an
    Arrow string array (string i is data[offsets[i]:offsets[i + 1]])."""
    if not isinstance(values, Strings):
        values = Strings.from_arrow(values)
    return values.offsets, values.data


def string_hash64(values, seed: int = 0) -> np.ndarray:
    """A 64-bit hash of every string of an Arrow string array, vectorized over 8-byte words.

    h = length * M1 + seed; for each 8-byte word w_k of the string (the last one
    zero-padded) h = (h ^ w_k) * M2; finally h = mix64(h). Equal strings always get
    equal hashes; different strings rarely do, so callers that need exactness confirm
    equal hashes on the strings themselves. Cost: one pass over the rows per 8 bytes of
    the longest string; each unaligned word is assembled from two aligned ones.
    (``_kernels.c`` computes the same hash, with seed 0, string by string.)
    """
    n = len(values)
    if n == 0:
        return np.zeros(0, dtype=np.uint64)
    offsets, data = string_buffers(values)
    base, stop = int(offsets[0]), int(offsets[-1])
    words = np.zeros((stop - base) // 8 + 2, dtype=np.uint64)  # the bytes, zero-padded, as aligned words
    if stop > base:
        words.view(np.uint8)[: stop - base] = data[base:stop]
    start = offsets[:-1] - base
    length = np.diff(offsets)
    h = length.astype(np.uint64) * _M1 + np.uint64(seed)
    shift = ((start & 7) << 3).astype(np.uint64)
    back = np.uint64(63) - shift  # hi << (64 - shift) as (hi << (63 - shift)) << 1: never a shift by 64
    at = start >> 3
    for k in range(0, int(length.max()), 8):
        rows = slice(None) if int(length.min()) > k else np.flatnonzero(length > k)
        i = at[rows] + (k >> 3)
        w = (words[i] >> shift[rows]) | ((words[i + 1] << back[rows]) << np.uint64(1))
        rem = length[rows] - k
        if int(rem.min()) < 8:
            short = rem < 8
            w[short] &= (np.uint64(1) << (rem[short].astype(np.uint64) << np.uint64(3))) - np.uint64(1)
        h[rows] = (h[rows] ^ w) * _M2
    return _mix64(h)


def pair_hash(topic: np.ndarray, doc_hash: np.ndarray) -> np.ndarray:
    """Hash of a (topic code, document hash) pair."""
    return _mix64(doc_hash ^ ((topic.astype(np.uint64) + np.uint64(1)) * _M1))


_ALL_BITS = (1 << 64) - 1


@dataclass
class QrelsLookup:
    """The judged (topic, docno) pairs of a track, hashed for lookups.

    With the compiled kernels ``slots`` is their open-addressing table of the qrels'
    docnos, topic t owning ``slots[base[t]:base[t+1]]`` (see :func:`topic_regions`),
    built with hash ``mask``; with the numpy path ``keys`` is a hash index (pandas) of
    the rows' pair hashes (position = qrels row) and ``seed`` makes them distinct.
    """

    qrels: Qrels
    base: np.ndarray | None = None
    slots: np.ndarray | None = None
    keys: object = None
    seed: int = 0
    mask: int = _ALL_BITS
    index: dict = field(default_factory=dict)  # topic id -> code

    @property
    def topics(self) -> list:
        return self.qrels.topics

    @classmethod
    def build(cls, qrels, mask: int = _ALL_BITS) -> "QrelsLookup":
        """Index deduplicated qrels (a :class:`Qrels`, or an Arrow table qid, docno, rel),
        for the compiled kernels if enabled.

        ``mask`` narrows the compiled path's hashes (tests use it to force collisions).
        The numpy path re-seeds on the rare collision of two qrels pair hashes.
        """
        if not isinstance(qrels, Qrels):
            qrels = Qrels.from_table(qrels)
        kernels = compiled.kernels()
        base = cls(qrels, mask=mask, index={t: i for i, t in enumerate(qrels.topics)})
        if kernels is not None:
            base.base = topic_regions(np.bincount(qrels.topic, minlength=len(qrels.topics)))
            base.slots = np.full(int(base.base[-1]), _ALL_BITS, dtype=np.uint64)
            if kernels.build_table(qrels.topic, qrels.docno.offsets, qrels.docno.data, base.base, base.slots, mask):
                raise ValueError("QrelsLookup.build needs qrels without repeated (qid, docno)")
            return base
        import pandas as pd

        for seed in range(64):
            keys = pd.Index(pair_hash(qrels.topic, string_hash64(qrels.docno, seed)))
            if keys.is_unique:  # also builds the hash table once, before threads share it
                base.keys, base.seed = keys, seed
                return base
        raise RuntimeError("no collision-free hash seed for the qrels")  # pragma: no cover

    def topic_codes(self, ids: list) -> np.ndarray:
        """Code of each topic id in :attr:`topics` (-1 for a topic without judgments)."""
        return np.array([self.index.get(t, -1) for t in ids], dtype=np.int64)

    def match(self, topic: np.ndarray, keys: np.ndarray, docno: Strings, docno_row=None) -> tuple[np.ndarray, np.ndarray]:
        """(rows, qrels rows) of the (topic, docno) rows that are judged (numpy path).

        ``topic`` are codes into ``self.topics``; ``keys`` = pair_hash(topic, hash of docno,
        seed ``self.seed``); row i's docno is ``docno[docno_row[i]]`` (``docno[i]`` without
        ``docno_row``). Hash matches are confirmed on topic code and docno bytes.
        """
        at = self.keys.get_indexer(keys)
        rows = np.flatnonzero(at >= 0)
        qrow = at[rows]
        same = self.qrels.topic[qrow] == topic[rows]
        same &= docno.equal(rows if docno_row is None else docno_row[rows], self.qrels.docno, qrow)
        return rows[same], qrow[same]


def topic_regions(counts: np.ndarray) -> np.ndarray:
    """Start of each topic's slots in a compiled hash table, plus the end (len + 1 entries).

    Topic t with counts[t] strings gets the smallest power of two of slots that is at
    least 2 * counts[t] and 8, so probes stay short (load <= 1/2).
    """
    need = np.maximum(2 * np.asarray(counts, dtype=np.int64), 8)
    caps = np.left_shift(np.int64(1), np.ceil(np.log2(need)).astype(np.int64))
    return np.concatenate([[0], np.cumsum(caps)]).astype(np.int64)


def exact_duplicates(keys: np.ndarray, topic: np.ndarray, docno: Strings, rows: np.ndarray) -> np.ndarray:
    """Mask of rows repeating an earlier row's (topic, docno string ``docno[rows]``).

    ``keys`` are the rows' pair hashes: only rows whose hash occurs more than once are
    compared on the bytes, so the result is exact and costs one hash-table pass when
    there is no duplicate.
    """
    import pandas as pd

    dup = np.zeros(len(keys), dtype=bool)
    index = pd.Index(keys)
    if index.has_duplicates:
        cand = np.flatnonzero(index.duplicated(keep=False))
        exact = pd.DataFrame({"t": topic[cand], "d": docno.take(rows[cand]).codes()})
        dup[cand] = exact.duplicated(keep="first").to_numpy()
    return dup


def dedupe_and_match(lookup: QrelsLookup, topic: np.ndarray, docno, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(duplicate mask, qrels row or -1) of the lines ``rows`` of a run, taken in that order.

    Line k is (topic code ``topic[k]`` in ``lookup.topics``, docno ``docno[rows[k]]``);
    ``topic`` must not decrease (a topic's lines are consecutive). It is a duplicate when
    an earlier line has the same topic and docno bytes; a duplicate has no qrels row.
    ``docno``: :class:`~reeval.io.strings.Strings` (or an Arrow string array). Exact on the
    bytes whichever path runs (the compiled kernel for a lookup built with it, else numpy).
    """
    if not isinstance(docno, Strings):
        docno = Strings.from_arrow(docno)
    m = len(rows)
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    topic = np.ascontiguousarray(topic, dtype=np.int64)
    if lookup.slots is not None:
        dup = np.empty(m, dtype=bool)
        qrow = np.empty(m, dtype=np.int64)
        q = lookup.qrels.docno
        compiled._kernels.dedupe_match(rows, topic, docno.offsets, docno.data, lookup.base, lookup.slots,
                                       q.offsets, q.data, lookup.mask, dup, qrow)
        return dup, qrow
    keys = pair_hash(topic, string_hash64(docno, lookup.seed)[rows])
    dup = exact_duplicates(keys, topic, docno, rows)
    kept = np.flatnonzero(~dup)
    qrow = np.full(m, -1, dtype=np.int64)
    found, at = lookup.match(topic[kept], keys[kept], docno, rows[kept])
    qrow[kept[found]] = at
    return dup, qrow


def trec_order(topic: np.ndarray, docno: Strings, score: np.ndarray, precision: str = "float64",
               keep: np.ndarray | None = None) -> np.ndarray:
    """Rows of a run (indices into its parsed lines) in trec_eval order.

    Order: topic code ascending (``topic``, codes that sort as the topic ids), then
    score descending, then docno descending (byte order); with ``precision="float32"``
    scores are compared as float32 (beyond its range they are infinite, as in a C
    cast). ``-0.0`` ties with ``0.0``. ``keep`` (boolean mask) restricts the lines ordered.
    """
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, not {precision!r}")
    rows = None if keep is None or keep.all() else np.flatnonzero(keep)
    key = score + 0.0  # + 0.0 turns -0.0 into 0.0
    if precision == "float32":
        with np.errstate(over="ignore"):
            key = key.astype(np.float32)
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


@dataclass
class RunPart:
    """One run of a track, read and judged (numpy): ``topic`` (code in the qrels topics),
    ``pos`` (1-based trec_eval position) and ``qrow`` (qrels row, -1 if not judged) of
    every kept line in trec_eval order; ``n_ret`` documents per qrels topic; the report
    row; and, when the runs table is kept, the parsed lines and their ``order``."""

    name: str
    topic: np.ndarray
    pos: np.ndarray
    qrow: np.ndarray
    n_ret: np.ndarray
    row: dict
    lines: object = None
    order: np.ndarray | None = None

    @property
    def judged(self) -> np.ndarray:
        """Indices of the judged lines (qrow >= 0)."""
        return np.flatnonzero(self.qrow >= 0)


def _report_row(track, path, kind, run, counts: LineCounts, **extra) -> dict:
    row = {"track": track, "file": str(path), "kind": kind, "run": run}
    row.update(counts.as_dict())
    row.update(extra)
    return row


def load_run(name: str, path, lookup: QrelsLookup | Future, track: str, precision: str = "float64",
             on_malformed: str = "error", keep_runs: bool = True) -> RunPart:
    """Read, filter, rank and judge one run file (see :class:`RunPart` and :func:`judge_run`).

    ``lookup`` may be a future of it: the file is read before waiting for the qrels."""
    lines = read_run(path, on_malformed=on_malformed)
    if isinstance(lookup, Future):
        lookup = lookup.result()
    return judge_run(name, path, lines, lookup, track, precision, keep_runs)


def judge_run(name: str, path, lines, lookup: QrelsLookup, track: str, precision: str = "float64",
              keep_runs: bool = True) -> RunPart:
    """Filter, rank and judge the parsed lines of one run file (see :class:`RunPart`).

    Lines of topics the qrels do not judge are dropped and counted, then repeated
    (topic, docno) lines after the first in trec_eval order.
    """
    counts = lines.counts
    run_topic = lookup.topic_codes(lines.qids)  # code of each of the run's topic ids, -1 if not judged
    topic = run_topic[lines.qid] if len(lines.qid) else np.zeros(0, dtype=np.int64)
    keep = topic >= 0
    counts.unjudged_topic = int(len(keep) - keep.sum())
    order = trec_order(topic, lines.docno, lines.score, precision, keep=keep)
    topic = topic[order]
    dup, qrow = dedupe_and_match(lookup, topic, lines.docno, order)
    counts.duplicate = int(dup.sum())
    if counts.duplicate:
        order, topic, qrow = order[~dup], topic[~dup], qrow[~dup]
    counts.kept = len(order)
    n_ret = np.bincount(topic, minlength=len(lookup.topics))
    pos = positions_from_counts(n_ret)  # topic is sorted
    row = _report_row(track, path, "run", name, counts, n_tags=int((np.bincount(lines.tag, minlength=1) > 0).sum()),
                      first_tag=lines.tags[int(lines.tag[0])] if len(lines.tag) else None,
                      n_topics=int((n_ret > 0).sum()), unjudged_topics=int((run_topic < 0).sum()))
    return RunPart(name, topic, pos, qrow, n_ret, row, lines if keep_runs else None, order if keep_runs else None)


@dataclass
class TrackTables:
    """A track read once: its qrels lookup, one :class:`RunPart` per run (in name order)
    and the report rows; the Arrow tables are built on first use."""

    lookup: QrelsLookup
    parts: list
    report_rows: list  # one dict per input file (qrels first), the columns of ``report``
    keep_runs: bool = True

    @cached_property
    def qrels(self):
        """qid, docno, rel: the judgments, by topic and docno."""
        return self.lookup.qrels.to_table()

    @cached_property
    def judged(self):
        """run, qid, docno, pos, rel of every judged line (``JUDGED_ENCODED``)."""
        import pyarrow as pa

        q = self.lookup.qrels
        tables = []
        for part in self.parts:
            at = part.judged
            qrow = part.qrow[at]
            tables.append(pa.table({
                "run": _text_column(np.zeros(len(at), dtype=np.int8), [part.name], encoded=True),
                "qid": _text_column(part.topic[at], q.topics, encoded=True),
                "docno": q.docno.take(qrow).to_arrow(), "pos": pa.array(part.pos[at]),
                "rel": pa.array(q.rel[qrow], pa.int64())}, schema=_schema("judged_encoded")))
        return _concat(tables, _schema("judged_encoded"))

    @cached_property
    def depth(self):
        """run, qid, n_ret of every topic a run answered."""
        import pyarrow as pa

        tables = []
        for part in self.parts:
            answered = np.flatnonzero(part.n_ret)
            tables.append(pa.table({"run": _text_column(np.zeros(len(answered), np.int8), [part.name]),
                                    "qid": _text_column(answered, self.lookup.topics),
                                    "n_ret": pa.array(part.n_ret[answered].astype(np.int32))},
                                   schema=_schema("depth")))
        return _concat(tables, _schema("depth"))

    @cached_property
    def runs(self):
        """run, qid, docno, score, tag, pos of every kept line; None without ``keep_runs``."""
        if not self.keep_runs:
            return None
        import pyarrow as pa

        tables = []
        for part in self.parts:
            lines, order = part.lines, part.order
            tables.append(pa.table({
                "run": _text_column(np.zeros(len(order), np.int8), [part.name]),
                "qid": _text_column(part.topic, self.lookup.topics), "docno": lines.docno.take(order).to_arrow(),
                "score": pa.array(lines.score[order]), "tag": _text_column(lines.tag[order], lines.tags),
                "pos": pa.array(part.pos)}, schema=_schema("runs")))
        return _concat(tables, _schema("runs"))

    @property
    def report(self):
        """The ingest report (pandas): one row per input file with the outcome of every line."""
        import pandas as pd

        return pd.DataFrame(self.report_rows)


def _concat(tables, schema):
    import pyarrow as pa

    return pa.concat_tables(tables) if tables else schema.empty_table()


_SCHEMA_COLUMNS = {"runs": ["run", "qid", "docno", "score", "tag", "pos"],
                   "judged": ["run", "qid", "docno", "pos", "rel"],
                   "depth": ["run", "qid", "n_ret"], "qrels": ["qid", "docno", "rel"]}


def _schema(name: str):
    """The Arrow schema of a central table (typed by :mod:`reeval.io.tables`); ``judged_encoded``
    is the in-memory judged table, its run and qid dictionary-encoded."""
    import pyarrow as pa

    from .tables import table_schema

    if name != "judged_encoded":
        return table_schema(_SCHEMA_COLUMNS[name])
    judged = table_schema(_SCHEMA_COLUMNS["judged"])
    return pa.schema([("run", pa.dictionary(pa.int8(), pa.string())), ("qid", pa.dictionary(pa.int32(), pa.string()))]
                     + [judged.field(column) for column in ("docno", "pos", "rel")])


def __getattr__(name: str):
    """RUNS_SCHEMA, JUDGED_SCHEMA, JUDGED_ENCODED, DEPTH_SCHEMA, QRELS_SCHEMA (built on use)."""
    schemas = {"RUNS_SCHEMA": "runs", "JUDGED_SCHEMA": "judged", "JUDGED_ENCODED": "judged_encoded",
               "DEPTH_SCHEMA": "depth", "QRELS_SCHEMA": "qrels"}
    if name in schemas:
        return _schema(schemas[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def tune_memory() -> bool:
    """Make fresh memory cheaper: glibc keeps freed memory, numpy stops asking for huge pages.

    Ingest and the measures allocate and free arrays of megabytes per run file. By
    default glibc unmaps large blocks when they are freed and trims the heap, so the
    next file faults fresh pages in again: 300,000 page faults and about a second of
    system time on the 50-run benchmark track, on a virtual machine. This sets
    M_MMAP_THRESHOLD to 32 MiB (glibc's maximum) and M_TRIM_THRESHOLD to 1 GiB for the
    whole process; peak memory does not change, but freed memory stays with the process
    until it exits. It also sets M_ARENA_MAX to 1: threads then share one heap, so the
    measures (main thread) reuse what ingest's threads freed (the allocations are few
    and large, so threads hardly wait on each other). And it turns off numpy's
    madvise(MADV_HUGEPAGE) of large arrays: a first touch then faults 4 KiB, not a
    2 MiB page to clear, whose cost varied tenfold from run to run on the virtual
    machines measured (the same as NUMPY_MADVISE_HUGEPAGE=0). Returns whether malloc was
    tuned: not outside glibc, and nothing is changed when the environment variable
    REEVAL_MALLOC is ``default``.
    """
    if os.environ.get("REEVAL_MALLOC") == "default":
        return False
    set_hugepage = getattr(getattr(np, "_core", None), "multiarray", None)
    if hasattr(set_hugepage, "_set_madvise_hugepage"):
        set_hugepage._set_madvise_hugepage(False)
    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # pragma: no cover - not glibc
        return False
    m_trim_threshold, m_mmap_threshold, m_arena_max = -1, -3, -8
    return all([mallopt(m_mmap_threshold, 32 << 20), mallopt(m_trim_threshold, 1 << 30), mallopt(m_arena_max, 1)])


def ingest_track(track: str, qrels_path, run_paths, precision: str = "float64",
                 on_malformed: str = "error", grade_map: dict | None = None,
                 threads: int = 2, keep_runs: bool = True) -> TrackTables:
    """Read a track's qrels and runs once each and judge every run (see the module doc).

    ``threads`` run files are read, ranked and matched with the qrels at once, in
    threads (the compiled kernels and numpy's large operations release the GIL);
    results do not depend on it. ``grade_map`` relabels qrels grades before anything
    else (see :func:`remap_grades`). ``keep_runs=False`` keeps no parsed lines, so no
    ``runs`` table (only ``runs.parquet`` needs it). Qrels without a judgment are an
    :class:`InputError`. Calls :func:`tune_memory` (process-wide malloc and numpy settings).
    """
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, not {precision!r}")
    tune_memory()
    names = run_names(run_paths)
    jobs = sorted(zip(names, run_paths))
    ready = Future()  # the qrels lookup, or the qrels' error

    def load(job):
        return load_run(*job, ready, track, precision, on_malformed, keep_runs)

    # A regular qrels file is read while the first run files are (a stream, perhaps the
    # standard input a run also names, is read before any run begins)
    overlap = str(qrels_path) != "-" and os.path.isfile(qrels_path)
    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        try:
            # map yields in name order; the first failing file raises and cancels the files not begun
            parts = pool.map(load, jobs) if overlap else None
            try:
                lookup, report = _qrels_lookup(track, qrels_path, on_malformed, grade_map)
            except BaseException as exc:
                ready.set_exception(exc)
                raise
            ready.set_result(lookup)
            parts = list(parts if overlap else pool.map(load, jobs))
        finally:
            pool.shutdown(cancel_futures=True)
    report.extend(part.row for part in parts)
    return TrackTables(lookup, parts, report, keep_runs)


def _qrels_lookup(track: str, qrels_path, on_malformed: str, grade_map: dict | None) -> tuple[QrelsLookup, list]:
    """(the lookup of a track's qrels file, [its report row]); no judgment is an InputError."""
    lines = read_qrels(qrels_path, on_malformed=on_malformed)
    qcounts = lines.counts
    if len(lines.rel) == 0:
        raise InputError(f"{qrels_path}: no judgment to evaluate with ({nothing_kept(qcounts)})")
    qrels, qdup = prepare_qrels(lines, grade_map)
    qcounts.duplicate = int(qdup.sum())
    qcounts.kept -= qcounts.duplicate
    return QrelsLookup.build(qrels), [_report_row(track, qrels_path, "qrels", None, qcounts)]


TRACK_FILES = ("runs.parquet", "qrels.parquet", "judged.parquet", "depth.parquet",
               "ingest_report.csv")


def write_track(tables: TrackTables, out_dir) -> None:
    """Write the tables of :func:`ingest_track` under ``out_dir`` (names: TRACK_FILES)."""
    from .tables import write_table

    out = Path(out_dir)
    write_table(tables.runs, out / "runs.parquet")
    write_table(tables.qrels, out / "qrels.parquet")
    write_table(tables.judged, out / "judged.parquet")  # run and qid decoded to plain strings
    write_table(tables.depth, out / "depth.parquet")
    write_table(tables.report, out / "ingest_report.csv")
