"""Reusability job against measures job: the leave-one-group-out step costs at most twice the
measures step of the same track (issue 33).

    PYTHONPATH=src .venv/bin/python benchmarks/bench_reusability.py [--track-dir DIR ...]
        [--synthetic-runs 300] [--topics 50] [--repeat 3] [--out benchmarks/.data/reusability]
        [--groups FILE --pooled FILE --depth N]

For each ingested track folder given (a workflow result's ``tracks/<track>``, e.g. after
``snakemake --configfile config/shared-data.yaml``) and for one synthetic track of
``--synthetic-runs`` runs (``reeval.synth.tracks``, ingested into ``OUT``): times, in this
process, the measures step (``reeval.workflow.measures_step.track_measures`` with the
workflow's default measures and those the ASL study reads, as the measures rule) and the reusability step
(``reeval.analyses.reusability.report.track_reusability`` with the default
``reusability.measures``, each run its own group (the most groups: the worst case), pool
depth 100, its figure only with ``--figures``; ``--groups``/``--pooled``/``--depth`` as
``reeval reusability`` takes them, for the track folders given), best of ``--repeat``, CPU seconds (``time.process_time``) and
wall seconds; prints one line per track with the ratio reusability / measures.
"""

import argparse
import time
from pathlib import Path


def default(key: str, section: str | None = None):
    """A default of the workflow's config schema."""
    from reeval.workflow.config_check import load_schema

    props = load_schema()["properties"]
    return props[section]["properties"][key]["default"] if section else props[key]["default"]


def timed(fn, repeat: int) -> tuple[float, float]:
    """(best CPU s, best wall s) of ``fn()`` over ``repeat`` calls."""
    cpu, wall = [], []
    for _ in range(repeat):
        c, w = time.process_time(), time.perf_counter()
        fn()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return min(cpu), min(wall)


def synthetic_track(out: Path, runs: int, topics: int) -> Path:
    """A synthetic track of ``runs`` runs and ``topics`` topics, ingested under ``out``."""
    from reeval.io.ingest import ingest_track, write_track
    from reeval.synth.tracks import TrackSpec
    from reeval.synth.tracks import write_track as write_synthetic

    raw, folder = out / f"syn{runs}-raw", out / f"syn{runs}"
    if not (folder / "judged.parquet").is_file():
        write_synthetic(raw, TrackSpec(n_runs=runs, n_topics=topics, depth=1000, compress="none"), seed=0)
        tables = ingest_track(f"syn{runs}", raw / "qrels.txt", sorted((raw / "runs").iterdir()))
        write_track(tables, folder)
    return folder


def bench(track_dir: Path, out: Path, repeat: int, figures: bool = False, groups=None, pooled=None,
          depth: int | None = None) -> str:
    from reeval.analyses.asl.study import REQUIRED_MEASURES
    from reeval.analyses.reusability.report import track_reusability
    from reeval.workflow.measures_step import track_measures

    name = track_dir.name
    m_out, r_out = out / "measures" / name, out / "reusability" / name
    m_out.mkdir(parents=True, exist_ok=True)
    r_out.mkdir(parents=True, exist_ok=True)
    measures = list(default("measures")) + list(REQUIRED_MEASURES)  # as the workflow's MEASURE_SPECS
    m = timed(lambda: track_measures(name, track_dir, m_out, measures), repeat)
    depth = depth or default("depth", "reusability")
    r = timed(lambda: track_reusability(name, track_dir, r_out, default("measures", "reusability"), groups=groups,
                                        depth=depth, pooled=pooled, figures=figures), repeat)
    return (f"{name}: measures {m[0]:.2f} s CPU ({m[1]:.2f} s wall), reusability {r[0]:.2f} s CPU "
            f"({r[1]:.2f} s wall), ratio {r[0] / m[0]:.2f}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--track-dir", action="append", default=[], type=Path)
    parser.add_argument("--synthetic-runs", type=int, default=300, help="0: no synthetic track")
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/.data/reusability"))
    parser.add_argument("--figures", action="store_true", help="the reusability step draws its figure too")
    parser.add_argument("--groups", help="the runs' groups of the track folders (as reeval reusability --groups)")
    parser.add_argument("--pooled", help="their pooled runs (as reeval reusability --pooled)")
    parser.add_argument("--depth", type=int, help="their pool depth (default: the workflow's)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    from reeval.analyses.reusability.groups import read_groups

    for d in args.track_dir:
        print(bench(d, args.out, args.repeat, args.figures, args.groups and read_groups(args.groups), args.pooled,
                    args.depth), flush=True)
    if args.synthetic_runs:
        print(bench(synthetic_track(args.out, args.synthetic_runs, args.topics), args.out, args.repeat,
                    args.figures), flush=True)


if __name__ == "__main__":
    main()
