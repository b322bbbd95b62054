"""Scale benchmark: the workflow on simulated real-shaped tracks, and the whole study projected.

    PYTHONPATH=src .venv/bin/python benchmarks/bench_scale.py [--largest 3 | --tracks NAME ...]
        [--topic-scale 1.0] [--max-lines 15e6] [--cores 2] [--out benchmarks/.scale]

1. Picks study tracks from the catalog-shaped campaign (``reeval.synth.campaign``, see its
   assumptions): ``--tracks`` by name, else the ``--largest`` N by run lines among those
   of at most ``--max-lines`` (after ``--topic-scale``, which keeps a share of the topics),
   the one with the most runs (costs in pairs of runs) and the smallest study track (the
   fixed cost of a job).
2. Runs the workflow on them (``snakemake --profile workflow/profiles/local``, every rule
   of the default target, whatever rules the Snakefile has) into ``OUT/results``; its
   printout goes to ``OUT/snakemake.log``.
3. Reads every per-track job's Snakemake benchmark, ``OUT/results/benchmarks/<rule>/
   <track>.tsv`` (wall s, max_rss MB, cpu_time s): a rule with a ``benchmark:`` directive
   is measured, whichever rule it is.
4. Projects each rule over the whole study (82 tracks, ``campaign_specs``): per rule, a
   least-squares line cost = a + b x size through the measured tracks (through the origin
   with one track size or a negative a), where size is, for the rules that read the run
   files (RAW_RULES), the track's run lines (runs x answered topics x depth); for rules
   in PAIR_RULES, pairs of runs x judged topics; for every other rule (they work on the
   judged documents each run retrieved), runs x judged topics x min(depth, judged
   documents per topic), a bound on the judged rows. Memory is projected the same way,
   except that for RAW_RULES the size is the lines of judged topics (runs x judged topics
   x depth): ingest drops the lines of unjudged topics as it reads each file.
   The study's wall time on C cores = sum over jobs of projected time x threads
   / C (jobs packed on the cores; the 2-core figure is what the target is about), with the
   largest single job as a floor. Peak memory per rule is projected the same way to the
   study's largest track. ``synthetic_track`` and ``fetch`` are reported but not counted
   in the total: the target is for the archive already downloaded.

Writes ``OUT/measured.csv`` (one row per job) and ``OUT/projection.csv`` (one row per rule).
Timings on a shared machine are noisy: the cpu_time column is less so than wall time.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from reeval.synth.campaign import campaign_specs, dump_config, run_lines, study_config  # noqa: E402

CATALOG = ROOT.parent / "shared" / "catalog"
RAW_RULES = {"ingest", "synthetic_track"}  # read or write every line of the run files
PAIR_RULES = {"analyses"}  # lexiprecision and rareness stability grow with pairs of runs, not lines
NOT_IN_STUDY = {"synthetic_track", "fetch"}  # the archive is downloaded already (target)
TARGET_MEM_MB, TARGET_HOURS = 8000, 2.0


def size(rule: str, spec, memory: bool = False) -> float:
    """The size a rule's time (or memory) is projected from (see module doc)."""
    if rule in RAW_RULES:  # every line is read; lines of unjudged topics are not kept
        return spec.n_runs * spec.n_topics * spec.depth if memory else run_lines(spec)
    if rule in PAIR_RULES:
        return spec.n_runs * (spec.n_runs - 1) / 2 * spec.n_topics
    # judged rows: a run's judged documents per topic are at most its depth and the qrels' size
    return spec.n_runs * spec.n_topics * min(spec.depth, spec.relevant_per_topic + spec.judged_nonrel_per_topic)


