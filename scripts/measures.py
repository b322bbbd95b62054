"""Rule measures: per-topic, per-run and per-document measures of one track (its included runs)."""
from pathlib import Path

from _log import rule_log
from reeval.workflow.measures_step import track_measures
from reeval.workflow.run_inclusion import excluded_messages, read_ingest_report, run_inclusion

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    track_dir = Path(sm.input[0]).parent
    by_run = track_measures(sm.wildcards.track, track_dir, Path(sm.output[0]).parent,
                            sm.params.measures, rel_level=sm.params.relevance_level,
                            unretrieved=sm.params.unretrieved, precision=sm.params.precision)
    log.info("measures of %s: %d runs", sm.wildcards.track, len(by_run))
    for message in excluded_messages(run_inclusion(read_ingest_report(track_dir))):
        log.warning(message)
