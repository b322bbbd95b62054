"""One run, as a user types it: ``reeval score -m map -m P_20 -m recip_rank QRELS RUN`` against
pytrec_eval-terrier doing the same in its own process, back to back, many rounds.

    .venv/bin/python benchmarks/bench_one_run.py [--rounds 40] [--run BBGhelani1] [--gzip]
        [--reeval PATH] [--data ../shared/data]

The inputs are one TREC-COVID round 1 run (30,000 lines; BBGhelani1 unless --run) and the
round's qrels, decompressed once under benchmarks/.data/cli/ (bench_cli.py's shape a), or
the gzip files as shipped with --gzip. The two processes:

  reeval       ``reeval score -m map -m P_20 -m recip_rank QRELS RUN`` through the console
               script (default: beside this interpreter; ``PYTHONPATH=src`` in the
               environment runs the sources of the working tree), exactly as typed: float64
               order, 4 decimals, notes on stderr
  pytrec_eval  bench_cli.py's script: parse_qrel, RelevanceEvaluator(qrels, {map, P_20,
               recip_rank}), parse_run, evaluate, the means over the topics in sorted order

Interpreter start and imports are included, bytecode cached (PYTHONDONTWRITEBYTECODE is
removed from the children's environment and each tool runs once untimed first). Each round
runs both tools once, the first of them alternating from round to round, so that drift of a
busy machine hits both alike. Printed: per tool the median wall time and median CPU time
(user + system from os.wait4 on the child), and the medians of the per-round ratios reeval /
pytrec_eval of wall and of CPU time (the number the target is about: below 1, reeval is
faster). The means must agree to trec_eval's 4 decimals (reeval prints 4, pytrec_eval 17
digits): exit status 1 if they do not or a tool fails. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

import bench_cli as bc

MEASURES = ["-m", "map", "-m", "P_20", "-m", "recip_rank"]


def inputs(data: Path, run: str, gzipped: bool) -> bc.Inputs:
    """QRELS and RUN of TREC-COVID round 1: the shipped gzip files, or their decompressed copies."""
    track = data / "trec-covid-round1"
    if not track.is_dir():
        raise SystemExit(f"{track} is absent")
    files = bc.track_files(track, "qrels/*") if gzipped else bc.decompressed(track)
    chosen = [p for p in files.runs if Path(bc.strip_gz(p)).name == run]
    if not chosen:
        raise SystemExit(f"no run {run!r} in {track / 'runs'}")
    return bc.Inputs(files.qrels, chosen)


def commands(reeval: str, script: Path, files: bc.Inputs) -> dict:
    """The two command lines, by tool."""
    return {"reeval": [reeval, "score", *MEASURES, files.qrels, *files.runs],
            "pytrec_eval": [sys.executable, str(script), files.qrels, *files.runs]}


def timed(cmd: list, tmp: Path) -> tuple:
    """(wall s, CPU s, the run's means) of one process; SystemExit naming the tool's last stderr line on failure."""
    wall, usage, status = bc.run_process(cmd, tmp / "stdout", tmp / "stderr")
    if status != 0:
        tail = (tmp / "stderr").read_text(errors="replace").strip().splitlines()
        raise SystemExit(f"{cmd[0]} exited {status}: {tail[-1] if tail else ''}")
    means = bc.parse_means((tmp / "stdout").read_text(errors="replace"))
    return wall, usage.ru_utime + usage.ru_stime, means


def agree(reeval: list, pytrec: list) -> list:
    """The measures whose 4-decimal values differ (reeval prints trec_eval's ``%6.4f``)."""
    if len(reeval) != 1 or len(pytrec) != 1:
        return [f"printed {len(reeval)} and {len(pytrec)} runs' means, 1 expected"]
    return [f"{m}: {reeval[0].get(m)} vs {pytrec[0].get(m)}" for m in bc.MEASURES
            if m not in reeval[0] or abs(reeval[0][m] - pytrec[0][m]) > 0.5e-4 + 1e-12]


def bench(cmds: dict, rounds: int, tmp: Path) -> dict:
    """Per tool, the (wall, cpu) of each round; the first tool alternates between rounds."""
    order = list(cmds)
    for name in order:  # untimed: byte-compiled files written, page cache filled
        timed(cmds[name], tmp)
    times: dict = {name: [] for name in order}
    for r in range(rounds):
        for name in order[r % 2:] + order[:r % 2]:
            wall, cpu, _ = timed(cmds[name], tmp)
            times[name].append((wall, cpu))
    return times


def summary(times: dict) -> dict:
    """Medians of wall and CPU per tool, and of the per-round ratios reeval / pytrec_eval."""
    out = {name: (statistics.median(w for w, _ in t), statistics.median(c for _, c in t)) for name, t in times.items()}
    pairs = list(zip(times["reeval"], times["pytrec_eval"]))
    out["ratio"] = (statistics.median(a[0] / b[0] for a, b in pairs), statistics.median(a[1] / b[1] for a, b in pairs))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=40, help="timed rounds (default 40)")
    ap.add_argument("--run", default=bc.ONE_RUN, help=f"the round 1 run (default {bc.ONE_RUN})")
    ap.add_argument("--gzip", action="store_true", help="read the gzip files as shipped (default: decompressed copies)")
    ap.add_argument("--data", type=Path, default=bc.SHARED / "data", help="the real tracks (default ../shared/data)")
    ap.add_argument("--reeval", default=str(Path(sys.executable).parent / "reeval"),
                    help="reeval's console script (default: beside this interpreter)")
    args = ap.parse_args(argv)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    files = inputs(args.data, args.run, args.gzip)
    with tempfile.TemporaryDirectory(prefix="bench_one_run-") as folder:
        tmp = Path(folder)
        bc.write_scripts(tmp)
        cmds = commands(args.reeval, tmp / "pytrec_eval_means.py", files)
        differ = agree(timed(cmds["reeval"], tmp)[2], timed(cmds["pytrec_eval"], tmp)[2])
        load = os.getloadavg()[0]
        s = summary(bench(cmds, args.rounds, tmp))
    print(f"{args.run} ({'gzip' if args.gzip else 'decompressed'}), {args.rounds} rounds, "
          f"load average before / after: {load:.2f} / {os.getloadavg()[0]:.2f}")
    print(f"{'tool':<12} {'wall s':>8} {'cpu s':>8}")
    for name in ("reeval", "pytrec_eval"):
        print(f"{name:<12} {s[name][0]:>8.3f} {s[name][1]:>8.3f}")
    print(f"reeval / pytrec_eval, median of per-round ratios: wall {s['ratio'][0]:.2f}, cpu {s['ratio'][1]:.2f}")
    for line in differ:
        print(f"!! means differ: {line}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
