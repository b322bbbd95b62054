"""Endless streams are read as their bytes arrive: a line that is not a run line stops the read
at once, a stream without a newline stops at :data:`reeval.io.sources.MAX_LINE_BYTES`.
Before, ``yes garbage | reeval score q -`` and ``reeval score q /dev/zero`` buffered until the
memory ran out. Every process here runs under a memory limit and a timeout."""

import resource
import subprocess
import sys

import pytest

from conftest import write_lines
from reeval.errors import InputError
from reeval.io.sources import MAX_LINE_BYTES, read_source

#: address space of the reeval process: an endless stream read whole would exceed it
MEMORY = 2_000_000_000
TIMEOUT = 60


def limited():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def reeval_score(qrels, source, stdin=None):
    """(status, stderr) of ``reeval score qrels source`` under :data:`MEMORY` and :data:`TIMEOUT`."""
    done = subprocess.run([sys.executable, "-m", "reeval.cli", "score", str(qrels), str(source)], stdin=stdin,
                          capture_output=True, text=True, timeout=TIMEOUT, preexec_fn=limited)
    return done.returncode, done.stderr


def from_generator(code: str):
    """A process writing endlessly to a pipe (the generator), to be killed by the caller."""
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)


@pytest.fixture
def qrels(tmp_path):
    return write_lines(tmp_path / "qrels", ["1 0 a 1"])


@pytest.mark.parametrize("code, line, got", [
    ("import sys\nwhile True: sys.stdout.buffer.write(b'garbage\\n' * 4096)", 1, '"garbage"'),
    ("import sys\nsys.stdout.buffer.write(b'1 Q0 a 1 1 r\\n' * 3)\nwhile True: sys.stdout.buffer.write(b'junk\\n' * 4096)",
     4, '"junk"'),
])
def test_a_line_that_is_not_a_run_line_stops_an_endless_pipe_at_that_line(qrels, code, line, got):
    producer = from_generator(code)
    try:
        status, err = reeval_score(qrels, "-", stdin=producer.stdout)
    finally:
        producer.kill()
        producer.wait()
    assert status == 1 and err.startswith(f"reeval: -:{line}: expected 6 or more whitespace-separated fields") \
        and got in err and "memory" not in err, err


def test_dev_zero_stops_at_the_line_length_bound(qrels):
    status, err = reeval_score(qrels, "/dev/zero")
    assert status == 1 and err == (f"reeval: /dev/zero: line 1: more than {MAX_LINE_BYTES:,} bytes without a newline "
                                   "(a run or qrels line is far shorter); stopped reading\n"), err


def test_a_stream_of_good_lines_is_read_whole_and_a_long_line_counts_its_line_number(tmp_path):
    fifo = tmp_path / "fifo"
    import os
    import threading

    os.mkfifo(fifo)
    text = b"1 Q0 a 1 1 r\n" * 200_000 + b"x" * (MAX_LINE_BYTES + 1)
    writer = threading.Thread(target=lambda: _write_ignoring_close(fifo, text))
    writer.start()
    try:
        with pytest.raises(InputError, match=r"fifo: line 200001: more than 1,048,576 bytes without a newline"):
            read_source(fifo)
    finally:
        writer.join(timeout=TIMEOUT)
    os.mkfifo(tmp_path / "good")
    writer = threading.Thread(target=lambda: _write_ignoring_close(tmp_path / "good", text[:-MAX_LINE_BYTES - 1]))
    writer.start()
    assert bytes(read_source(tmp_path / "good").data) == text[:-MAX_LINE_BYTES - 1]
    writer.join(timeout=TIMEOUT)


def _write_ignoring_close(path, data: bytes) -> None:
    try:
        with open(path, "wb") as f:
            f.write(data)
    except BrokenPipeError:  # the reader stopped first
        pass
