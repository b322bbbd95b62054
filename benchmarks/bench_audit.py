"""Audit job against measures job (issue 40): the audit of a track's official figures costs at
most its measures job, whole processes as Snakemake runs them.

    .venv/bin/python benchmarks/bench_audit.py [--config config/shared-data.yaml] [--out /tmp/bench-audit]

Runs ``snakemake --cores 1`` (one job at a time: no job shares the core it is timed on) for
the measures and audit outputs of every track of ``--config`` that gives an ``official:``
file, into ``--out``, then reads Snakemake's own benchmark files (``benchmarks/measures/`` and
``benchmarks/audit/``: CPU seconds and peak RSS of each job's process, interpreter start and
imports included) and prints one line per track: the two jobs' CPU and memory and the ratio
audit / measures. A track's ingest runs first and is not timed here (both jobs read its tables).
"""

import argparse
import subprocess
import sys
from pathlib import Path

import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[1]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(ROOT / "config" / "shared-data.yaml"))
    parser.add_argument("--out", default="/tmp/bench-audit")
    args = parser.parse_args(argv)
    cfg = yaml.safe_load(Path(args.config).read_text())
    tracks = sorted(t for t, e in cfg["tracks"].items() if e.get("official"))
    out = Path(args.out)
    targets = [str(out / "tracks" / t / name) for t in tracks
               for name in ("measures_by_run.csv", "audit/official.csv")]
    subprocess.run([sys.executable, "-m", "snakemake", *targets, "--cores", "1", "--configfile", args.config,
                    "--config", f"results={out}"], cwd=ROOT, check=True)
    print(f"{'track':<22} {'measures CPU s':>14} {'audit CPU s':>12} {'ratio':>6} {'measures MB':>12} {'audit MB':>9}")
    for t in tracks:
        m, a = (pd.read_csv(out / "benchmarks" / step / f"{t}.tsv", sep="\t").iloc[0] for step in ("measures", "audit"))
        print(f"{t:<22} {m.cpu_time:>14.2f} {a.cpu_time:>12.2f} {a.cpu_time / m.cpu_time:>6.2f} "
              f"{m.max_rss:>12.0f} {a.max_rss:>9.0f}")


if __name__ == "__main__":
    main()
