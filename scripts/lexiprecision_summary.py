"""Rule lexiprecision_summary: cross-track tables, figures and the paper comparison."""
from pathlib import Path

from _log import rule_log
from reeval.archive.inclusion import included_tracks
from reeval.analyses.lexiprecision.report import summarize_lexiprecision

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    tracks = included_tracks(sm.input.inclusion, sm.params.tracks)
    summarize_lexiprecision(tracks, Path(sm.output.files[0]).parent,
                            {t: sm.params.levels[t] for t in tracks}, config=dict(sm.params.options))
    log.info("lexiprecision summary of %d tracks (%d not included)", len(tracks), len(sm.params.tracks) - len(tracks))
