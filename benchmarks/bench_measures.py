"""Whole processes: every trec_eval 10 measure (``-m all_trec``) from reeval against trec_eval
10.0 itself, and the three common measures against another reeval checkout.

    .venv/bin/python benchmarks/bench_measures.py [--repeat 3] [--shapes b,c,d] [--baseline DIR] [--markdown]

Tools, each a process started as a user starts it, stdout to a file:

  reeval      ``.venv/bin/reeval score --quiet -c -m all_trec QRELS RUN...`` (one process, every run)
  trec_eval   ``trec_eval -c -m all_trec QRELS RUN``, trec_eval 10.0 built by this benchmark from
              ../shared/oracles (its own Makefile) under benchmarks/.data/; one process per run
              (it reads one run), decompressed copies (it reads no gzip); time and CPU summed
  with --baseline DIR, the common measures (``-m map -m P.20 -m recip_rank``, as bench_cli.py)
  through this checkout's console script and DIR/.venv/bin/reeval, in the same rounds

Shapes are bench_cli.py's (b: TREC-COVID round 1, 143 runs; c: DL-2019 passages, 37 runs;
d: gen_track.py --runs 20, 20 runs x 250 topics x 1000). Every input is read once first,
every command runs once untimed, then each round runs every command once in an order
rotated by one per round. Per shape and command: median wall time, the median of the
per-round ratios to the first command's time, median CPU (user + system of the children).
The outputs of reeval and trec_eval are compared line by line (they must be equal). Nothing
here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_cli  # noqa: E402 - the shapes and their inputs

PROJECT = bench_cli.PROJECT
ORACLES = PROJECT.parent / "shared" / "oracles"
COMMON = ["-m", "map", "-m", "P.20", "-m", "recip_rank"]


def trec_eval10() -> Path:
    """trec_eval 10.0 built from ../shared/oracles with its own Makefile (once)."""
    def make(tmp: Path):
        (tarball,) = sorted(ORACLES.glob("trec_eval-10.0*.tar.gz"))[-1:]
        with tarfile.open(tarball) as tar:
            tar.extractall(tmp, filter="data")
        (source,) = [p for p in tmp.iterdir() if (p / "Makefile").is_file()]
        subprocess.run(["make", "-s", "-C", str(source), "trec_eval"], check=True, capture_output=True)

    out = bench_cli.build_once(bench_cli.CACHE / "trec_eval-10.0", make)
    return next(out.glob("*/trec_eval"))


def timed(argvs: list, out_path: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of running each argv in turn, stdout appended to out_path."""
    wall = cpu = 0.0
    with open(out_path, "wb") as out:
        for argv in argvs:
            start = time.perf_counter()
            proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL)
            _, status, usage = os.wait4(proc.pid, 0)
            wall += time.perf_counter() - start
            cpu += usage.ru_utime + usage.ru_stime
            if os.waitstatus_to_exitcode(status) != 0:
                raise SystemExit(f"failed: {' '.join(map(str, argv))}")
    return wall, cpu


def commands(shape, trec_eval: Path, baseline: Path | None) -> dict:
    """label -> list of argvs (one process each)."""
    reeval = str(PROJECT / ".venv" / "bin" / "reeval")
    native, plain = shape.native, shape.plain
    out = {"reeval all_trec": [[reeval, "score", "--quiet", "-c", "-m", "all_trec", native.qrels, *native.runs]],
           "trec_eval 10 all_trec": [[str(trec_eval), "-c", "-m", "all_trec", plain.qrels, run] for run in plain.runs]}
    if baseline is not None:
        out["reeval common"] = [[reeval, "score", "--quiet", "--float32", *COMMON, native.qrels, *native.runs]]
        out["baseline common"] = [[str(baseline / ".venv" / "bin" / "reeval"), "score", "--quiet", "--float32",
                                   *COMMON, native.qrels, *native.runs]]
    return out


def same_lines(reeval_out: Path, trec_eval_out: Path, runs: list) -> bool:
    """reeval's lines (each after its run's name) equal trec_eval's, run by run."""
    ours = [line.split("\t", 1)[1] for line in reeval_out.read_text().splitlines()] if len(runs) > 1 else \
        reeval_out.read_text().splitlines()
    return ours == trec_eval_out.read_text().splitlines()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--shapes", default="b,c,d")
    ap.add_argument("--baseline", type=Path, help="another reeval checkout with its .venv (e.g. main)")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    data = PROJECT.parent / "shared" / "data"
    shapes = [s for s in (bench_cli.make_shape(k, data, PROJECT.parent / "shared" / "bench" / "gen_track.py")
                          for k in args.shapes.split(",")) if s is not None]
    bench_cli.warm(shapes)
    trec_eval = trec_eval10()
    work = bench_cli.CACHE / "measures-out"
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    for shape in shapes:
        cmds = commands(shape, trec_eval, args.baseline)
        labels = list(cmds)
        for label in labels:  # untimed: page cache, byte-compiled files
            timed(cmds[label], work / f"{label}.out")
        if not same_lines(work / "reeval all_trec.out", work / "trec_eval 10 all_trec.out", shape.native.runs):
            print(f"shape {shape.key}: reeval's lines differ from trec_eval's", file=sys.stderr)
            return 1
        walls = {label: [] for label in labels}
        cpus = {label: [] for label in labels}
        for r in range(args.repeat):
            order = labels[r % len(labels):] + labels[:r % len(labels)]
            for label in order:
                wall, cpu = timed(cmds[label], work / f"{label}.out")
                walls[label].append(wall)
                cpus[label].append(cpu)
        for label in labels:
            base = "reeval all_trec" if "all_trec" in label else "reeval common"
            ratio = statistics.median(w / b for w, b in zip(walls[label], walls[base]))
            rows.append((shape.key, label, statistics.median(walls[label]), ratio, statistics.median(cpus[label]),
                         len(cmds[label])))
    head = "| shape | command | median wall s | x reeval (same measures) | cpu s | processes |"
    print(head if args.markdown else head.replace("|", " "))
    if args.markdown:
        print("|---|---|---|---|---|---|")
    for key, label, wall, ratio, cpu, n in rows:
        cells = [key, label, f"{wall:.2f}", f"{ratio:.2f}", f"{cpu:.2f}", str(n)]
        print("| " + " | ".join(cells) + " |" if args.markdown else "  ".join(cells))
    print(f"load average {os.getloadavg()[0]:.1f} at the end; {shutil.which('nproc') and os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
