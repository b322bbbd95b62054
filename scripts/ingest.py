"""Rule ingest: parse a track once and write its central tables."""
from pathlib import Path

from _log import rule_log
from reeval.io.ingest import ingest_track, write_track
from reeval.io.notes import notes_line
from reeval.workflow.run_inclusion import excluded_messages, track_run_inclusion
from reeval.workflow.tracks import list_runs

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    qrels = str(Path(sm.input.synthetic) / "qrels.txt") if "synthetic" in sm.input.keys() else sm.input.qrels
    runs = list_runs(sm.params.runs)  # every file below the runs folder: read, skipped (named) or refused
    runs.check()
    opts = sm.params.options
    tables = ingest_track(sm.wildcards.track, qrels, runs.files, precision=opts["precision"],
                          on_malformed=opts["on_malformed"], grade_map=opts["grade_map"],
                          threads=sm.threads, skipped=runs.skipped, digest=True)  # bytes, sha256 of what was read
    write_track(tables, Path(sm.output[0]).parent)
    for row in tables.report_rows:  # what was dropped or read differently from trec_eval, per file
        note = notes_line(row)
        if note:
            log.info(note)
    runs_in = track_run_inclusion(tables.report)
    log.info("ingested %s: %d runs (%d kept a line), %d files skipped, %d run lines kept, %d judged rows",
             sm.wildcards.track, len(runs.files), int(runs_in.included.sum()), len(runs.skipped),
             tables.runs.num_rows, tables.judged.num_rows)
    for message in excluded_messages(runs_in):
        log.warning(message)
