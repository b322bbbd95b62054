"""Ingest throughput on every real track in ../shared/data (MB/s of uncompressed text).

    .venv/bin/python benchmarks/bench_ingest.py
"""

import glob
import resource
import time
from pathlib import Path

from reeval.io.ingest import ingest_track
from reeval.io.sources import read_source

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def main():
    total_mb = total_s = 0.0
    total_lines = 0
    print(f"{'track':<28} {'runs':>5} {'lines':>10} {'MB':>7} {'s':>6} {'MB/s':>6}")
    for track in sorted(p.name for p in DATA.iterdir() if p.is_dir()):
        qrels = glob.glob(str(DATA / track / "qrels" / "*"))[0]
        runs = sorted(glob.glob(str(DATA / track / "runs" / "*")))
        mb = sum(len(read_source(p).data) for p in runs + [qrels]) / 1e6
        t = time.perf_counter()
        tables = ingest_track(track, qrels, runs)
        s = time.perf_counter() - t
        lines = int(tables.report.lines_read.sum())
        total_mb, total_s, total_lines = total_mb + mb, total_s + s, total_lines + lines
        print(f"{track:<28} {len(runs):>5} {lines:>10,} {mb:>7.1f} {s:>6.2f} {mb / s:>6.1f}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{'all':<28} {'':>5} {total_lines:>10,} {total_mb:>7.1f} {total_s:>6.2f} "
          f"{total_mb / total_s:>6.1f}   peak RSS {peak:.0f} MB")


if __name__ == "__main__":
    main()
