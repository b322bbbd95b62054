"""Rule lexiprecision_summary: cross-track tables, figures and the paper comparison."""
from pathlib import Path

from _log import to_log
from reeval.lexiprecision_report import summarize_lexiprecision

sm = snakemake  # noqa: F821
log = to_log(sm)
summarize_lexiprecision(dict(sm.params.tracks), Path(sm.output.files[0]).parent,
                        dict(sm.params.levels), config=dict(sm.params.options))
log.info("lexiprecision summary of %d tracks", len(sm.params.tracks))
