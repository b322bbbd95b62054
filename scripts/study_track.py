"""Rule study_track: reordering ablation, appendix A.1 and figures 5-6 of one track."""
from pathlib import Path

from _log import rule_log
from reeval.analyses.asl_report import track_study

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    info = track_study(sm.wildcards.track, Path(sm.input[0]).parent, Path(sm.output.tables[0]).parent,
                       sm.params.options, figures=sm.params.figures)
    log.info("study of %s: %d runs, best %s, median %s", info["track"], info["runs"], info["best"],
             info["median"])
