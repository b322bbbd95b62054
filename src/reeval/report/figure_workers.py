"""Figures saved by forked worker processes while the caller draws the next one
(:func:`worker_pool`, opened by :func:`reeval.report.figures.saving_in_workers` and used by
:func:`reeval.report.figures.save_figure_pair`).

Saving is most of a figure's time (the layout passes, the PNG and the PDF: about four
fifths; the drawing calls the rest), and the figures of a step are independent. Inside
``with worker_pool(n):`` each save is handed to a child process forked at that moment
(:func:`hand_off`): the child holds a copy of the finished figure, of matplotlib already
imported and of its font caches (nothing is pickled, nothing imported again), saves it and
exits; the caller closes its own copy and goes on drawing. At most ``n`` children save at
once (the caller waits for one to end before forking another), and the ``with`` ends only
when every child has. The files are the bytes a save in the caller writes (the same code on
the same figure). POSIX only (``os.fork``); elsewhere, or with ``n`` < 2, every save runs
in the caller.

A child's failure: the save it runs handles a refused figure itself (the caller's own
rules, :func:`reeval.report.figures.save_figure_pair`); anything that escapes is sent to
the caller through a pipe (its first :data:`MESSAGE_BYTES` bytes) and raised when the
``with`` ends, naming the figure (:class:`FigureWorkerError`), after every child has ended:
never while a later figure is drawn, which would seem to be that figure's error.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager

#: the pool that :func:`hand_off` hands saves to (None: each save runs in the caller)
_POOL = None
#: a child's error message is cut at this many bytes (a pipe holds 64 KiB: a child never
#: blocks writing it before the caller reads it)
MESSAGE_BYTES = 4000


class FigureWorkerError(RuntimeError):
    """A save in a worker failed: ``label`` (the figure) and the child's ``message``."""

    def __init__(self, label: str, message: str):
        super().__init__(f"figure {label}: {message}")
        self.label, self.message = label, message


class _Pool:
    def __init__(self, workers: int):
        self.workers, self.running, self.errors = workers, {}, []

    def submit(self, task, label: str) -> None:
        while len(self.running) >= self.workers:
            self._reap()
        for stream in (sys.stdout, sys.stderr):
            stream.flush()  # a child must not write the caller's buffered text again
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: save, say what escaped, end without the caller's exit handlers
            global _POOL
            _POOL = None
            os.close(read)
            code = 0
            try:
                task()
            except BaseException as exc:  # noqa: BLE001 (whatever it is, the caller raises it)
                os.write(write, f"{type(exc).__name__}: {exc}".encode("utf-8", "replace")[:MESSAGE_BYTES])
                code = 1
            finally:
                try:
                    for stream in (sys.stdout, sys.stderr):
                        stream.flush()
                finally:
                    os._exit(code)  # whatever happened: the child never runs the caller's code on
        os.close(write)
        self.running[pid] = (label, read)

    def _reap(self) -> None:
        """Wait for one of the pool's children to end (its pipe closed: never another child
        of the process, which ``os.wait`` could take from its owner); keep its error, if any."""
        import select

        ready = select.select([read for _, read in self.running.values()], [], [])[0][0]
        pid = next(pid for pid, (_, read) in self.running.items() if read == ready)
        label, read = self.running.pop(pid)
        with os.fdopen(read, "rb") as pipe:
            message = pipe.read().decode("utf-8", "replace")  # to its end: the child has exited
        code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        if code:
            self.errors.append(FigureWorkerError(
                label, message or (f"the worker ended by signal {-code}" if code < 0 else f"exit status {code}")))

    def join(self) -> None:
        while self.running:
            self._reap()


@contextmanager
def worker_pool(workers: int):
    """Inside, :func:`hand_off` runs each save in a forked child, at most ``workers`` at
    once (module doc; the objects held on entering are frozen, ``gc.freeze``, until
leaving); on leaving, waits for all and raises the first child's error
    (:class:`FigureWorkerError`), after any error of the body itself. ``workers`` < 2, a
    platform without ``os.fork`` or a pool already open: every save runs in the caller."""
    global _POOL
    if workers < 2 or not hasattr(os, "fork") or _POOL is not None:
        yield
        return
    import gc

    # what the caller holds now (modules, matplotlib, fonts) out of the garbage collector's
    # passes, in the caller and in each child: a pass writes to every object it visits,
    # which would copy their memory pages into each child (about 0.5 s of CPU a track)
    gc.collect()
    gc.freeze()
    _POOL = pool = _Pool(workers)
    try:
        yield
    finally:
        _POOL = None
        pool.join()
        gc.unfreeze()
    if pool.errors:
        raise pool.errors[0]


def hand_off(task, label: str) -> bool:
    """Run ``task`` (no arguments) in a worker of the open :func:`worker_pool` and
    return True, or return False (nothing run) when none is open: the caller runs it."""
    if _POOL is None:
        return False
    _POOL.submit(task, label)
    return True
