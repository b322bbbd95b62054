"""The groups of a reusability study as researchers have them and as every output states
them: a TREC leaderboard (CSV or TSV with a header naming run and participant columns) read
as groups, anything else refused in one line naming the accepted forms; a group pattern
that does not match a run or captures nothing refused naming the run (CLI, API, workflow);
no groups warned on the console, in the verdict and in the report; one ``places`` default
for the command, the API and the workflow; a track's official leaderboard gives its groups."""

import inspect
import re
import warnings

import pandas as pd
import pytest

from conftest import SHARED_DATA
from reeval.analyses.reusability.groups import ALONE, GROUPS_FORMS, groups_option, has_group_columns, read_groups
from reeval.analyses.reusability.report import (rule_inputs, rule_options, summary_markdown, track_groups,
                                                track_reusability)
from reeval.api.reusability import leave_one_group_out
from reeval.choices import REUSABILITY_PLACES
from reeval.cli import main
from reeval.errors import InputError
from reeval.io.ingest import ingest_track, write_track

from test_reusability_outputs import files  # noqa: F401 (a fixture: the small track, its runs, a groups file)

DL2020_BOARD = SHARED_DATA / "trec2020-dl-passage" / "meta" / "official_scores_trec-browser.tsv"
#: a TREC leaderboard as published: tab-separated, a header, run and participant among 6 columns
BOARD = ("run\tparticipant\ttask\ttype\ttrec_eval:map\ttrec_eval:P_10\n"
         "A1\tteamA\tpassages\tauto\t0.5\t0.4\nA2\tteamA\tpassages\tnn\t0.4\t0.3\n"
         "B1\tteam B\tpassages\tauto\t0.3\t0.2\nC1\tteamC\tpassages\tauto\t0.1\t0.1\n"
         "Z9\tteamZ\tdocs\tauto\t0.2\t0.2\n")


@pytest.mark.parametrize("name", ["board.txt", "board.tsv", "leaderboard"])
def test_a_tab_separated_leaderboard_is_read_as_groups(tmp_path, name):
    """Refused on main whatever its name: "expected 'RUN GROUP', found 6 fields"."""
    board = tmp_path / name
    board.write_text(BOARD)
    assert read_groups(board) == {"A1": "teamA", "A2": "teamA", "B1": "team B", "C1": "teamC", "Z9": "teamZ"}
    assert has_group_columns(board)


def test_header_names_are_matched_whatever_their_case_and_the_group_column_is_found_anywhere(tmp_path):
    board = tmp_path / "board"
    board.write_text("# the official scores\nmap,Team,RunID\n0.5,x,A1\n0.4,\"y, z\",A2\n")
    assert read_groups(board) == {"A1": "x", "A2": "y, z"}


def test_run_group_lines_are_still_read_tabs_and_commas_in_names_included(tmp_path):
    lines = tmp_path / "groups.txt"
    lines.write_text("A1\tA\nA2 A\nB,1 B  # a comma in a run name\n")
    assert read_groups(lines) == {"A1": "A", "A2": "A", "B,1": "B"}
    assert not has_group_columns(lines)


@pytest.mark.skipif(not DL2020_BOARD.is_file(), reason="../shared/data is absent")
def test_the_published_leaderboards_give_each_run_its_participant():
    groups = read_groups(DL2020_BOARD)
    assert len(groups) == 59 and len(set(groups.values())) == 17  # cut -f2 | sort -u
    assert (groups["1"], groups["p_bm25"], groups["CoRT-electra"]) == ("nvidia_ai_apps", "anserini", "HSRM-LAVIS")
    # TREC-COVID round 2 names its runs in a column "tag"
    teams = read_groups(SHARED_DATA / "trec-covid-round2" / "meta" / "leaderboard.csv")
    assert len(teams) == 136 and len(set(teams.values())) == 51 and teams["mpiid5_run3"] == "mpiid5"


