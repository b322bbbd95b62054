"""Workflow steps as plain functions (the Snakemake scripts only call these).

Per track, after ingest: ``measures_by_topic.parquet`` (every run x qrels topic, one
column per measure, trec_eval -c semantics), ``measures_by_run.parquet``/``.csv``
(means over topics) and ``asl_by_document.parquet`` (one row per run x relevant
document). Across tracks: ``summary/runs.parquet``/``.csv`` (every run's means) and
``summary/tracks.csv`` (one row per track: sizes, ingest drops, best runs).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .ingest import write_csv, write_parquet
from .measures import aggregate, build_grid, evaluate_grid, parse_measures, per_document
from .run_inclusion import included_runs, read_ingest_report, run_inclusion

MEASURES_FILES = ("measures_by_topic.parquet", "measures_by_run.parquet", "measures_by_run.csv",
                  "asl_by_document.parquet")


def read_track_tables(track_dir):
    """judged, depth and qrels tables of an ingested track folder."""
    d = Path(track_dir)
    return (pq.read_table(d / "judged.parquet"), pq.read_table(d / "depth.parquet"),
            pq.read_table(d / "qrels.parquet"))


def track_measures(track: str, track_dir, out_dir, measure_specs, rel_level: int = 1,
                   unretrieved: str = "after_last") -> pd.DataFrame:
    """Compute and write the per-topic, per-run and per-document tables of one track.

    Runs are the included runs of the ingest report (:func:`reeval.run_inclusion.included_runs`:
    a run that kept no line is left out; one that kept lines but no judged document
    scores as if it retrieved nothing). Returns the per-run table.
    """
    judged, depth, qrels = read_track_tables(track_dir)
    runs = included_runs(read_ingest_report(track_dir))
    measures = parse_measures(measure_specs)
    grid = build_grid(judged, depth, qrels, runs=runs, keep_docno=True)
    scores = evaluate_grid(grid, measures, rel_level=rel_level, unretrieved=unretrieved)
    by_topic = scores.to_frame()
    by_topic.insert(0, "track", track)
    by_run = aggregate(scores, measures, complete=True)
    by_run.insert(0, "track", track)
    by_run["asl_unretrieved_docs"] = scores.n_unretrieved.sum(axis=1)
    by_run["asl_unanswered_topics"] = scores.asl_unanswered.sum(axis=1)
    docs = per_document(grid, rel_level=rel_level, unretrieved=unretrieved)
    docs.insert(0, "track", track)
    out = Path(out_dir)
    write_parquet(pa.Table.from_pandas(by_topic, preserve_index=False), out / "measures_by_topic.parquet")
    write_parquet(pa.Table.from_pandas(by_run, preserve_index=False), out / "measures_by_run.parquet")
    write_csv(by_run, out / "measures_by_run.csv")
    write_parquet(pa.Table.from_pandas(docs, preserve_index=False), out / "asl_by_document.parquet")
    return by_run


def track_summary(track: str, by_run: pd.DataFrame, report: pd.DataFrame, qrels: pa.Table,
                  rel_level: int) -> dict:
    """One row describing a track: sizes, what ingest dropped, best runs by MAP and ASL.

    ``runs`` counts the included runs and ``runs_excluded`` those that kept no line
    (:func:`reeval.run_inclusion.run_inclusion`, as ``inclusion.csv``); the line counts
    cover every file of the report, left-out runs included.
    """
    rel = qrels["rel"].to_numpy()
    included = run_inclusion(report)["included"]
    row = {
        "track": track,
        "runs": int(included.sum()),
        "runs_excluded": int((~included).sum()),
        "qrels_topics": len(pd.unique(qrels["qid"].to_numpy(zero_copy_only=False))),
        "judgments": len(rel),
        "relevant": int((rel >= rel_level).sum()),
        "relevance_level": rel_level,
        "lines_read": int(report.lines_read.sum()),
        "lines_kept": int(report.kept.sum()),
    }
    for reason in ("blank", "comment", "malformed", "nan_score", "unjudged_topic", "duplicate"):
        row[f"dropped_{reason}"] = int(report[reason].sum())
    for measure, best in (("map", "max"), ("P_20", "max"), ("ASL", "min"), ("ASL@g1-10", "min")):
        if measure in by_run and by_run[measure].notna().any():
            idx = by_run[measure].idxmax() if best == "max" else by_run[measure].idxmin()
            row[f"best_{measure}"] = by_run.loc[idx, measure]
            row[f"best_{measure}_run"] = by_run.loc[idx, "run"]
    return row


def summarize(tracks: dict, out_dir, rel_levels: dict) -> None:
    """Cross-track tables from per-track folders: ``{track: track_dir}``."""
    by_run, rows = [], []
    for track, track_dir in tracks.items():
        d = Path(track_dir)
        runs = pd.read_parquet(d / "measures_by_run.parquet")
        report = read_ingest_report(d)
        qrels = pq.read_table(d / "qrels.parquet")
        by_run.append(runs)
        rows.append(track_summary(track, runs, report, qrels, rel_levels.get(track, 1)))
    out = Path(out_dir)
    all_runs = pd.concat(by_run, ignore_index=True)
    write_parquet(pa.Table.from_pandas(all_runs, preserve_index=False), out / "runs.parquet")
    write_csv(all_runs, out / "runs.csv")
    write_csv(pd.DataFrame(rows), out / "tracks.csv")
