"""A run that stops early (issue 38): after Ctrl-C the same command goes on (item 10); after a
failed job the closing lines say what failed and what is stale, and claim no current report
(item 7). Small generated tracks, Snakemake run as a user runs it."""

import json
import os
import subprocess
from base64 import urlsafe_b64encode

import yaml

from conftest import ROOT, write_lines
from snakemake_command import SNAKEMAKE

QRELS = [f"{t} 0 D{d} {int((d + t) % 3 == 0)}" for t in (1, 2) for d in range(6)]


def run_lines(name, shift):
    return [f"{t} Q0 D{(d + shift) % 6} {d + 1} {10 - d} {name}" for t in (1, 2) for d in range(6)]


def snakemake(*args):
    return subprocess.run([*SNAKEMAKE, *args], cwd=ROOT, capture_output=True, text=True)


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


def test_after_a_failure_the_closing_lines_say_what_failed_and_what_is_stale_and_claim_no_report(tmp_path):
    """Issue 38 item 7: a complete run with an empty run file (left out), then that file deleted
    and a malformed run added: ingest fails, and the closing lines no longer describe the
    earlier run's inclusion or report as current."""
    config = tiny_study(tmp_path, {"r1": run_lines("r1", 0), "r2": run_lines("r2", 1), "empty_run": []})
    cfg = yaml.safe_load(config.read_text())
    cfg["study"] = {"min_runs": 2}
    config.write_text(yaml.safe_dump(cfg))
    results = tmp_path / "results"
    first = snakemake("--cores", "2", "--configfile", str(config))
    assert first.returncode == 0, first.stderr[-3000:]
    assert "  left out, 1 run (t/empty_run): no line kept: empty file" in first.stderr
    assert f"Report: {results / 'report.html'} (every figure" in first.stderr
    os.remove(tmp_path / "runs" / "empty_run")
    bad = write_lines(tmp_path / "runs" / "bad", ["1 Q0 D0 1 2 bad", "1 Q0 D1 2"])
    second = snakemake("--cores", "2", "--configfile", str(config))
    assert second.returncode != 0
    closing = second.stderr[second.stderr.index("The run stopped with errors"):]
    assert closing.startswith("The run stopped with errors: 1 job failed; above, each failed job")
    assert f"  failed: ingest t ({bad}:2: expected 6" in closing
    stale = next(line for line in closing.splitlines() if line.startswith("Stale: "))
    assert " outputs of an earlier run were not made again (report.html, summary/inclusion.csv, " in stale
    assert stale.endswith(f"under {results})")
    assert "t/empty_run" not in closing and "Tracks:" not in closing  # the earlier run's inclusion, not said
    assert f"Report: not made; {results / 'report.html'} is an earlier run's" in closing
    assert "(every figure and table on one page" not in closing
    assert "\nFix the errors and run the same command again: only what is missing or stale is made.\n" in closing
