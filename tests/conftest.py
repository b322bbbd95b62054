"""Shared fixtures: the real tracks in ../shared/data (tests skip when it is absent)."""

from __future__ import annotations

import glob
import importlib.util
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: a figure that cannot be drawn fails its test (and the workflow jobs tests run) instead of
#: being written as a sentence saying so (reeval.report.figures.STRICT)
os.environ["REEVAL_TEST_STRICT_FIGURES"] = "1"
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

#: the real track whose parity checks (trec_eval 10, pytrec_eval, ir_measures) run on every
#: make test: small and graded (levels 1 and 2); the other tracks' checks run with pytest -m
#: slow (make test-slow, which CI runs)
EVERY_MAKE_TEST = "trec2021-cast-doc"


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """Under ``--dist loadfile`` (make test) the workers take the longest test files first
    (tests/heaviest_first.py); any other ``--dist`` keeps pytest-xdist's own scheduler."""
    if config.getvalue("dist") != "loadfile":
        return None
    from heaviest_first import scheduler

    return scheduler(config, log)


def real_track_params() -> list:
    """REAL_TRACKS' names in order as pytest params, each but EVERY_MAKE_TEST marked slow."""
    return [pytest.param(t, marks=[pytest.mark.slow] * (t != EVERY_MAKE_TEST)) for t in sorted(REAL_TRACKS)]


def load_file_module(relative: str, register: bool = False):
    """The Python file at ROOT/`relative` (a benchmark or rule script, not a package module),
    loaded as a module named after the file; `register` puts it in sys.modules first, which a
    file defining dataclasses needs (they look their module up while being created)."""
    path = ROOT / relative
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    if register:
        sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


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


def session_dir(tmp_path_factory) -> Path:
    """The folder every process of this test session shares: the session's base temporary
    folder, or under pytest-xdist the one that holds every worker's (``.../pytest-N``)."""
    import os

    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def built_once(tmp_path_factory, name: str, build) -> Path:
    """``session_dir/name``, made by ``build(folder)`` once per test session whatever the
    number of xdist workers: the first worker to take the file lock builds into a temporary
    folder renamed to ``name`` when complete (never a half-built folder under the final
    name); the others wait on the lock, then find it."""
    import fcntl
    import shutil

    shared = session_dir(tmp_path_factory)
    final = shared / name
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not final.is_dir():
            partial = shared / f"{name}.partial"
            shutil.rmtree(partial, ignore_errors=True)
            partial.mkdir()
            build(partial)
            partial.rename(final)
    return final


def build_trec_eval10(tarball: Path, base: Path) -> None:
    """Extract trec_eval 10.0 into ``base`` and build it twice with its own Makefile: as
    shipped (``source/``) and printing ``%.17g`` instead of ``%6.4f`` (``full/``)."""
    import shutil
    import subprocess
    import tarfile

    with tarfile.open(tarball) as tar:
        tar.extractall(base, filter="data")
    (extracted,) = [p for p in base.iterdir() if (p / "Makefile").is_file()]
    source = extracted.rename(base / "source")
    full = base / "full"
    shutil.copytree(source, full)
    for name in ("meas_print_single.c", "meas_print_final.c"):
        path = full / name
        path.write_text(path.read_text().replace("%6.4f", "%.17g"))
    for folder in (source, full):
        subprocess.run(["make", "-s", "-C", str(folder), "trec_eval"], check=True, capture_output=True)


@pytest.fixture(scope="session")
def trec_eval10(tmp_path_factory):
    """trec_eval 10.0 built from ../shared/oracles with its own Makefile (the default build,
    which passes its quicktest), and a second build printing every value with ``%.17g``
    instead of ``%6.4f`` (the same code, full precision: the oracle of the topic-by-topic
    parity tests). Built once per session, shared by the xdist workers (:func:`built_once`).
    A namespace: ``binary``, ``full`` (paths) and ``tests`` (its test/ folder)."""
    import shutil
    from types import SimpleNamespace

    tarballs = sorted(ORACLES.glob("trec_eval-10.0*.tar.gz"))
    if not tarballs:
        pytest.skip(f"the trec_eval 10.0 source is not at {ORACLES} (../shared/oracles)")
    if shutil.which("make") is None or shutil.which("cc") is None:
        pytest.skip("building trec_eval 10.0 needs make and a C compiler")
    base = built_once(tmp_path_factory, "trec_eval10", lambda folder: build_trec_eval10(tarballs[-1], folder))
    return SimpleNamespace(binary=base / "source" / "trec_eval", full=base / "full" / "trec_eval",
                           tests=base / "source" / "test")


def decompress_track(track: str, folder: Path) -> None:
    """A real track's qrels and runs written to ``folder`` decompressed, under their names
    without ``.gz``."""
    import gzip
    import shutil

    qrels, runs = track_files(track)
    for src in [qrels, *runs]:
        dst = folder / Path(src).name.removesuffix(".gz")
        with gzip.open(src, "rb") if src.endswith(".gz") else open(src, "rb") as fin, open(dst, "wb") as fout:
            shutil.copyfileobj(fin, fout)


@pytest.fixture(scope="session")
def plain_tracks(tmp_path_factory):
    """A function: a real track's qrels and runs decompressed (trec_eval reads plain files
    only), as (qrels path, [(run name, run path)]), once per session (shared by the xdist
    workers)."""
    from reeval.io.trecio import run_names

    made = {}

    def plain(track: str):
        if track not in made:
            qrels, runs = track_files(track)
            folder = built_once(tmp_path_factory, f"plain-{track}", lambda f: decompress_track(track, f))
            paths = [folder / Path(src).name.removesuffix(".gz") for src in [qrels, *runs]]
            made[track] = (paths[0], list(zip(run_names(runs), paths[1:])))
        return made[track]
    return plain
