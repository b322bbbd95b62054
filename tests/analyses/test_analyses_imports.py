"""The analyses job of a synthetic track (scripts/analyses.py) never imports scipy.stats:
every quantile and tail it needs comes from scipy.special, or for Tukey's HSD from the
quadrature of reeval.stats.studentized_range (scipy's own quantile only for a q near it)."""
import subprocess
import sys

from reeval.analyses.asl.study import REQUIRED_MEASURES
from reeval.io.ingest import write_track
from reeval.synth.ingested import generate_and_ingest
from reeval.synth.tracks import DEFAULT_CAMPAIGN
from reeval.workflow.measures_step import track_measures

JOB = """
import sys
from pathlib import Path
from reeval.analyses.asl.report import study_options, track_study, track_study_options
from reeval.analyses.lexiprecision.report import track_lexiprecision
from reeval.analyses.rareness.report import track_rareness, with_parsed_alphas
from reeval.workflow.config_check import section_with_defaults
track, d = sys.argv[1], Path(sys.argv[2])
tables = track_rareness(track, d, d / "rareness", with_parsed_alphas(section_with_defaults("rareness", {"trials": 20})),
                        figures=False)
assert tables["discriminative"]["significant_95"].sum() > 0      # the HSDs ran and found pairs
track_study(track, d, d / "study", track_study_options(study_options(section_with_defaults("study"))), figures=False)
track_lexiprecision(track, d, d / "lexiprecision", rel_level=1,
                    config=section_with_defaults("lexiprecision", {"label_removal": {"samples": 2}}), figures=False)
print("scipy.stats" in sys.modules)
"""


def test_the_three_analyses_of_a_synthetic_track_do_not_import_scipy_stats(tmp_path):
    track = "syn-graded"
    tables = generate_and_ingest(track, tmp_path / "src", str(tmp_path / "src" / "runs"), DEFAULT_CAMPAIGN[track], seed=3)
    d = tmp_path / "tracks" / track
    write_track(tables, d)
    track_measures(track, d, d, ["map", "P.10", "recip_rank", *REQUIRED_MEASURES])
    out = subprocess.run([sys.executable, "-c", JOB, track, str(d)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "False"
