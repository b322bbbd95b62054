"""Rule rareness_summary: rareness analyses across tracks and beside the paper's numbers."""
from pathlib import Path

from _log import to_log
from reeval.rareness_report import summarize_rareness

sm = snakemake  # noqa: F821
log = to_log(sm)
summarize_rareness(dict(sm.params.tracks), Path(sm.output.tables[0]).parent, sm.params.options)
log.info("rareness summary of %d tracks", len(sm.params.tracks))
