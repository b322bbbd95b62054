"""The HTML report on a small results folder made here: leaderboards, rounding, embedded
figures, markdown, long tables (the workflow's report is opened in a browser in
tests/workflow/test_workflow.py)."""

import base64
import re

import pandas as pd

from reeval.report.html import MAX_ROWS, cell, html_table, leaderboard, report_html

# a 1 x 1 PNG
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")


def results_folder(tmp_path):
    res = tmp_path / "results"
    for folder in ("summary", "study", "tracks/t1/study", "tracks/t2"):
        (res / folder).mkdir(parents=True)
    pd.DataFrame({"track": ["t1", "t2"], "included": [True, False], "reason": ["included", "2 runs; needs >= 5"],
                  "runs_included": [3, 2]}).to_csv(res / "summary" / "inclusion.csv", index=False)
    pd.DataFrame({"track": "t1", "run": ["a", "b", "c"], "map": [0.25, 0.123456789, 0.25],
                  "P_20": [0.5, 0.1, 0.45], "ASL": [10.0, 20.5, 12.25]}).to_parquet(
        res / "tracks" / "t1" / "measures_by_run.parquet")
    (res / "study" / "fig1_p20.png").write_bytes(PNG)
    (res / "study" / "fig9.png").write_bytes(PNG + b"\0")
    (res / "tracks" / "t1" / "study" / "fig5_document_asl.png").write_bytes(PNG + b"\1")
    (res / "study" / "summary.md").write_text("# The study\n\n![best P@20](fig1_p20.png)\n\n"
                                              "See [table 2](table2.csv).\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")
    pd.DataFrame({"x": range(MAX_ROWS + 5), "v": [i / 3 for i in range(MAX_ROWS + 5)]}).to_csv(
        res / "study" / "table2.csv", index=False)
    return res


def test_the_leaderboard_ranks_runs_by_map_then_name_with_the_measures_it_has():
    board = leaderboard(pd.DataFrame({"run": ["b", "a", "c"], "map": [0.2, 0.2, 0.5], "ASL": [3.0, 2.0, 1.0],
                                      "other": [1, 2, 3]}))
    assert list(board.columns) == ["rank", "run", "MAP", "ASL"]
    assert list(board.run) == ["c", "a", "b"] and list(board["rank"]) == [1, 2, 3]
    asl = leaderboard(pd.DataFrame({"run": ["a"], "map": [0.2], "ASL": [263.6], "ASL@g1-10": [5.4]}))
    assert [cell(v) for v in asl.iloc[0, 3:]] == ["264", "5"]   # whole ranks, as the ASL paper prints them


def test_numbers_are_shown_with_four_decimals_and_integers_as_they_are():
    assert [cell(v) for v in (0.123456, 1.0, 7, True, None, float("nan"), "x")] == \
        ["0.1235", "1.0000", "7", "true", "", "", "x"]
    html = html_table(pd.DataFrame({"n": [3, 4], "v": [0.5, 1 / 3]}), max_rows=1, source="t.csv")
    assert '<td class="num">0.5000</td>' in html and "0.3333" not in html
    assert 'First 1 of 2 rows; the whole table: <a href="t.csv">t.csv</a>' in html


def test_the_report_embeds_every_figure_once_per_place_and_links_the_sections(tmp_path):
    res = results_folder(tmp_path)
    files = [res / "tracks" / "t1" / "measures_by_run.parquet", res / "study" / "fig1_p20.png",
             res / "study" / "fig9.png", res / "study" / "table2.csv",
             res / "tracks" / "t1" / "study" / "fig5_document_asl.png"]
    html = report_html(res, files, res / "summary" / "inclusion.csv", "a study",
                       captions={"study/fig9.png": "Figure nine.", "tracks/{track}/study/fig5_document_asl.png": "Fig 5."})
    assert "<script" not in html and "http" not in html.split("<body>")[1]
    srcs = re.findall(r'<img[^>]*src="([^"]+)"', html)
    assert len(srcs) == 3 and all(src.startswith("data:image/png;base64,") for src in srcs)
    # each figure once, linked to its own PNG beside the report
    assert sorted(re.findall(r'<a href="([^"]+)"><img', html)) == \
        ["study/fig1_p20.png", "study/fig9.png", "tracks/t1/study/fig5_document_asl.png"]
    # the leaderboard of t1, ranked and rounded; t2 left out with its reason
    assert "<td>a</td><td class=\"num\">0.2500</td>" in html.replace("<td class=\"num\">1</td>", "")
    assert re.search(r"<b>t1</b>: 3 runs, included", html)
    assert 'href="#track-t2"' in html and "2 runs; needs &gt;= 5" in html
    # the markdown: heading under the section's, its image embedded, its link relative to the report
    assert "<h3>The study</h3>" in html and 'href="study/table2.csv"' in html
    assert "<b>study/fig9.png</b>: Figure nine." in html and "Fig 5." in html
    assert "fig1_p20.png</b>" not in html  # shown by the markdown, not again below it
    assert f"First {MAX_ROWS} of {MAX_ROWS + 5} rows" in html
    for section in ("asl-study", "per-track"):
        assert f'href="#{section}"' in html and f'id="{section}"' in html


