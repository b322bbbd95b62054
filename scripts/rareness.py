"""Rule rareness: rareness measures and their analyses for one track."""
from pathlib import Path

from _log import rule_log
from reeval.analyses.rareness_report import track_rareness

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    tables = track_rareness(sm.wildcards.track, Path(sm.input[0]).parent, Path(sm.output.tables[0]).parent,
                            sm.params.options, rel_level=sm.params.relevance_level,
                            figures=sm.params.figures)
    log.info("rareness of %s: %d runs, %d measure x alpha rows", sm.wildcards.track,
             tables["by_run"]["run"].nunique(), len(tables["tau"]))
