"""The simulated study's tables do not depend on the deflate that wrote its gzipped runs: the
topic-scale-0.1 study (its two largest tracks, where most of the run lines are) run once with
ISA-L's deflate and inflate (``isal``) and once with Python's zlib (``isal`` made unimportable
in every job, as where it is not installed), every table compared (benchmarks/compare_results.py).
The generated files differ in their bytes, so the ingest reports' ``bytes`` and ``sha256`` of
them do; every other column and table is the same."""

import gzip
import os
import subprocess
import sys

import pytest

from conftest import ROOT, load_file_module
from snakemake_command import SNAKEMAKE

pytestmark = pytest.mark.slow
CATALOG = ROOT.parent / "shared" / "catalog"


def test_the_topic_scale_01_study_has_the_same_tables_with_isal_and_with_the_zlib_fallback(tmp_path):
    pytest.importorskip("isal")
    if not (CATALOG / "runs.csv").exists():
        pytest.skip(f"no TREC catalog in {CATALOG}")
    blocker = tmp_path / "no-isal" / "isal"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('isal left out: the zlib fallback')\n")
    path = [str(ROOT / "src")] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    cfg = tmp_path / "sim01.yaml"
    subprocess.run([sys.executable, "-m", "reeval.synth.campaign", str(CATALOG / "tracks.csv"), str(cfg),
                    "--runs-csv", str(CATALOG / "runs.csv"), "--topic-scale", "0.1", "--largest", "2"],
                   check=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": os.pathsep.join(path)})
    for name, first in (("isal", []), ("zlib", [str(blocker.parent)])):
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(first + path)}
        command = SNAKEMAKE + ["--cores", "2", "--configfile", str(cfg), "--config", f"results={tmp_path / name}"]
        proc = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr[-3000:]

    runs = {name: sorted((tmp_path / name / "synthetic").glob("*/runs/*.gz")) for name in ("isal", "zlib")}
    assert len(runs["isal"]) > 100 and [p.relative_to(tmp_path / "isal") for p in runs["isal"]] == [
        p.relative_to(tmp_path / "zlib") for p in runs["zlib"]]
    fast, slow = runs["isal"][0].read_bytes(), runs["zlib"][0].read_bytes()
    assert fast != slow and gzip.decompress(fast) == gzip.decompress(slow)
    assert slow == gzip.compress(gzip.decompress(slow), compresslevel=1, mtime=0)  # zlib's own bytes

    cr = load_file_module("benchmarks/compare_results.py", register=True)
    statuses = cr.compare_folders(tmp_path / "isal", tmp_path / "zlib", ("bytes", "sha256"))
    odd = {rel: s for rel, s in statuses.items() if s not in ("identical", "same values")}
    isal = tmp_path / "isal"
    reports = sorted(p.relative_to(isal) for p in isal.glob("tracks/*/ingest_report.csv"))
    assert sorted(odd) == reports and len(reports) == 2, odd
    assert set(odd.values()) == {"same but bytes, sha256"}
    assert list(statuses.values()).count("identical") > 50