def test_a_long_table_is_folded_under_its_row_count_and_a_short_one_shown_open(tmp_path):
    from reeval.report.html import FOLDED_ROWS, folded_table

    short = folded_table(pd.DataFrame({"x": range(FOLDED_ROWS)}), "study/short.csv")
    assert short.startswith('<h4 id="table-study-short.csv"><a href="study/short.csv">') and "<details" not in short
    long = folded_table(pd.DataFrame({"x": range(FOLDED_ROWS + 1)}), "study/long.csv")
    assert long.startswith('<details id="table-study-long.csv"><summary><b><a href="study/long.csv">study/long.csv</a>'
                           f"</b>: {FOLDED_ROWS + 1:,} rows</summary>")
    huge = folded_table(pd.DataFrame({"x": range(MAX_ROWS + 5)}), "study/huge.csv")
    assert f": {MAX_ROWS + 5:,} rows</summary>" in huge and f"First {MAX_ROWS} of {MAX_ROWS + 5} rows" in huge


def test_the_user_s_tracks_come_first_and_the_papers_only_where_one_is_mapped(tmp_path):
    res = results_folder(tmp_path)
    (res / "papers").mkdir()
    (res / "papers" / "paper_comparison.md").write_text("# The papers\n\n| cell | status |\n|---|---|\n| a | exact |\n")
    pd.DataFrame({"cell": ["a"], "status": ["exact"]}).to_csv(res / "study" / "paper_comparison.csv", index=False)
    files = [res / "tracks" / "t1" / "measures_by_run.parquet", res / "study" / "table2.csv",
             res / "study" / "paper_comparison.csv", res / "tracks" / "t1" / "study" / "fig5_document_asl.png"]
    html = report_html(res, files, res / "summary" / "inclusion.csv", papers=[])
    assert "study/paper_comparison.csv" not in html   # a study's view of the papers' cells: not shown either
    order = [html.index(f'<section id="{sid}">') for sid in ("front", "per-track", "asl-study", "papers")]
    assert order == sorted(order)
    nav = re.search(r"<nav>(.*?)</nav>", html).group(1)
    assert re.findall(r'href="#([^"]+)"', nav) == ["front", "per-track", "asl-study", "papers"]
    papers = html[html.index('<section id="papers">'):]
    assert "No track of this study is mapped onto a paper" in papers and "lexiprecision.paper" in papers
    assert "exact" not in papers   # the comparison's rows are not shown
    shown = report_html(res, files, res / "summary" / "inclusion.csv", papers=["lexiprecision"])
    assert "<td>exact</td>" in shown[shown.index('<section id="papers">'):]
    assert "study/paper_comparison.csv" in shown


def test_the_papers_mapped_come_from_the_config_and_the_title_names_no_folder():
    from reeval.report.scope import mapped_papers, report_title

    unmapped = {"study": {"paper": {"passages": None, "documents": None}, "scope": "all"},
                "lexiprecision": {"paper": {}}, "rareness": {"paper": {}}}
    assert mapped_papers(unmapped) == []
    assert mapped_papers({**unmapped, "study": {"paper": {"passages": "dl20", "documents": None}}}) == ["ASL"]
    assert mapped_papers({**unmapped, "study": {"paper": {}, "scope": "asl-paper"}}) == ["ASL"]
    assert mapped_papers({**unmapped, "study": {"paper": {}, "scope": "asl-paper-adhoc"}}) == ["ASL"]
    assert mapped_papers({**unmapped, "lexiprecision": {"paper": {"dl19": "deep-pass (2019)"}},
                          "rareness": {"paper": {"t8": "TREC-8"}}}) == ["lexiprecision", "rareness"]
    assert report_title(["/home/someone/studies/holdout.yaml"]) == "reeval report: holdout.yaml"
    assert report_title([]) == "reeval report: config.yaml"
