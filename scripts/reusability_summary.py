"""Rule reusability_summary: every track's reusability verdicts and the cross-track figure."""
from pathlib import Path

from _log import rule_log
from reeval.analyses.reusability.report import summarize_reusability
from reeval.archive.inclusion import included_tracks

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    tracks = included_tracks(sm.input.inclusion, sm.params.tracks)
    table = summarize_reusability(tracks, Path(sm.output.table).parent)
    log.info("reusability summary of %d tracks, %d rows", len(tracks), len(table))
