"""Shared fixtures: the real tracks in ../shared/data (tests skip when it is absent)."""

from __future__ import annotations

import glob
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = (ROOT.parent / "shared" / "data").resolve()
REFERENCE = (ROOT.parent / "shared" / "reference").resolve()

#: track -> relevance level of its official trec_eval scores (../shared/data/README.md)
REAL_TRACKS = {
    "clef2015-ehealth-task2": 1,
    "clef2016-ehealth-task3-ir2": 1,
    "trec-covid-round1": 1,
    "trec-covid-round2": 1,
    "trec-covid-round3": 1,
    "trec-covid-round4": 1,
    "trec-covid-round5": 1,
    "trec2003-robust": 1,
    "trec2019-dl-passage": 1,
    "trec2020-dl-passage": 2,
    "trec2021-cast-doc": 2,
}


def track_files(track: str):
    """(qrels path, sorted run paths) of a real track; skips when the data is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real tracks not found at {SHARED_DATA} (../shared/data beside the project)")
    qrels = glob.glob(str(SHARED_DATA / track / "qrels" / "*"))
    runs = sorted(glob.glob(str(SHARED_DATA / track / "runs" / "*")))
    if len(qrels) != 1 or not runs:
        pytest.skip(f"track {track} is incomplete under {SHARED_DATA}")
    return qrels[0], runs


_CACHE: dict = {}


def ingested(track: str, precision: str = "float32", grade_map=None):
    """Ingest a real track once per test session (cached)."""
    from reeval.io.ingest import ingest_track

    key = (track, precision, tuple(sorted((grade_map or {}).items())))
    if key not in _CACHE:
        qrels, runs = track_files(track)
        _CACHE[key] = ingest_track(track, qrels, runs, precision=precision, grade_map=grade_map)
    return _CACHE[key]


def write_lines(path: Path, lines) -> Path:
    path.write_text("".join(line + "\n" for line in lines))
    return path


def assert_outputs_conform(folder: Path) -> int:
    """Every Parquet and CSV under ``folder`` is typed by the column registry: Parquet
    schemas equal the registry's (no column it does not know), CSV headers are known and
    their integer columns hold integers (or nothing). Returns the number of tables checked."""
    import csv
    import re

    import pyarrow as pa
    import pyarrow.parquet as pq
    from reeval.io.tables import table_schema

    checked = 0
    for path in sorted(folder.rglob("*.parquet")):
        schema = pq.read_schema(path)
        assert schema.remove_metadata() == table_schema(schema.names), path
        checked += 1
    for path in sorted(folder.rglob("*.csv")):
        with open(path, newline="") as fh:
            rows = list(csv.reader(fh))
        schema = table_schema(rows[0])
        for i, field in enumerate(schema):
            if pa.types.is_integer(field.type):
                bad = [r[i] for r in rows[1:] if not re.fullmatch(r"-?\d*", r[i])]
                assert not bad, (path, field.name, bad[:3])
        checked += 1
    return checked
