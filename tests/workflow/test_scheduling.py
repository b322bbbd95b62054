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


def test_ingest_takes_two_threads_for_large_tracks_only(tmp_path):
    from reeval.workflow.tracks import INGEST_TWO_THREADS_BYTES, ingest_threads

    run = tmp_path / "run"
    run.write_bytes(b"1 Q0 d 1 1 r\n")
    assert ingest_threads({"qrels": "q", "runs": str(tmp_path)}, [str(run)]) == 1
    with open(run, "r+b") as f:
        f.truncate(INGEST_TWO_THREADS_BYTES)  # sparse: the size counts, not the bytes written
    assert ingest_threads({"qrels": "q", "runs": str(tmp_path)}, [str(run)]) == 2
    assert ingest_threads({"qrels": "q", "runs": "x"}, [str(tmp_path / "gone")]) == 2  # size unknown
    assert ingest_threads({"urls": {"qrels": "https://trec.nist.gov/q"}}, [str(run)]) == 2  # fetched: planned before its files exist


def test_the_largest_track_gets_the_highest_share_of_priority_and_every_share_is_below_1(tmp_path):
    """Per-track jobs are ordered by rule (synthetic_track 2, ingest 1, the others 0) and,
    within a rule, by the track's estimated run lines: longest job first."""
    from reeval.workflow.tracks import BYTES_PER_RUN_LINE, LINES_PER_FETCHED_RUN, job_priorities, track_work

    synthetic = {"synthetic": {"n_runs": 80, "n_topics": 5, "n_unjudged_topics": 10, "depth": 1000}}
    assert track_work(synthetic) == 80 * 15 * 1000
    run = tmp_path / "run"
    run.write_bytes(b"1 Q0 d 1 1 r\n" * 100)
    assert track_work({"qrels": "q", "runs": str(tmp_path)}, [str(run)]) == 1300 // BYTES_PER_RUN_LINE
    assert track_work({"qrels": "q", "runs": "x"}, [str(tmp_path / "gone")]) == 0
    fetched = {"urls": {"qrels": [{"url": "https://trec.nist.gov/q"}], "runs": [{"run": "a"}, {"run": "b"}]}}
    assert track_work(fetched) == 2 * LINES_PER_FETCHED_RUN
    share = job_priorities({"huge": 10**6, "big": 10**5, "small": 10**3, "none": 0})
    assert share["huge"] == 0.9999 and share["none"] == 0.0      # rounded down: never a whole tier
    assert share["huge"] > share["big"] > share["small"] >= share["none"]
    assert job_priorities({}) == {} and job_priorities({"a": 0}) == {"a": 0.0}
