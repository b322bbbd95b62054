"""CPU seconds of one track's per-track jobs, each in a fresh process as a job runs it.

    PYTHONPATH=src .venv/bin/python benchmarks/cpu_per_job.py CONFIG TRACK --out /tmp/cpu-jobs \\
        [--steps fused measures analyses reusability] [--profile 25]

For a synthetic track of a workflow config (e.g. the simulated study written by
``python -m reeval.synth.campaign``), runs the package functions the rule scripts call:
``fused`` (the rule ``synthetic_track``: ``reeval.synth.ingested.generate_and_ingest``, the
track written and ingested in one process, then ``write_track`` of its tables), ``measures``
(``track_measures``), ``analyses`` (rareness, the ASL study's part, lexiprecision; per-track
figures off, as in the 82-track study) and ``reusability`` (``track_reusability``, figures
off), one after the other into ``--out``, each in a new Python process, and prints per step the
process's user + system CPU seconds (imports included, Snakemake's own preamble not) and
its peak memory (of the largest child so far: time the step of interest first, or alone). Not
in the default steps, for a comparison: ``synthetic`` (``reeval.synth.tracks.write_track``
alone) and ``ingest`` (``ingest_track`` of those files with the input hashes, ``write_track``),
the two jobs a synthetic track had before ``fused``. CPU seconds are the comparable number on a shared machine; wall seconds
there depend on the other processes. ``--profile N`` also prints the N functions with the
most CPU time of each step (cProfile timed by ``time.process_time``).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the steps, in the order of the workflow's rules (each reads what the one before wrote)
STEPS = ("fused", "measures", "analyses", "reusability")
#: the two jobs a synthetic track had before the fused one (for a comparison)
OLD_STEPS = ("synthetic", "ingest")

JOB = r'''
import cProfile, pstats, sys, time, yaml
from pathlib import Path
step, config, track, out, top, threads = sys.argv[1:7]
def run():
    from reeval.workflow.config_check import with_defaults
    # libyaml's loader where there is one: the pure-Python one takes 1-2 s of CPU on the full
    # study's config, which no rule's job spends (Snakemake hands the job its parameters)
    cfg = with_defaults(yaml.load(open(config), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))
    src, tables = Path(out) / "synthetic" / track, Path(out) / "tracks" / track
    if step == "synthetic":
        from reeval.synth.tracks import spec_from_config, write_track
        write_track(src, spec_from_config(cfg["tracks"][track]["synthetic"]), seed=cfg["synthetic"]["seed"])
    elif step == "fused":
        from reeval.io.ingest import write_track
        from reeval.synth.ingested import generate_and_ingest
        from reeval.synth.tracks import spec_from_config
        from reeval.workflow.tracks import track_options
        o, entry = track_options(cfg, track), cfg["tracks"][track]
        t = generate_and_ingest(track, src, str(src / "runs"), spec_from_config(entry["synthetic"]),
                                seed=cfg["synthetic"]["seed"], precision=o["precision"], on_malformed=o["on_malformed"],
                                grade_map=o["grade_map"], threads=int(threads) or 1)
        tables.mkdir(parents=True, exist_ok=True)
        write_track(t, tables)
    elif step == "ingest":
        from reeval.io.ingest import ingest_track, write_track
        from reeval.workflow.tracks import list_runs, track_options
        o = track_options(cfg, track)
        runs = list_runs(str(src / "runs"))
        t = ingest_track(track, str(src / "qrels.txt"), runs.files, precision=o["precision"],
                         on_malformed=o["on_malformed"], grade_map=o["grade_map"], threads=int(threads) or 1,
                         skipped=runs.skipped, digest=True)
        tables.mkdir(parents=True, exist_ok=True)
        write_track(t, tables)
    elif step == "measures":
        from reeval.analyses.asl.study import REQUIRED_MEASURES
        from reeval.workflow.measures_step import track_measures
        from reeval.workflow.tracks import track_options
        o = track_options(cfg, track)
        track_measures(track, tables, tables, list(cfg["measures"]) + list(REQUIRED_MEASURES),
                       rel_level=o["relevance_level"], unretrieved=cfg["asl"]["unretrieved"], precision=o["precision"])
    elif step == "reusability":
        from reeval.analyses.reusability.report import rule_options, track_reusability
        o = rule_options(cfg, track)
        (tables / "reusability").mkdir(exist_ok=True)
        track_reusability(track, tables, tables / "reusability", o["measures"], groups=o["groups"],
                          groups_from=o["groups_from"], depth=o["depth"], rel_level=o["relevance_level"],
                          precision=o["precision"], unretrieved=o["unretrieved"], places=o["places"],
                          alpha=o["alpha"], systems=o["systems"], pooled=o["pooled"], figures=False)
    else:
        from reeval.workflow.tracks import own_section, track_options
        from reeval.analyses.asl.report import study_options, techniques_from_labels, track_study, track_study_options
        from reeval.analyses.lexiprecision.report import study_level, track_lexiprecision
        from reeval.analyses.rareness.report import track_rareness, with_parsed_alphas
        o = track_options(cfg, track)
        track_rareness(track, tables, tables / "rareness", own_section(with_parsed_alphas(cfg["rareness"]), "rareness",
                       track), rel_level=o["relevance_level"], figures=False)
        track_study(track, tables, tables / "study", track_study_options(study_options(
            cfg["study"], techniques_from_labels(cfg["tracks"]))), figures=False)
        track_lexiprecision(track, tables, tables / "lexiprecision", rel_level=study_level(cfg, track),
                            config=dict(own_section(cfg["lexiprecision"], "lexiprecision", track)), figures=False)
if int(top):
    p = cProfile.Profile(time.process_time)
    p.runcall(run)
    pstats.Stats(p).sort_stats("tottime").print_stats(int(top))
else:
    run()
'''


def run_step(step: str, config: Path, track: str, out: Path, top: int, threads: int = 0) -> tuple[float, float]:
    """(user + system CPU seconds, peak MB) of one step's process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), OPENBLAS_NUM_THREADS="1")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", JOB, step, str(config), track, str(out), str(top), str(threads)], env=env, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, after.ru_maxrss / 1024


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("config", type=Path)
    ap.add_argument("track")
    ap.add_argument("--out", type=Path, required=True, help="folder for the generated track and its tables")
    ap.add_argument("--steps", nargs="+", default=list(STEPS), choices=list(OLD_STEPS + STEPS))
    ap.add_argument("--threads", type=int, default=0, help="threads of fused and ingest (0: 1, "
                    "the rule's for fused)")
    ap.add_argument("--profile", type=int, default=0, help="print the N functions of most CPU time per step")
    args = ap.parse_args(argv)
    for step in args.steps:
        cpu, peak = run_step(step, args.config, args.track, args.out, args.profile, args.threads)
        print(f"{args.track}\t{step}\t{cpu:.2f} s CPU\tpeak {peak:.0f} MB (largest child so far)", flush=True)


if __name__ == "__main__":
    main()
