"""Rule track_figures: one track's own figures, from the tables its analyses wrote."""
from pathlib import Path

from _log import rule_log
from reeval.analyses.asl.report import track_study_figures
from reeval.analyses.lexiprecision.report import track_lexiprecision_figures
from reeval.analyses.rareness.report import track_rareness_figures
from reeval.analyses.reusability.report import track_reusability_figure
from reeval.report.figures import saving_in_workers

sm = snakemake  # noqa: F821
with rule_log(sm) as log, saving_in_workers(sm.threads):  # each figure saved by a worker while the next is drawn
    track, track_dir = sm.wildcards.track, Path(sm.input.measures[0]).parent
    # the steps with the largest figures first: the longest saves start first, and the last
    # worker to end is one of the short ones
    track_lexiprecision_figures(track, Path(sm.input.lexiprecision[0]).parent, sm.params.lexiprecision_level)
    track_reusability_figure(track, Path(sm.input.reusability[0]).parent)
    track_rareness_figures(track, Path(sm.input.rareness[0]).parent)
    track_study_figures(track, track_dir, Path(sm.input.study[0]).parent, sm.params.study)
    log.info("figures of %s: %d files", track, len(sm.output))
