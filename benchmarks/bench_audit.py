"""Audit job against measures job (issue 40): the audit of a track's official figures costs at
most its measures job, whole processes.

    .venv/bin/python benchmarks/bench_audit.py [--config config/shared-data.yaml] [--out /tmp/bench-audit] [--repeats 5]

First runs ``snakemake --cores 1`` for the measures and audit outputs of every track of
``--config`` that gives an ``official:`` file, into ``--out`` (a track's ingest runs there
and is not timed: both jobs read its tables). Snakemake's own benchmark files count CPU in
steps of about 0.5 s, too coarse for jobs of 1 s, so then, ``--repeats`` times, each track's
two jobs are run again, one at a time, each as a fresh Python process doing what its rule
script does (``scripts/measures.py``, ``scripts/audit.py``: the same step function, the same
parameters, the same outputs rewritten; interpreter start and imports included), timed by
the user + system CPU of the whole process (``resource.getrusage(RUSAGE_CHILDREN)``) and its
peak RSS. Prints one line per track: the median CPU of each job, the ratio of the medians
audit / measures, and the peaks.
"""

import argparse
import json
import resource
import statistics
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]

#: what each rule script does, given the config, the track and the results folder (JSON argv)
JOBS = {
    "measures": """
from reeval.analyses.asl.study import REQUIRED_MEASURES
from reeval.workflow.measures_step import track_measures
from reeval.workflow.tracks import track_options
opts = track_options(cfg, track)
track_measures(track, folder, folder, list(cfg["measures"]) + list(REQUIRED_MEASURES), rel_level=opts["relevance_level"],
               unretrieved=cfg["asl"]["unretrieved"], precision=opts["precision"])
""",
    "audit": """
from reeval.io.pandas_free import arrow_without_pandas
arrow_without_pandas()
from reeval.workflow.audit_step import alternative_qrels_files, track_audit
from reeval.workflow.tracks import list_runs, resolve_qrels, track_options
entry = cfg["tracks"][track]
track_audit(folder, entry["official"], resolve_qrels(entry["qrels"]), list_runs(entry["runs"]).files,
            track_options(cfg, track), folder, alternative_qrels_files(track, entry))
""",
}
PREAMBLE = """
import json, sys
from pathlib import Path
sys.path.insert(0, "scripts")
import _log  # noqa: F401 (every rule script's frame)
from reeval.workflow.config_check import with_defaults
import yaml
config_path, track, results = json.loads(sys.argv[1])
cfg = with_defaults(yaml.safe_load(open(config_path)))
folder = Path(results) / "tracks" / track
"""


def timed(job: str, config: str, track: str, out: Path) -> float:
    """User + system CPU seconds of one fresh process running ``job`` for ``track``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", PREAMBLE + JOBS[job], json.dumps([config, track, str(out)])],
                   cwd=ROOT, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(ROOT / "config" / "shared-data.yaml"))
    parser.add_argument("--out", default="/tmp/bench-audit")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    cfg = yaml.safe_load(Path(args.config).read_text())
    tracks = sorted(t for t, e in cfg["tracks"].items() if e.get("official"))
    out = Path(args.out).resolve()
    targets = [str(out / "tracks" / t / name) for t in tracks
               for name in ("measures_by_run.csv", "audit/official.csv")]
    subprocess.run([sys.executable, "-m", "snakemake", *targets, "--cores", "1", "--configfile", args.config,
                    "--config", f"results={out}"], cwd=ROOT, check=True)
    print(f"{'track':<22} {'measures CPU s':>14} {'audit CPU s':>12} {'ratio':>6} {'measures MB':>12} {'audit MB':>9}")
    for t in tracks:
        cpu = {"measures": [], "audit": []}
        for _ in range(args.repeats):
            for job in cpu:
                cpu[job].append(timed(job, args.config, t, out))
        m, a = (statistics.median(cpu[job]) for job in ("measures", "audit"))
        peak = {job: peak_rss(job, args.config, t, out) for job in cpu}
        print(f"{t:<22} {m:>14.2f} {a:>12.2f} {a / m:>6.2f} {peak['measures']:>12.0f} {peak['audit']:>9.0f}",
              flush=True)


def peak_rss(job: str, config: str, track: str, out: Path) -> float:
    """Peak RSS (MB) of one process running ``job``: a go-between process runs it and prints
    the ``ru_maxrss`` of its only child (this process's own children's is the largest yet)."""
    code = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)")
    result = subprocess.run([sys.executable, "-c", code, sys.executable, "-c", PREAMBLE + JOBS[job],
                             json.dumps([config, track, str(out)])], cwd=ROOT, check=True,
                            capture_output=True, text=True)
    return float(result.stdout.split()[-1])


if __name__ == "__main__":
    main()
