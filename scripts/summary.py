"""Rule summary: cross-track tables."""
from pathlib import Path

from _log import to_log
from reeval.pipeline import summarize

sm = snakemake  # noqa: F821
log = to_log(sm)
summarize(dict(sm.params.tracks), Path(sm.output[0]).parent, dict(sm.params.levels))
log.info("summarized %d tracks", len(sm.params.tracks))
