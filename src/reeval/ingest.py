"""Normalizing one track (a qrels file and its run files) into the central tables.

Outputs (all Arrow tables, written as Parquet by :func:`write_track`):

- ``runs``: run, qid, docno, score (float64 as written), tag, pos. ``pos`` is the
  1-based position in trec_eval order: score descending, ties by docno descending
  (byte order). With ``precision="float32"`` the scores are rounded to float32 before
  ordering, as trec_eval 9.x and pytrec_eval do, so scores equal in float32 tie.
  Sorted by run, qid, pos.
- ``qrels``: qid, docno, rel (raw integer grade; the relevance level is applied by
  the measures).
- ``judged``: one row per judged document a run retrieved: run, qid, docno, pos, rel.
  In memory its run and qid columns are dictionary-encoded (indices into the run's
  name and the qrels topics: ``JUDGED_ENCODED``), a third smaller and faster to
  group; ``judged.parquet`` holds plain strings (``JUDGED_SCHEMA``: every table is
  typed by the column registry of :mod:`reeval.outputs`).
- ``depth``: run, qid, n_ret (documents the run retrieved for the topic).
- ``report``: one row per input file with the outcome of every line.

Track-level drops, counted per file: lines of topics that have no judgment in the
qrels (``unjudged_topic``) and repeated docnos within a run's topic (``duplicate``;
the first occurrence in trec_eval order is kept, so the best-scored copy). A docno
judged twice for a topic in the qrels keeps the last judgment (as dict-based tools
such as pytrec_eval do) and counts the others as ``duplicate``.

How (fast by design): each run file is parsed, ordered, deduplicated and matched
against the qrels on its own, ``threads`` files at once (in threads: the compiled
kernels, Arrow and numpy release the GIL for most of the work). Document
ids are compared through 64-bit hashes of their bytes; every hash equality is confirmed
on the strings, so a collision can cost time but never change a result. With the
compiled kernels (``_kernels.c``, see :mod:`reeval.compiled`) one pass per file
deduplicates and matches through per-topic hash tables (:func:`dedupe_and_match`);
without them numpy does it (:func:`string_hash64`, :func:`exact_duplicates`,
:meth:`QrelsLookup.match`), with the same results. The per-run tables come out sorted,
so the track tables are their concatenation in run-name order.
"""

from __future__ import annotations

import ctypes
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from . import compiled
from .bytetext import byte_order
from .notes import nothing_kept
from .outputs import table_schema, write_table
from .trecio import InputError, LineCounts, parse_qrels, parse_run, run_names

PRECISIONS = ("float64", "float32")


@dataclass
class TrackTables:
    runs: pa.Table | None
    qrels: pa.Table
    judged: pa.Table
    depth: pa.Table
    report_rows: list  # one dict per input file (qrels first), the columns of ``report``

    @property
    def report(self) -> pd.DataFrame:
        """The ingest report: one row per input file with the outcome of every line."""
        return pd.DataFrame(self.report_rows)


def group_starts(keys: np.ndarray) -> np.ndarray:
    """Boolean mask, True where a sorted key array starts a new group."""
    starts = np.ones(len(keys), dtype=bool)
    if len(keys) > 1:
        starts[1:] = keys[1:] != keys[:-1]
    return starts


def position_in_group(starts: np.ndarray) -> np.ndarray:
    """1-based position of each row inside its group, given the group-start mask."""
    idx = np.arange(len(starts))
    first = np.maximum.accumulate(np.where(starts, idx, 0))
    return idx - first + 1


def sort_dedupe_qrels(table: pa.Table) -> tuple[pa.Table, np.ndarray]:
    """Sort qrels by (qid, docno), keeping the last judgment of each pair.

    Returns (qid, docno, rel table sorted in byte order, mask of the lines dropped as
    repeats, in file order). A stable sort brings a pair's lines together in file
    order; all but the last of each run of equal pairs are dropped.
    """
    n = table.num_rows
    order = pc.sort_indices(table.select(["qid", "docno"]),
                            sort_keys=[("qid", "ascending"), ("docno", "ascending")])
    ordered = table.select(["qid", "docno", "rel"]).take(order).combine_chunks()
    dup = np.zeros(n, dtype=bool)
    if n > 1:
        qid, docno = ordered["qid"].chunk(0), ordered["docno"].chunk(0)
        same = pc.and_(pc.equal(qid[1:], qid[:-1]), pc.equal(docno[1:], docno[:-1]))
        repeat = same.to_numpy(zero_copy_only=False)  # row i equals row i + 1: not the last
        if repeat.any():
            dup[order.to_numpy()[:-1][repeat]] = True
            ordered = ordered.filter(pa.array(np.r_[~repeat, True]))
    return ordered, dup


