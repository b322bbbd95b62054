"""Rule rareness_summary: rareness analyses across tracks and beside the paper's numbers."""
from pathlib import Path

from _log import rule_log
from reeval.archive.inclusion import included_tracks
from reeval.analyses.rareness.report import summarize_rareness

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    tracks = included_tracks(sm.input.inclusion, sm.params.tracks)
    summarize_rareness(tracks, Path(sm.output.tables[0]).parent, sm.params.options, sm.params.levels)
    log.info("rareness summary of %d tracks (%d not included)", len(tracks), len(sm.params.tracks) - len(tracks))
