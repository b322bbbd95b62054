"""Rule summary: cross-track tables of the tracks the inclusion table includes, and summary.md."""
from pathlib import Path

import pandas as pd

from _log import rule_log
from reeval.archive.inclusion import included_tracks
from reeval.workflow.measures_step import summarize

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    tracks = included_tracks(sm.input.inclusion, sm.params.tracks)
    summarize(tracks, Path(sm.output[0]).parent, {t: sm.params.levels[t] for t in tracks},
              measure_specs=sm.params.measures, inclusion=pd.read_csv(sm.input.inclusion))
    log.info("summarized %d tracks (%d not included)", len(tracks), len(sm.params.tracks) - len(tracks))
