"""One workflow at a time on a results folder (issue 31, item 13): the second says "another
run holds <folder>" in one line and exits non-zero; the lock goes with its process, also on
kill -9. Processes are synchronised by handshakes (a line on a pipe, a FIFO's open), never
by sleeping."""

import os
import signal
import subprocess
import sys
import threading

import pytest
import yaml

from conftest import ROOT, write_lines
from reeval.workflow.folder_lock import LOCK_NAME, FolderBusy, hold_folder, release_folder

HOLDER = """
import sys
from reeval.workflow.folder_lock import hold_folder
hold_folder(sys.argv[1])
print("held", flush=True)
sys.stdin.read()  # until the test closes the pipe (or kills this process)
"""


def holder(folder):
    """A process holding ``folder``'s lock, returned once it says so."""
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "held\n"
    return proc


def test_a_held_folder_is_refused_until_its_holder_ends_even_by_kill_9(tmp_path):
    folder = tmp_path / "results"
    proc = holder(folder)
    with pytest.raises(FolderBusy, match=f"^another run holds {folder} "):
        hold_folder(folder)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert hold_folder(folder) == folder / LOCK_NAME  # the kernel released the flock
    assert hold_folder(folder) == folder / LOCK_NAME  # again in one process: a no-op
    release_folder(folder)


def test_a_holder_that_ends_normally_frees_the_folder(tmp_path):
    proc = holder(tmp_path)
    proc.stdin.close()
    assert proc.wait() == 0
    hold_folder(tmp_path)
    release_folder(tmp_path)


def snakemake(*args, env=None):
    return subprocess.Popen([sys.executable, "-m", "snakemake", *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


def unblock_if_it_fails(proc, fifo):
    """If ``proc`` ends before a job opened ``fifo``, open it here so the test's open returns."""
    def watch():
        proc.wait()
        try:
            os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
        except OSError:
            pass
    threading.Thread(target=watch, daemon=True).start()


def test_a_second_workflow_on_a_running_workflows_results_stops_in_one_line(tmp_path):
    """Workflow A's ingest job waits reading a FIFO (scripts/_log.py's REEVAL_TEST_PAUSE); once
    the test's open of the FIFO returns, A is inside a job (past onstart, holding the lock).
    Workflow B, from another working directory on the same results, stops in one line; then
    the test closes the FIFO and A ends well."""
    fifo = tmp_path / "pause"
    os.mkfifo(fifo)
    (tmp_path / "runs").mkdir()
    write_lines(tmp_path / "runs" / "r1", ["1 Q0 D0 1 2 r1"])
    write_lines(tmp_path / "runs" / "r2", ["1 Q0 D1 1 2 r2"])
    results = tmp_path / "results"
    cfg = tmp_path / "study.yaml"
    cfg.write_text(yaml.safe_dump({"results": str(results), "measures": ["map"], "tracks": {"t": {
        "qrels": str(write_lines(tmp_path / "qrels.txt", ["1 0 D0 1", "1 0 D1 0"])), "runs": str(tmp_path / "runs")}}}))
    target = results / "tracks" / "t" / "runs.parquet"
    first = snakemake("--cores", "1", str(target), "--configfile", str(cfg),
                      env={**os.environ, "REEVAL_TEST_PAUSE": f"ingest:{fifo}"})
    unblock_if_it_fails(first, fifo)
    with open(fifo, "w"):  # returns when A's ingest job opens the FIFO
        assert first.poll() is None, first.communicate()
        other = tmp_path / "elsewhere"
        other.mkdir()
        second = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"),
                                 "--cores", "1", str(target), "--configfile", str(cfg)],
                                cwd=other, capture_output=True, text=True)
    out, err = first.communicate()
    assert first.returncode == 0, out[-2000:] + err[-2000:]
    assert second.returncode != 0
    lines = [line for line in (second.stdout + second.stderr).splitlines() if "another run holds" in line]
    assert lines == [f"error: another run holds {results} (the lock {results / LOCK_NAME}): wait for it to "
                     f"end or give another results folder"], second.stderr[-2000:]
    assert "Traceback" not in second.stderr
    assert target.is_file()


def test_a_dry_run_does_not_take_the_lock(tmp_path):
    proc = holder(tmp_path / "results")
    cfg = tmp_path / "c.yaml"
    cfg.write_text(yaml.safe_dump({"results": str(tmp_path / "results"), "tracks": {"s": {"synthetic": "syn-graded"}}}))
    dry = snakemake("-n", "--configfile", str(cfg))
    out, err = dry.communicate()
    proc.stdin.close()
    proc.wait()
    assert dry.returncode == 0 and "another run holds" not in out + err
