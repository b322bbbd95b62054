"""summary.md of the ASL study: its sections and their order (a change to either fails here)."""

import re

from reeval.analyses.asl.summary import SECTIONS

TITLE = "# Atomized search length study"


def headings(text: str) -> list:
    return re.findall(r"^#{1,3} .*$", text, flags=re.MULTILINE)


def test_the_template_has_every_section_in_order():
    from importlib import resources

    text = resources.files("reeval.report").joinpath("templates", "asl_summary.md").read_text()
    assert headings(text) == [TITLE] + [f"## {s}" for s in SECTIONS]


def test_summary_with_no_track_has_the_sections_and_says_why(tmp_path):
    from reeval.analyses.asl.report import study, study_options
    from reeval.workflow.config_check import section_with_defaults
    from reeval.archive.inclusion import NO_TRACK_INCLUDED

    study({}, tmp_path, study_options(section_with_defaults("study")))
    text = (tmp_path / "summary.md").read_text()
    assert headings(text) == [TITLE] + [f"## {s}" for s in SECTIONS]
    assert "0 tracks, 0 runs. The paper used 76 TREC tracks (4302 runs)" in text
    assert f"a target.\n\n{NO_TRACK_INCLUDED}\n\n## Headroom" in text
    # the empty blocks leave no run of blank lines; the file ends with one empty line
    assert "\n\n\n" not in text and text.endswith("missed).\n\n")
    assert "## How much MAP really averages (appendix A.1)\n\n## Per-document views" in text
    assert "| Cumulative (MAP -> ASL) | n/a | 26-60% | n/a | 0.6-0.9 |  |  | 0.004-0.06x | 0 |" in text
    assert "| ASL | 39 | 27 | 32% | 264 | 215 | 19% |" in text
    assert "at least 10% better (and strictly better) and a two-tailed paired Student t-test p <= 0.05" in text
