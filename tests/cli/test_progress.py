"""Progress on a terminal (reeval.cli.progress): the commands on many runs count their real
units on stderr when it is a terminal (a pseudo-terminal here), never into a pipe or under
--quiet, and stdout is the same bytes with or without a terminal."""

import io
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reeval.cli.options import on_terminal, progress
from reeval.cli.progress import MIN_UNITS, Counter

from conftest import track_files

ROOT = Path(__file__).resolve().parents[2]
RUNS = 6  # at least MIN_UNITS
TIMEOUT = 120


def command(args, tty: bool):
    """(stdout bytes, stderr bytes) of ``reeval ARGS``, stderr a pseudo-terminal with ``tty``
    (read until the process ends, bounded by TIMEOUT) or a pipe."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    argv = [sys.executable, "-m", "reeval.cli", *map(str, args)]
    if not tty:
        done = subprocess.run(argv, capture_output=True, env=env, timeout=TIMEOUT)
        return done.stdout, done.stderr
    master, slave = pty.openpty()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL, env=env)
    os.close(slave)
    err, deadline = b"", time.monotonic() + TIMEOUT
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: every writer of the terminal has closed it
                    break
                if not chunk:
                    break
                err += chunk
            elif proc.poll() is not None:
                break
        out = proc.stdout.read()
        proc.wait(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
        proc.stdout.close()
    return out, err


@pytest.fixture
def hand_made(tmp_path):
    """A qrels file of three topics and RUNS runs with different rankings."""
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{q} 0 d{d} {(q + d) % 3}\n" for q in range(1, 4) for d in range(8)))
    runs = []
    for r in range(RUNS):
        path = tmp_path / f"run{r}"
        path.write_text("".join(f"{q} Q0 d{(d + r) % 8} {d + 1} {10 - d} run{r}\n"
                                for q in range(1, 4) for d in range(6)))
        runs.append(path)
    return qrels, runs


def check_progress(args, line: bytes):
    """``line`` counted on the terminal's stderr, not into a pipe nor under --quiet; stdout
    the same bytes in the three cases; the line erased at the end."""
    out_tty, err_tty = command(args, tty=True)
    out_pipe, err_pipe = command(args, tty=False)
    out_quiet, err_quiet = command([*args, "--quiet"], tty=True)
    assert out_tty and out_tty == out_pipe == out_quiet
    assert line in err_tty, err_tty
    assert re.search(rb"\r {%d,}\r" % len(line), err_tty)  # erased: the notes start on a clean line
    assert b"reeval: reading" not in err_pipe and b"settings evaluated" not in err_pipe
    assert b"reeval: reading" not in err_quiet


def test_score_counts_the_run_files_read_on_a_terminal(hand_made):
    qrels, runs = hand_made
    check_progress(["score", qrels, *runs, "-m", "map", "-m", "P.5"], f"reeval: reading run files {RUNS}/{RUNS}".encode())


def test_compare_and_reusability_count_the_run_files_read(hand_made):
    qrels, runs = hand_made
    line = f"reading run files {RUNS}/{RUNS}".encode()
    check_progress(["compare", qrels, *runs, "-m", "P.5", "--format", "pairs", "--resamples", "100"], line)
    check_progress(["reusability", qrels, *runs, "--depth", "3"], line)


def test_audit_counts_the_settings_it_evaluates(hand_made, tmp_path):
    qrels, runs = hand_made
    official = tmp_path / "official.csv"  # figures no setting reproduces: the search tries many
    official.write_text("run,map\n" + "".join(f"run{r},0.{r + 1}234\n" for r in range(RUNS)))
    out, err = command(["audit", qrels, *runs, "--official", official], tty=True)
    tried = int(out.decode().splitlines()[-1].split("searched ")[1].split(" settings")[0])
    shown = [int(part.split(b"\r")[0]) for part in err.split(b"reeval: settings evaluated ")[1:]]
    assert tried > 1 and shown and shown == sorted(shown) and shown[-1] <= tried, (tried, err)
    untimed = [line.split(b" in ")[0] for line in out.splitlines()]  # the closing line says the time taken
    assert [line.split(b" in ")[0] for line in command(["audit", qrels, *runs, "--official", official],
                                                        tty=False)[0].splitlines()] == untimed
    assert b"settings evaluated" not in command(["audit", qrels, *runs, "--official", official, "--quiet"], tty=True)[1]


def test_a_real_track_read_on_a_terminal():
    qrels, runs = track_files("trec2019-dl-passage")
    runs = runs[:8]
    check_progress(["score", qrels, *runs], f"reeval: reading run files {len(runs)}/{len(runs)}".encode())


def test_a_handful_of_runs_shows_no_line(hand_made):
    qrels, runs = hand_made
    out, err = command(["score", qrels, *runs[:MIN_UNITS - 1]], tty=True)
    assert out and b"reading run files" not in err


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_the_counter_counts_and_erases():
    stream = Terminal()
    count = Counter("units", 3, stream)
    for _ in range(3):
        count()
    count.close()
    text = stream.getvalue()
    assert text.startswith("\rreeval: units 1/3") and "\rreeval: units 3/3" in text
    assert text.endswith("\rreeval: units 3/3\r" + " " * len("reeval: units 3/3") + "\r")
    assert count.done == 3
    assert not on_terminal(io.StringIO()) and on_terminal(stream)


def test_a_wrapped_function_calls_through_and_counts():
    count = Counter("calls", None, Terminal())
    twice = count.wrap(lambda x: 2 * x)
    assert [twice(1), twice(2)] == [2, 4] and count.done == 2


def test_no_counter_without_a_terminal_or_under_quiet(monkeypatch):
    def warn(line):
        pass
    warn.progress = True
    monkeypatch.setattr(sys, "stderr", Terminal())
    with progress(warn, "units", MIN_UNITS) as count:
        assert isinstance(count, Counter)
    with progress(None, "units", MIN_UNITS) as count:  # --quiet: no warn
        assert count is None
    with progress(warn, "units", MIN_UNITS - 1) as count:
        assert count is None
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    with progress(warn, "units", None) as count:
        assert count is None
