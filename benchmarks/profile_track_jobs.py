"""Where a per-track analysis job's seconds go: imports, figures, computation, writing.

    PYTHONPATH=src .venv/bin/python benchmarks/profile_track_jobs.py RESULTS TRACK \\
        [--config config/simulated-study.yaml] [--rules rareness lexiprecision study_track]

Runs each analysis of rule ``analyses`` separately (the package function its script calls
for rareness, lexiprecision, study_track) on one already ingested and
measured track of ``RESULTS`` (a workflow results folder) in a fresh Python process
under cProfile, imports included, as a job pays them, writing into a temporary folder.
Prints, per rule, the process's wall seconds and the share of its profile spent in
imports (split into scipy.stats, matplotlib.pyplot and the rest), in drawing and saving
figures (matplotlib), in writing tables, and the rest (the analysis itself). cProfile
slows Python-heavy code, and on a shared machine every number is noisy: compare the
shares, not the seconds.
"""

import argparse
import os
import pstats
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

JOB = """
import sys, time, yaml
from pathlib import Path
t0 = time.perf_counter()
rule, track, src, out, config = sys.argv[1:6]
from reeval.workflow.config_check import with_defaults
cfg = with_defaults(yaml.safe_load(open(config)))
t1 = time.perf_counter()
if rule == "rareness":
    from reeval.analyses.rareness.report import track_rareness, with_parsed_alphas
    track_rareness(track, Path(src), Path(out) / "rareness", with_parsed_alphas(cfg["rareness"]), rel_level=1)
elif rule == "lexiprecision":
    from reeval.analyses.lexiprecision.report import track_lexiprecision
    track_lexiprecision(track, Path(src), Path(out) / "lexiprecision", rel_level=1, config=dict(cfg["lexiprecision"]))
else:
    from reeval.analyses.asl.report import study_options, techniques_from_labels, track_study, track_study_options
    opts = track_study_options(study_options(cfg["study"], techniques_from_labels(cfg["tracks"])))
    track_study(track, Path(src), Path(out) / "study", opts)
print(f"{time.perf_counter() - t1:.2f}")
"""

#: (label, what the profile's function names contain), measured as cumulative time
PARTS = (("import scipy.stats", "scipy/stats/__init__.py:1(<module>)"),
         ("import matplotlib.pyplot", "matplotlib/pyplot.py:1(<module>)"),
         ("all imports", "<frozen importlib._bootstrap>:1165(_find_and_load)"),
         ("figures (draw + save)", "matplotlib/figure.py:3360(savefig)"),
         ("writing tables", "reeval/io/tables.py:231(write_table)"))


def cumulative(stats: pstats.Stats, needle: str) -> float:
    """The largest cumulative time of a function whose name contains ``needle`` (its
    outermost call, so nested imports are not counted twice)."""
    best = 0.0
    for (path, line, name), (_, _, _, ct, _) in stats.stats.items():
        if needle in f"{path}:{line}({name})":
            best = max(best, ct)
    return best


def profile(rule: str, results: Path, track: str, config: Path) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        prof = Path(tmp) / "job.prof"
        script = Path(tmp) / "job.py"
        script.write_text(JOB)
        env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), OPENBLAS_NUM_THREADS="1")
        proc = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(prof), str(script), rule, track,
                               str(results / "tracks" / track), tmp, str(config)],
                              capture_output=True, text=True, env=env, check=True)
        stats = pstats.Stats(str(prof))
        total = float(proc.stdout.split()[-1])
        row = {"rule": rule, "seconds": total}
        for label, needle in PARTS:
            row[label] = cumulative(stats, needle)
        return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("track")
    parser.add_argument("--config", type=Path, default=ROOT / "config" / "simulated-study.yaml")
    parser.add_argument("--rules", nargs="+", default=["rareness", "lexiprecision", "study_track"])
    args = parser.parse_args(argv)
    print(f"{'rule':<14} {'s':>7} " + " ".join(f"{label:>24}" for label, _ in PARTS) + f" {'the analysis':>14}")
    for rule in args.rules:
        row = profile(rule, args.results, args.track, args.config)
        s = row["seconds"]
        rest = s - row["all imports"] - row["figures (draw + save)"] - row["writing tables"]
        shares = " ".join(f"{100 * row[label] / s:>23.0f}%" for label, _ in PARTS)
        print(f"{rule:<14} {s:>7.1f} {shares} {100 * max(rest, 0) / s:>13.0f}%")


if __name__ == "__main__":
    main()
