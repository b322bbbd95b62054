"""Rule inclusion: every track of the study, included in the cross-track tables or not, and why."""
from pathlib import Path

from _log import to_log
from reeval.outputs import write_table
from reeval.inclusion import inclusion_table, read_status

sm = snakemake  # noqa: F821
log = to_log(sm)
statuses = {track: read_status(path) for track, path in sm.params.statuses.items()}
reports = {Path(path).parent.name: path for path in sm.input.reports}  # <results>/tracks/<track>/...
table = inclusion_table(sm.params.entries, statuses, reports, sm.params.min_runs)
write_table(table, sm.output[0])
log.info("%d of %d tracks included", int(table.included.sum()), len(table))
