"""What the ingest of a track says in its log (rules ``ingest`` and ``synthetic_track``)."""

from __future__ import annotations

from reeval.io.notes import notes_line
from reeval.workflow.run_inclusion import excluded_messages, track_run_inclusion


def log_ingested(log, track: str, tables, runs) -> None:
    """Log what a track's ingest dropped or read differently from trec_eval (one line per
    file that has a note), its counts, and a warning per run left out of the study.
    ``tables``: :class:`reeval.io.ingest.TrackTables`; ``runs``: the runs folder's
    :class:`reeval.io.runfolder.RunListing`."""
    for row in tables.report_rows:
        note = notes_line(row)
        if note:
            log.info(note)
    runs_in = track_run_inclusion(tables.report)
    log.info("ingested %s: %d runs (%d kept a line), %d files skipped, %d run lines kept, %d judged rows",
             track, len(runs.files), int(runs_in.included.sum()), len(runs.skipped),
             tables.runs.num_rows, tables.judged.num_rows)
    for message in excluded_messages(runs_in):
        log.warning(message)
