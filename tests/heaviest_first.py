"""The order in which `make test`'s pytest-xdist workers take the test files.

With ``--dist loadfile`` each test file runs whole on one worker, and pytest-xdist hands the
files out by their number of tests, most first. The longest files have few tests (a workflow
run in a module fixture, then a few checks of its outputs), so they came last: one worker
ran a long file alone at the end while the other had nothing left. Here the files measured
longest go first, heaviest first (the longest-processing-time rule), and the many short
files fill in behind them; the rest keep pytest-xdist's order.
"""

from __future__ import annotations

#: CPU seconds (user + system, the pytest process and every child it waited for: Snakemake
#: and its jobs) of ``pytest -n 0 -p no:cacheprovider FILE`` with make test's markers, each
#: file alone (docs/benchmarks.md, "The suite's time"); the files above about 20 s, of make
#: test and of make test-slow (a file the markers deselect is not handed out at all)
MEASURED_CPU_SECONDS = {
    "tests/workflow/test_adding_a_track.py": 202,  # measured before it was marked slow: make test-slow
    "tests/workflow/test_workflow.py": 145,
    "tests/workflow/test_reusability_reruns.py": 60,
    "tests/workflow/test_hostile_names.py": 55,
    "tests/workflow/test_interrupted_and_failed_runs.py": 51,
    "tests/workflow/test_run_inclusion.py": 44,
    "tests/workflow/test_input_fingerprint.py": 27,
    "tests/workflow/test_config_guards.py": 24,
    "tests/workflow/test_audit_workflow.py": 23,
}


def heaviest_first(files: list[str]) -> list[str]:
    """``files`` (test file paths relative to the project, in pytest-xdist's order) with
    those of MEASURED_CPU_SECONDS first, most seconds first; the others after them in their
    given order. A file measured but not given is left out (a file ``-k`` or a path did not
    select)."""
    measured = sorted((f for f in files if f in MEASURED_CPU_SECONDS), key=lambda f: -MEASURED_CPU_SECONDS[f])
    return measured + [f for f in files if f not in MEASURED_CPU_SECONDS]


def scheduler(config, log):
    """pytest-xdist's file scheduler (``--dist loadfile``) handing out the files in
    :func:`heaviest_first`'s order."""
    from collections import OrderedDict

    from xdist.scheduler import LoadFileScheduling

    class HeaviestFirst(LoadFileScheduling):
        ordered = False

        def _assign_work_unit(self, node):
            # the queue is complete when the first file is handed out (schedule() builds it, then
            # assigns): reorder it then, once
            if not self.ordered:
                self.workqueue = OrderedDict((f, self.workqueue[f]) for f in heaviest_first(list(self.workqueue)))
                self.ordered = True
            super()._assign_work_unit(node)

    return HeaviestFirst(config, log)
