"""summary/summary.md, the first file a user reads: per track its size, best runs, headroom
and reordering in one line each, with numbers checked by hand."""

import pandas as pd

from reeval.workflow.cross_track_summary import (best_runs_line, code, headroom_line, ordinal, reordering_line,
                                                 summary_markdown)

#: MAP orders a > b > c, ASL orders b < a < c: of the 3 pairs, (a, b) is discordant and
#: (a, c), (b, c) concordant, so Kendall's tau = (2 - 1) / 3; MAP's best run a is 2nd by ASL
BY_RUN = pd.DataFrame({"run": ["a", "b", "c"], "map": [0.5, 0.4, 0.1], "P_20": [0.30, 0.35, 0.05],
                       "ndcg_cut_10": [0.61234, 0.6, 0.2], "ASL": [12.0, 9.5, 40.0],
                       "ASL@g1-10": [4.25, 3.5, 20.0]})
ROW = {"track": "t1", "runs": 3, "qrels_topics": 50, "judgments": 1234, "relevant": 321, "relevance_level": 2}


def test_the_best_runs_line_names_each_measures_best_run_with_its_value():
    assert best_runs_line(BY_RUN) == "Best runs: MAP 0.5000 (`a`), P@20 0.3500 (`b`), nDCG@10 0.6123 (`a`)."
    assert best_runs_line(BY_RUN.drop(columns="ndcg_cut_10")) == "Best runs: MAP 0.5000 (`a`), P@20 0.3500 (`b`)."


def test_headroom_says_the_best_asl_in_non_relevant_documents_beside_the_best_p20():
    line = headroom_line(BY_RUN)
    assert line.startswith("Headroom: the best P@20 is 0.3500 (`b`), and the best ASL@g1-10 is 3.5 (`b`): "
                           "that run ranks on average 2.5 non-relevant documents above")
    assert "study/summary.md" in line
    assert "not computed" in headroom_line(BY_RUN.drop(columns="ASL@g1-10"))
    assert line.endswith("ASL counts a relevant document a run did not retrieve as ranked just after the run's last "
                         "document, so a run that returns few documents has a low ASL.")


def test_headroom_says_when_the_best_asl_is_a_shallow_runs_lower_bound():
    """A run of about 10 documents a topic among runs of 1,000 (Base_Bing_all: MAP 0.0185,
    the "best" ASL@g1-10 3.2): the line says it is shallow, its ASL a lower bound."""
    shallow = BY_RUN.assign(num_q=[50, 50, 50], num_ret=[50_000, 500, 49_000])
    assert headroom_line(shallow).endswith(": `b` returns 10 documents a topic (the deepest run 1000), "
                                           "its ASL a lower bound.")
    assert "lower bound" not in headroom_line(shallow.assign(num_ret=[50_000, 30_000, 49_000]))


def test_reordering_gives_kendall_tau_and_where_maps_best_run_lands_by_asl():
    line = reordering_line(BY_RUN)
    assert "ranking the 3 runs by ASL instead of MAP gives Kendall's tau 0.33" in line
    assert "the best run by MAP (`a`) is 2nd by ASL" in line
    assert "Kendall's tau 1.00" in reordering_line(BY_RUN.assign(ASL=[1.0, 2.0, 3.0]))
    assert "Kendall's tau -1.00" in reordering_line(BY_RUN.assign(ASL=[3.0, 2.0, 1.0]))
    assert reordering_line(BY_RUN.head(1)).startswith("Reordering: n/a with 1 run")
    assert "tau n/a" in reordering_line(BY_RUN.assign(ASL=5.0))  # a constant ASL orders nothing


def test_ordinals():
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"]


def test_run_names_print_verbatim_in_code_spans():
    assert code("a`b") == "``a`b``" and code("`x") == "`` `x ``" and code("*x*_|") == "`*x*_|`"
    assert code("a\nb\tc") == "`a\\nb\\tc`"  # one line, whatever the file name held
    assert "(``r`1``)" in best_runs_line(BY_RUN.assign(run=["r`1", "b", "c"]))


def test_summary_has_a_section_per_track_and_where_to_look_next():
    inclusion = pd.DataFrame({"track": ["t1", "t2"], "included": [True, False], "reason": ["", "2 runs kept a line"]})
    text = summary_markdown([ROW], {"t1": BY_RUN}, inclusion)
    assert "hold 1 included track: t1." in text and "| t2 | 2 runs kept a line |" in text
    assert "### t1: 3 runs, 50 topics (1234 judgments, 321 relevant at level >= 2)" in text
    assert text.index("Best runs:") < text.index("Headroom:") < text.index("Reordering:") < text.index("Where to look")
    for path in ("report.html", "study/summary.md", "lexiprecision/summary.md", "papers/paper_comparison.md",
                 "rareness/summary.md"):
        assert f"`{path}`" in text
    assert "../shared" not in text and "$" not in text
    empty = summary_markdown([], {}, inclusion.assign(included=False))
    assert "0 included tracks." in empty and "## Per track" not in empty and "\n\n\n" not in empty
