"""Rule ingest: parse a track once and write its central tables."""
from pathlib import Path

from _log import rule_log, counted
from reeval.io.ingest import ingest_track, write_track
from reeval.workflow.ingest_step import log_ingested
from reeval.workflow.tracks import list_runs

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    runs = list_runs(sm.params.runs)  # every file below the runs folder: read, skipped (named) or refused
    runs.check()
    opts = sm.params.options
    tables = ingest_track(sm.wildcards.track, sm.input.qrels, runs.files, precision=opts["precision"],
                          on_malformed=opts["on_malformed"], grade_map=opts["grade_map"],
                          threads=sm.threads, skipped=runs.skipped, digest=True,  # bytes, sha256 of what was read
                          on_read=counted(log, "run files read", len(runs.files)))
    write_track(tables, Path(sm.output[0]).parent)
    log_ingested(log, sm.wildcards.track, tables, runs)
