"""The closing lines of a workflow run: what is in the results and where to look first.

The Snakefile's ``onsuccess`` and ``onerror`` print them below the jobs' lines
(:mod:`reeval.workflow.console`)::

    Tracks: 3 of 3 included (syn-graded, syn-mixed, syn-shallow); runs: 24 of 24 included.
    Read first: results/summary/summary.md, results/study/summary.md
    Figures: results/study, results/lexiprecision, results/rareness (13 PNG, each with its PDF); per track in results/tracks/<track>/
    Report: results/report.html (every figure and table in one file; opens offline)

After a run that succeeded, the runs scored without some of their lines (a duplicate
document, a NaN score, a malformed line) come after the inclusion lines, each with its
counts (:func:`dropped_lines`). Tracks and runs left out are grouped by reason, one line per reason, naming the first
tracks (``inclusion.csv`` and ``run_inclusion.csv`` list them all). A track below
``study.min_runs`` names the setting that would include it; its runs count as not
included and are not listed again. Only what exists is named: a run asked for one target, or one that failed early, says less.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reeval.report.escape import line_text
from reeval.report.html import dropped_by_track
from reeval.workflow.run_inclusion import TRACK_LEFT_OUT

#: the cross-track folders holding the studies' figures, in reading order
FIGURE_FOLDERS = ("study", "lexiprecision", "rareness", "reusability")
#: the markdown files to read first, in order
READ_FIRST = ("summary/summary.md", "study/summary.md", "papers/paper_comparison.md")
REPORT = "report.html"
#: names listed on a left-out line before "and N more"
NAMES_SHOWN = 6


def names(items: list, shown: int = NAMES_SHOWN) -> str:
    """``a, b, c`` or ``a, b, c and 5 more``, each name on one line (:func:`reeval.report.escape.line_text`)."""
    head = ", ".join(map(line_text, items[:shown]))
    return head + (f" and {len(items) - shown} more" if len(items) > shown else "")


def left_out_lines(frame: pd.DataFrame, label: str, key) -> list[str]:
    """One line per reason of the rows not included: ``  left out, N <label>: reason (names)``."""
    lines = []
    out = frame[~frame["included"].astype(bool)]
    for reason, group in out.groupby("reason", sort=False):
        keys = [key(row) for row in group.itertuples(index=False)]
        lines.append(f"  left out, {len(keys)} {label}{'' if len(keys) == 1 else 's'} ({names(keys)}): "
                     f"{line_text(reason)}")
    return lines


def inclusion_lines(results: Path) -> list[str]:
    """Tracks and runs included, and those left out by reason (from the inclusion tables)."""
    inclusion, runs_csv = results / "summary" / "inclusion.csv", results / "summary" / "run_inclusion.csv"
    if not inclusion.is_file():
        return []
    tracks = pd.read_csv(inclusion, keep_default_na=False, dtype={"track": str})
    included = tracks[tracks["included"].astype(bool)].track.tolist()
    line = f"Tracks: {len(included)} of {len(tracks)} included"
    line += f" ({names(included)})" if included else ""
    runs = (pd.read_csv(runs_csv, keep_default_na=False, dtype={"track": str, "run": str})
            if runs_csv.is_file() else None)
    if runs is not None and len(runs):
        in_left_out = runs["reason"].astype(str).str.startswith(TRACK_LEFT_OUT)
        line += f"; runs: {int(runs['included'].astype(bool).sum())} of {len(runs)} included"
        line += f" ({int(in_left_out.sum())} in tracks left out)" if in_left_out.any() else ""
        runs = runs[~in_left_out]  # said once, on their track's line
    lines = [line + "."]
    lines += left_out_lines(tracks, "track", lambda row: row.track)
    if runs is not None and len(runs):
        lines += left_out_lines(runs, "run", lambda row: f"{row.track}/{row.run}")
    return lines


def dropped_lines(results: Path) -> list[str]:
    """The runs scored without some of their lines (a duplicate document, a NaN score, a
    malformed line: :func:`reeval.report.html.dropped_by_track`), each with its counts,
    from ``run_inclusion.csv``; none when no included run lost a line::

        Scored without some of their lines, 2 runs (counts per run: results/summary/run_inclusion.csv):
          clef/sis.TMAL30Q_BM25: 311 duplicate
          clef/nan-run: 2 nan_score

    A run that kept no line is not among them: it is left out, on the lines above."""
    path = results / "summary" / "run_inclusion.csv"
    if not path.is_file():
        return []
    lost = [(track, run, why) for track, runs in dropped_by_track(path).items() for run, why in runs.items()]
    if not lost:
        return []
    lines = [f"Scored without some of their lines, {len(lost)} run{'' if len(lost) == 1 else 's'} "
             f"(counts per run: {path}):"]
    lines += [f"  {line_text(track)}/{line_text(run)}: {why}" for track, run, why in lost[:NAMES_SHOWN]]
    if len(lost) > NAMES_SHOWN:
        lines.append(f"  and {len(lost) - NAMES_SHOWN} more")
    return lines


def where_lines(results: Path) -> list[str]:
    """Where the summaries, the figures and the report are (those that exist)."""
    lines = []
    first = [str(results / name) for name in READ_FIRST if (results / name).is_file()]
    if first:
        lines.append("Read first: " + ", ".join(first))
    folders = [results / f for f in FIGURE_FOLDERS if (results / f).is_dir()]
    pngs = sum(len(list(f.glob("*.png"))) for f in folders)
    pdfs = sum(len(list(f.glob("*.pdf"))) for f in folders)
    if pngs:
        per_track = "; per track in " + str(results / "tracks" / "<track>") if (results / "tracks").is_dir() else ""
        lines.append(f"Figures: {', '.join(map(str, folders))} ({pngs} PNG, {pdfs} PDF){per_track}")
    if (results / REPORT).is_file():
        lines.append(f"Report: {results / REPORT} (every figure and table in one file; opens offline)")
    return lines


def closing_lines(results, failed: bool = False) -> list[str]:
    """The closing lines for a results folder; after a failure, first a line saying so."""
    results = Path(results)
    lines = []
    if failed:
        lines.append("The run stopped with errors (above: each failed job, its log and the log's last lines). "
                     "Fix them and run the same command again: only the missing outputs are made.")
    return lines + inclusion_lines(results) + ([] if failed else dropped_lines(results)) + where_lines(results)
