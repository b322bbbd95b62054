"""make test's workers take the longest test files first (tests/heaviest_first.py): on main
pytest-xdist handed out the files by their number of tests, so the long workflow files of
few tests came last and one worker ran them alone at the end."""

from types import SimpleNamespace

import pytest

from conftest import ROOT, pytest_xdist_make_scheduler
from heaviest_first import MEASURED_CPU_SECONDS, heaviest_first

pytest.importorskip("xdist", reason="make test runs on pytest-xdist workers")


def test_every_measured_file_is_a_test_file_of_the_suite():
    assert len(MEASURED_CPU_SECONDS) >= 5
    assert [f for f in MEASURED_CPU_SECONDS if not (ROOT / f).is_file() or not f.startswith("tests/")] == []


def test_the_measured_files_come_first_most_seconds_first_the_others_in_their_order():
    heavy = sorted(MEASURED_CPU_SECONDS, key=MEASURED_CPU_SECONDS.get)  # lightest first
    given = ["tests/a.py", heavy[0], "tests/b.py", heavy[-1], "tests/c.py", heavy[1]]
    assert heaviest_first(given) == [heavy[-1], heavy[1], heavy[0], "tests/a.py", "tests/b.py", "tests/c.py"]
    assert heaviest_first(["tests/a.py"]) == ["tests/a.py"]  # a measured file not selected is not added


class Worker:
    """What the scheduler asks of a pytest-xdist worker: it records the tests sent to it."""

    shutting_down = False

    def __init__(self, name, collection):
        self.gateway = SimpleNamespace(id=name)
        self.collection, self.sent = collection, []

    def send_runtest_some(self, indices):
        self.sent.append(sorted({self.collection[i].split("::")[0] for i in indices}))

    def shutdown(self):
        self.shutting_down = True


def test_under_loadfile_the_two_workers_start_with_the_two_heaviest_files():
    heavy = sorted(MEASURED_CPU_SECONDS, key=MEASURED_CPU_SECONDS.get, reverse=True)
    # the light files hold the most tests: pytest-xdist alone would hand them out first
    collection = [f"tests/light{i}.py::test_{k}" for i in range(3) for k in range(20)]
    collection += [f"{f}::test_{k}" for f in heavy[:3] for k in range(3)]
    options = {"dist": "loadfile", "tx": ["2*popen"], "loadscopereorder": True}
    config = SimpleNamespace(getvalue=options.get, option=SimpleNamespace(**options))
    sched = pytest_xdist_make_scheduler(config, None)
    workers = [Worker("gw0", collection), Worker("gw1", collection)]
    for worker in workers:
        sched.add_node(worker)
        sched.add_node_collection(worker, collection)
    sched.schedule()
    assert [w.sent[0] for w in workers] == [[heavy[0]], [heavy[1]]]
    assert pytest_xdist_make_scheduler(SimpleNamespace(getvalue={"dist": "load"}.get), None) is None
