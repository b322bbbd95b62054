"""Progress of a command's long work on a terminal: one counting line on stderr,
``reeval: reading run files 12/96``, rewritten in place and erased when the work is done.

Written only when stderr is a terminal (never into a file or a pipe) and the command was
not given --quiet, and only for enough units (:data:`MIN_UNITS`: a handful of runs is read
before a line would help); stdout is untouched, so a command's output is the same bytes
with or without a terminal. The units are real ones: run files read, settings of the
audit's search evaluated. Imported only when the line may be shown (:func:`reeval.cli.options.progress`), and then
nothing beyond the standard library."""

from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager

#: fewer units than this (a known total): no line
MIN_UNITS = 5
#: at most one write per this many seconds (the last count is always written)
INTERVAL = 0.1


class Counter:
    """``reeval: WHAT DONE/TOTAL`` (``reeval: WHAT DONE`` without a total) on ``stream``,
    rewritten in place (carriage return) at most every :data:`INTERVAL` seconds; each call
    counts one unit (safe from several threads); :meth:`close` erases the line (spaces
    between carriage returns, no terminal escape: a dumb terminal too) so that the notes and errors after it start on a clean line."""

    def __init__(self, what: str, total: int | None = None, stream=None):
        self.what, self.total, self.done = what, total, 0
        self.stream = sys.stderr if stream is None else stream
        self._lock = threading.Lock()
        self._written = 0.0
        self._shown = ""  # the line on the terminal

    def __call__(self, *_) -> None:
        with self._lock:
            self.done += 1
            now = time.monotonic()
            if now - self._written >= INTERVAL or self.done == self.total:
                self._written = now
                count = f"{self.done}/{self.total}" if self.total is not None else str(self.done)
                self._shown = f"reeval: {self.what} {count}"
                self.stream.write(f"\r{self._shown}")
                self.stream.flush()

    def wrap(self, function):
        """``function``, counting one unit after each call."""
        def call(*args, **kwargs):
            value = function(*args, **kwargs)
            self()
            return value
        return call

    def close(self) -> None:
        with self._lock:
            if self._shown:
                self.stream.write(f"\r{' ' * len(self._shown)}\r")
                self.stream.flush()
                self._shown = ""


@contextmanager
def counting(what: str, total: int | None = None):
    """A :class:`Counter` of ``what`` on stderr, erased on leaving; None (nothing written)
    for a ``total`` under :data:`MIN_UNITS`. Whether stderr is a terminal and --quiet are
    :func:`reeval.cli.options.progress`'s to check (which imports this module only then)."""
    count = None if total is not None and total < MIN_UNITS else Counter(what, total)
    try:
        yield count
    finally:
        if count is not None:
            count.close()
