"""Rule analyses: the rareness, ASL and lexiprecision studies of one track, in one process."""
from pathlib import Path

from _log import rule_log, steps
from reeval.analyses.asl.report import track_study
from reeval.analyses.lexiprecision.report import track_lexiprecision
from reeval.analyses.rareness.report import track_rareness
from reeval.workflow.measures_step import read_included_track

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    track, track_dir = sm.wildcards.track, Path(sm.input.ingest[0]).parent
    included = read_included_track(track_dir)  # read once for rareness and lexiprecision
    step = steps(log, 3)
    step(f"rareness of {track}")
    tables = track_rareness(track, track_dir, Path(sm.output.rareness[0]).parent, sm.params.rareness,
                            rel_level=sm.params.rareness_level, figures=False, included=included)
    log.info("rareness of %s: %d runs, %d measure x alpha rows", track,
             tables["by_run"]["run"].nunique(), len(tables["tau"]))
    step(f"ASL study of {track}")
    info = track_study(track, track_dir, Path(sm.output.study[0]).parent, sm.params.study,
                       figures=False)
    log.info("study of %s: %d runs, best %s, median %s", info["track"], info["runs"], info["best"],
             info["median"])
    step(f"lexiprecision of {track}")
    tables = track_lexiprecision(track, track_dir, Path(sm.output.lexiprecision[0]).parent,
                                 rel_level=sm.params.lexiprecision_level,
                                 config=dict(sm.params.lexiprecision), figures=False, included=included)
    log.info("lexiprecision of %s: %d run pairs, relevance level %d", track, len(tables["pair_tests"]),
             sm.params.lexiprecision_level)
