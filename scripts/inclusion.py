"""Rule inclusion: every track of the study and every ingested run, included or not, and why."""
from pathlib import Path

from _log import rule_log
from reeval.api.results import stale_tracks
from reeval.io.tables import write_table
from reeval.archive.inclusion import inclusion_table, read_status
from reeval.workflow.run_inclusion import excluded_messages, study_run_inclusion

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    statuses = {track: read_status(path) for track, path in sm.params.statuses.items()} | sm.params.left_out
    reports = {Path(path).parent.name: path for path in sm.input.reports}  # <results>/tracks/<track>/...
    table = inclusion_table(sm.params.entries, statuses, reports, sm.params.min_runs)
    runs = study_run_inclusion(reports, table)
    write_table(table, sm.output.tracks)
    write_table(runs, sm.output.runs)
    log.info("%d of %d tracks included; %d of %d ingested runs included; %d files not read",
             int(table.included.sum()), len(table), int(runs.included.sum()), int((runs.kind == "run").sum()),
             int((runs.kind == "skipped").sum()))
    for message in excluded_messages(runs):
        log.warning(message)
    for folder in stale_tracks(Path(sm.output.tracks).parents[1], sm.params.entries):
        log.warning("%s: not a track of this configuration, left from an earlier one (kept; reeval.read_results "
                    "marks its tables stale)", folder)
