"""The frame of every rule script: its stderr and logging go to the rule's log, and bad
input ends it with one clear line instead of a traceback.

    with rule_log(snakemake) as log:
        ...  # the script's body
"""

import errno
import logging
import os
import sys
from contextlib import contextmanager
from pathlib import Path

# the package itself, also when a rule runs in a conda environment without it installed
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from reeval.errors import InputError  # noqa: E402 (reeval.io.trecio re-exports it, with pyarrow)
from reeval.report.escape import console_text, line_text  # noqa: E402
from reeval.report.figures import FIGURE_LOG  # noqa: E402

#: errors of the input, not of the code: a bad line or file (InputError, TrecFormatError),
#: a file that is missing or cannot be read (OSError: FileNotFoundError from resolve_qrels
#: and resolve_runs, PermissionError ...)
BAD_INPUT = (InputError, OSError)


class EscapedFormatter(logging.Formatter):
    """A log record's text with its invisible characters (ESC, BEL, bidi controls in a file
    name ...) shown escaped (:func:`reeval.report.escape.console_text`): a log read with
    ``cat`` or ``tail`` sends the terminal no command."""

    def format(self, record: logging.LogRecord) -> str:
        return console_text(super().format(record))


class EscapedStream:
    """A text stream whose every write has its invisible characters escaped
    (:func:`reeval.report.escape.console_text`, idempotent): what a library writes to stderr
    itself (a Python warning, matplotlib's "Glyph 27 (\\x1b) missing from font" about a run
    named with ESC) reaches the log as the formatter's records do."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text) -> int:
        return self._stream.write(console_text(text))

    def __getattr__(self, name):
        return getattr(self._stream, name)


def to_log(snakemake):
    """Send stderr and the ``reeval`` logger to the rule's log file (if it has one).

    The log holds the job's own lines: ``reeval``'s from INFO, other libraries' from WARNING
    only (fontTools, which matplotlib calls to embed a PDF's fonts, logs a dozen INFO lines
    per figure, which would fill the tail a failed job shows). A figure that was not drawn
    (:data:`reeval.report.figures.FIGURE_LOG`) is also said on the console. Every record goes
    through :class:`EscapedFormatter`, and whatever else reaches the log file through
    :class:`EscapedStream`."""
    if snakemake.log:
        sys.stderr = EscapedStream(open(snakemake.log[0], "w", buffering=1))
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, force=True)
    for handler in logging.getLogger().handlers:
        handler.setFormatter(EscapedFormatter("%(asctime)s %(message)s"))
    log = logging.getLogger("reeval")
    log.setLevel(logging.INFO)
    figures = logging.getLogger(FIGURE_LOG)
    for handler in [h for h in figures.handlers if getattr(h, "reeval_console", False)]:
        figures.removeHandler(handler)
    if sys.stderr is not sys.__stderr__:
        console = logging.StreamHandler(sys.__stderr__)
        console.setLevel(logging.WARNING)
        console.setFormatter(EscapedFormatter("%(message)s"))
        console.reeval_console = True
        figures.addHandler(console)
    return log


#: a test's switch, unset in any real run: RULE:FILE makes the first job of RULE create FILE
#: and fail, so that its retry (FILE exists) runs (tests/workflow/test_slurm.py: a failed
#: SLURM job is resubmitted with twice the memory and time)
FAIL_ONCE = "REEVAL_TEST_FAIL_ONCE"


def fail_once(snakemake):
    """Exit with status 1 if :data:`FAIL_ONCE` names this rule and its file is not there yet."""
    rule, _, marker = os.environ.get(FAIL_ONCE, "").partition(":")
    if rule and rule == getattr(snakemake, "rule", None) and not os.path.exists(marker):
        open(marker, "w").close()
        print(f"error: failed on purpose ({FAIL_ONCE}={rule}:{marker})", file=sys.stderr, flush=True)
        sys.exit(1)


#: a test's switch, unset in any real run: RULE:FIFO makes each job of RULE read the FIFO to its
#: end before its body runs, so that a test knows a job is running (its open of the FIFO for
#: writing returns) and holds it there (tests/workflow/test_folder_lock.py)
PAUSE = "REEVAL_TEST_PAUSE"


def pause(snakemake):
    """Read the FIFO :data:`PAUSE` names for this rule to its end (no-op when unset)."""
    rule, _, fifo = os.environ.get(PAUSE, "").partition(":")
    if rule and rule == getattr(snakemake, "rule", None):
        with open(fifo, "rb") as held:
            held.read()


#: a switch for profiling, unset in a normal run: a folder where each job writes the cProfile
#: of its body, ``<rule>-<wildcards>.prof``, and ``<rule>-<wildcards>.cpu`` (the process's CPU
#: seconds when the body starts, interpreter, imports and Snakemake's preamble, and when it
#: ends); ``benchmarks/profile_study.py`` sums them per rule (docs/cluster.md)
PROFILE_DIR = "REEVAL_PROFILE_DIR"


@contextmanager
def profiled(snakemake):
    """Profile the body when :data:`PROFILE_DIR` is set (no-op otherwise); the files are
    written when the body ends, also when it raises."""
    folder = os.environ.get(PROFILE_DIR)
    if not folder:
        yield
        return
    import cProfile
    import re
    import time

    before = time.process_time()
    profile = cProfile.Profile()
    profile.enable()
    try:
        yield
    finally:
        profile.disable()
        parts = [getattr(snakemake, "rule", None) or "job", *map(str, getattr(snakemake, "wildcards", []))]
        stem = Path(folder) / re.sub(r"[^\w.=-]", "_", "-".join(parts))
        stem.parent.mkdir(parents=True, exist_ok=True)
        profile.dump_stats(f"{stem}.prof")
        Path(f"{stem}.cpu").write_text(f"{before:.3f} {time.process_time():.3f}\n")


def one_line(exc: BaseException) -> str:
    """The error as one line: its message (which names the file and line), newlines folded,
    other invisible characters shown escaped (:func:`reeval.report.escape.line_text`).
    Out of memory, a full disk and a file-size limit say what to do: the job's memory
    (``mem_mb``; a SLURM retry doubles it), free space or another results folder, a higher
    limit."""
    text = line_text(" ".join(str(exc).split("\n")))  # its names' ESC, BEL, bidi controls shown escaped
    if isinstance(exc, MemoryError):
        return (f"error: {text or 'out of memory'}; the job needs more memory than it had (its rule's "
                f"mem_mb resource; on SLURM a retry asks twice as much)")
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"error: {text}; free space on that disk or give `results:` a folder on another one"
    if isinstance(exc, OSError) and exc.errno == errno.EFBIG:
        return (f"error: {text}; a limit on the size of a file stops it (`ulimit -f` in the shell that "
                "ran Snakemake, or the file system's largest file): raise the limit")
    return "error: " + text


@contextmanager
def rule_log(snakemake):
    """Run a script's body with :func:`to_log`; yields the logger.

    Bad input (:data:`BAD_INPUT`), out of memory and a full disk are written as one line to the log and to the console
    (``sys.__stderr__``, so Snakemake's output names the file), and the script exits with
    status 1. Any other exception is a bug: it propagates and its traceback goes to the log.
    A test can make the rule fail once first (:func:`fail_once`) or wait (:func:`pause`);
    :data:`PROFILE_DIR` profiles the body (:func:`profiled`).
    """
    log = to_log(snakemake)
    fail_once(snakemake)
    pause(snakemake)
    try:
        with profiled(snakemake):
            yield log
    except (*BAD_INPUT, MemoryError) as exc:
        line = one_line(exc)
        log.error(line)
        if sys.stderr is not sys.__stderr__:
            print(line, file=sys.__stderr__, flush=True)
        sys.exit(1)


def steps(log, total: int):
    """Progress of a job of ``total`` steps in its log (a job has no terminal; ``tail -f``
    its log, or read it after a failure): ``step(what)`` logs ``step K of TOTAL: WHAT``
    before the K-th step."""
    done = 0

    def step(what: str) -> None:
        nonlocal done
        done += 1
        log.info("step %d of %d: %s", done, total, what)
    return step


def counted(log, what: str, total: int, parts: int = 10, least: int = 20):
    """Progress of ``total`` units in a job's log: a callable (safe from several threads)
    counting one unit per call that logs ``WHAT: K of TOTAL`` each time the count passes
    another ``1/parts`` of the total, and at the last unit (at most ``parts`` lines); nothing
    for fewer than ``least`` units (read at once, a log of one line stays one line)."""
    import threading

    lock, done = threading.Lock(), 0

    def count(*_) -> None:
        nonlocal done
        if total < least:
            return
        with lock:
            done += 1
            if done * parts // total != (done - 1) * parts // total:
                log.info("%s: %d of %d", what, done, total)
    return count