def remap_grades(qrels: pa.Table, grade_map: dict | None) -> pa.Table:
    """Replace relevance grades by ``grade_map`` (e.g. {1: 0}); other grades unchanged.

    Reproduces evaluations run on relabelled qrels, such as the DL-2020 passage
    ``trec_eval`` block, whose nDCG treats grade 1 as 0.
    """
    if not grade_map:
        return qrels
    rel = qrels["rel"].to_numpy()
    new = rel.copy()
    for src, dst in grade_map.items():
        new[rel == int(src)] = int(dst)
    return qrels.set_column(qrels.schema.get_field_index("rel"), "rel", pa.array(new))


def sorted_codes(values) -> np.ndarray:
    """Integer codes of strings that sort as the strings do (byte order), via a dictionary."""
    return sorted_dictionary(values)[0]


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


def string_buffers(values) -> tuple[np.ndarray, pa.Buffer]:
    """(offsets, data) of an Arrow string array: string i is data[offsets[i]:offsets[i + 1]].

    ``offsets`` are int64 (n + 1 entries, from the array's own offset, so slices work).
    """
    if isinstance(values, pa.ChunkedArray):
        values = values.chunk(0) if values.num_chunks == 1 else values.combine_chunks()
    n = len(values)
    off_type = np.int64 if pa.types.is_large_string(values.type) else np.int32
    _, off_buf, data_buf = values.buffers()
    if off_buf is None:  # an empty array may have no buffers
        return np.zeros(1, dtype=np.int64), pa.py_buffer(b"")
    offsets = np.frombuffer(off_buf, dtype=off_type)[values.offset: values.offset + n + 1].astype(np.int64)
    return offsets, data_buf if data_buf is not None else pa.py_buffer(b"")


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
    offsets, data_buf = string_buffers(values)
    base, stop = int(offsets[0]), int(offsets[-1])
    words = np.zeros((stop - base) // 8 + 2, dtype=np.uint64)  # the bytes, zero-padded, as aligned words
    if stop > base:
        words.view(np.uint8)[: stop - base] = np.frombuffer(data_buf, dtype=np.uint8)[base:stop]
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


def sorted_dictionary(values) -> tuple[np.ndarray, pa.Array]:
    """(code of each string, the distinct strings sorted in byte order); codes index the latter.

    Byte order is that of the bytes the texts stand for (:func:`reeval.bytetext.byte_order`),
    trec_eval's ``strcmp`` order, also for ids written in escaped text form.
    """
    enc = pc.dictionary_encode(values)
    if isinstance(enc, pa.ChunkedArray):
        enc = enc.combine_chunks()
    by_value = byte_order(enc.dictionary)
    rank = np.empty(len(by_value), dtype=np.int64)
    rank[by_value] = np.arange(len(by_value))
    codes = rank[enc.indices.to_numpy(zero_copy_only=False)] if len(enc) else np.zeros(0, np.int64)
    return codes, enc.dictionary.take(pa.array(by_value))


def exact_duplicates(keys: np.ndarray, topic: np.ndarray, docno, rows: np.ndarray) -> np.ndarray:
    """Mask of rows repeating an earlier row's (topic, docno string ``docno[rows]``).

    ``keys`` are the rows' pair hashes: only rows whose hash occurs more than once are
    compared on the strings, so the result is exact and costs one hash-table pass
    when there is no duplicate.
    """
    dup = np.zeros(len(keys), dtype=bool)
    index = pd.Index(keys)
    if index.has_duplicates:
        cand = np.flatnonzero(index.duplicated(keep=False))
        strings = docno.take(pa.array(rows[cand])).to_numpy(zero_copy_only=False)
        exact = pd.DataFrame({"t": topic[cand], "d": strings})
        dup[cand] = exact.duplicated(keep="first").to_numpy()
    return dup


_ALL_BITS = (1 << 64) - 1


@dataclass
class QrelsLookup:
    """The judged (topic, docno) pairs of a track, hashed for lookups.

    ``topics`` are the judged topic ids in byte order, ``topic`` the code of each qrels
    row's topic, ``offsets``/``data`` the buffers of the rows' docnos. With the
    compiled kernels ``slots`` is their
    open-addressing table of the rows' docnos, topic t owning ``slots[base[t]:base[t+1]]``
    (see :func:`topic_regions`), built with hash ``mask``; with the numpy path
    ``keys`` is a hash index of the rows' pair hashes (position = qrels row) and
    ``seed`` makes every pair hash distinct.
    """

    qrels: pa.Table
    topics: pa.Array
    topic: np.ndarray
    offsets: np.ndarray
    data: pa.Buffer
    base: np.ndarray | None = None
    slots: np.ndarray | None = None
    keys: pd.Index | None = None
    seed: int = 0
    mask: int = _ALL_BITS

    @classmethod
    def build(cls, qrels: pa.Table, mask: int = _ALL_BITS) -> "QrelsLookup":
        """Index deduplicated qrels (qid, docno, rel), for the compiled kernels if enabled.

        ``mask`` narrows the compiled path's hashes (tests use it to force collisions).
        The numpy path re-seeds on the rare collision of two qrels pair hashes.
        """
        kernels = compiled.kernels()
        topic, topics = sorted_dictionary(qrels["qid"])
        docno = qrels["docno"].combine_chunks() if isinstance(qrels["docno"], pa.ChunkedArray) else qrels["docno"]
        offsets, data = string_buffers(docno)
        base = cls(qrels, topics, topic.astype(np.int64), offsets, data, mask=mask)
        if kernels is not None:
            base.base = topic_regions(np.bincount(topic, minlength=len(topics)))
            base.slots = np.full(int(base.base[-1]), _ALL_BITS, dtype=np.uint64)
            if kernels.build_table(base.topic, offsets, data, base.base, base.slots, mask):
                raise ValueError("QrelsLookup.build needs qrels without repeated (qid, docno)")
            return base
        for seed in range(64):
            keys = pd.Index(pair_hash(topic, string_hash64(docno, seed)))
            if keys.is_unique:  # also builds the hash table once, before threads share it
                base.keys, base.seed = keys, seed
                return base
        raise RuntimeError("no collision-free hash seed for the qrels")  # pragma: no cover

    def match(self, topic: np.ndarray, keys: np.ndarray, docno, docno_row=None) -> tuple[np.ndarray, np.ndarray]:
        """(rows, qrels rows) of the (topic, docno) rows that are judged (numpy path).

        ``topic`` are codes into ``self.topics``; ``keys`` = pair_hash(topic, hash of docno,
        seed ``self.seed``); row i's docno is ``docno[docno_row[i]]`` (``docno[i]`` without
        ``docno_row``). Hash matches are confirmed on topic code and docno string.
        """
        at = self.keys.get_indexer(keys)
        rows = np.flatnonzero(at >= 0)
        qrow = at[rows]
        same = self.topic[qrow] == topic[rows]
        same &= pc.equal(docno.take(pa.array(rows if docno_row is None else docno_row[rows])),
                         self.qrels["docno"].take(pa.array(qrow))).to_numpy(zero_copy_only=False)
        return rows[same], qrow[same]


def topic_regions(counts: np.ndarray) -> np.ndarray:
    """Start of each topic's slots in a compiled hash table, plus the end (len + 1 entries).

    Topic t with counts[t] strings gets the smallest power of two of slots that is at
    least 2 * counts[t] and 8, so probes stay short (load <= 1/2).
    """
    need = np.maximum(2 * np.asarray(counts, dtype=np.int64), 8)
    caps = np.left_shift(np.int64(1), np.ceil(np.log2(need)).astype(np.int64))
    return np.concatenate([[0], np.cumsum(caps)]).astype(np.int64)


def dedupe_and_match(lookup: QrelsLookup, topic: np.ndarray, docno, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(duplicate mask, qrels row or -1) of the lines ``rows`` of a run, taken in that order.

    Line k is (topic code ``topic[k]`` in ``lookup.topics``, docno ``docno[rows[k]]``);
    ``topic`` must not decrease (a topic's lines are consecutive). It is a duplicate when an earlier line has the same topic and docno string; a
    duplicate has no qrels row. Exact on the strings whichever path runs (the compiled
    kernel for a lookup built with it, else numpy).
    """
    m = len(rows)
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    topic = np.ascontiguousarray(topic, dtype=np.int64)
    if lookup.slots is not None:
        offsets, data = string_buffers(docno)
        dup = np.empty(m, dtype=bool)
        qrow = np.empty(m, dtype=np.int64)
        compiled._kernels.dedupe_match(rows, topic, offsets, data, lookup.base, lookup.slots, lookup.offsets,
                              lookup.data, lookup.mask, dup, qrow)
        return dup, qrow
    keys = pair_hash(topic, string_hash64(docno, lookup.seed)[rows])
    dup = exact_duplicates(keys, topic, docno, rows)
    kept = np.flatnonzero(~dup)
    qrow = np.full(m, -1, dtype=np.int64)
    found, at = lookup.match(topic[kept], keys[kept], docno, rows[kept])
    qrow[kept[found]] = at
    return dup, qrow


def trec_order(qcodes: np.ndarray, docno, score: np.ndarray, precision: str = "float64",
               keep: np.ndarray | None = None) -> np.ndarray:
    """Rows of a run (indices into its parsed lines) in trec_eval order.

    Order: topic code ascending (``qcodes``, codes that sort as the topic ids), then
    score descending, then docno descending (byte order); with ``precision="float32"``
    scores are compared as float32. ``-0.0`` ties with ``0.0``. ``keep`` (boolean mask)
    restricts the lines ordered.
    """
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, not {precision!r}")
    rows = None if keep is None or keep.all() else np.flatnonzero(keep)
    key = (score if rows is None else score[rows]) + 0.0  # + 0.0 turns -0.0 into 0.0
    key = key.astype(np.float32) if precision == "float32" else key
    codes = qcodes if rows is None else qcodes[rows]
    local = topic_score_order(codes, key)
    order = local if rows is None else rows[local]
    q_sorted, k_sorted = codes[local], key[local]
    # docno decides only among equal (topic, score): sort the docnos of tied rows only
    same = (q_sorted[1:] == q_sorted[:-1]) & (k_sorted[1:] == k_sorted[:-1])
    tied = np.zeros(len(order), dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    if tied.any():
        # tie groups are contiguous in ``order``: reorder their rows by docno descending
        slots = np.flatnonzero(tied)
        group = np.cumsum(np.r_[True, ~same][tied])  # a new group where the row is not tied to its predecessor
        tied_rows = order[slots]
        dcode = sorted_codes(docno.take(pa.array(tied_rows)))
        order[slots] = tied_rows[np.lexsort((-dcode, group))]
    return order


def _report_row(track, path, kind, run, counts: LineCounts, **extra) -> dict:
    row = {"track": track, "file": str(path), "kind": kind, "run": run}
    row.update(counts.as_dict())
    row.update(extra)
    return row


RUNS_SCHEMA = table_schema(["run", "qid", "docno", "score", "tag", "pos"])
JUDGED_SCHEMA = table_schema(["run", "qid", "docno", "pos", "rel"])
JUDGED_ENCODED = pa.schema([("run", pa.dictionary(pa.int8(), pa.string())),
                            ("qid", pa.dictionary(pa.int32(), pa.string()))]
                           + [JUDGED_SCHEMA.field(name) for name in ("docno", "pos", "rel")])
DEPTH_SCHEMA = table_schema(["run", "qid", "n_ret"])


def _plain(values: pa.Array) -> pa.Array:
    """A string array, decoded if it is dictionary-encoded."""
    return values.cast(pa.string()) if pa.types.is_dictionary(values.type) else values


def _constant(value: str, n: int, encoded: bool = False) -> pa.Array:
    """A string column holding ``value`` n times (built without a Python list); with
    ``encoded`` a dictionary array (int8 indices, one value)."""
    column = pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, dtype=np.int8)), pa.array([value], pa.string()))
    return column if encoded else column.cast(pa.string())


def _encoded(indices: np.ndarray, values: pa.Array) -> pa.Array:
    """``values[indices]`` as a dictionary array (int32 indices) over ``values`` (distinct)."""
    return pa.DictionaryArray.from_arrays(pa.array(indices.astype(np.int32)), values)


def load_run(name: str, path, lookup: QrelsLookup, track: str, precision: str = "float64",
             on_malformed: str = "error", keep_runs: bool = True):
    """Parse, filter, rank and judge one run file.

    Returns (report row, runs table, judged table, depth table) of the run, each sorted
    by qid then pos; the runs table is None unless ``keep_runs``. Lines of topics the
    qrels do not judge are dropped and counted, then repeated (topic, docno) lines
    after the first in trec_eval order.
    """
    table, counts = parse_run(path, on_malformed=on_malformed)
    qid, docno, tag = (table[name].combine_chunks() for name in ("qid", "docno", "tag"))
    score = table["score"].to_numpy()
    qcodes, run_topics = sorted_dictionary(qid)
    # each run topic's code in lookup.topics (-1: not judged); both lists are in byte order
    in_qrels = pc.fill_null(pc.index_in(run_topics, value_set=lookup.topics), -1).to_numpy()
    keep = in_qrels[qcodes] >= 0 if len(qcodes) else np.zeros(0, dtype=bool)
    counts.unjudged_topic = int(len(keep) - keep.sum())
    n_tags = len(pc.unique(tag))
    order = trec_order(qcodes, docno, score, precision, keep=keep)
    topic = in_qrels[qcodes[order]]
    dup, qrow = dedupe_and_match(lookup, topic, docno, order)
    counts.duplicate = int(dup.sum())
    if counts.duplicate:
        order, topic, qrow = order[~dup], topic[~dup], qrow[~dup]
    counts.kept = len(order)
    pos = position_in_group(group_starts(topic)).astype(np.int32)
    runs = None
    if keep_runs:
        take = pa.array(order)
        runs = pa.table({"run": _constant(name, len(order)), "qid": lookup.topics.take(pa.array(topic)),
                         "docno": docno.take(take), "score": pa.array(score[order]),
                         "tag": _plain(tag.take(take)), "pos": pa.array(pos)}, schema=RUNS_SCHEMA)
    judged_at = np.flatnonzero(qrow >= 0)
    judged = pa.table({"run": _constant(name, len(judged_at), encoded=True),
                       "qid": _encoded(topic[judged_at], lookup.topics),
                       "docno": docno.take(pa.array(order[judged_at])), "pos": pa.array(pos[judged_at]),
                       "rel": lookup.qrels["rel"].take(pa.array(qrow[judged_at]))}, schema=JUDGED_ENCODED)
    n_ret = np.bincount(topic, minlength=len(lookup.topics))
    answered = np.flatnonzero(n_ret)
    depth = pa.table({"run": _constant(name, len(answered)),
                      "qid": lookup.topics.take(pa.array(answered)),
                      "n_ret": pa.array(n_ret[answered].astype(np.int32))}, schema=DEPTH_SCHEMA)
    row = _report_row(track, path, "run", name, counts, n_tags=n_tags,
                      first_tag=tag[0].as_py() if len(tag) else None, n_topics=len(answered),
                      unjudged_topics=int((in_qrels < 0).sum()))
    return row, runs, judged, depth


def _concat(tables, schema: pa.Schema) -> pa.Table:
    return pa.concat_tables(tables) if tables else schema.empty_table()


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
    """Parse a track's qrels and runs once each and build the central tables.

    ``threads`` run files are read, ranked and matched with the qrels at once, in
    threads (the compiled kernels, Arrow and numpy's large operations release the GIL);
    results do not depend on it. ``grade_map`` relabels qrels grades before anything else (see
    :func:`remap_grades`). ``keep_runs=False`` skips the ``runs`` table (None), which
    only ``runs.parquet`` needs: the measures read ``judged`` and ``depth``. Calls
    :func:`tune_memory` (process-wide malloc and numpy settings).
    """
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, not {precision!r}")
    tune_memory()
    qrels, qcounts = parse_qrels(qrels_path, on_malformed=on_malformed)
    if qrels.num_rows == 0:
        raise InputError(f"{qrels_path}: no judgment to evaluate with ({nothing_kept(qcounts)})")
    qrels = remap_grades(qrels, grade_map)
    qrels, qdup = sort_dedupe_qrels(qrels)
    qcounts.duplicate = int(qdup.sum())
    qcounts.kept -= qcounts.duplicate
    lookup = QrelsLookup.build(qrels)
    report = [_report_row(track, qrels_path, "qrels", None, qcounts)]

    names = run_names(run_paths)
    jobs = sorted(zip(names, run_paths))
    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        # map yields in name order; the first failing file raises and cancels the files not begun
        loaded = list(pool.map(lambda job: load_run(*job, lookup, track, precision, on_malformed, keep_runs),
                               jobs))
    report.extend(row for row, *_ in loaded)
    # each run's tables are sorted by qid then pos, and runs come in name order
    runs = _concat([r for _, r, _, _ in loaded], RUNS_SCHEMA) if keep_runs else None
    judged = _concat([j for _, _, j, _ in loaded], JUDGED_ENCODED)
    depth = _concat([d for _, _, _, d in loaded], DEPTH_SCHEMA)
    return TrackTables(runs=runs, qrels=qrels, judged=judged, depth=depth, report_rows=report)


TRACK_FILES = ("runs.parquet", "qrels.parquet", "judged.parquet", "depth.parquet",
               "ingest_report.csv")


def write_track(tables: TrackTables, out_dir) -> None:
    """Write the tables of :func:`ingest_track` under ``out_dir`` (names: TRACK_FILES)."""
    out = Path(out_dir)
    write_table(tables.runs, out / "runs.parquet")
    write_table(tables.qrels, out / "qrels.parquet")
    write_table(tables.judged, out / "judged.parquet")  # run and qid decoded to plain strings
    write_table(tables.depth, out / "depth.parquet")
    write_table(tables.report, out / "ingest_report.csv")
