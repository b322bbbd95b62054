"""Every output of one track, listed once, by the step (rule) that writes it.

Names are relative to the track's folder, ``<results>/tracks/<track>/``. The workflow's
default target asks for all of them (``PER_TRACK_FILES`` in workflow/rules/common.smk),
each per-track rule declares its step's as outputs (figures shown in the report are
declared beside, with their captions), and the cross-track rules read them.
"""

from __future__ import annotations

from reeval.analyses import asl_report, lexiprecision_report, rareness_report
from reeval.io.ingest import TRACK_FILES
from reeval.workflow.measures_step import MEASURES_FILES


def _each(stems, exts) -> tuple:
    return tuple(f"{stem}.{ext}" for stem in stems for ext in exts)


#: step -> the files it writes for one track (not listed: the lexiprecision figures' PNGs,
#: outputs of the lexiprecision rule declared for the report)
TRACK_FILES_BY_STEP = {
    "ingest": tuple(TRACK_FILES),
    "measures": tuple(MEASURES_FILES),
    "rareness": tuple(f"rareness/{name}" for name in
                      tuple(rareness_report.TRACK_TABLES) + tuple(rareness_report.TRACK_FIGURES)),
    "study": tuple(f"study/{name}" for name in tuple(asl_report.TRACK_STUDY_TABLES)
                   + _each(asl_report.TRACK_STUDY_FIGURES, ("png", "pdf"))),
    "lexiprecision": tuple(f"lexiprecision/{name}" for name in
                           _each(lexiprecision_report.TRACK_TABLES, ("parquet", "csv"))
                           + ("positions.parquet", "pairs.parquet")
                           + _each(lexiprecision_report.TRACK_FIGURES, ("pdf",))),
}


def track_files(step: str | None = None) -> list[str]:
    """The files of one step (``None``: of every step, in the order above), relative to the
    track's folder."""
    steps = TRACK_FILES_BY_STEP if step is None else {step: TRACK_FILES_BY_STEP[step]}
    return [name for names in steps.values() for name in names]
