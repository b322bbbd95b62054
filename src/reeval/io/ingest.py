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
- ``report``: one row per input file with the outcome of every line, and one per file of
  the runs folder that was not read (``kind`` skipped, with its ``reason``). With
  ``digest=True`` (the workflow), also ``bytes`` and ``sha256`` of each file as read
  (compressed as stored), hashed from the very bytes the parser read: no file is read
  twice, and a pipe, FIFO or standard input is hashed too (None for a skipped file).

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
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from reeval.choices import PRECISIONS

from .arrays import positions_from_counts
from .matching import QrelsLookup, dedupe_and_match
from .notes import nothing_kept
from .ordering import first_reordered, ordering_key, ranked_order, trec_order, uniform_topics
from .qrels import QRELS_COLUMNS, Qrels, _text_column, prepare_qrels, remap_grades, sorted_ids  # re-exported
from .sources import check_read_once
from .strings import Strings
from .trecio import InputError, LineCounts, QrelsLines, read_qrels, read_run, run_names


@dataclass
class RunPart:
    """One run of a track, read and judged (numpy): ``topic`` (code in the qrels topics),
    ``pos`` (1-based trec_eval position) and ``qrow`` (qrels row, -1 if not judged) of
    every kept line in trec_eval order; ``n_ret`` documents per qrels topic; the report
    row; and, when the runs table is kept, the ``kept`` lines' docno, score and tag in that
    order (:class:`KeptLines`: only these, not the whole file read, stay in memory).
    ``orders``: for each other ordering asked for (``(tie rule, precision)``,
    :func:`reeval.io.ordering.ranked_order`), the 1-based position of every kept line in
    it, aligned with ``pos``. ``reordered``: per tie rule of ir_measures' providers, the
    first position on each qrels topic that the rule orders otherwise
    (:func:`reeval.io.ordering.first_reordered`)."""

    name: str
    topic: np.ndarray
    pos: np.ndarray
    qrow: np.ndarray
    n_ret: np.ndarray
    row: dict
    kept: "KeptLines | None" = None
    orders: dict = field(default_factory=dict)
    reordered: dict = field(default_factory=dict)

    @property
    def judged(self) -> np.ndarray:
        """Indices of the judged lines (qrow >= 0)."""
        return np.flatnonzero(self.qrow >= 0)


@dataclass
class KeptLines:
    """The kept lines of a run in trec_eval order, as the runs table needs them: ``docno``
    (:class:`Strings`), ``score``, and ``tag`` (codes into the run's ``tags``)."""

    docno: Strings
    score: np.ndarray
    tag: np.ndarray
    tags: list

    @classmethod
    def of(cls, lines, order: np.ndarray) -> "KeptLines":
        """The lines of ``lines`` (a parsed run) at ``order``, copied out of it."""
        return cls(lines.docno.take(order), lines.score[order], lines.tag[order], lines.tags)


def _report_row(track, path, kind, run, counts: LineCounts, reason: str | None = None, **extra) -> dict:
    """One row of the ingest report: the file, its kind (qrels, run, skipped), its run, why it
    was skipped (None for a file read), its line counts and ``extra``."""
    row = {"track": track, "file": str(path), "kind": kind, "run": run, "reason": reason}
    row.update(counts.as_dict())
    row.update(extra)
    return row


def digest_columns(digest) -> dict:
    """The report columns ``bytes`` and ``sha256`` of a file read with a digest
    (:class:`reeval.io.sources.Digest`); none without one."""
    return {} if digest is None else {"bytes": digest.size, "sha256": digest.sha256}


def skipped_row(track: str, path, reason: str, digest: bool = False) -> dict:
    """The ingest report row of a file below a runs folder that was not read (hidden,
    operating-system litter, an editor backup: :mod:`reeval.io.runfolder`), with ``reason``;
    with ``digest``, empty ``bytes`` and ``sha256`` (nothing was read)."""
    extra = {"bytes": None, "sha256": None} if digest else {}
    return _report_row(track, path, "skipped", None, LineCounts(), reason, **extra)


