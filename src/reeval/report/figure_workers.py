"""A track's figures drawn by forked worker processes, one step at a time: inside
``with worker_pool(n):`` each :func:`in_worker` task (a step that reads its tables, draws
its figures and saves them: the rule ``track_figures`` hands over four) runs in a child
process forked at that moment (:func:`hand_off`), which holds a copy of what the caller
has imported (pandas, matplotlib: nothing pickled, nothing imported again), runs the task
and exits; at most ``n`` children run at once (the caller waits for one to end before
forking another), and the ``with`` ends only when every child has. A step's figures are
drawn and saved in one process, which keeps what matplotlib computed once for the next
figure (the fonts, text metrics, the PDF backend); the steps are independent. The files
are the bytes the caller would write (the same code on the same tables). POSIX only
(``os.fork``); elsewhere, or with ``n`` < 2, every task runs in the caller.

A child's failure: a figure the saver refuses is handled by the step itself (the caller's
own rules, :func:`reeval.report.figures.save_figure_pair`); anything that escapes the task is sent to
the caller through a pipe (its first :data:`MESSAGE_BYTES` bytes) and raised when the
``with`` ends, naming the task (:class:`FigureWorkerError`), after every child has ended:
never while a later task is handed over, which would seem to be that task's error.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager

#: the pool that :func:`hand_off` hands tasks to (None: each task runs in the caller)
_POOL = None
#: a child's error message is cut at this many bytes (a pipe holds 64 KiB: a child never
#: blocks writing it before the caller reads it)
MESSAGE_BYTES = 4000


class FigureWorkerError(RuntimeError):
    """A task in a worker failed: ``label`` (what it draws) and the child's ``message``."""

    def __init__(self, label: str, message: str):
        super().__init__(f"{label}: {message}")
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
    """Inside, :func:`hand_off` (and :func:`in_worker`) runs each task in a forked child, at
    most ``workers`` at once (module doc; the objects held on entering are frozen,
    ``gc.freeze``, until leaving); on leaving, waits for all and raises the first child's error
    (:class:`FigureWorkerError`), after any error of the body itself. ``workers`` < 2, a
    platform without ``os.fork`` or a pool already open: every task runs in the caller."""
    global _POOL
    if workers < 2 or not hasattr(os, "fork") or _POOL is not None:
        yield
        return
    import gc

    # what the caller holds now (modules, matplotlib, fonts) out of the garbage collector's
    # passes, in the caller and in each child: a pass writes to every object it visits,
    # which would copy their memory pages into each child
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


def in_worker(task, label: str) -> None:
    """Run ``task`` (no arguments; ``label`` says what it draws, for its error) in a worker
    of the open :func:`worker_pool`, or here when none is open."""
    if not hand_off(task, label):
        task()
