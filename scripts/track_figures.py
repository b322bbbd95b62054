"""Rule track_figures: one track's own figures, from the tables its analyses wrote."""
from pathlib import Path

from _log import rule_log
from reeval.analyses.asl.report import track_study_figures
from reeval.analyses.lexiprecision.report import track_lexiprecision_figures
from reeval.analyses.rareness.report import track_rareness_figures
from reeval.analyses.reusability.report import track_reusability_figure
from reeval.report.figure_workers import in_worker, worker_pool

sm = snakemake  # noqa: F821
with rule_log(sm) as log, worker_pool(sm.threads):  # each step's figures drawn by a forked worker
    track, track_dir = sm.wildcards.track, Path(sm.input.measures[0]).parent
    # the step with the most figures first: the other worker draws the three others meanwhile
    in_worker(lambda: track_lexiprecision_figures(track, Path(sm.input.lexiprecision[0]).parent,
                                                  sm.params.lexiprecision_level), "lexiprecision figures")
    in_worker(lambda: track_reusability_figure(track, Path(sm.input.reusability[0]).parent), "reusability figure")
    in_worker(lambda: track_rareness_figures(track, Path(sm.input.rareness[0]).parent), "rareness figures")
    in_worker(lambda: track_study_figures(track, track_dir, Path(sm.input.study[0]).parent, sm.params.study),
              "ASL study figures")
    log.info("figures of %s: %d files", track, len(sm.output))
