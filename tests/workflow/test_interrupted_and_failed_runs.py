"""A run that stops early (issue 38): after Ctrl-C the same command goes on (item 10); after a
failed job the closing lines say what failed and what is stale, and claim no current report
(item 7). Small generated tracks, Snakemake run as a user runs it."""

import json
import os
import subprocess
import sys
from base64 import urlsafe_b64encode

import yaml

from conftest import ROOT, write_lines

QRELS = [f"{t} 0 D{d} {int((d + t) % 3 == 0)}" for t in (1, 2) for d in range(6)]


def run_lines(name, shift):
    return [f"{t} Q0 D{(d + shift) % 6} {d + 1} {10 - d} {name}" for t in (1, 2) for d in range(6)]


def snakemake(*args):
    return subprocess.run([sys.executable, "-m", "snakemake", *args], cwd=ROOT, capture_output=True, text=True)


def tiny_study(tmp_path, runs):
    """A config of one local track ``t`` holding ``runs`` ({file name: lines}), results under tmp_path."""
    (tmp_path / "runs").mkdir()
    for name, lines in runs.items():
        write_lines(tmp_path / "runs" / name, lines)
    cfg = {"results": str(tmp_path / "results"), "measures": ["map"],
           "tracks": {"t": {"qrels": str(write_lines(tmp_path / "qrels.txt", QRELS)),
                            "runs": str(tmp_path / "runs")}}}
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def mark_incomplete(path):
    """Mark ``path`` as Snakemake marks the outputs of a job it started and never saw end (Ctrl-C,
    a kill): a record named by the path in URL-safe base64 under ``.snakemake/incomplete``
    (snakemake/persistence/file.py, ``_mark_incomplete`` and ``_record_path``)."""
    folder = ROOT / ".snakemake" / "incomplete"
    folder.mkdir(parents=True, exist_ok=True)
    marker = folder / urlsafe_b64encode(str(path).encode()).decode()
    marker.write_text(json.dumps({"external_jobid": None}))
    return marker


def test_after_an_interrupted_job_the_same_command_redoes_it_and_goes_on(tmp_path):
    config = tiny_study(tmp_path, {"r1": run_lines("r1", 0), "r2": run_lines("r2", 1)})
    target = tmp_path / "results" / "tracks" / "t" / "measures_by_run.csv"
    command = [str(target), "--cores", "1", "--configfile", str(config)]
    assert snakemake(*command).returncode == 0
    report = tmp_path / "results" / "tracks" / "t" / "ingest_report.csv"
    marker = mark_incomplete(report)  # ingest was running when Ctrl-C stopped the run
    try:
        plain = snakemake(*command, "--workflow-profile", "none")  # Snakemake's own default
        assert plain.returncode != 0 and "IncompleteFilesException" in plain.stderr  # the marker is Snakemake's
        again = snakemake(*command)
        out = again.stdout + again.stderr
        assert again.returncode == 0, out[-3000:]
        assert "Incomplete" not in out and "ingest t" in out and "measures t" in out
        assert not marker.exists()  # the job redone: Snakemake took its mark away
    finally:
        marker.unlink(missing_ok=True)
