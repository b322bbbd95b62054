"""The ASL study on every real track of ../shared/data: wall time with 2 workers,
figures included.

    .venv/bin/python benchmarks/bench_study.py [--data ../shared/data] [--workers 2]

Tracks and their reading options (relevance level, float32 order) and the study options
(technique labels) come from ``config/shared-data.yaml``. The tracks are first ingested
and measured once into ``benchmarks/.data/study/`` (the workflow's ``ingest`` and
``measures`` rules; timed separately, skipped when already there), then the study runs
as ``snakemake --cores 2`` runs its rules: ``study_track`` per track on ``--workers``
processes (reordering ablation with all-pairs t-tests, appendix A.1, figures 5-6 as PNG
and PDF), then ``study`` (headroom figures 1-4, tables, summary.md).
"""

from __future__ import annotations

import argparse
import resource
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import yaml

from reeval.io.ingest import ingest_track, write_track
from reeval.workflow.measures_step import track_measures
from reeval.analyses.asl.report import study, study_options, track_study, track_study_options
from reeval.workflow.config_check import with_defaults
from reeval.workflow.tracks import resolve_qrels, resolve_runs, track_options

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "config" / "shared-data.yaml"


def prepare(track: str, cfg: dict, data: Path, out: Path) -> float:
    """Ingest and measure one track into ``out/tracks/<track>`` unless already done."""
    d = out / "tracks" / track
    if (d / "asl_by_document.parquet").is_file():
        return 0.0
    t = time.perf_counter()
    opts = track_options(cfg, track)
    qrels = resolve_qrels(str(data / track / "qrels" / "*"))
    runs = resolve_runs(str(data / track / "runs"))
    tables = ingest_track(track, qrels, runs, precision=opts["precision"],
                          on_malformed=opts["on_malformed"], grade_map=opts["grade_map"])
    write_track(tables, d)
    track_measures(track, d, d, cfg["measures"], rel_level=opts["relevance_level"],
                   unretrieved=cfg["asl"]["unretrieved"])
    return time.perf_counter() - t


def _track_job(args):
    track, d, options = args
    t = time.perf_counter()
    track_study(track, d, Path(d) / "study", options)
    return track, time.perf_counter() - t


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / ".data" / "study")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    cfg = with_defaults(yaml.safe_load(CONFIG.read_text()))
    tracks = [t for t in sorted(cfg["tracks"]) if (args.data / t).is_dir()]
    if not tracks:
        raise SystemExit(f"no track of {CONFIG.name} under {args.data}")
    prep = sum(prepare(t, cfg, args.data, args.out) for t in tracks)
    print(f"ingest + measures (once, not part of the study): {prep:.1f} s")
    options = study_options(cfg["study"])
    dirs = {t: str(args.out / "tracks" / t) for t in tracks}

    t0 = time.perf_counter()
    jobs = [(t, dirs[t], track_study_options(options)) for t in tracks]
    with ProcessPoolExecutor(args.workers) as pool:
        per_track = dict(pool.map(_track_job, jobs))
    t1 = time.perf_counter()
    info = study(dirs, args.out / "study", options)
    t2 = time.perf_counter()
    for t in tracks:
        print(f"  study_track {t:<28} {per_track[t]:6.2f} s")
    peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
               resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
    print(f"study_track x {len(tracks)} on {args.workers} workers: {t1 - t0:.1f} s wall")
    print(f"study (cross-track tables, figures 1-4, summary.md): {t2 - t1:.1f} s")
    print(f"ASL study total: {t2 - t0:.1f} s wall for {info['tracks']} tracks, {info['runs']} runs; "
          f"peak RSS {peak:.0f} MB; outputs in {args.out}")


if __name__ == "__main__":
    main()
