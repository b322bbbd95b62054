"""The workflow says what it dropped (issue 39, item 3): a run scored without some of its
lines (a duplicate document, a NaN score, a malformed line) is flagged, with the counts and
the ingest report's reason names, in the closing lines of a run that succeeded and on its
track's leaderboard in report.html. The workflow itself: tests/workflow/test_adding_a_track.py."""

import pandas as pd

from conftest import write_lines
from reeval.io.ingest import ingest_track, write_track
from reeval.io.notes import lost_lines
from reeval.report.html import DROPPED, dropped_by_track, leaderboard, report_html
from reeval.workflow.closing import closing_lines
from reeval.workflow.run_inclusion import study_run_inclusion

QRELS = [f"{q} 0 D{d} {int(d % 2 == 0)}" for q in (1, 2) for d in range(6)]


def clean_run(tag):
    return [f"{q} Q0 D{d} {d + 1} {10 - d} {tag}" for q in (1, 2) for d in range(5)]


def results_with_drops(tmp_path, track="trk"):
    """A results folder whose track has a clean run, one repeating 3 documents, one with 2
    NaN scores, one with 1 blank line, 1 comment and 1 line on an unjudged topic, and one
    that kept no line."""
    src = tmp_path / "src"
    runs = src / "runs"
    runs.mkdir(parents=True)
    qrels = write_lines(src / "qrels.txt", QRELS)
    write_lines(runs / "clean", clean_run("clean"))
    write_lines(runs / "dups", clean_run("dups") + ["1 Q0 D0 9 0.5 dups", "1 Q0 D1 10 0.4 dups",
                                                     "2 Q0 D3 9 0.3 dups"])
    write_lines(runs / "nans", clean_run("nans")[:-2] + ["2 Q0 D3 4 nan nans", "2 Q0 D4 5 NaN nans"])
    write_lines(runs / "passed", clean_run("passed") + ["", "# a comment", "9 Q0 D0 1 1 passed"])
    write_lines(runs / "allnan", ["1 Q0 D0 1 nan allnan"])
    folder = tmp_path / "results" / "tracks" / track
    write_track(ingest_track(track, qrels, sorted(runs.iterdir())), folder)
    res = tmp_path / "results"
    (res / "summary").mkdir()
    study_run_inclusion({track: folder / "ingest_report.csv"}).to_csv(res / "summary" / "run_inclusion.csv",
                                                                      index=False)
    pd.DataFrame({"track": [track], "included": [True], "reason": ["included"], "runs_included": [4]}).to_csv(
        res / "summary" / "inclusion.csv", index=False)
    pd.DataFrame({"run": ["clean", "dups", "nans", "passed"], "map": [0.5, 0.4, 0.3, 0.2]}).to_parquet(
        folder / "measures_by_run.parquet")
    return res


def test_the_lines_a_run_lost_are_named_as_the_ingest_report_names_them_largest_first():
    row = {"duplicate": 2, "nan_score": 311, "malformed": 0, "blank": 4, "comment": 1, "unjudged_topic": 9}
    assert lost_lines(row) == "311 nan_score, 2 duplicate"
    assert lost_lines(dict(row, duplicate=0, nan_score=0)) is None  # blank, comment, unjudged: as trec_eval


def test_the_closing_lines_flag_each_run_that_lost_lines_with_the_count_and_why(tmp_path):
    res = results_with_drops(tmp_path)
    lines = closing_lines(res)
    at = lines.index(f"Scored without some of their lines, 2 runs (counts per run: "
                     f"{res / 'summary' / 'run_inclusion.csv'}):")
    assert lines[at + 1:at + 3] == ["  trk/dups: 3 duplicate", "  trk/nans: 2 nan_score"]
    assert len(lines) == at + 3  # one line per run, none for those that lost only what trec_eval passes over
    assert "  left out, 1 run (trk/allnan): no line kept: 1 line read: 1 with a NaN score" in lines
    assert not any("passed" in line or "clean" in line for line in lines)
    assert not any(line.startswith("Scored without") for line in closing_lines(res, failed=True))


def test_a_run_that_lost_no_line_adds_no_closing_line(tmp_path):
    res = results_with_drops(tmp_path)
    table = pd.read_csv(res / "summary" / "run_inclusion.csv")
    table[["duplicate", "nan_score"]] = 0
    table.to_csv(res / "summary" / "run_inclusion.csv", index=False)
    assert not any(line.startswith("Scored without") for line in closing_lines(res))


def test_more_than_six_runs_that_lost_lines_are_counted_after_the_sixth(tmp_path):
    res = tmp_path / "results"
    (res / "summary").mkdir(parents=True)
    pd.DataFrame({"track": "t", "run": [f"r{i}" for i in range(8)], "file": "f", "included": True,
                  "reason": "included", "lines_read": 9, "kept": 8, "blank": 0, "comment": 0, "malformed": 0,
                  "nan_score": 0, "unjudged_topic": 0, "duplicate": 1, "kind": "run"}).to_csv(
        res / "summary" / "run_inclusion.csv", index=False)
    lines = closing_lines(res)
    assert lines[0].startswith("Scored without some of their lines, 8 runs") and lines[7] == "  and 2 more"


def test_a_name_with_a_control_character_is_printed_escaped(tmp_path):
    res = results_with_drops(tmp_path, track="t")
    table = pd.read_csv(res / "summary" / "run_inclusion.csv", keep_default_na=False)
    table.loc[table.run == "dups", "run"] = "du\x1b]0;x\x07ps"
    table.to_csv(res / "summary" / "run_inclusion.csv", index=False)
    flagged = [line for line in closing_lines(res) if "du" in line and "duplicate" in line]
    assert len(flagged) == 1 and "\x1b" not in flagged[0] and "\x07" not in flagged[0]


def test_the_leaderboard_flags_the_runs_that_lost_lines(tmp_path):
    res = results_with_drops(tmp_path)
    dropped = dropped_by_track(res / "summary" / "run_inclusion.csv")
    assert dropped == {"trk": {"dups": "3 duplicate", "nans": "2 nan_score"}}
    board = leaderboard(pd.DataFrame({"run": ["dups", "clean"], "map": [0.1, 0.2]}), dropped["trk"])
    assert list(board.columns) == ["rank", "run", DROPPED, "MAP"] and list(board[DROPPED]) == ["", "3 duplicate"]
    assert DROPPED not in leaderboard(pd.DataFrame({"run": ["a"], "map": [0.1]}), {})
    html = report_html(res, [res / "tracks" / "trk" / "measures_by_run.parquet"], res / "summary" / "inclusion.csv",
                       run_inclusion_csv=res / "summary" / "run_inclusion.csv")
    assert "trk</b>: 4 runs, included, <span" in html and "2 scored without some of their lines" in html
    assert "<td>3 duplicate</td>" in html and "<td>2 nan_score</td>" in html
    assert 'href="summary/run_inclusion.csv"' in html
