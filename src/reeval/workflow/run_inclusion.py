"""Which runs of an ingested track enter its analyses: the one definition.

A run is *included* when ingest kept at least one of its lines (``kept > 0`` in the
track's ``ingest_report.csv``; ``kept`` counts the lines left after every drop: blank,
comment, malformed, nan_score, unjudged_topic, duplicate). A run that kept no line (an
empty file, every score NaN, every line on a topic the qrels do not judge, ...) is left
out of every analysis: scored, it would get 0 on every topic, count as a system in the
rareness measures of the other runs, form lexiprecision pairs and enter the ASL study.
It is named, with the reason, in ``summary/run_inclusion.csv`` and in the rules' logs.
In ``run_inclusion.csv`` a run of a track the study leaves out (fewer than
``study.min_runs`` runs, :func:`reeval.archive.inclusion.inclusion_table`) is not
included either (:func:`study_run_inclusion`), so that "included" means "in the studies".

Every rule's package code selects runs through :func:`included_runs` and counts them
through :func:`run_inclusion`, so the measures tables, the analyses, ``tracks.csv``
and ``inclusion.csv`` cannot disagree.

A file below a track's runs folder that ingest did not read (hidden, operating-system
litter, an editor backup: :mod:`reeval.io.runfolder`) is no run, but it is not passed over
either: :func:`track_run_inclusion` adds it (``kind`` skipped, ``reason`` ``not read: ...``)
to ``run_inclusion.csv`` and the ingest log, so every file of the folder is accounted for.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from reeval.io.notes import DROP_WORDS, nothing_kept

if TYPE_CHECKING:
    import pandas as pd

#: line outcomes of the ingest report other than ``kept`` (reeval.io.trecio.LineCounts)
DROPS = tuple(DROP_WORDS)
RUN_INCLUSION_COLUMNS = ["track", "run", "file", "included", "reason", "lines_read", "kept", *DROPS, "kind"]
_TEXT_COLUMNS = ("track", "file", "kind", "run", "reason", "tag", "first_tag", "sha256")
#: The start of the reason of a run whose track is left out of the study.
TRACK_LEFT_OUT = "track left out: "


def read_ingest_report(path) -> pd.DataFrame:
    """An ``ingest_report.csv`` (or the track folder holding it) with names kept as text.

    Run, track and file names stay strings as written: a run named ``NA``, ``null`` or
    ``1.0`` is not turned into a missing value or a number. Numeric columns are numbers.
    The header line is read by the csv module and the table parsed once by pandas (parsing
    the header with pandas first set up a second parser in every job reading the report).
    """
    import pandas as pd

    path = _report_path(path)
    with open(path, newline="", encoding="utf-8") as f:
        header = next(csv.reader(f), [])
    numeric = [c for c in header if c not in _TEXT_COLUMNS]
    return pd.read_csv(path, dtype={c: str for c in _TEXT_COLUMNS if c in header},
                       keep_default_na=False, na_values={c: [""] for c in numeric})


def _report_path(path) -> Path:
    """The ingest report at ``path``, or in the track folder ``path``."""
    path = Path(path)
    return path / "ingest_report.csv" if path.is_dir() else path


def ingest_report_rows(path) -> list[dict]:
    """The rows of an ``ingest_report.csv`` (or of the track folder holding it) as dicts of
    text, read by the csv module: what :func:`included_runs` needs, without pandas (the
    audit job's, which imports no pandas)."""
    with open(_report_path(path), newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def exclusion_reason(row) -> str | None:
    """Why a run (a report row: lines_read, kept and the drop counts) is left out; None if included.

    ``no line kept: empty file`` or ``no line kept: 3 lines read: 2 with a NaN score, 1
    blank`` (:func:`reeval.io.notes.nothing_kept`).
    """
    if int(row["kept"]) > 0:
        return None
    return f"no line kept: {nothing_kept(row)}"


def run_inclusion(report: pd.DataFrame) -> pd.DataFrame:
    """One row per run of an ingest report: track, run, file, included, reason, line counts.

    ``included`` is the one definition (module docstring); ``reason`` is ``included`` or
    :func:`exclusion_reason`. Rows sorted by run.
    """
    runs = report[report["kind"] == "run"].sort_values("run", kind="stable")
    reasons = [exclusion_reason(row) for row in runs.to_dict("records")]  # dicts: iterrows costs 0.5 ms a run
    out = runs.reindex(columns=RUN_INCLUSION_COLUMNS).reset_index(drop=True)
    out["included"] = np.array([r is None for r in reasons], dtype=bool)
    out["reason"] = [r or "included" for r in reasons]
    for column in ("lines_read", "kept", *DROPS):
        out[column] = out[column].astype("int64")
    return out


def skipped_files(report: pd.DataFrame) -> pd.DataFrame:
    """The files of an ingest report that were not read (``kind`` skipped), in the columns of
    :func:`run_inclusion`: no run name, not included, ``reason`` ``not read: <why>``, counts 0."""
    import pandas as pd

    rows = report[report["kind"] == "skipped"]
    counts = {c: np.zeros(len(rows), dtype=np.int64) for c in ("lines_read", "kept", *DROPS)}
    return pd.DataFrame({"track": rows["track"].to_numpy(), "run": "", "file": rows["file"].to_numpy(),
                         "included": np.zeros(len(rows), dtype=bool),
                         "reason": [f"not read: {why}" for why in rows["reason"]], **counts, "kind": "skipped"},
                        index=range(len(rows)), columns=RUN_INCLUSION_COLUMNS)


def track_run_inclusion(report: pd.DataFrame) -> pd.DataFrame:
    """:func:`run_inclusion` of a track, then its :func:`skipped_files`: a row for every file
    of its runs folder (the rows of ``run_inclusion.csv``)."""
    import pandas as pd

    runs, skipped = run_inclusion(report), skipped_files(report)
    return pd.concat([runs, skipped], ignore_index=True) if len(skipped) else runs


def included_runs(report) -> list[str]:
    """Names of the runs the track's analyses use, sorted: the runs of the report (a
    :func:`read_ingest_report` table, or :func:`ingest_report_rows`) that
    :func:`exclusion_reason` leaves in, as :func:`run_inclusion` counts them."""
    rows = report.to_dict("records") if hasattr(report, "to_dict") else report
    return sorted(row["run"] for row in rows if row["kind"] == "run" and exclusion_reason(row) is None)


def excluded_messages(table: pd.DataFrame) -> list[str]:
    """One log line per run left out of a :func:`run_inclusion` table (not the runs of a
    track left out: its reason says it once),
    ``<track>: run <name> (<file>) left out: <reason>``, and per file not read
    (:func:`track_run_inclusion`), ``<track>: <file> not read: <why>``."""
    return [f"{row.track}: {row.file} {row.reason}" if row.kind == "skipped"
            else f"{row.track}: run {row.run} ({row.file}) left out: {row.reason}"
            for row in table[~table["included"]].itertuples()
            if not str(row.reason).startswith(TRACK_LEFT_OUT)]  # said once, for the track


def study_run_inclusion(ingest_reports: dict, tracks: pd.DataFrame | None = None) -> pd.DataFrame:
    """:func:`track_run_inclusion` of every ingested track (track -> path of its ingest
    report), stacked: ``run_inclusion.csv``. With ``tracks`` (``inclusion.csv``'s table:
    track, included, reason), the runs of a track left out of the study are not included
    either, their reason ``track left out: <the track's reason>``: a run counted included
    is one the studies use."""
    import pandas as pd

    frames = [track_run_inclusion(read_ingest_report(ingest_reports[t])) for t in sorted(ingest_reports)]
    if not frames:
        return pd.DataFrame(columns=RUN_INCLUSION_COLUMNS)
    out = pd.concat(frames, ignore_index=True)
    if tracks is not None:
        left_out = tracks[~tracks["included"].astype(bool)].set_index("track")["reason"]
        runs = out["included"] & out["track"].isin(left_out.index)
        out.loc[runs, "reason"] = TRACK_LEFT_OUT + out.loc[runs, "track"].map(left_out).astype(str)
        out.loc[runs, "included"] = False
    return out
