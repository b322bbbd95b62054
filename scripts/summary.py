"""Rule summary: cross-track tables of the tracks the inclusion table includes."""
from pathlib import Path

import pandas as pd

from _log import to_log
from reeval.pipeline import summarize

sm = snakemake  # noqa: F821
log = to_log(sm)
included = set(pd.read_csv(sm.input.inclusion).query("included").track)
tracks = {t: d for t, d in sm.params.tracks.items() if t in included}
summarize(tracks, Path(sm.output[0]).parent, {t: sm.params.levels[t] for t in tracks})
log.info("summarized %d tracks (%d not included)", len(tracks), len(sm.params.tracks) - len(tracks))
