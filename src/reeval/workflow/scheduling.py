"""One fix to Snakemake's scheduler, applied by the Snakefile to the process it runs in.

Snakemake (9.x, ``snakemake.scheduling.job_scheduler.JobScheduler``) limits job starts with
``--max-jobs-per-timespan`` (default ``100/1s``): after every scheduling pass it starts a
timer that, one timespan later, wakes the scheduler for another pass. A pass woken by such
a timer starts a timer again, and so does every pass woken by a finished job; the timers
never stop, so after n finished jobs about n passes run every second, each looking at the
inputs of every ready job. On the simulated 82-track study (335 jobs, 2 cores) Snakemake's
own process then used about 1 s of CPU per job, half of a core by the end, and 100 timer
threads were alive at once (docs/cluster.md).

:func:`coalesce_reevaluation_timers` keeps at most one such timer pending: a pass asks for
a reevaluation only when none is already due. The rate limit itself is unchanged (the
limiter still counts starts and a reevaluation still comes one timespan after the pass
that asked), and the timers are daemon threads, so that the process exits without waiting
for the last one.
"""

from __future__ import annotations

import threading


def coalesced_reevaluation(scheduler, delay: float) -> None:
    """Wake ``scheduler`` (its ``_open_jobs`` semaphore) once after ``delay`` seconds,
    unless a wake-up is already pending."""
    with _LOCK:
        if getattr(scheduler, "_reeval_pending", False):
            return
        scheduler._reeval_pending = True

    def wake():
        with _LOCK:
            scheduler._reeval_pending = False
        scheduler._open_jobs.release()

    timer = threading.Timer(delay, wake)
    timer.daemon = True
    timer.start()


_LOCK = threading.Lock()


def coalesce_reevaluation_timers(scheduler_class=None) -> bool:
    """Replace ``scheduler_class._schedule_reevalutation`` (Snakemake's name, typo included)
    by :func:`coalesced_reevaluation`. False, and nothing changed, when the class or the
    method is not there (another Snakemake version: its own scheduling then applies)."""
    if scheduler_class is None:
        try:
            from snakemake.scheduling.job_scheduler import JobScheduler as scheduler_class
        except ImportError:
            return False
    if not callable(getattr(scheduler_class, "_schedule_reevalutation", None)):
        return False
    scheduler_class._schedule_reevalutation = coalesced_reevaluation
    return True
