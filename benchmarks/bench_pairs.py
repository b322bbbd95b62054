"""The analyses job on a track of many one-line runs: wall time and peak memory per study.

    PYTHONPATH=src .venv/bin/python benchmarks/bench_pairs.py [--runs 3000] [--topics 12] [--out DIR]

Writes a track of ``--runs`` runs of one line each (run r answers topic r mod T with one
document) over ``--topics`` judged topics (20 judgments each, 5 relevant), ingests it,
computes the measures, then runs the three studies of the ``analyses`` rule (rareness,
the ASL study's per-track part, lexicographic precision) with the workflow's default
options, timing each and printing the process's peak resident memory after each. The
issue's shape (issue 31, item 11): 3,000 runs, 4.5 M pairs. Run it under
``/usr/bin/time -v`` for the whole process's peak.
"""

import argparse
import resource
import time
from pathlib import Path

from reeval.analyses.asl.report import study_options, track_study, track_study_options
from reeval.analyses.lexiprecision.report import track_lexiprecision
from reeval.analyses.rareness.report import track_rareness, with_parsed_alphas
from reeval.io.ingest import ingest_track, write_track
from reeval.workflow.config_check import section_with_defaults
from reeval.workflow.measures_step import track_measures

MEASURES = ["map", "P.10", "P.20", "recip_rank", "ndcg_cut.10", "ASL", "ASL@g1", "ASL@g1-10"]


def write_one_line_track(src: Path, n_runs: int, n_topics: int) -> tuple:
    """qrels (20 judged documents per topic, d0-d4 relevant) and n_runs one-line run files."""
    (src / "runs").mkdir(parents=True, exist_ok=True)
    qrels = src / "qrels.txt"
    qrels.write_text("".join(f"{t} 0 d{d} {int(d < 5)}\n" for t in range(n_topics) for d in range(20)))
    runs = []
    for r in range(n_runs):
        path = src / "runs" / f"r{r:05d}"
        path.write_text(f"{r % n_topics} Q0 d{(r * 7) % 23} 1 {r % 10} r{r:05d}\n")
        runs.append(path)
    return qrels, runs


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3000)
    ap.add_argument("--topics", type=int, default=12)
    ap.add_argument("--out", default=None, help="folder of the track (default /tmp/bench_pairs/RUNSxTOPICS; "
                    "a track already there is reused)")
    ap.add_argument("--only", choices=("rareness", "study", "lexiprecision"), default=None)
    args = ap.parse_args()
    out = Path(args.out or f"/tmp/bench_pairs/{args.runs}x{args.topics}")
    track = out / "track"
    if not (track / "judged.parquet").exists():
        qrels, runs = write_one_line_track(out / "src", args.runs, args.topics)
        write_track(ingest_track("many", qrels, runs), track)
        track_measures("many", track, track, MEASURES)
    print(f"{args.runs} runs x {args.topics} topics; after ingest and measures: {peak_mb():.0f} MB peak", flush=True)
    steps = {
        "rareness": lambda: track_rareness("many", track, track / "rareness",
                                           with_parsed_alphas(section_with_defaults("rareness")), figures=False),
        "study": lambda: track_study("many", track, track / "study",
                                     track_study_options(study_options(section_with_defaults("study"))),
                                     figures=False),
        "lexiprecision": lambda: track_lexiprecision("many", track, track / "lexiprecision", rel_level=1,
                                                     config=section_with_defaults("lexiprecision"), figures=False),
    }
    for name, fn in steps.items():
        if args.only and name != args.only:
            continue
        t = time.perf_counter()
        fn()
        print(f"{name}: {time.perf_counter() - t:.1f} s, peak so far {peak_mb():.0f} MB", flush=True)


if __name__ == "__main__":
    main()