def load_run(name: str, path, lookup, track: str, precision: str = "float64",
             on_malformed: str = "error", keep_runs: bool = True, orders=(), digest: bool = False,
             reordered: bool = False) -> RunPart:
    """Read, filter, rank and judge one run file (see :class:`RunPart` and :func:`judge_run`);
    ``digest``: hash the bytes read too (the report row's ``bytes`` and ``sha256``).

    ``lookup``: a :class:`QrelsLookup` or a future of it (``concurrent.futures.Future``):
    the file is read before waiting for the qrels."""
    lines = read_run(path, on_malformed=on_malformed, digest=digest)
    if not isinstance(lookup, QrelsLookup):
        lookup = lookup.result()
    return judge_run(name, path, lines, lookup, track, precision, keep_runs, orders, reordered)


def judge_run(name: str, path, lines, lookup: QrelsLookup, track: str, precision: str = "float64",
              keep_runs: bool = True, orders=(), reordered: bool = False) -> RunPart:
    """Filter, rank and judge the parsed lines of one run file (see :class:`RunPart`).

    Lines of topics the qrels do not judge are dropped and counted, then repeated
    (topic, docno) lines after the first in trec_eval order. The report row counts the
    topics whose scores are all equal (``tied_topics``: their order is the tie rule's,
    whatever the rank column says). ``orders``: the other orderings (``(tie rule,
    precision)``) to place the kept lines in (:attr:`RunPart.orders`); ``reordered``: find
    where ir_measures' providers would order them otherwise (:attr:`RunPart.reordered`).
    """
    counts = lines.counts
    run_topic = lookup.topic_codes(lines.qids)  # code of each of the run's topic ids, -1 if not judged
    topic = run_topic[lines.qid] if len(lines.qid) else np.zeros(0, dtype=np.int64)
    keep = topic >= 0
    counts.unjudged_topic = int(len(keep) - keep.sum())
    line_topic = topic
    order = trec_order(topic, lines.docno, lines.score, precision, keep=keep)
    topic = topic[order]
    dup, qrow = dedupe_and_match(lookup, topic, lines.docno, order)
    counts.duplicate = int(dup.sum())
    if counts.duplicate:
        order, topic, qrow = order[~dup], topic[~dup], qrow[~dup]
    counts.kept = len(order)
    n_ret = np.bincount(topic, minlength=len(lookup.topics))
    pos = positions_from_counts(n_ret)  # topic is sorted
    key = ordering_key(lines.score[order], precision)
    row = _report_row(track, path, "run", name, counts, n_tags=int((np.bincount(lines.tag, minlength=1) > 0).sum()),
                      first_tag=lines.tags[int(lines.tag[0])] if len(lines.tag) else None,
                      n_topics=int((n_ret > 0).sum()), unjudged_topics=int((run_topic < 0).sum()),
                      tied_topics=uniform_topics(n_ret, key),
                      **digest_columns(lines.digest))
    other = {o: other_positions(line_topic, lines, order, n_ret, *o) for o in orders if o != ("docno_desc", precision)}
    return RunPart(name, topic, pos, qrow, n_ret, row, KeptLines.of(lines, order) if keep_runs else None, other,
                   first_reordered(topic, pos, key, order, len(n_ret)) if reordered else {})


