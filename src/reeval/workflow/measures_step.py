"""The measures step of the workflow and its cross-track summary (rules `measures` and `summary`).

Per track, after ingest: ``measures_by_topic.parquet`` (every run x qrels topic, one
column per measure, trec_eval -c semantics), ``measures_by_run.parquet``/``.csv``
(means over topics) and ``asl_by_document.parquet`` (one row per run x relevant
document). Across tracks: ``summary/runs.parquet``/``.csv`` (every run's means),
``summary/tracks.csv`` (one row per track: sizes, ingest drops, best runs) and
``summary/summary.md`` (which tracks are included; per track its runs, topics, best runs,
headroom and reordering: :mod:`reeval.workflow.cross_track_summary`); with no track
included the tables keep their columns.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from reeval.io.tables import write_table, write_table_pair, write_text
from reeval.measures import (Grid, TopicScores, aggregate, build_grid, evaluate_grid, parse_measures,
                             per_document_table)

from .cross_track_summary import summary_markdown
from .run_inclusion import DROPS, included_runs, read_ingest_report, run_inclusion

MEASURES_FILES = ("measures_by_topic.parquet", "measures_by_run.parquet", "measures_by_run.csv",
                  "asl_by_document.parquet")
SUMMARY_FILES = ("runs.parquet", "runs.csv", "tracks.csv", "summary.md")
#: ingest drops counted in tracks.csv (``dropped_<reason>``)
DROP_REASONS = DROPS
#: tracks.csv's best runs: (measure, best is max or min)
BEST_RUNS = (("map", "max"), ("P_20", "max"), ("ASL", "min"), ("ASL@g1-10", "min"))
TRACK_SUMMARY_COLUMNS = (["track", "runs", "runs_excluded", "qrels_topics", "judgments", "relevant", "relevance_level",
                          "lines_read", "lines_kept"] + [f"dropped_{r}" for r in DROP_REASONS]
                         + [c for m, _ in BEST_RUNS for c in (f"best_{m}", f"best_{m}_run")])


def read_track_tables(track_dir):
    """judged, depth and qrels tables of an ingested track folder.

    judged's ``run`` and ``qid`` come back dictionary-encoded, as Parquet stores them (the
    same values; the file's type is ``string``): :func:`reeval.measures.build_grid` codes
    them by their few distinct values instead of comparing every row's string (on Robust
    2004's shape, 7.1 M judged rows, read and grid 1.2 s of CPU instead of 2.8 s; the same
    grid)."""
    d = Path(track_dir)
    return (pq.read_table(d / "judged.parquet", read_dictionary=["run", "qid"]),
            pq.read_table(d / "depth.parquet"), pq.read_table(d / "qrels.parquet"))


@dataclass(frozen=True)
class IncludedTrack:
    """An ingested track as its per-track steps read it: the central tables (Arrow), the
    included runs (:func:`reeval.workflow.run_inclusion.included_runs`, sorted) and their grid,
    docnos kept (``build_grid(judged, depth, qrels, runs=runs, keep_docno=True)``)."""

    judged: pa.Table
    depth: pa.Table
    qrels: pa.Table
    runs: list
    grid: Grid


def read_included_track(track_dir) -> IncludedTrack:
    """Read an ingested track folder once for every study of a job: its three tables and
    ingest report, and the grid of its included runs. A grid without docnos is the same
    grid less its two docno arrays, so one grid serves the steps that do not need them."""
    judged, depth, qrels = read_track_tables(track_dir)
    runs = included_runs(read_ingest_report(track_dir))
    grid = build_grid(judged, depth, qrels, runs=runs, keep_docno=True)
    return IncludedTrack(judged, depth, qrels, runs, grid)


def workflow_measures(measure_specs, precision: str = "float64") -> list:
    """The measures of a ``measures:`` list: the numeric ones (a set's runid and relstring,
    text printed by ``reeval score``, are left out), under the trec_eval version the
    track's precision stands for (float32: 9.x)."""
    version = 9 if precision == "float32" else 10
    return [m for m in parse_measures(measure_specs, version) if not m.is_text]


