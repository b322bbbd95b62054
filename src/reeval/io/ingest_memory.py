"""Ingest of files whose text is already in memory (a generator that has just written them).

:func:`ingest_sources` gives the tables of :func:`reeval.io.ingest.ingest_track` with the same
reader (:func:`reeval.io.trecio.read_run`, :func:`~reeval.io.trecio.read_qrels` given each
file's :class:`~reeval.io.sources.Source`) and the same judge (:func:`reeval.io.ingest.judge_run`),
without opening a file: :mod:`reeval.synth.ingested` hands it the text it wrote and the
digest of the bytes it stored.
"""

from __future__ import annotations

from collections import deque
from concurrent.futures import ThreadPoolExecutor

from reeval.choices import PRECISIONS

from .ingest import TrackTables, judge_run, naming_file, qrels_lookup, skipped_row, tune_memory
from .trecio import read_qrels, read_run, run_names


def ingest_sources(track: str, qrels: tuple, runs, run_paths, precision: str = "float64",
                   on_malformed: str = "error", grade_map: dict | None = None, threads: int = 2,
                   keep_runs: bool = True, tune: bool = True, skipped=(), orders=()) -> TrackTables:
    """:func:`~reeval.io.ingest.ingest_track` of files whose text is already in memory: the same
    tables, from the same reader and judge, without reading a file.

    ``qrels``: (path, :class:`~reeval.io.sources.Source`); ``runs``: an iterable of (path,
    Source), each path one of ``run_paths`` (all of them, named by :func:`run_names` as
    :func:`ingest_track` names them). The runs may come one at a time from a generator that
    writes them (:func:`reeval.synth.ingested.generate_and_ingest`). With ``threads`` 1 each is
    judged as it comes, in the calling thread (which the generator then runs in too): one
    core, one run's text in memory at a time. With more, each is judged in one of
    ``threads`` - 1 worker threads while the caller's thread goes on generating, and the
    generator waits while ``threads`` - 1 runs are being judged, so that at most ``threads``
    texts are in memory. A Source with a digest gives the
    report's ``bytes`` and ``sha256`` (then the skipped files' rows have empty ones)."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, not {precision!r}")
    if tune:
        tune_memory()
    names = dict(zip(map(str, run_paths), run_names(run_paths)))
    qrels_path, qrels_source = qrels
    with naming_file(qrels_path):
        lines = read_qrels(qrels_path, on_malformed=on_malformed, source=qrels_source)
        lookup, report = qrels_lookup(track, qrels_path, lines, grade_map)

    def judge(path, source):
        with naming_file(path):
            lines = read_run(path, on_malformed=on_malformed, source=source)
            return judge_run(names[str(path)], path, lines, lookup, track, precision, keep_runs, orders)

    parts, came = [], []
    if threads <= 1:  # each run judged as it comes, in this thread: one core
        for path, source in runs:
            came.append(str(path))
            parts.append(judge(path, source))
    else:
        judging, workers = deque(), threads - 1  # and this thread generates
        with ThreadPoolExecutor(max_workers=workers) as pool:
            for path, source in runs:
                while len(judging) >= workers:
                    parts.append(judging.popleft().result())
                came.append(str(path))
                judging.append(pool.submit(judge, path, source))
            parts.extend(future.result() for future in judging)
    if sorted(came) != sorted(names):
        raise ValueError(f"{track}: the runs given ({len(came)}) are not the run files named ({len(names)})")
    parts.sort(key=lambda part: (part.name, str(part.row["file"])))  # ingest_track's order
    report.extend(part.row for part in parts)
    digest = qrels_source.digest is not None
    report.extend(skipped_row(track, path, reason, digest) for path, reason in skipped)
    return TrackTables(lookup, parts, report, keep_runs)