def other_positions(topic: np.ndarray, lines, order: np.ndarray, n_ret: np.ndarray, rule: str,
                    precision: str) -> np.ndarray:
    """The 1-based position of each kept line (``order``: line indices in trec_eval order)
    in another ordering of the same lines (:func:`reeval.io.ordering.ranked_order`);
    ``topic``: the topic code of every line read."""
    keep = np.zeros(len(topic), dtype=bool)
    keep[order] = True
    other = ranked_order(topic, lines.docno, lines.score, precision, keep=keep, rule=rule)
    at = np.empty(len(topic), dtype=np.int64)
    at[other] = positions_from_counts(n_ret)  # other is sorted by topic too
    return at[order]


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
        return _concat(list(self.run_tables()), _schema("runs"))

    def run_tables(self, encoded: bool = False):
        """The runs table one run at a time (an iterator of Arrow tables, in run order):
        :func:`write_track` writes them one by one, so that the text columns of all the
        runs are never in memory at once. ``encoded``: run, qid and tag as Arrow
        dictionary arrays (int32 codes), as :func:`write_track` writes them, not strings."""
        import pyarrow as pa

        for part in self.parts:
            kept = part.kept
            columns = {
                "run": _text_column(np.zeros(len(kept.score), np.int8), [part.name], encoded),
                "qid": _text_column(part.topic, self.lookup.topics, encoded), "docno": kept.docno.to_arrow(),
                "score": pa.array(kept.score), "tag": _text_column(kept.tag, kept.tags, encoded),
                "pos": pa.array(part.pos)}
            yield pa.table(columns) if encoded else pa.table(columns, schema=_schema("runs"))

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
                   "depth": ["run", "qid", "n_ret"], "qrels": QRELS_COLUMNS}


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
                 threads: int = 2, keep_runs: bool = True, tune: bool = True, skipped=(),
                 orders=(), digest: bool = False, reordered: bool = False, on_read=None) -> TrackTables:
    """Read a track's qrels and runs once each and judge every run (see the module doc).

    ``skipped``: (path, reason) of the files of the track's runs folder that are not read
    (:class:`reeval.io.runfolder.RunListing`), each a ``skipped`` row of the report.

    ``threads`` run files are read, ranked and matched with the qrels at once, in
    threads (the compiled kernels and numpy's large operations release the GIL), the
    first ones while the qrels are read; results do not depend on it. One run file is
    read after the qrels, in this thread. ``grade_map`` relabels qrels grades before anything
    else (see :func:`remap_grades`). ``keep_runs=False`` keeps no parsed lines, so no
    ``runs`` table (only ``runs.parquet`` needs it). Qrels without a judgment are an
    :class:`InputError`. Calls :func:`tune_memory` (process-wide malloc and numpy settings)
    unless ``tune`` is False (the Python API leaves a caller's process as it is).
    ``orders``: other orderings (``(tie rule, precision)``) each run's kept lines are also
    placed in (:attr:`RunPart.orders`), for measures ranked as another tool ranks;
    ``reordered``: where ir_measures' providers would order them otherwise (:attr:`RunPart.reordered`).
    ``digest``: each report row also holds the ``bytes`` and ``sha256`` of its file as read
    (:class:`reeval.io.sources.Digest`, from the buffer parsed: no second read).
    ``on_read``: called (from the reading thread) each time a run file has been read.
    """
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, not {precision!r}")
    if tune:
        tune_memory()
    check_read_once([qrels_path, *run_paths])
    names = run_names(run_paths)
    jobs = sorted(zip(names, run_paths))

    def load(job, lookup):
        with naming_file(job[1]):
            part = load_run(*job, lookup, track, precision, on_malformed, keep_runs, orders, digest, reordered)
        if on_read is not None:
            on_read()
        return part

    if len(jobs) == 1:  # the qrels, then the run, in this thread: no thread to start, no
        # concurrent.futures to import (about 3% of `reeval score` on one run); the same
        # tables and errors (the qrels' first, as below)
        lookup, report = _qrels_lookup(track, qrels_path, on_malformed, grade_map, digest)
        return _tables(track, lookup, [load(jobs[0], lookup)], report, skipped, digest, keep_runs)
    from concurrent.futures import Future, ThreadPoolExecutor

    ready = Future()  # the qrels lookup, or the qrels' error
    waiting = [ready] * len(jobs)
    # A regular qrels file is read while the first run files are (a stream, perhaps the
    # standard input a run also names, is read before any run begins)
    overlap = str(qrels_path) != "-" and os.path.isfile(qrels_path)
    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        try:
            # map yields in name order; the first failing file raises and cancels the files not begun
            parts = pool.map(load, jobs, waiting) if overlap else None
            try:
                lookup, report = _qrels_lookup(track, qrels_path, on_malformed, grade_map, digest)
            except BaseException as exc:
                ready.set_exception(exc)
                raise
            ready.set_result(lookup)
            parts = list(parts if overlap else pool.map(load, jobs, waiting))
        finally:
            pool.shutdown(cancel_futures=True)
    return _tables(track, lookup, parts, report, skipped, digest, keep_runs)


