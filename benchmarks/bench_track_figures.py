"""Whole processes: the ``track_figures`` job's work on tracks a workflow has made, by this
checkout and optionally another, in alternating rounds.

    .venv/bin/python benchmarks/bench_track_figures.py --results DIR --track T [--track T2] [--baseline SRC]
        [--repeat 3] [--workers 2]

Each timed command is one fresh Python process (``PYTHONPATH`` this checkout's ``src``, or
``SRC`` with ``--baseline``) that does what ``scripts/track_figures.py`` does for one track
of ``DIR`` (a workflow's results folder): the lexicographic precision, reusability,
rareness and ASL study (figures 5-6, the default buckets) figures, written over the track's
own (the tables are read, never written), drawn by ``--workers`` forked processes as the
rule's threads do (a checkout from before the step workers: each figure saved by a forked
worker while the next is drawn; older: each in turn). Every command runs once
untimed, then each round runs them all in an order rotated by one per round. Per track and
checkout: the wall time and the CPU (user + system of the child and its workers) of each
round, their median and range. The machine's load changes the wall time far more than the
CPU: read both. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]

#: the job's work for one track: argv results, track, lexiprecision relevance level
JOB = """
import sys
from pathlib import Path
from reeval.analyses.asl.report import FIGURE_OPTION_KEYS, track_study_figures
from reeval.analyses.lexiprecision.report import track_lexiprecision_figures
from reeval.analyses.rareness.report import track_rareness_figures
from reeval.analyses.reusability.report import track_reusability_figure
from reeval.workflow.config_check import section_with_defaults
results, track, level, workers = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
study = section_with_defaults("study", {})
d = results / "tracks" / track
steps = [lambda: track_lexiprecision_figures(track, d / "lexiprecision", level),
         lambda: track_reusability_figure(track, d / "reusability"),
         lambda: track_rareness_figures(track, d / "rareness"),
         lambda: track_study_figures(track, d, d / "study", {key: study[key] for key in FIGURE_OPTION_KEYS})]
try:  # each step's figures drawn by a forked worker, as the rule does
    from reeval.report.figure_workers import in_worker, worker_pool
    with worker_pool(workers):
        for k, step in enumerate(steps):
            in_worker(step, f"step {k}")
except ImportError:  # a checkout from before: each figure saved by a worker while the next is drawn
    try:
        from reeval.report.figures import saving_in_workers
    except ImportError:  # older still: each figure saved in turn
        from contextlib import nullcontext as saving_in_workers
    with saving_in_workers(workers):
        for k in (2, 3, 0, 1):  # that checkout's rule's order
            steps[k]()
"""


def run(src: Path, results: Path, track: str, level: int, workers: int) -> tuple[float, float]:
    """(wall s, CPU s) of one process doing the job on ``track`` with the code of ``src``
    (the CPU of the process and of the workers it forked)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", JOB, str(results), track, str(level), str(workers)], check=True,
                   env={**os.environ, "PYTHONPATH": str(src)})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", type=Path, required=True, help="a workflow's results folder")
    ap.add_argument("--track", action="append", required=True, help="a track of it (repeatable)")
    ap.add_argument("--baseline", type=Path, help="another checkout's src folder (e.g. main's)")
    ap.add_argument("--repeat", type=int, default=3, help="timed rounds (default 3)")
    ap.add_argument("--level", type=int, default=1, help="the lexiprecision relevance level (default 1)")
    ap.add_argument("--workers", type=int, default=2,
                    help="processes drawing figures, as the rule's threads (default 2; 1: in turn)")
    args = ap.parse_args()
    checkouts = {"this": PROJECT / "src", **({"baseline": args.baseline} if args.baseline else {})}
    commands = [(name, src, track) for track in args.track for name, src in checkouts.items()]
    for name, src, track in commands:
        run(src, args.results, track, args.level, args.workers)  # untimed: bytecode and file caches
    times: dict = {c[::2]: [] for c in commands}
    for k in range(args.repeat):
        for name, src, track in commands[k % len(commands):] + commands[:k % len(commands)]:
            times[(name, track)].append(run(src, args.results, track, args.level, args.workers))
    print("| track | checkout | wall s, median (range) | CPU s, median (range) | rounds |")
    print("|---|---|---|---|---|")
    for (name, track), rounds in times.items():
        walls, cpus = [w for w, _ in rounds], [c for _, c in rounds]
        print(f"| {track} | {name} | {statistics.median(walls):.1f} ({min(walls):.1f}-{max(walls):.1f}) "
              f"| {statistics.median(cpus):.1f} ({min(cpus):.1f}-{max(cpus):.1f}) | {len(rounds)} |")


if __name__ == "__main__":
    main()
