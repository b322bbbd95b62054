"""The workflow on the built-in synthetic campaign (what `make run` runs): where its wall
time goes.

    .venv/bin/python benchmarks/bench_workflow.py [--repeat 3] [--cores 2] [--replay] [--root DIR]

Each round runs, in a fresh results folder under a temporary directory:

- ``snakemake -n`` (startup, Snakefile parsing and the DAG of every job, nothing run);
- ``snakemake --cores C`` on the default config (``config/config.yaml``), as ``make run``
  does: wall time, and the CPU time of Snakemake and every job (they are its children);
- the per-job wall and CPU times the rules' ``benchmark:`` files record
  (``results/benchmarks/<rule>/<track>.tsv``; the cross-track rules have none).

One warm-up run comes first (page cache, matplotlib's font cache), untimed. Medians over
``--repeat`` rounds are printed as a markdown table, each round's values beside them.

``--replay`` also runs the workflow once with ``--skip-script-cleanup`` and re-executes
every job's script (the file Snakemake writes: its preamble with the pickled job, then the
rule's script) on its own, ``--repeat`` times: the job's wall and CPU time without a
concurrent job, and those of the same file cut before the script's body (``sm =
snakemake``): interpreter start, Snakemake's preamble and the script's imports. That is
every rule's fixed cost per job, cross-track rules included.

``--root`` times another checkout of the project with this interpreter (its scripts and
Snakefile import reeval from their own ``src/``), e.g. the main branch exported by ``git
archive`` beside the compiled kernels, to compare before and after a change on the same
machine. The machine is shared and its speed drifts: compare rounds taken together.
"""

from __future__ import annotations

import argparse
import os
import csv
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BODY = "sm = snakemake"  # the first line of every rule script's body (scripts/*.py)


def timed(cmd, cwd) -> tuple[float, float]:
    """(wall s, CPU s of the command and its children) of one run; fails loudly."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, cmd))} failed:\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def benchmark_files(results: Path) -> dict[str, list[tuple[float, float]]]:
    """rule -> [(wall s, cpu s)] of its jobs' benchmark files."""
    out = defaultdict(list)
    for path in sorted((results / "benchmarks").glob("*/*.tsv")):
        with open(path) as f:
            row = next(csv.DictReader(f, delimiter="\t"))
        out[path.parent.name].append((float(row["s"]), float(row["cpu_time"])))
    return out


def med(values) -> str:
    return f"{statistics.median(values):.2f}"


def each(values) -> str:
    return ", ".join(f"{v:.2f}" for v in values)


def rounds(snakemake, root: Path, tmp: Path, cores: int, repeat: int) -> None:
    timed(snakemake + ["--cores", str(cores), "--config", f"results={tmp / 'warm-up'}"], root)
    dry, run, cpu, jobs = [], [], [], defaultdict(lambda: defaultdict(list))
    for i in range(repeat):
        dry.append(timed(snakemake + ["-n", "--config", f"results={tmp / f'dry{i}'}"], root)[0])
        results = tmp / f"run{i}"
        wall, used = timed(snakemake + ["--cores", str(cores), "--config", f"results={results}"], root)
        run.append(wall)
        cpu.append(used)
        for rule, values in benchmark_files(results).items():
            jobs[rule]["wall"].append(sum(v[0] for v in values) / len(values))
            jobs[rule]["cpu"].append(sum(v[1] for v in values) / len(values))
        print(f"round {i + 1}: run {wall:.2f} s (CPU {used:.2f} s), -n {dry[-1]:.2f} s", file=sys.stderr)
    print(f"\n{root}: median of {repeat} rounds (each round's value)\n")
    print("| what | median s | rounds |\n|---|---|---|")
    print(f"| snakemake --cores {cores} (wall) | {med(run)} | {each(run)} |")
    print(f"| snakemake --cores {cores} (CPU, every process) | {med(cpu)} | {each(cpu)} |")
    print(f"| snakemake -n (wall) | {med(dry)} | {each(dry)} |")
    for rule in sorted(jobs):
        print(f"| {rule}: job wall (mean over tracks) | {med(jobs[rule]['wall'])} | {each(jobs[rule]['wall'])} |")
        print(f"| {rule}: job CPU (mean over tracks) | {med(jobs[rule]['cpu'])} | {each(jobs[rule]['cpu'])} |")


def replay(snakemake, python, root: Path, tmp: Path, cores: int, repeat: int) -> None:
    scripts_dir = root / ".snakemake" / "scripts"
    known = set(scripts_dir.glob("*.py")) if scripts_dir.is_dir() else set()
    timed(snakemake + ["--cores", str(cores), "--skip-script-cleanup", "--config",
                       f"results={tmp / 'replay'}"], root)
    scripts = sorted(set(scripts_dir.glob("*.py")) - known)
    per_rule = defaultdict(lambda: defaultdict(list))
    try:
        for script in scripts:
            rule = script.name.split(".")[1]  # tmpXXXXXXXX.<rule>.py
            text = script.read_text()
            head = tmp / f"imports-{script.name}"
            head.write_text(text[:text.index(BODY)])
            for kind, path in (("job", script), ("imports", head)):
                for _ in range(repeat):
                    wall, used = timed([python, str(path)], root)
                    per_rule[rule][f"{kind} wall"].append(wall)
                    per_rule[rule][f"{kind} cpu"].append(used)
    finally:
        for script in scripts:
            script.unlink(missing_ok=True)
    print(f"\n{root}: every job re-run alone, {repeat} times; median s over its runs and tracks\n")
    print("| rule | jobs | job wall | job CPU | start + imports wall | start + imports CPU |")
    print("|---|---|---|---|---|---|")
    for rule, v in sorted(per_rule.items()):
        n = len(v["job wall"]) // repeat
        print(f"| {rule} | {n} | {med(v['job wall'])} | {med(v['job cpu'])} | {med(v['imports wall'])} | "
              f"{med(v['imports cpu'])} |")
    total = {k: sum(statistics.median(v[k][i:i + repeat]) for v in per_rule.values()
                    for i in range(0, len(v[k]), repeat)) for k in ("job cpu", "imports cpu")}
    print(f"\nsum over the {len(scripts)} jobs: CPU {total['job cpu']:.2f} s, of which start + imports "
          f"{total['imports cpu']:.2f} s")


def main(argv=None):
    # children write byte-compiled files, as a user's interpreter does (the warm-up run
    # writes them; some sandboxes set PYTHONDONTWRITEBYTECODE, recompiling every import)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout to time (default: this one)")
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--replay", action="store_true", help="also time every job's script on its own")
    ap.add_argument("--no-rounds", action="store_true", help="skip the timed workflow runs")
    args = ap.parse_args(argv)
    snakemake = [sys.executable, "-m", "snakemake"]
    root = args.root.resolve()
    with tempfile.TemporaryDirectory(prefix="bench_workflow-") as tmp:
        if not args.no_rounds:
            rounds(snakemake, root, Path(tmp), args.cores, args.repeat)
        if args.replay:
            replay(snakemake, sys.executable, root, Path(tmp), args.cores, args.repeat)


if __name__ == "__main__":
    main()