def track_measures(track: str, track_dir, out_dir, measure_specs, rel_level: int = 1,
                   unretrieved: str = "after_last", precision: str = "float64") -> pd.DataFrame:
    """Compute and write the per-topic, per-run and per-document tables of one track.

    Runs are the included runs of the ingest report (:func:`reeval.workflow.run_inclusion.included_runs`:
    a run that kept no line is left out; one that kept lines but no judged document
    scores as if it retrieved nothing). ``precision`` is the one the track was read with
    (float32: trec_eval 9.x's semantics). Returns the per-run table.
    """
    grid = read_included_track(track_dir).grid
    measures = workflow_measures(measure_specs, precision)
    scores = evaluate_grid(grid, measures, rel_level=rel_level, unretrieved=unretrieved,
                           version=9 if precision == "float32" else 10)
    by_topic = scores.to_frame()
    by_topic.insert(0, "track", track)
    docs = per_document_table(grid, rel_level=rel_level, unretrieved=unretrieved)
    docs = docs.add_column(0, "track", pa.repeat(track, docs.num_rows))
    out = Path(out_dir)
    write_table(by_topic, out / "measures_by_topic.parquet")
    by_run = write_table_pair(run_table(track, scores, measures), out, "measures_by_run")
    write_table(docs, out / "asl_by_document.parquet")
    return by_run.to_pandas()


def run_table(track: str, scores: TopicScores, measures) -> pd.DataFrame:
    """``measures_by_run`` of a track: track, run, num_q, the run means of ``measures``
    (trec_eval -c), asl_num_q, and per run the relevant documents given the unretrieved
    ASL value (asl_unretrieved_docs) and the topics it did not answer (asl_unanswered_topics)."""
    by_run = aggregate(scores, measures, complete=True)
    by_run.insert(0, "track", track)
    by_run["asl_unretrieved_docs"] = scores.n_unretrieved.sum(axis=1)
    by_run["asl_unanswered_topics"] = scores.asl_unanswered.sum(axis=1)
    return by_run


def run_table_columns(measure_specs) -> list:
    """The columns :func:`run_table` gives for these measures (those of ``summary/runs``
    when no track is included), from a table of no run and no topic."""
    measures = workflow_measures(measure_specs)
    none = np.zeros((0, 0))
    scores = TopicScores(runs=[], topics=[], values={m.name: none for m in measures},
                         answered=none.astype(bool), num_rel=np.zeros(0), n_unretrieved=none.astype(np.int64),
                         asl_unanswered=none.astype(bool))
    return list(run_table("", scores, measures).columns)


def track_summary(track: str, by_run: pd.DataFrame, report: pd.DataFrame, qrels: pa.Table,
                  rel_level: int) -> dict:
    """One row describing a track: sizes, what ingest dropped, best runs by MAP and ASL.

    ``runs`` counts the included runs and ``runs_excluded`` those that kept no line
    (:func:`reeval.workflow.run_inclusion.run_inclusion`, as ``inclusion.csv``); the line counts
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
    for reason in DROP_REASONS:
        row[f"dropped_{reason}"] = int(report[reason].sum())
    for measure, best in BEST_RUNS:
        if measure in by_run and by_run[measure].notna().any():
            idx = by_run[measure].idxmax() if best == "max" else by_run[measure].idxmin()
            row[f"best_{measure}"] = by_run.loc[idx, measure]
            row[f"best_{measure}_run"] = by_run.loc[idx, "run"]
    return row


def summarize(tracks: dict, out_dir, rel_levels: dict, measure_specs=(),
              inclusion: pd.DataFrame | None = None) -> None:
    """Cross-track tables from per-track folders ``{track: track_dir}`` (the included tracks).

    ``measure_specs`` (the measures rule's) give ``runs``' columns when no track is
    included; ``inclusion`` (the inclusion table) is summarized in ``summary.md``.
    """
    by_run, rows = [], []
    for track, track_dir in tracks.items():
        d = Path(track_dir)
        runs = pd.read_parquet(d / "measures_by_run.parquet")
        report = read_ingest_report(d)
        qrels = pq.read_table(d / "qrels.parquet")
        by_run.append(runs)
        rows.append(track_summary(track, runs, report, qrels, rel_levels.get(track, 1)))
    out = Path(out_dir)
    all_runs = (pd.concat(by_run, ignore_index=True) if by_run
                else pd.DataFrame(columns=run_table_columns(measure_specs)))
    write_table_pair(all_runs, out, "runs")
    write_table(pd.DataFrame(rows, columns=TRACK_SUMMARY_COLUMNS), out / "tracks.csv")
    write_text(summary_markdown(rows, dict(zip(tracks, by_run)), inclusion), out / "summary.md")
