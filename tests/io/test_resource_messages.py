"""Resources that run out name the file (issue 31, item 14): out of memory while reading a
file, a 50 MB line without a newline on the numpy path, a full disk while writing a table."""

import errno
import logging
import os
import subprocess
import sys
from types import SimpleNamespace

import pandas as pd
import pytest

from conftest import load_file_module, write_lines
from reeval.io import atomic, ingest, tables, trecio
from reeval.io.ingest import ingest_track
from reeval.io.tables import write_table

QRELS = ["1 0 D0 1", "1 0 D1 0"]


def rule_log_module():
    return load_file_module("scripts/_log.py")


def test_a_50_mb_line_without_newline_is_named_by_reeval_score_without_kernels(tmp_path):
    """REEVAL_KERNELS=0: Arrow's "straddling object straddles two block boundaries" no longer
    reaches the user; the line is judged like any other, and a malformed one is named."""
    bad = tmp_path / "bad"
    bad.write_bytes(b"1 Q0 " + b"y" * (50 << 20))  # three fields, no newline
    proc = subprocess.run([sys.executable, "-m", "reeval.cli", "score", str(write_lines(tmp_path / "q", QRELS)),
                           str(bad)], capture_output=True, text=True, env={**os.environ, "REEVAL_KERNELS": "0"})
    assert proc.returncode == 1 and "straddl" not in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"reeval: {bad}:1: expected 6 or more whitespace-separated fields")


def test_a_50_mb_line_reads_on_the_numpy_path(tmp_path, monkeypatch):
    monkeypatch.setattr(trecio, "_compiled_run", lambda data: None)  # the numpy/pyarrow path
    run = tmp_path / "huge"
    run.write_bytes(b"1 Q0 D0 1 2 " + b"x" * (50 << 20))  # a 50 MB tag, no newline: one kept line
    tables = ingest_track("t", write_lines(tmp_path / "q", QRELS), [run], tune=False)
    assert tables.report.set_index("run").loc["huge", "kept"] == 1
    bad = tmp_path / "bad"
    bad.write_bytes(b"1 Q0 " + b"y" * (50 << 20))  # three fields
    with pytest.raises(trecio.TrecFormatError, match=f"^{bad}:1: expected 6 or more whitespace-separated"):
        ingest_track("t", write_lines(tmp_path / "q", QRELS), [bad], tune=False)


@pytest.mark.parametrize("which", ["run", "qrels"])
def test_out_of_memory_while_reading_names_the_file(tmp_path, monkeypatch, which):
    qrels = write_lines(tmp_path / "qrels", QRELS)
    run = write_lines(tmp_path / "r1", ["1 Q0 D0 1 2 r1"])

    def no_memory(*args, **kwargs):
        raise MemoryError()

    monkeypatch.setattr(ingest, "read_run" if which == "run" else "read_qrels", no_memory)
    named = run if which == "run" else qrels
    with pytest.raises(MemoryError, match=f"^out of memory reading {named} \\({named.stat().st_size} bytes\\)$"):
        ingest_track("t", qrels, [run], tune=False)


def test_the_command_line_prints_the_file_that_did_not_fit(tmp_path, monkeypatch, capsys):
    from reeval import cli

    def no_memory(*args, **kwargs):
        raise MemoryError()

    monkeypatch.setattr(ingest, "read_run", no_memory)
    run = write_lines(tmp_path / "r1", ["1 Q0 D0 1 2 r1"])
    assert cli.main(["score", str(write_lines(tmp_path / "q", QRELS)), str(run)]) == 1
    assert capsys.readouterr().err == f"reeval: out of memory reading {run} (15 bytes)\n"


def test_a_full_disk_names_the_file_being_written(tmp_path, monkeypatch):
    def full(table, path):  # the disk fills after the header: a partial temporary file
        with open(path, "w") as out:
            out.write("run\n")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setitem(tables._TABLE_FORMATS, ".csv", full)
    target = tmp_path / "t" / "measures_by_run.csv"
    with pytest.raises(OSError, match=f"^\\[Errno 28\\] No space left on device: writing {target}$"):
        write_table(pd.DataFrame({"run": ["a"]}), target)
    assert list(target.parent.iterdir()) == []  # no temporary left behind

    def other(path):
        raise OSError(errno.EACCES, "Permission denied")

    with pytest.raises(PermissionError):  # other errors pass as they are
        atomic.atomic_write(target, other)


def test_a_rule_script_says_out_of_memory_and_full_disk_in_one_line_with_what_to_do(tmp_path):
    log_module = rule_log_module()
    job = SimpleNamespace(log=[str(tmp_path / "job.log")], rule="ingest")
    stderr = sys.stderr
    try:
        for error, expected in [
                (MemoryError("out of memory reading /x/run (9 bytes)"),
                 "error: out of memory reading /x/run (9 bytes); the job needs more memory than it had"),
                (OSError(errno.ENOSPC, "No space left on device: writing /r/t.csv"),
                 "error: [Errno 28] No space left on device: writing /r/t.csv; free space on that disk")]:
            with pytest.raises(SystemExit) as caught:
                with log_module.rule_log(job):
                    raise error
            assert caught.value.code == 1
            log = (tmp_path / "job.log").read_text()
            assert len(log.splitlines()) == 1 and expected in log and "Traceback" not in log
    finally:
        sys.stderr = stderr
        logging.basicConfig(stream=sys.stderr, force=True)


def test_a_file_size_limit_names_the_file_being_written(tmp_path):
    """Issue 38 item 11: under `ulimit -f` a write fails with "[Errno 27] File too large" and
    no file name (Python ignores the SIGXFSZ that would kill it); pyarrow's error has the
    errno too. The table writer names the file, as for a full disk."""
    script = ("import sys, pandas as pd\n"
              "from reeval.io.tables import write_table\n"
              "try:\n"
              "    write_table(pd.DataFrame({'score': [i / 7 for i in range(200000)]}), sys.argv[1])\n"
              "except OSError as exc:\n"
              "    print(exc)\n")
    for name in ("big.csv", "big.parquet"):
        target = tmp_path / name
        proc = subprocess.run(["bash", "-c", 'ulimit -f 16 && exec "$0" -c "$1" "$2"', sys.executable, script,
                               str(target)], capture_output=True, text=True)
        assert proc.stdout == f"[Errno 27] File too large: writing {target}\n", proc.stderr
        assert list(tmp_path.glob(".*.tmp")) == [] and not target.exists()


def test_a_rule_script_says_what_to_do_about_a_file_size_limit(tmp_path):
    log_module = rule_log_module()
    line = log_module.one_line(OSError(errno.EFBIG, "File too large: writing /r/t/by_run.parquet"))
    assert line.startswith("error: [Errno 27] File too large: writing /r/t/by_run.parquet; a limit on the size")
    assert "`ulimit -f`" in line