def fit(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(a, b) of y = a + b x by least squares; through the origin when x has one value or
    the intercept comes out negative."""
    if len(np.unique(x)) > 1:
        b, a = np.polyfit(x, y, 1)
        if a >= 0 and b >= 0:
            return float(a), float(b)
    return 0.0, float((x @ y) / (x @ x))


def threads_of(out: str) -> dict:
    """rule -> threads, from a dry run's job printout."""
    threads, rule = {}, None
    for line in out.splitlines():
        s = line.strip()
        if s.startswith(("rule ", "localrule ")) and s.endswith(":"):
            rule = s.split()[1][:-1]
        elif s.startswith("threads:") and rule:
            threads.setdefault(rule, int(s.split()[1]))
    return threads


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--catalog", type=Path, default=CATALOG)
    ap.add_argument("--tracks", nargs="+")
    ap.add_argument("--largest", type=int, default=3)
    ap.add_argument("--max-lines", type=float, default=15e6)
    ap.add_argument("--topic-scale", type=float, default=1.0)
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / ".scale")
    ap.add_argument("--skip-run", action="store_true", help="only read the benchmarks of an earlier run")
    args = ap.parse_args(argv)

    tracks_csv, runs_csv = args.catalog / "tracks.csv", args.catalog / "runs.csv"
    study = campaign_specs(tracks_csv, runs_csv)
    scaled = campaign_specs(tracks_csv, runs_csv, topic_scale=args.topic_scale)
    if args.tracks:
        chosen = {name: scaled[name] for name in args.tracks}
    else:
        fits = {n: s for n, s in scaled.items() if run_lines(s) <= args.max_lines}
        by_size = sorted(fits.items(), key=lambda kv: -run_lines(kv[1]))
        most_runs = max(fits.items(), key=lambda kv: kv[1].n_runs)
        # the N largest, the one with the most runs (pairs), the smallest (a job's fixed cost)
        chosen = dict(by_size[:args.largest] + [most_runs] + by_size[-1:])
    results = (args.out / "results").resolve()
    cfg_path = args.out / "config.yaml"
    args.out.mkdir(parents=True, exist_ok=True)
    cfg_path.write_text(dump_config(study_config(chosen, str(results))))
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    cmd = [sys.executable, "-m", "snakemake", "--profile", "workflow/profiles/local",
           "--configfile", str(cfg_path.resolve()), "--cores", str(args.cores)]
    dry = subprocess.run(cmd + ["--dry-run", "--forceall"], cwd=ROOT, env=env, capture_output=True, text=True)
    threads = threads_of(dry.stdout + dry.stderr)
    for name, spec in chosen.items():
        print(f"benchmark track {name}: {spec.n_runs} runs x {spec.n_topics + spec.n_unjudged_topics} topics "
              f"({spec.n_topics} judged) x {spec.depth} = {run_lines(spec):,} run lines at most")
    if not args.skip_run:
        t = time.perf_counter()
        with open(args.out / "snakemake.log", "w") as log:
            subprocess.run(cmd, cwd=ROOT, env=env, check=True, stdout=log, stderr=subprocess.STDOUT)
        print(f"workflow wall time {time.perf_counter() - t:.0f} s on {args.cores} cores "
              f"(load average now {os.getloadavg()[0]:.1f})")

    rows = []
    for tsv in sorted(results.glob("benchmarks/*/*.tsv")):
        rule, track = tsv.parent.name, tsv.stem
        if track not in chosen:
            continue
        b = pd.read_csv(tsv, sep="\t").iloc[-1]
        rows.append({"rule": rule, "track": track, "size": size(rule, chosen[track]),
                     "memory_size": size(rule, chosen[track], memory=True),
                     "lines": run_lines(chosen[track]), "threads": threads.get(rule, 1), "wall_s": b["s"],
                     "cpu_s": b["cpu_time"], "max_rss_mb": b["max_rss"]})
    measured = pd.DataFrame(rows)
    measured.to_csv(args.out / "measured.csv", index=False)
    print("\nmeasured (per job):")
    print(measured.to_string(index=False, float_format=lambda v: f"{v:,.1f}"))

    proj = []
    for rule, m in measured.groupby("rule"):
        x = m["size"].to_numpy(float)
        sizes = np.array([size(rule, s) for s in study.values()])
        memory_sizes = np.array([size(rule, s, memory=True) for s in study.values()])
        # a job's time on its cores: the larger of wall and cpu / threads (cpu under contention)
        busy = np.maximum(m.wall_s.to_numpy(float), m.cpu_s.to_numpy(float) / m.threads.to_numpy(float))
        a_t, b_t = fit(x, busy)
        a_c, b_c = fit(x, m.cpu_s.to_numpy(float))
        a_m, b_m = fit(m.memory_size.to_numpy(float), m.max_rss_mb.to_numpy(float))
        job_s = a_t + b_t * sizes
        largest = list(study)[int(np.argmax(sizes))]
        largest_memory = list(study)[int(np.argmax(memory_sizes))]
        proj.append({"rule": rule, "in_study": rule not in NOT_IN_STUDY, "threads": int(m.threads.iloc[0]),
                     "tracks_measured": len(m), "jobs": len(sizes),
                     "study_job_s": job_s.sum(), "study_cpu_s": (a_c + b_c * sizes).sum(),
                     "largest_job_s": job_s.max(), "largest_track": largest,
                     "s_per_million_size": b_t * 1e6, "peak_mb_measured": m.max_rss_mb.max(),
                     "peak_mb_largest_track": a_m + b_m * memory_sizes.max(), "largest_memory_track": largest_memory,
                     "mb_per_million_memory_size": b_m * 1e6})
    proj = pd.DataFrame(proj)
    proj.to_csv(args.out / "projection.csv", index=False)
    print("\nprojection over the study (82 tracks, sizes from the campaign's assumptions):")
    print(proj.to_string(index=False, float_format=lambda v: f"{v:,.1f}"))
    study_rules = proj[proj.in_study]
    core_s = (study_rules.study_job_s * study_rules.threads).sum()
    total_h = max(core_s / args.cores, study_rules.largest_job_s.max()) / 3600
    worst = study_rules.loc[study_rules.peak_mb_largest_track.idxmax()] if len(study_rules) else None
    summary = {"rules_projected": sorted(study_rules.rule), "projected_hours_on_cores": round(total_h, 2),
               "cores": args.cores, "study_run_lines": int(sum(map(run_lines, study.values()))),
               "target_hours": TARGET_HOURS,
               "worst_peak_mb": None if worst is None else round(float(worst.peak_mb_largest_track)),
               "worst_peak_rule": None if worst is None else worst.rule,
               "worst_peak_track": None if worst is None else worst.largest_memory_track,
               "target_mem_mb": TARGET_MEM_MB}
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1))
    print("\n" + json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
