"""Every per-track job of the workflow on tracks of many runs, through Snakemake itself.

    PYTHONPATH=src .venv/bin/python benchmarks/bench_many_runs.py [--runs 300 1000 3000]
        [--lines 1 1000] [--cores 2] [--max-pair-lines 1e10] [--out /tmp/bench_many_runs] [--skip-run]

Writes one track per (lines, runs) pair under ``OUT/tracks``, seeded, all runs of one depth:

  1 line      run r answers topic r mod 12 with one document (bench_pairs.py's track):
              12 judged topics, 20 judgments each (5 relevant)
  1000 lines  10 judged topics x 100 documents, drawn from a pool of 300 documents a topic
              of which 40 are judged (10 relevant); scores descending with the rank

then runs ``snakemake TARGET... --cores C --configfile OUT/config.yaml --rerun-incomplete``
into ``OUT/results``, the targets being one output of each track's ``analyses`` and
``reusability`` jobs (:data:`TARGETS`), so that every per-track job runs and none of the
cross-track ones (per-track figures off, as in the 82-track study). The ``analyses`` job
compares every pair of runs (its cost grows with runs^2 x lines): it is left out of the
tracks where runs^2 x lines exceeds ``--max-pair-lines`` (``measures`` is then a target of
its own). The default, 1e10, keeps every track of the defaults: the largest, 3,000 runs of
1,000 lines (9e9), took 6.5 min and 1.8 GB in ``analyses`` on a quiet 2-core machine, the
whole benchmark 7 min (docs/cluster.md). Then reads each job's Snakemake benchmark file
(``results/benchmarks/<rule>/<track>.tsv``: wall s, cpu_time, max_rss; Snakemake samples a
job every 0.5 s for 15 s, then every 30 s, so the CPU time and peak of a longer job are
those of its last sample) and prints, per shape, one row per rule (wall s / CPU s / peak MB
by runs) and how its CPU grows from the fewest to the most runs: x10 runs gives x10 for a
pass linear in runs, x100 for one over pairs of runs. The Snakemake printout goes to
``OUT/snakemake.log``. With ``--skip-run``, only the benchmark files of an earlier run are
read. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PER_TRACK_RULES = ("ingest", "measures", "analyses", "reusability")
#: one output of each last per-track job (ingest and measures run before analyses)
TARGETS = ("lexiprecision/pairs.parquet", "reusability/by_run.parquet")
MEASURES_TARGET = "measures_by_run.parquet"  # without analyses, measures is not a dependency of reusability


def one_line_track(folder: Path, n_runs: int) -> None:
    """qrels of 12 topics x 20 judgments (d0-d4 relevant); run r: one line on topic r mod 12."""
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    (folder / "qrels.txt").write_text("".join(f"{t} 0 d{d} {int(d < 5)}\n" for t in range(12) for d in range(20)))
    for r in range(n_runs):
        (folder / "runs" / f"r{r:05d}").write_text(f"{r % 12} Q0 d{(r * 7) % 23} 1 {r % 10} r{r:05d}\n")


def deep_track(folder: Path, n_runs: int, topics: int = 10, depth: int = 100, seed: int = 41) -> None:
    """qrels of ``topics`` topics x 40 judgments (10 relevant, grades 1-2); each run ranks
    ``depth`` of 300 documents a topic, drawn at random (every run distinct)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    (folder / "qrels.txt").write_text("".join(f"{t} 0 d{d} {(d < 10) + (d < 3)}\n"
                                              for t in range(topics) for d in range(40)))
    for r in range(n_runs):
        lines = [f"{t} Q0 d{d} {k + 1} {1000 - k} r{r:05d}\n"
                 for t in range(topics) for k, d in enumerate(rng.choice(300, depth, replace=False))]
        (folder / "runs" / f"r{r:05d}").write_text("".join(lines))


def track_name(lines: int, runs: int) -> str:
    return f"lines{lines}-runs{runs}"


