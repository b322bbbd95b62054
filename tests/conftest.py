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


ORACLES = (ROOT.parent / "shared" / "oracles").resolve()


@pytest.fixture(scope="session")
def trec_eval10(tmp_path_factory):
    """trec_eval 10.0 built from ../shared/oracles with its own Makefile (the default build,
    which passes its quicktest), and a second build printing every value with ``%.17g``
    instead of ``%6.4f`` (the same code, full precision: the oracle of the topic-by-topic
    parity tests). A namespace: ``binary``, ``full`` (paths) and ``tests`` (its test/ folder)."""
    import shutil
    import subprocess
    import tarfile
    from types import SimpleNamespace

    tarballs = sorted(ORACLES.glob("trec_eval-10.0*.tar.gz"))
    if not tarballs:
        pytest.skip(f"the trec_eval 10.0 source is not at {ORACLES} (../shared/oracles)")
    if shutil.which("make") is None or shutil.which("cc") is None:
        pytest.skip("building trec_eval 10.0 needs make and a C compiler")
    base = tmp_path_factory.mktemp("trec_eval10")
    with tarfile.open(tarballs[-1]) as tar:
        tar.extractall(base, filter="data")
    (source,) = [p for p in base.iterdir() if (p / "Makefile").is_file()]
    full = base / "full"
    shutil.copytree(source, full)
    for name in ("meas_print_single.c", "meas_print_final.c"):
        path = full / name
        path.write_text(path.read_text().replace("%6.4f", "%.17g"))
    for folder in (source, full):
        subprocess.run(["make", "-s", "-C", str(folder), "trec_eval"], check=True, capture_output=True)
    return SimpleNamespace(binary=source / "trec_eval", full=full / "trec_eval", tests=source / "test")


@pytest.fixture(scope="session")
def plain_tracks(tmp_path_factory):
    """A function: a real track's qrels and runs decompressed (trec_eval reads plain files
    only), as (qrels path, [(run name, run path)]), once per session."""
    import gzip
    import shutil

    from reeval.io.trecio import run_names

    base, made = tmp_path_factory.mktemp("plain"), {}

    def plain(track: str):
        if track not in made:
            qrels, runs = track_files(track)
            folder = base / track
            folder.mkdir()
            paths = []
            for src in [qrels, *runs]:
                dst = folder / Path(src).name.removesuffix(".gz")
                with gzip.open(src, "rb") if src.endswith(".gz") else open(src, "rb") as fin, open(dst, "wb") as fout:
                    shutil.copyfileobj(fin, fout)
                paths.append(dst)
            made[track] = (paths[0], list(zip(run_names(runs), paths[1:])))
        return made[track]
    return plain
