"""`reeval reusability` (the command), the workflow steps of the reusability study (tables,
verdicts, groups) and its figures (camera-ready PDFs)."""

import subprocess
import sys

import pandas as pd
import pytest

from pdffigures import camera_ready_problems
from reeval.analyses.reusability.groups import read_groups, read_pooled
from reeval.analyses.reusability.figures import compared_pairs
from reeval.analyses.reusability.report import summarize_reusability, track_groups, track_reusability
from reeval.cli import main
from reeval.errors import InputError
from reeval.io.ingest import ingest_track, write_track

from test_reusability import GROUPS, QRELS, RUNS


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    paths = []
    for name, text in RUNS.items():
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    (tmp_path / "groups.txt").write_text("# run group\nA1 A\nA2 A\n\nB1 B  # B's only run\n")
    return str(tmp_path / "qrels.txt"), paths, str(tmp_path / "groups.txt")


def test_command_prints_a_table_and_a_verdict_per_measure(files, capsys):
    qrels, runs, groups = files
    assert main(["reusability", qrels, *runs, "--groups", groups, "--depth", "2", "-m", "AP", "-m", "P@2",
                 "--quiet"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "# AP (higher is better): pool depth 2, 3 groups, 4 runs"
    assert out[1].split("\t") == ["run", "group", "score", "without_group", "delta", "rank", "rank_inserted",
                                  "rank_change"]
    assert out[3].split("\t") == ["A2", "A", "0.2500", "0.0000", "-0.2500", "3", "3", "+0"]
    assert out[4].split("\t") == ["B1", "B", "0.4167", "0.1204", "-0.2963", "2", "3", "-1"]
    # every document of this small track is judged: at depth 2 it is judged beyond the pool depth
    assert out[6] == ("verdict AP: not a test of this collection (the qrels judge most of the documents below the "
                      "pool depth 2 for 2 of the 3 runs that retrieved below it); max drop 0.2963 (B1), mean drop "
                      "0.1422, Kendall tau full vs left-out ranking 0.9129, inserted rank: 1 of 4 runs move more "
                      "than 0 places")
    assert out[7].startswith("# P@2 (higher is better)") and len(out) == 14


def test_command_groups_by_pattern_and_pooled_runs(files, capsys):
    qrels, runs, _ = files
    assert main(["reusability", qrels, *runs, "--groups", "^(.)", "--pooled", "^[AB]", "--depth", "2", "-m", "P@2",
                 "--quiet"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("3 groups, 4 runs, 3 runs pooled")
    assert [line.split("\t")[1] for line in out[2:6]] == ["A", "A", "B", "C"]


@pytest.mark.parametrize("args, message", [
    (["--depth", "0"], "must be at least 1"),
    (["--groups", "(unclosed"], "neither a file nor a pattern"),
    (["-m", "num_rel"], "mean over topics"),
    (["--pooled", "^nothing$"], "none of the runs given"),
])
def test_command_bad_options_are_one_line_errors(files, capsys, args, message):
    qrels, runs, _ = files
    code = None
    try:
        code = main(["reusability", qrels, *runs, *args])
    except SystemExit as stop:  # argparse's own checks: status 2 and the usage
        code = stop.code
    err = capsys.readouterr().err
    assert code in (1, 2) and message in err and "Traceback" not in err


def test_groups_files_name_the_bad_line(tmp_path):
    bad = tmp_path / "g.txt"
    bad.write_text("A1 A\nA2\n")
    with pytest.raises(InputError, match=r"g.txt: line 2: expected 'RUN GROUP', found 1 fields"):
        read_groups(bad)
    bad.write_text("A1 A\nA1 B\n")
    with pytest.raises(InputError, match="line 2: run 'A1' is already in group 'A'"):
        read_groups(bad)
    board = tmp_path / "board.csv"
    board.write_text("run,team,contributed judgments\nA1,teamA,yes\nA2,teamA,no\nB1,\"team, B\",Yes\n")
    assert read_groups(board) == {"A1": "teamA", "A2": "teamA", "B1": "team, B"}
    assert read_pooled(str(board), ["A1", "A2", "B1"]) == ["A1", "B1"]
    (tmp_path / "nogroup.csv").write_text("run,score\nA1,1\n")
    with pytest.raises(InputError, match="nogroup.csv: line 1: expected a header with run"):
        read_groups(tmp_path / "nogroup.csv")


def test_command_runs_as_a_process(files):
    qrels, runs, groups = files
    done = subprocess.run([sys.executable, "-m", "reeval.cli", "reusability", "--quiet", qrels, *runs,
                           "--groups", groups, "--depth", "2"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.count("verdict ") == 2


def test_track_groups_come_from_the_entry_the_manifest_or_each_run():
    assert track_groups({"groups": {"a": "x"}}) == ({"a": "x"}, "config")
    assert track_groups({"groups": "^(\\w+)_"}) == ("^(\\w+)_", "pattern")
    entry = {"urls": {"runs": [{"run": "r1", "url": "u", "participant": "p"}, {"run": "r2", "url": "u"}]}}
    assert track_groups(entry) == ({"r1": "p"}, "manifest")
    assert track_groups({"qrels": "q", "runs": "r"}) == (None, "each run alone")


def test_cross_track_panels_pair_each_measure_with_its_base():
    measures = ["map", "P_20", "ASL", "P_100", "P_rareness@100", "map_cut_100", "AP_rareness@100"]
    assert compared_pairs(measures) == [("map", "P_20"), ("map", "ASL"), ("P_100", "P_rareness@100"),
                                        ("map_cut_100", "AP_rareness@100")]
    assert compared_pairs(["P_20", "ASL"]) == []


def test_workflow_steps_write_tables_and_camera_ready_figures(files, tmp_path):
    qrels, runs, _ = files
    track_dir = tmp_path / "track"
    write_track(ingest_track("small", qrels, runs), track_dir)
    out = tmp_path / "reusability"
    out.mkdir()
    measures = ["AP", "P@2", "ASL", "P@3", "P_rareness@3", "AP@3", "AP_rareness@3"]
    tables = track_reusability("small", track_dir, out, measures, groups=GROUPS, groups_from="config", depth=2)
    by_run = pd.read_csv(out / "by_run.csv")
    assert len(by_run) == 4 * len(measures) and list(by_run.columns[:3]) == ["track", "group", "run"]
    verdict = pd.read_csv(out / "verdict.csv")
    assert verdict["groups_from"].eq("config").all() and verdict["pool_depth"].eq(2).all()
    groups = pd.read_csv(out / "groups.csv")
    assert groups.to_dict("records")[0] == {"track": "small", "group": "A", "runs": 2, "removed": 5,
                                           "removed_relevant": 4}
    assert tables["verdict"]["max_drop_run"].iloc[0] == "B1"
    summary = tmp_path / "summary"
    summary.mkdir()
    stacked = summarize_reusability({"small": out, "again": out}, summary)
    assert len(stacked) == 2 * len(measures)
    for pdf in (out / "scores.pdf", summary / "tau_by_track.pdf"):
        assert camera_ready_problems(pdf) == []
    assert (out / "scores.png").is_file() and (summary / "tau_by_track.png").is_file()


def test_many_groups_draw_one_colour_and_say_how_many(tmp_path):
    from reeval.analyses.reusability.figures import FEW_GROUPS, plot_scores

    n = FEW_GROUPS + 3
    table = pd.DataFrame({"group": [f"g{i}" for i in range(n)], "run": [f"r{i}" for i in range(n)],
                          "measure": "map", "score": [i / n for i in range(n)],
                          "score_logo": [i / n - 0.01 for i in range(n)]})
    plot_scores(table, tmp_path / "many", "track")
    assert camera_ready_problems(tmp_path / "many.pdf") == []


def test_cross_track_step_with_no_track_writes_an_empty_table_and_says_so(tmp_path):
    stacked = summarize_reusability({}, tmp_path)
    assert stacked.empty and (tmp_path / "verdicts.csv").read_text().startswith("track,groups_from,measure,")
    assert camera_ready_problems(tmp_path / "tau_by_track.pdf") == []


def test_cross_track_figure_draws_measures_whose_tau_is_undefined(tmp_path):
    """A measure on which every run ties (tau NaN) keeps its panel, empty."""
    from reeval.analyses.reusability.figures import plot_tau_by_track

    verdicts = pd.DataFrame({"track": ["t1"] * 3 + ["t2"] * 3, "measure": ["map", "P_100", "P_rareness@100"] * 2,
                             "kendall_tau_left_out": [0.9, float("nan"), 0.8, 1.0, float("nan"), 0.7]})
    plot_tau_by_track(verdicts, tmp_path / "tau")
    assert camera_ready_problems(tmp_path / "tau.pdf") == []


@pytest.mark.parametrize("spec, message", [("nope@3", "reusability.measures: "),
                                           ("num_rel", "has no mean over topics")])
def test_a_bad_reusability_measure_is_a_config_error_naming_it(spec, message):
    from reeval.workflow.config_check import ConfigError, check_config

    with pytest.raises(ConfigError, match=message):
        check_config({"tracks": {}, "reusability": {"measures": ["AP", spec]}})
    check_config({"tracks": {}, "reusability": {"measures": ["AP", "P_rareness@10", "ASL@g1-10"]}})


def test_rule_options_of_a_config_with_defaults():
    from reeval.analyses.reusability.report import rule_options
    from reeval.workflow.config_check import with_defaults

    cfg = with_defaults({"tracks": {"t": {"qrels": "q", "runs": "r", "pool_depth": 7, "groups": "^(.)",
                                          "relevance_level": 2}, "u": {"qrels": "q", "runs": "r"}}})
    t, u = rule_options(cfg, "t"), rule_options(cfg, "u")
    assert (t["depth"], t["groups"], t["groups_from"], t["relevance_level"]) == (7, "^(.)", "pattern", 2)
    assert (u["depth"], u["groups"], u["groups_from"], u["pooled"]) == (100, None, "each run alone", None)
    assert u["measures"][:3] == ["AP", "P@20", "ASL"] and u["alpha"] == 1 and u["systems"] == "all"