def _tables(track: str, lookup, parts: list, report: list, skipped, digest: bool, keep_runs: bool) -> TrackTables:
    """The :class:`TrackTables` of the parts read: the report's rows, the qrels' first, then
    the runs', then one per file skipped."""
    report.extend(part.row for part in parts)
    report.extend(skipped_row(track, path, reason, digest) for path, reason in skipped)
    return TrackTables(lookup, parts, report, keep_runs)


def _qrels_lookup(track: str, qrels_path, on_malformed: str, grade_map: dict | None,
                  digest: bool = False) -> tuple[QrelsLookup, list]:
    """(the lookup of a track's qrels file, [its report row]); no judgment is an InputError."""
    with naming_file(qrels_path):
        lines = read_qrels(qrels_path, on_malformed=on_malformed, digest=digest)
        return qrels_lookup(track, qrels_path, lines, grade_map)


#: how a MemoryError that names its file begins (:func:`naming_file`)
OUT_OF_MEMORY = "out of memory reading "


@contextmanager
def naming_file(path):
    """Run the body; a MemoryError in it becomes ``MemoryError("out of memory reading <path>
    (<size> bytes)")``, so the command line and the workflow's log name the file whose
    reading or judging did not fit (the first such message stands: a file is named once)."""
    try:
        yield
    except MemoryError as exc:
        if str(exc).startswith(OUT_OF_MEMORY):
            raise
        try:
            size = f" ({os.path.getsize(path)} bytes)"
        except (OSError, TypeError, ValueError):
            size = ""
        raise MemoryError(f"{OUT_OF_MEMORY}{path}{size}") from None


def qrels_lookup(track: str, source, lines: QrelsLines, grade_map: dict | None = None) -> tuple[QrelsLookup, list]:
    """(the lookup of parsed qrels lines, [their report row, naming ``source``]): repeated
    judgments dropped and counted (:func:`prepare_qrels`); no judgment is an InputError."""
    qcounts = lines.counts
    if len(lines.rel) == 0:
        raise InputError(f"{source}: no judgment to evaluate with ({nothing_kept(qcounts)})")
    qrels, qdup = prepare_qrels(lines, grade_map)
    qcounts.duplicate = int(qdup.sum())
    qcounts.kept -= qcounts.duplicate
    return QrelsLookup.build(qrels), [_report_row(track, source, "qrels", None, qcounts,
                                                  **digest_columns(lines.digest))]


TRACK_FILES = ("runs.parquet", "qrels.parquet", "judged.parquet", "depth.parquet",
               "ingest_report.csv")
#: the columns of ``runs.parquet`` written with a dictionary page: the repeated ones. Its
#: docnos (nearly one distinct value a row within a run) are written plain: the full
#: simulated study's trec10-web-adhoc (4.45 M rows) wrote in 1.1 s of CPU instead of 2.1 s,
#: 27 MB instead of 35 MB, with the same values and types read back. These three go to the
#: writer dictionary-encoded as ingest holds them (``run_tables(encoded=True)``), not
#: decoded to strings and hashed again
RUNS_DICTIONARY = ("run", "qid", "tag")
#: the columns of ``runs.parquet`` with min/max statistics: all but the docnos, whose
#: statistics (no reader filters on them) cost a sixth of the writer's time
RUNS_STATISTICS = ("run", "qid", "score", "tag", "pos")


def write_track(tables: TrackTables, out_dir) -> None:
    """Write the tables of :func:`ingest_track` under ``out_dir`` (names: TRACK_FILES)."""
    from pathlib import Path

    from .tables import write_table, write_table_parts

    out = Path(out_dir)
    write_table_parts(tables.run_tables(encoded=True), _schema("runs"), out / "runs.parquet",
                      dictionary=RUNS_DICTIONARY, statistics=RUNS_STATISTICS)
    write_table(tables.qrels, out / "qrels.parquet")
    write_table(tables.judged, out / "judged.parquet")  # run and qid decoded to plain strings
    write_table(tables.depth, out / "depth.parquet")
    write_table(tables.report, out / "ingest_report.csv")
