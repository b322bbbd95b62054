"""Every output of one track, listed once, by the step (rule) that writes it.

Names are relative to the track's folder, ``<results>/tracks/<track>/``. The workflow's
default target asks for all of them (``PER_TRACK_FILES`` in workflow/rules/common.smk),
the per-track rules declare them as outputs (ingest and measures one step each, rule
analyses the three studies' steps; figures, when drawn, with their report captions), and
the cross-track rules read the tables.
"""

from __future__ import annotations

from reeval.analyses.asl import report as asl_report
from reeval.analyses.lexiprecision import report as lexiprecision_report
from reeval.analyses.papers import comparison as paper_comparison
from reeval.analyses.rareness import report as rareness_report
from reeval.analyses.reusability import report as reusability_report
from reeval.io.ingest import TRACK_FILES
from reeval.workflow.measures_step import MEASURES_FILES


def _each(stems, exts) -> tuple:
    return tuple(f"{stem}.{ext}" for stem in stems for ext in exts)


#: step -> the tables it writes for one track (every cross-track step reads some of them)
TRACK_TABLES_BY_STEP = {
    "ingest": tuple(TRACK_FILES),
    "measures": tuple(MEASURES_FILES),
    "rareness": tuple(f"rareness/{name}" for name in rareness_report.TRACK_TABLES),
    "study": tuple(f"study/{name}" for name in asl_report.TRACK_STUDY_TABLES),
    "lexiprecision": tuple(f"lexiprecision/{name}" for name in
                           _each(lexiprecision_report.TRACK_TABLES, ("parquet", "csv"))
                           + ("positions.parquet", "pairs.parquet")),
    "reusability": tuple(f"reusability/{name}" for name in reusability_report.TRACK_TABLES),
}
#: step -> its figures of one track (PNG and PDF), drawn when ``figures.per_track`` says so
#: (:func:`draws_track_figures`); no cross-track step reads them
TRACK_FIGURES_BY_STEP = {
    "rareness": tuple(f"rareness/{name}" for name in rareness_report.TRACK_FIGURES),
    "study": tuple(f"study/{name}" for name in _each(asl_report.TRACK_STUDY_FIGURES, ("png", "pdf"))),
    "lexiprecision": tuple(f"lexiprecision/{name}" for name in
                           _each(lexiprecision_report.TRACK_FIGURES, ("png", "pdf"))),
    "reusability": tuple(f"reusability/{name}" for name in reusability_report.TRACK_FIGURES),
}
#: the one comparison of the three papers' published cells with ours (rule papers), relative
#: to the results folder
PAPER_COMPARISON_FILES = tuple(f"papers/{name}" for name in paper_comparison.FILES)
#: ``figures.per_track: auto`` draws the per-track figures of a study of at most this many
#: tracks: the built-in (3) and shared-data (11) studies, a user's own tracks; not the
#: 76-82-track TREC studies, where they would be 1,600 files that no cross-track output reads
AUTO_TRACK_FIGURES_MAX_TRACKS = 12


def draws_track_figures(setting, n_tracks: int) -> bool:
    """Whether the per-track figures are drawn: ``figures.per_track`` (true, false or
    ``"auto"``: at most :data:`AUTO_TRACK_FIGURES_MAX_TRACKS` tracks in the config)."""
    if setting == "auto":
        return n_tracks <= AUTO_TRACK_FIGURES_MAX_TRACKS
    return bool(setting)


def track_files(step: str | None = None, figures: bool = True) -> list[str]:
    """The files of one step (``None``: of every step, in the order above), relative to the
    track's folder: its tables, then its figures when ``figures``."""
    steps = list(TRACK_TABLES_BY_STEP) if step is None else [step]
    return [name for s in steps for name in TRACK_TABLES_BY_STEP[s]
            + (TRACK_FIGURES_BY_STEP.get(s, ()) if figures else ())]
