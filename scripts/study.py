"""Rule study: cross-track tables, figures 1-4 and summary.md of the ASL study."""
from pathlib import Path

from _log import rule_log
from reeval.archive.inclusion import included_tracks
from reeval.analyses.asl.report import study

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    info = study(included_tracks(sm.input.inclusion, sm.params.tracks), Path(sm.output.summary).parent,
                 sm.params.options, track_figures=sm.params.track_figures, precision=sm.params.precision,
                 planned=list(sm.params.tracks), track_sets=sm.params.track_sets)
    log.info("ASL study over %d tracks, %d runs", info["tracks"], info["runs"])
