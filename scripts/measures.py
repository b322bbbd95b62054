"""Rule measures: per-topic, per-run and per-document measures of one track."""
from pathlib import Path

from _log import rule_log
from reeval.pipeline import track_measures

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    by_run = track_measures(sm.wildcards.track, Path(sm.input[0]).parent, Path(sm.output[0]).parent,
                            sm.params.measures, rel_level=sm.params.relevance_level,
                            unretrieved=sm.params.unretrieved)
    log.info("measures of %s: %d runs", sm.wildcards.track, len(by_run))
