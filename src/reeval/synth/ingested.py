"""A synthetic track generated and ingested in one process (the workflow's ``synthetic_track``).

:func:`generate_and_ingest` writes the track's files exactly as
:func:`reeval.synth.tracks.write_track` does (same bytes, same paths) and ingests them as
:func:`reeval.io.ingest.ingest_track` does, with the same reader and judge, but takes from
memory what a separate ingest would read back: the text each file was written from (so no
read and no gunzip) and the size and SHA-256 of the bytes stored, hashed as they were
written (so no second pass over the file). The report names the files as the ingest rule
names them (the runs folder's walk joins the folder and the file name).

With ``threads`` 1 (the workflow's) each run is judged as soon as it is written, in the same
thread, so one run's text is in memory at a time; with more, runs are judged in other
threads while the next is generated (:func:`reeval.io.ingest_memory.ingest_sources`).
"""

from __future__ import annotations

import os
from pathlib import Path

from reeval.io.ingest import TrackTables
from reeval.io.ingest_memory import ingest_sources
from reeval.io.sources import text_source

from .tracks import TrackSpec, run_file_names, written_files


def generate_and_ingest(track: str, out_dir, runs_dir: str, spec: TrackSpec, seed: int = 0,
                        precision: str = "float64", on_malformed: str = "error",
                        grade_map: dict | None = None, threads: int = 1) -> TrackTables:
    """Write the track ``spec``/``seed`` under ``out_dir`` and ingest it (module doc).

    ``runs_dir``: ``out_dir``'s runs folder as the caller names it (the report's paths are
    ``os.path.join(runs_dir, <file>)``, as a walk of that folder names them); the qrels are
    ``str(Path(out_dir) / "qrels.txt")``. Returns the tables of ``ingest_track(..., digest=True)`` of the written files.
    """
    files = written_files(out_dir, spec, seed, digest=True)
    qrels = next(files)
    qrels_path = str(Path(out_dir) / "qrels.txt")
    run_paths = [os.path.join(runs_dir, name) for name in run_file_names(spec)]

    def sources():
        for path, written in zip(run_paths, files, strict=True):
            if written.path.name != os.path.basename(path):  # pragma: no cover - one list of names
                raise ValueError(f"{track}: wrote {written.path}, expected {path}")
            yield path, text_source(path, written.text, written.compression, written.digest)

    return ingest_sources(track, (qrels_path, text_source(qrels_path, qrels.text, qrels.compression, qrels.digest)),
                          sources(), run_paths, precision=precision, on_malformed=on_malformed,
                          grade_map=grade_map, threads=threads)
