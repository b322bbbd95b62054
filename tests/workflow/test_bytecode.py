"""The jobs' bytecode where PYTHONDONTWRITEBYTECODE keeps Python from writing it beside the
sources: kept in the working directory's .snakemake/pycache (reeval.workflow.bytecode)."""
import os
import subprocess
import sys
from pathlib import Path

from conftest import ROOT
from reeval.workflow.bytecode import give_jobs_a_pycache_prefix, job_pycache_prefix
from snakemake_command import SNAKEMAKE


def test_a_prefix_only_where_python_may_not_write_beside_the_sources_and_the_user_chose_none(tmp_path):
    expected = str(tmp_path / ".snakemake" / "pycache")
    assert job_pycache_prefix({"PYTHONDONTWRITEBYTECODE": "1"}, str(tmp_path)) == expected
    assert job_pycache_prefix({"PYTHONDONTWRITEBYTECODE": "x", "PYTHONPYCACHEPREFIX": ""}, str(tmp_path)) == expected
    for environ in ({}, {"PYTHONDONTWRITEBYTECODE": ""}, {"PYTHONPYCACHEPREFIX": "/elsewhere"},
                    {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": "/elsewhere"}):
        assert job_pycache_prefix(environ, str(tmp_path)) is None, environ


def test_the_jobs_environment_gets_the_prefix_without_the_variable_or_stays_as_it_was(tmp_path):
    environ = {"PYTHONDONTWRITEBYTECODE": "1", "PATH": "/bin"}
    prefix = give_jobs_a_pycache_prefix(environ, str(tmp_path))
    assert prefix == str(tmp_path / ".snakemake" / "pycache")
    assert environ == {"PYTHONPYCACHEPREFIX": prefix, "PATH": "/bin"}
    for kept in ({"PATH": "/bin"}, {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": "/elsewhere"}):
        environ = dict(kept)
        assert give_jobs_a_pycache_prefix(environ, str(tmp_path)) is None
        assert environ == kept


def test_a_relative_working_directory_gives_an_absolute_prefix(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert job_pycache_prefix({"PYTHONDONTWRITEBYTECODE": "1"}, ".") == str(tmp_path / ".snakemake" / "pycache")


def test_a_job_writes_its_bytecode_in_the_prefix_and_none_beside_the_sources(tmp_path):
    """One synthetic_track job run with PYTHONDONTWRITEBYTECODE set: the bytecode of a module
    it imports (removed before) is written under .snakemake/pycache, and the run adds no
    __pycache__ folder beside that module."""
    module = ROOT.resolve() / "src" / "reeval" / "synth" / "ingested.py"  # as scripts/_log.py finds the package
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPYCACHEPREFIX"} | {"PYTHONDONTWRITEBYTECODE": "1"}
    cached = (Path(job_pycache_prefix(env, str(ROOT))) / str(module.parent).lstrip(os.sep)
              / f"{module.stem}.{sys.implementation.cache_tag}.pyc")
    cached.unlink(missing_ok=True)
    beside = (module.parent / "__pycache__").exists()
    results = tmp_path / "results"
    proc = subprocess.run([*SNAKEMAKE, "--cores", "1", f"{results}/tracks/syn-graded/ingest_report.csv",
                           "--config", f"results={results}"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert cached.is_file()
    assert (module.parent / "__pycache__").exists() == beside