def write_study(out: Path, sizes: list[int], shapes: list[int], max_pair_lines: float) -> tuple[Path, list[str]]:
    """The tracks (written once, reused) and the config naming them; returns the config and
    the Snakemake targets (no analyses job where runs^2 x lines > ``max_pair_lines``)."""
    entries, targets = [], []
    for lines in shapes:
        for runs in sizes:
            name = track_name(lines, runs)
            folder = out / "tracks" / name
            if not (folder / "runs").is_dir() or len(os.listdir(folder / "runs")) != runs:
                (one_line_track if lines == 1 else deep_track)(folder, runs)
            entries.append(f"  {name}:\n    qrels: {folder / 'qrels.txt'}\n    runs: {folder / 'runs'}\n")
            wanted = TARGETS if runs * runs * lines <= max_pair_lines else TARGETS[1:] + (MEASURES_TARGET,)
            targets += [str(out / "results" / "tracks" / name / target) for target in wanted]
    config = out / "config.yaml"
    config.write_text(f"results: {out / 'results'}\nfigures:\n  per_track: false\ntracks:\n" + "".join(entries))
    return config, targets


def read_benchmarks(results: Path, sizes: list[int], shapes: list[int]) -> list[dict]:
    """One row per job found: rule, lines, runs, wall s, CPU s, peak MB (NA when the job
    ended before Snakemake's first memory sample)."""
    import pandas as pd

    rows = []
    for rule in PER_TRACK_RULES:
        for lines in shapes:
            for runs in sizes:
                tsv = results / "benchmarks" / rule / f"{track_name(lines, runs)}.tsv"
                if tsv.exists():
                    b = pd.read_csv(tsv, sep="\t").iloc[-1]
                    rows.append({"rule": rule, "lines": lines, "runs": runs, "wall_s": float(b["s"]),
                                 "cpu_s": float(b["cpu_time"]), "peak_mb": b["max_rss"]})
    return rows


def print_tables(rows: list[dict], sizes: list[int], shapes: list[int]) -> None:
    """Markdown: per shape, one row per rule, wall / CPU / peak by runs, then the growth."""
    for lines in shapes:
        print(f"\nRuns of {lines:,} line{'s' if lines > 1 else ''}: wall s / CPU s / peak MB per job\n")
        print("| rule | " + " | ".join(f"{n:,} runs" for n in sizes) + f" | CPU x{sizes[-1] // sizes[0]} runs |")
        print("|---" * (len(sizes) + 2) + "|")
        for rule in PER_TRACK_RULES:
            got = {r["runs"]: r for r in rows if r["rule"] == rule and r["lines"] == lines}
            cells = [f"{got[n]['wall_s']:.1f} / {got[n]['cpu_s']:.1f} / {_mb(got[n]['peak_mb'])}" if n in got else "-"
                     for n in sizes]
            lo, hi = got.get(sizes[0]), got.get(sizes[-1])
            growth = f"{hi['cpu_s'] / lo['cpu_s']:.1f}" if lo and hi and lo["cpu_s"] > 0 else "-"
            print(f"| {rule} | " + " | ".join(cells) + f" | {growth} |")


def _mb(value) -> str:
    """A peak in MB as a whole number, or NA (a job shorter than Snakemake's first sample)."""
    try:
        return f"{float(value):.0f}"
    except (TypeError, ValueError):
        return "NA"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, nargs="+", default=[300, 1000, 3000])
    ap.add_argument("--lines", type=int, nargs="+", choices=(1, 1000), default=[1, 1000])
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--max-pair-lines", type=float, default=1e10,
                    help="no analyses job on a track whose runs^2 x lines exceeds this (default 1e10)")
    ap.add_argument("--out", type=Path, default=Path("/tmp/bench_many_runs"))
    ap.add_argument("--skip-run", action="store_true", help="only read the benchmark files of an earlier run")
    args = ap.parse_args(argv)
    sizes, out = sorted(args.runs), args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    config, targets = write_study(out, sizes, args.lines, args.max_pair_lines)
    if not args.skip_run:
        cmd = [str(Path(sys.executable).parent / "snakemake"), *targets, "--cores", str(args.cores),
               "--configfile", str(config), "--rerun-incomplete"]
        load, t = os.getloadavg()[0], time.perf_counter()
        with open(out / "snakemake.log", "w") as log:
            code = subprocess.run(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT).returncode
        print(f"snakemake: exit {code}, {time.perf_counter() - t:.0f} s wall on {args.cores} cores; "
              f"load average {load:.1f} before, {os.getloadavg()[0]:.1f} after")
        if code:
            print(f"see {out / 'snakemake.log'}")
    print_tables(read_benchmarks(out / "results", sizes, args.lines), sizes, args.lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
