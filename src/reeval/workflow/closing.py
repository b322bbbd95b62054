"""The closing lines of a workflow run: what is in the results and where to look first.

The Snakefile's ``onsuccess`` and ``onerror`` print them below the jobs' lines
(:mod:`reeval.workflow.console`)::

    Tracks: 3 of 3 included (syn-graded, syn-mixed, syn-shallow); runs: 24 of 24 included.
    Read first: results/summary/summary.md, results/study/summary.md
    Figures: results/study, results/lexiprecision, results/rareness (13 PNG, each with its PDF); per track in results/tracks/<track>/
    Report: results/report.html (every figure and table on one page; opens offline)

A study whose tracks give official figures adds the audit's count
(``official scores: 961 of 962 equal, 1 explained, 0 unexplained``, :mod:`reeval.workflow.audit_step`).
After a run that succeeded, the runs scored without some of their lines (a duplicate
document, a NaN score, a malformed line) come after the inclusion lines, each with its
counts (:func:`dropped_lines`). Tracks and runs left out are grouped by reason, one line per reason, naming the first
tracks (``inclusion.csv`` and ``run_inclusion.csv`` list them all). A track below
``study.min_runs`` names the setting that would include it; its runs count as not
included and are not listed again. Only what exists is named: a run asked for one target, or one that failed early, says less.

After a failed or interrupted run (``onerror``) the lines say what failed (each failed job,
with the ``error:`` line of its log) and which outputs are stale: those an earlier run left
that this run had to make again and did not (:func:`run_outcome` asks Snakemake's plan).
Nothing stale is described as current: the inclusion lines are left out when
``inclusion.csv`` is stale, and a stale ``report.html`` is named as the earlier run's::

    The run stopped with errors: 1 job failed; above, each failed job with its log's last lines.
      failed: ingest t1 (runs/bad:2: expected 6 or more whitespace-separated fields ...)
    Stale: 171 outputs of an earlier run were not made again (report.html, summary/inclusion.csv, summary/run_inclusion.csv and 168 more under results)
    Report: not made; results/report.html is an earlier run's
    Fix the errors and run the same command again: only what is missing or stale is made.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pandas as pd

from reeval.report.escape import line_text
from reeval.report.html import dropped_by_track
from reeval.workflow.run_inclusion import TRACK_LEFT_OUT

#: the cross-track folders holding the studies' figures, in reading order
FIGURE_FOLDERS = ("study", "lexiprecision", "rareness", "reusability", "audit")
#: the markdown files to read first, in order
READ_FIRST = ("summary/summary.md", "study/summary.md", "papers/paper_comparison.md", "audit/summary.md")
REPORT = "report.html"
#: the stale outputs named first after a failure (relative to the results folder)
KEY_OUTPUTS = (REPORT, "summary/inclusion.csv", "summary/run_inclusion.csv", *READ_FIRST)
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
        skipped = runs["kind"].astype(str) == "skipped" if "kind" in runs else pd.Series(False, index=runs.index)
        lines += left_out_lines(runs[~skipped], "run", lambda row: f"{row.track}/{row.run}")
        # a file of a runs folder not read has no run name: named by its file name
        lines += left_out_lines(runs[skipped], "file", lambda row: f"{row.track}/{os.path.basename(row.file)}")
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


def where_lines(results: Path, stale=frozenset()) -> list[str]:
    """Where the summaries, the figures and the report are (those that exist and are not
    among the ``stale`` paths); a stale report is named as an earlier run's."""
    lines = []
    first = [str(results / name) for name in READ_FIRST
             if (results / name).is_file() and str(results / name) not in stale]
    if first:
        lines.append("Read first: " + ", ".join(first))
    folders = [results / f for f in FIGURE_FOLDERS if (results / f).is_dir()]
    pngs = [p for f in folders for p in f.glob("*.png")]
    pdfs = sum(len(list(f.glob("*.pdf"))) for f in folders)
    if pngs and not any(str(p) in stale for p in pngs):
        per_track = "; per track in " + str(results / "tracks" / "<track>") if (results / "tracks").is_dir() else ""
        lines.append(f"Figures: {', '.join(map(str, folders))} ({len(pngs)} PNG, {pdfs} PDF){per_track}")
    if str(results / REPORT) in stale:
        lines.append(f"Report: not made; {results / REPORT} is an earlier run's")
    elif (results / REPORT).is_file():
        lines.append(f"Report: {results / REPORT} (every figure and table on one page; opens offline)")
    return lines


