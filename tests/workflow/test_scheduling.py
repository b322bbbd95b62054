"""reeval.workflow.scheduling: Snakemake's rate-limit reevaluations, one pending at a time."""
import threading

import pytest

from reeval.workflow import scheduling


class FakeTimer:
    """threading.Timer's interface, started by hand (no clock)."""
    made = []

    def __init__(self, delay, function):
        self.delay, self.function, self.daemon, self.started = delay, function, False, False
        FakeTimer.made.append(self)

    def start(self):
        self.started = True


class FakeScheduler:
    def __init__(self):
        self._open_jobs = threading.Semaphore(0)


@pytest.fixture
def timers(monkeypatch):
    FakeTimer.made = []
    monkeypatch.setattr(scheduling.threading, "Timer", FakeTimer)
    return FakeTimer.made


def test_many_passes_leave_one_daemon_timer_and_one_wake_up(timers):
    s = FakeScheduler()
    for _ in range(50):  # 50 passes ask for a reevaluation one timespan later
        scheduling.coalesced_reevaluation(s, 1)
    assert len(timers) == 1 and timers[0].started and timers[0].daemon and timers[0].delay == 1
    timers[0].function()  # the timespan is over: the scheduler wakes once
    assert s._open_jobs.acquire(blocking=False) and not s._open_jobs.acquire(blocking=False)
    scheduling.coalesced_reevaluation(s, 1)  # the next pass may ask again
    assert len(timers) == 2


def test_each_scheduler_has_its_own_pending_timer(timers):
    a, b = FakeScheduler(), FakeScheduler()
    scheduling.coalesced_reevaluation(a, 1)
    scheduling.coalesced_reevaluation(b, 1)
    assert len(timers) == 2


def test_the_installed_snakemake_scheduler_is_patched(monkeypatch):
    from snakemake.scheduling.job_scheduler import JobScheduler

    # a Snakemake that renames the method fails here, so that the fix is looked at again
    monkeypatch.setattr(JobScheduler, "_schedule_reevalutation", JobScheduler._schedule_reevalutation)
    assert scheduling.coalesce_reevaluation_timers()
    assert JobScheduler._schedule_reevalutation is scheduling.coalesced_reevaluation


def test_a_scheduler_without_the_method_is_left_alone():
    class Other:
        pass

    assert not scheduling.coalesce_reevaluation_timers(Other) and not hasattr(Other, "_schedule_reevalutation")
