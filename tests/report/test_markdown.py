"""The report's markdown helpers: numbers, tables, images, templates."""

import math

import numpy as np
import pandas as pd
import pytest

from reeval.report.markdown import counts_line, fill, fmt, fmt_p, image, render, table


@pytest.mark.parametrize("value, digits, text", [
    (0.45678, 3, "0.457"), (0.45678, 2, "0.46"), (2.5, 0, "2"), (3.5, 0, "4"),   # half to even
    (np.float64(1.0), 1, "1.0"), (7, 3, "7"), (np.int64(12), 2, "12"), (-0.0004, 3, "-0.000"),
    (None, 3, "n/a"), (math.nan, 2, "n/a"), (math.inf, 3, "n/a"), (np.float64(-np.inf), 1, "n/a"),
])
def test_fmt_numbers(value, digits, text):
    assert fmt(value, digits) == text


def test_fmt_defaults_to_four_decimals_as_trec_eval_prints():
    assert fmt(1 / 3) == "0.3333" and fmt(0.45675) == "0.4567" and fmt(1.0) == "1.0000"


def test_table_header_separator_and_rows():
    df = pd.DataFrame({"track": ["a", "b"], "runs": [3, 10], "best": ["0.5 (r1)", "n/a"]})
    assert table(df) == ("| track | runs | best |\n|---|---|---|\n"
                         "| a | 3 | 0.5 (r1) |\n| b | 10 | n/a |")


def test_table_without_rows_is_header_and_separator():
    assert table(pd.DataFrame(columns=["track", "reason"])) == "| track | reason |\n|---|---|"


def test_image_and_counts_line():
    assert image("P@20 of the best run", "fig1_p20.png") == "![P@20 of the best run](fig1_p20.png)"
    assert counts_line("MAP buckets", ["0-1", ">=1"], [2, 0]) == "MAP buckets: 0-1: 2, >=1: 0"


def test_fill_placeholders_and_literal_values():
    assert fill("$n tracks, ${m}x\n", n=3, m="a$b") == "3 tracks, a$bx\n"
    with pytest.raises(KeyError):
        fill("$n and $missing", n=1)


def test_fill_drops_an_empty_block_with_its_blank_line():
    text = "# T\n\n$note\n\n## A\n\n${block}\n\n## B\n"
    assert fill(text, note="", block="") == "# T\n\n## A\n\n## B\n"
    assert fill(text, note="No track.", block="x") == "# T\n\nNo track.\n\n## A\n\nx\n\n## B\n"
    # an empty value inside a line is just empty
    assert fill("a $x b\n", x="") == "a  b\n"


def test_render_reads_the_packaged_template():
    text = render("asl_summary.md", **{k: "" for k in (
        "n_tracks", "n_runs", "paper_tracks", "paper_runs", "no_track_note", "headroom_table",
        "headroom_figures", "techniques", "paper_table1", "table2", "reordering_by_track", "map_share",
        "track_figures", "unretrieved_precision", "ttest_space", "margin_percent", "alpha",
        "map_share_target", "claims_table", "table1_comparison", "comparison_counts")})
    assert text.startswith("# Atomized search length study\n\n") and "$" not in text
    with pytest.raises(KeyError):
        render("asl_summary.md")


def test_a_table_cell_shows_a_name_literally_in_markdown_and_its_html():
    """markdown.table escapes each cell (reeval.report.escape.markdown_text): rendered, the
    cell is the name itself, its control characters shown as escapes."""
    import html as html_module

    import markdown
    import pandas as pd

    from reeval.report.escape import line_text
    from reeval.report.markdown import table

    name = "run|1 *b* _c_ [d](e) `f` <script> & g\\h\ni"
    rendered = markdown.markdown(table(pd.DataFrame({"x": [name]})), extensions=["tables"])
    cell = rendered.split("<td>")[1].split("</td>")[0]
    assert html_module.unescape(cell) == line_text(name)
    assert table(pd.DataFrame({"x": ["trec2020-dl-passage (x)"]})).endswith("| trec2020-dl-passage (x) |")


@pytest.mark.parametrize("p, text", [(3.518e-05, "< 0.001"), (0.000999, "< 0.001"), (0.001, "0.001"),
                                     (0.0456, "0.046"), (1.0, "1.000"), (0.0, "< 0.001"), (float("nan"), "n/a"),
                                     (None, "n/a")])
def test_p_values_are_written_in_fixed_notation_with_a_floor(p, text):
    assert fmt_p(p) == text
