"""compare_runs(..., baseline=) reports as PyTerrier's Experiment does (issue 34 item 6):
the baseline's row first and marked, per run and measure the delta, the topics improved
and degraded in the measure's direction, p and corrected p."""

import pandas as pd

import reeval

#: per-topic values of three runs on four topics; b improves on the baseline on topics
#: 1, 2, 3 and degrades topic 4; c ties the baseline on topic 1 and degrades the rest
VALUES = {"base": [0.2, 0.4, 0.5, 0.9], "b": [0.3, 0.6, 0.8, 0.7], "c": [0.2, 0.1, 0.3, 0.4]}


def frame(measure: str) -> pd.DataFrame:
    index = pd.MultiIndex.from_tuples([(r, f"q{t}") for r in VALUES for t in range(1, 5)], names=["run", "query_id"])
    return pd.DataFrame({measure: [v for r in VALUES for v in VALUES[r]]}, index=index)


def test_the_rows_count_the_topics_each_run_scores_above_and_below_the_baseline():
    rows = reeval.compare_runs(frame("map"), baseline="base")
    got = rows.set_index("run_a")[["run_b", "topics_a_higher", "topics_a_lower"]]
    assert got.to_dict("index") == {"b": {"run_b": "base", "topics_a_higher": 3, "topics_a_lower": 1},
                                    "c": {"run_b": "base", "topics_a_higher": 0, "topics_a_lower": 3}}


def test_the_report_marks_the_baseline_and_shows_deltas_and_improved_degraded():
    rows = reeval.compare_runs(frame("map"), baseline="base", correction="bonferroni")
    report = rows.report(format="markdown")
    lines = report.splitlines()
    assert lines[0] == "| run | map | map delta | map improved | map degraded | map p | map p corrected |"
    assert lines[2] == "| base (baseline) | 0.5000 |  |  |  |  |  |"
    b = lines[3].split(" | ")
    assert b[1:5] == ["0.6000", "+0.1000", "3", "1"]
    row = rows.set_index("run_a").loc["b"]
    assert row.p_adjusted == min(1.0, 2 * row.p_value)   # Bonferroni over the 2 runs
    assert [b[5], b[6].rstrip(" |*")] == [f"{row.p_value:.3f}", f"{row.p_adjusted:.3f}"]
    assert "Bonferroni-corrected over the 2 runs compared with the baseline" in report


def test_improved_means_lower_for_a_measure_where_lower_is_better():
    report = reeval.compare_runs(frame("ASL"), baseline="base").report(format="text")
    c = next(line for line in report.splitlines() if line.startswith("c "))
    assert c.split()[3:5] == ["3", "0"]   # c is lower on 3 topics: better for ASL


def test_without_a_baseline_the_table_is_the_pairwise_one():
    report = reeval.compare_runs(frame("map")).report(format="text")
    assert "(baseline)" not in report and "Markers:" in report


def test_run_names_are_escaped_in_the_baseline_table():
    values = frame("map").rename(index={"b": "x|y_&"}, level=0)
    rows = reeval.compare_runs(values, baseline="base")
    assert "x&#124;y\\_&" in rows.report(format="markdown") and r"x\textbar{}y\_\&" in rows.report(format="latex")


def test_the_report_s_default_format_is_the_command_s():
    """Issue 39: ``.report()`` defaulted to Markdown and ``reeval compare`` to text; both now
    take reeval.choices.REPORT_FORMAT (text)."""
    import inspect

    from reeval.api.comparison import Comparison
    from reeval.cli.app import build_parser

    compare = build_parser()._subparsers._group_actions[0].choices["compare"]
    cli_default = next(a.default for a in compare._actions if a.dest == "format")
    assert inspect.signature(Comparison.report).parameters["format"].default == cli_default == "text"
    rows = reeval.compare_runs(frame("map"))
    assert rows.report() == rows.report(format="text") != rows.report(format="markdown")


def test_p_values_below_a_thousandth_are_printed_as_a_floor_in_every_table_format():
    """Issue 39 item 5: ``3.518e-05`` is not what a paper prints; the table writes fixed
    notation with a floor, in text, Markdown and LaTeX alike."""
    index = pd.MultiIndex.from_tuples([(r, f"q{t}") for r in ("base", "b") for t in range(40)],
                                      names=["run", "query_id"])
    values = [0.1 + 0.001 * t for t in range(40)] + [0.5 + 0.002 * (t % 3) for t in range(40)]
    rows = reeval.compare_runs(pd.DataFrame({"map": values}, index=index), baseline="base")
    assert rows.p_value.iloc[0] < 1e-10
    for fmt, floor in (("text", "< 0.001"), ("markdown", "&lt; 0.001"), ("latex", r"\textless{} 0.001")):
        report = rows.report(format=fmt)
        assert floor in report and "e-" not in report, fmt