def failure_lines(results: Path, failed_jobs: list, stale: list) -> list[str]:
    """What failed and what is stale: ``failed_jobs`` as ``(name, error line or None)``,
    ``stale`` the paths of outputs an earlier run left that this one did not make again."""
    n = len(failed_jobs)
    if n:
        lines = [f"The run stopped with errors: {n} job{'' if n == 1 else 's'} failed; above, each failed job "
                 f"with its log's last lines."]
    else:
        lines = ["The run stopped with errors, none in a job: interrupted, or stopped by Snakemake (its message "
                 "is above)."]
    for name, error in failed_jobs[:NAMES_SHOWN]:
        lines.append(f"  failed: {line_text(name)}" + (f" ({line_text(error)})" if error else ""))
    if n > NAMES_SHOWN:
        lines.append(f"  and {n - NAMES_SHOWN} more failed jobs")
    if stale:
        shown = sorted((os.path.relpath(p, results) if Path(p).is_relative_to(results) else p for p in stale),
                       key=lambda p: (KEY_OUTPUTS.index(p) if p in KEY_OUTPUTS else len(KEY_OUTPUTS), p))
        lines.append(f"Stale: {len(stale)} output{'' if len(stale) == 1 else 's'} of an earlier run "
                     f"{'was' if len(stale) == 1 else 'were'} not made again ({names(shown, 3)} under {results})")
    return lines


def closing_lines(results, failed: bool = False, failed_jobs=(), stale=()) -> list[str]:
    """The closing lines for a results folder. After a failure (``failed``): first what failed
    and what is stale (:func:`failure_lines`; ``failed_jobs`` and ``stale`` as
    :func:`run_outcome` gives them), then only what is current, and what to do."""
    results = Path(results)
    if not failed:
        return inclusion_lines(results) + dropped_lines(results) + audit_lines(results) + where_lines(results)
    stale = sorted(os.path.normpath(p) for p in stale)
    current = [] if str(results / "summary" / "inclusion.csv") in stale else inclusion_lines(results)
    current += [] if str(results / "audit" / "summary.csv") in stale else audit_lines(results)
    again = "Fix the errors and run" if failed_jobs else "Run"
    return (failure_lines(results, list(failed_jobs), stale) + current + where_lines(results, frozenset(stale))
            + [f"{again} the same command again: only what is missing or stale is made."])


def audit_lines(results: Path) -> list[str]:
    """The audit's count of official figures (:func:`reeval.workflow.audit_step.closing_line`),
    when the run made its summary."""
    from reeval.workflow.audit_step import SUMMARY_TABLES, closing_line

    path = results / SUMMARY_TABLES[0]
    if not path.is_file():
        return []
    summary = pd.read_csv(path, keep_default_na=False, dtype={"track": str})
    return [closing_line(summary) + f" (details: {results / SUMMARY_TABLES[1]})"] if len(summary) else []


def job_name(job) -> str:
    """A Snakemake job as the console names it: its rule and wildcard values (``ingest t1``)."""
    return " ".join([job.rule.name, *map(str, dict(job.wildcards_dict).values())])


#: the line a rule script writes when it stops on bad input (scripts/_log.py), after the
#: log's time stamp
ERROR_LINE = re.compile(r"^(?:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ )?error: (.*)$")


def error_line(logs) -> str | None:
    """The last ``error:`` line of a job's logs (:data:`ERROR_LINE`: what a rule script
    writes when it stops on bad input), without its time stamp and prefix; None if none."""
    found = None
    for log in logs:
        try:
            with open(log, errors="replace") as fh:
                for line in fh:
                    match = ERROR_LINE.match(line.rstrip("\n"))
                    found = match.group(1).strip() if match else found
        except OSError:
            continue
    return found


def run_outcome(workflow) -> tuple[list, list]:
    """From the Snakemake ``workflow`` of a run that ended in ``onerror``: the failed jobs as
    ``(job_name, error line)`` and the stale outputs, those of the jobs this run had to run and
    did not finish that exist on disk (an earlier run's; a failed job's own outputs Snakemake
    removed)."""
    scheduler, dag = getattr(workflow, "scheduler", None), getattr(workflow, "dag", None)
    failed = sorted(((job_name(job), error_line(job.log)) for job in getattr(scheduler, "failed", ())),
                    key=lambda item: item[0])
    stale = sorted({os.path.normpath(f) for job in (dag.needrun_jobs() if dag is not None else ())
                    for f in job.output if os.path.exists(f)})
    return failed, stale
