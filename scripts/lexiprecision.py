"""Rule lexiprecision: every pair of runs of one track, the paper's tables and figures."""
from pathlib import Path

from _log import rule_log
from reeval.analyses.lexiprecision_report import track_lexiprecision

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    tables = track_lexiprecision(sm.wildcards.track, Path(sm.input[0]).parent,
                                 Path(sm.output.files[0]).parent, rel_level=sm.params.relevance_level,
                                 config=dict(sm.params.options), figures=sm.params.figures)
    log.info("lexiprecision of %s: %d run pairs, relevance level %d", sm.wildcards.track,
             len(tables["pair_tests"]), sm.params.relevance_level)