@pytest.mark.parametrize("name, text, where", [
    ("scores.tsv", "run\tmap\nA1\t0.5\n", "line 1"),  # no group column
    ("scores.txt", "# scores\nrun\tmap\nA1\t0.5\n", "line 2"),  # two fields a line, but a header naming a run
    ("scores", "Run,map,P_10\nA1,0.5,0.1\n", "line 1"),
    ("three.txt", "A1 A x\n", "line 1"),
    ("board.csv", "team,score\nA,1\n", "line 1"),  # no run column
])
def test_any_other_form_is_refused_in_one_line_naming_the_accepted_forms(tmp_path, name, text, where):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        read_groups(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: {where}: expected {GROUPS_FORMS}") and "\n" not in message


def test_the_command_takes_a_leaderboard_as_groups(files, tmp_path, capsys):
    qrels, runs, _ = files
    (tmp_path / "board.txt").write_text(BOARD)
    assert main(["reusability", qrels, *runs, "--groups", str(tmp_path / "board.txt"), "--depth", "2", "-m", "AP",
                 "--quiet"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("3 groups, 4 runs")
    assert [line.split("\t")[1] for line in out[2:6]] == ["teamA", "teamA", "team B", "teamC"]


@pytest.mark.parametrize("pattern, message", [
    ("^(x)?", r"group pattern '\^\(x\)\?' captures nothing for run 'A1' \(and 3 more runs\)"),
    ("^()", r"group pattern '\^\(\)' captures nothing for run 'A1' \(and 3 more runs\)"),
    ("^([AB])", r"group pattern '\^\(\[AB\]\)' does not match run 'C1':"),
    ("^(A)?", r"group pattern '\^\(A\)\?' captures nothing for run 'B1' \(and 1 more run\)"),
])
def test_a_pattern_that_leaves_a_run_without_a_group_is_refused_naming_it(files, tmp_path, pattern, message, capsys):
    """On main every such run landed in a group None (or '') with no note."""
    qrels, runs, _ = files
    assert main(["reusability", qrels, *runs, "--groups", pattern, "--depth", "2", "-m", "AP"]) != 0
    err = capsys.readouterr().err.strip()
    assert re.search(f"--groups: {message}", err) and "\n" not in err and "Traceback" not in err
    with pytest.raises(InputError, match=f"^groups: {message}"):
        leave_one_group_out(qrels, runs, groups=f"re:{pattern}", depth=2, measures="AP")
    with pytest.raises(InputError, match=f"^groups: {message}"):
        leave_one_group_out(qrels, runs, groups=re.compile(pattern), depth=2, measures="AP")
    track_dir, out = tmp_path / "track", tmp_path / "out"
    write_track(ingest_track("small", qrels, runs), track_dir)
    out.mkdir()
    with pytest.raises(InputError, match=f"^small: groups: {message}"):
        track_reusability("small", track_dir, out, ["AP"], groups=pattern, groups_from="pattern", depth=2,
                          figures=False)


def test_a_pattern_matching_every_run_still_groups_them():
    assert groups_option("^(.)", ["A1", "A2", "B1"]) == {"A1": "A", "A2": "A", "B1": "B"}
    assert groups_option("[0-9]", ["A1", "A2", "B1"]) == {"A1": "1", "A2": "2", "B1": "1"}  # no group: the match


def test_without_groups_the_console_and_the_verdict_say_each_run_was_left_out_alone(files, capsys):
    qrels, runs, _ = files
    assert main(["reusability", qrels, *runs, "--depth", "2", "-m", "AP"]) == 0
    captured = capsys.readouterr()
    verdict = [line for line in captured.out.splitlines() if line.startswith("verdict AP: ")]
    assert len(verdict) == 1 and f"; {ALONE}; max drop " in verdict[0]
    assert f"reeval: {ALONE} (give --groups a leaderboard" in captured.err
    assert main(["reusability", qrels, *runs, "--groups", "^(.)", "--depth", "2", "-m", "AP"]) == 0
    captured = capsys.readouterr()
    assert ALONE not in captured.out + captured.err


def test_without_groups_the_api_warns_and_notes_it(files):
    qrels, runs, _ = files
    with pytest.warns(UserWarning, match="each run left out alone"):
        table = leave_one_group_out(qrels, runs, depth=2, measures="AP")
    assert any(ALONE in note for note in table.attrs["notes"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        grouped = leave_one_group_out(qrels, runs, groups={"A1": "A", "A2": "A", "B1": "B", "C1": "C"}, depth=2,
                                      measures="AP")
    assert not any(ALONE in note for note in grouped.attrs["notes"])


def test_the_api_reads_a_groups_file_and_gives_the_verdicts(files, tmp_path):
    qrels, runs, _ = files
    (tmp_path / "board.tsv").write_text(BOARD)
    table = leave_one_group_out(qrels, runs, groups=tmp_path / "board.tsv", depth=2, measures=["AP", "ASL"])
    assert table.loc[table["measure"] == "AP", "group"].tolist() == ["teamA", "teamA", "team B", "teamC"]
    by_string = leave_one_group_out(qrels, runs, groups=str(tmp_path / "board.tsv"), depth=2, measures=["AP", "ASL"])
    pd.testing.assert_frame_equal(table, by_string)
    verdicts = table.attrs["verdicts"]
    assert [v["measure"] for v in verdicts] == ["AP", "ASL"] and {v["places"] for v in verdicts} == {0}
    ap, asl = (table[table["measure"] == m] for m in ("AP", "ASL"))
    assert verdicts[0]["rank_changes_inserted"] == ap.eval("rank != rank_logo").sum()
    # a drop is the loss: score - score_logo for AP, score_logo - score for ASL (lower is better)
    assert verdicts[0]["max_drop"] == (ap["score"] - ap["score_logo"]).max()
    assert verdicts[1]["max_drop"] == (asl["score_logo"] - asl["score"]).max()
    wide = leave_one_group_out(qrels, runs, groups=tmp_path / "board.tsv", depth=2, measures="AP", places=5)
    assert wide.attrs["verdicts"][0]["rank_changes_inserted"] == 0
    with pytest.raises(InputError, match="^places must be at least 0"):
        leave_one_group_out(qrels, runs, groups=tmp_path / "board.tsv", depth=2, measures="AP", places=-1)
    with pytest.raises(InputError, match="no such file"):
        leave_one_group_out(qrels, runs, groups=tmp_path / "missing.tsv", depth=2, measures="AP")


def test_one_places_default_for_the_command_the_api_and_the_workflow():
    """On main: --places 0, reusability.places 2, no API parameter."""
    import argparse

    from reeval.cli.reusability import add_parser
    from reeval.workflow.config_check import with_defaults

    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers(), argparse.ArgumentParser(add_help=False))
    command = parser.parse_args(["reusability", "q", "r"]).places
    api = inspect.signature(leave_one_group_out).parameters["places"].default
    workflow = with_defaults({"tracks": {"t": {"qrels": "q", "runs": "r"}}})["reusability"]["places"]
    assert command == api == workflow == REUSABILITY_PLACES


def test_a_track_without_groups_takes_its_official_leaderboards_participants(tmp_path, files):
    from reeval.workflow.config_check import with_defaults

    board = tmp_path / "official.tsv"
    board.write_text(BOARD)
    long_form = tmp_path / "long.csv"
    long_form.write_text("run,block,measure,value\nA1,trec_eval,map,0.5\n")
    local = {"qrels": "q", "runs": "r"}
    assert track_groups(local, str(board)) == (str(board), "official")
    assert track_groups(local, str(long_form)) == (None, "each run alone")
    assert track_groups({**local, "groups": "^(.)"}, str(board)) == ("^(.)", "pattern")
    manifest = {"urls": {"runs": [{"run": "A1", "url": "u", "participant": "p"}]}}
    assert track_groups(manifest, str(board)) == ({"A1": "p"}, "manifest")
    cfg = with_defaults({"tracks": {"t": local, "u": {**local, "groups": str(board), "pooled": str(long_form)}}})
    assert rule_inputs(rule_options(cfg, "t", str(board))) == {"groups": str(board)}
    assert rule_inputs(rule_options(cfg, "t", str(long_form))) == {}
    assert rule_inputs(rule_options(cfg, "u")) == {"groups": str(board), "pooled": str(long_form)}
    qrels, runs, _ = files
    track_dir, out = tmp_path / "track", tmp_path / "out"
    write_track(ingest_track("small", qrels, runs), track_dir)
    out.mkdir()
    tables = track_reusability("small", track_dir, out, ["AP"], groups=str(board), groups_from="official", depth=2,
                               figures=False)
    assert tables["by_run"]["group"].tolist() == ["teamA", "teamA", "team B", "teamC"]
    assert pd.read_csv(out / "verdict.csv")["groups_from"].tolist() == ["official"]


def test_the_report_names_the_tracks_whose_runs_were_left_out_alone():
    stacked = pd.DataFrame({"track": ["t1", "t1", "t<2>", "t3"], "measure": ["map", "P_20", "map", "map"],
                            "groups_from": ["official", "official", "each run alone", "each run alone"]})
    text = summary_markdown(stacked)
    assert "Groups of the 3 tracks: official 1, each run alone 2." in text
    assert f"**{ALONE[0].upper()}{ALONE[1:]}**, in 2 tracks: t&lt;2>, t3 (" in text
    assert "alone" not in summary_markdown(stacked[stacked["groups_from"] == "official"]).split("Groups")[1]
