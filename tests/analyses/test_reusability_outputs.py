"""`reeval reusability` (the command), the workflow steps of the reusability study (tables,
verdicts, groups) and its figures (camera-ready PDFs)."""

import subprocess
import sys

import pandas as pd
import pytest

from conftest import ROOT
from pdffigures import camera_ready_problems, figure_facts
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


def test_a_misspelt_run_in_a_groups_or_pooled_file_is_a_one_line_error(files, capsys, tmp_path):
    """Issue 38: a groups line for A_2 when the run is A2 left A2 silently alone; now the
    command refuses, naming the unknown names and the runs left unnamed in one line
    (stderr, status 1), as for a pooled-runs file naming a run not given. A leaderboard
    naming every run given and more (the whole campaign) is fine."""
    qrels, runs, _ = files
    typo = tmp_path / "typo.txt"
    typo.write_text("A1 A\nA_2 A\nB1 B\nB_2 B\n")
    assert main(["reusability", qrels, *runs, "--groups", str(typo), "--depth", "2", "--quiet"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].endswith(f"--groups {typo}: 2 names that are no run given: 'A_2', 'B_2'; "
                                             "2 runs given are not named there: 'A2', 'C1'")
    pooled = tmp_path / "pooled.txt"
    pooled.write_text("A1\nA_2\n")
    assert main(["reusability", qrels, *runs, "--pooled", str(pooled), "--depth", "2", "--quiet"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and f"--pooled {pooled}: 1 name that is no run given: 'A_2'; 3 runs given" in err[0]
    board = tmp_path / "board.csv"
    board.write_text("run,team,pooled\nA1,A,yes\nA2,A,no\nB1,B,yes\nC1,C,no\nD1,D,yes\n")
    assert main(["reusability", qrels, *runs, "--groups", str(board), "--pooled", str(board), "--depth", "2",
                 "--quiet"]) == 0
    assert capsys.readouterr().out.startswith("# AP (higher is better): pool depth 2, 3 groups, 4 runs, 2 runs pooled")


def test_the_workflow_step_refuses_a_misspelt_run_in_a_groups_mapping_or_pooled_file(files, tmp_path):
    """The track entry's ``groups:`` (a mapping or a file) and ``pooled:`` file: a name that
    is no run of the track while a run is not named is an error naming both; a run left
    out at ingest is a run of the track."""
    qrels, runs, _ = files
    (tmp_path / "empty_run").write_text("")
    track_dir = tmp_path / "track"
    write_track(ingest_track("small", qrels, [*runs, str(tmp_path / "empty_run")]), track_dir)
    out = tmp_path / "reusability"
    out.mkdir()
    with pytest.raises(InputError, match=r"^small: groups: 1 name that is no run given: 'A_2'; 4 runs given are "
                                         r"not named there: 'A2', 'B1', 'C1', 'empty_run'$"):
        track_reusability("small", track_dir, out, ["AP"], groups={"A1": "A", "A_2": "A"}, groups_from="config",
                          depth=2, figures=False)
    pooled = tmp_path / "pooled.txt"
    pooled.write_text("A1\nB_1\n")
    with pytest.raises(InputError, match=r"pooled.txt: 1 name that is no run given: 'B_1'; "):
        track_reusability("small", track_dir, out, ["AP"], pooled=str(pooled), depth=2, figures=False)
    pooled.write_text("A1\nempty_run\n")
    every_run_and_more = {**GROUPS, "C1": "C", "empty_run": "A", "Z9": "Z"}
    tables = track_reusability("small", track_dir, out, ["AP"], groups=every_run_and_more, groups_from="config",
                               pooled=str(pooled), depth=2, figures=False)
    assert len(tables["by_run"]) == len(runs)


def test_groups_files_name_the_bad_line(tmp_path):
    bad = tmp_path / "g.txt"
    bad.write_text("A1 A\nA2\n")
    with pytest.raises(InputError, match=r"g.txt: line 2: expected 'RUN GROUP' lines, or a CSV or TSV table .*; "
                                         r"found 1 fields$"):
        read_groups(bad)
    bad.write_text("A1 A\nA1 B\n")
    with pytest.raises(InputError, match="line 2: run 'A1' is already in group 'A'"):
        read_groups(bad)
    bad.write_text("run\tparticipant\nA1\tx\n\nA2\t\n")  # a leaderboard row without its group
    with pytest.raises(InputError, match=r"line 4: expected a run and its group, found run 'A2' without a group$"):
        read_groups(bad)
    board = tmp_path / "board.csv"
    board.write_text("run,team,contributed judgments\nA1,teamA,yes\nA2,teamA,no\nB1,\"team, B\",Yes\n")
    assert read_groups(board) == {"A1": "teamA", "A2": "teamA", "B1": "team, B"}
    assert read_pooled(str(board), ["A1", "A2", "B1"]) == ["A1", "B1"]
    (tmp_path / "nogroup.csv").write_text("run,score\nA1,1\n")
    with pytest.raises(InputError, match="nogroup.csv: line 1: expected 'RUN GROUP' lines, or a CSV or TSV table "
                                         ".*; the header names no group column$"):
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


CATALOG = ROOT.parent / "shared" / "catalog"


def test_the_cross_track_figure_of_a_study_shaped_as_the_full_simulated_one_fits(tmp_path):
    """Issue 41 item 4: the full simulated study (82 tracks from the catalog) stopped in
    reusability_summary, "the drawing reaches 0.06 in beyond the figure's edge": at full
    scale every track's tau lies between 0.99 and 1, and the tick label "1.01" of the
    right-most panel stuck out. The step on 82 tracks of the catalog's names, shaped so."""
    import numpy as np

    from reeval.analyses.reusability.report import TRACK_VERDICT_COLUMNS
    from reeval.synth.campaign import campaign_specs

    if not (CATALOG / "tracks.csv").is_file():
        pytest.skip(f"the TREC catalog is not at {CATALOG} (../shared/catalog beside the project)")
    specs = campaign_specs(CATALOG / "tracks.csv", CATALOG / "runs.csv")
    assert len(specs) == 82
    measures = ["map", "P_20", "ASL", "P_100", "P_rareness@100", "map_cut_100", "AP_rareness@100"]
    taus = np.random.default_rng(41).uniform(0.99, 1.0, (len(specs), len(measures)))
    taus[:2] = [[0.99], [1.0]]  # every measure's tau from 0.99 to 1 over the tracks
    folders = {}
    for (track, spec), tau in zip(specs.items(), taus):
        verdict = pd.DataFrame({c: 0 for c in TRACK_VERDICT_COLUMNS}, index=range(len(measures))).assign(
            track=track, groups_from="each run alone", measure=measures, runs=spec.n_runs, groups=spec.n_runs,
            pool_depth=100, kendall_tau_left_out=tau, max_drop_run="r1")
        folders[track] = tmp_path / track
        folders[track].mkdir()
        verdict.to_csv(folders[track] / "verdict.csv", index=False)
    summarize_reusability(folders, tmp_path / "summary")
    pdf = tmp_path / "summary" / "tau_by_track.pdf"
    assert camera_ready_problems(pdf) == []
    assert any(t.endswith("(82 tracks)") for t, _ in figure_facts(pdf)["texts"])  # drawn, the title counting them
    assert not any(t[:2] == "1 " for t, _ in figure_facts(pdf)["texts"])  # taus alike: no track named


def test_the_scores_figure_of_16_runs_on_8_topics_with_small_p_at_100_fits(tmp_path):
    """Issue 38 item 6: 16 runs with plain names in 8 groups, P@100 between 0.003 and 0.06 on
    8 topics; "0.06" (the tick on the right edge of the P_100 panel) stuck out by 0.05 in."""
    import numpy as np

    from reeval.analyses.reusability.figures import plot_scores

    rng = np.random.default_rng(2)
    rows = []
    for m in ["map", "P_20", "ASL", "P_100", "P_rareness@100", "map_cut_100", "AP_rareness@100"]:
        for r in range(16):
            top = 0.06 if m in ("P_100", "P_rareness@100") else 300 if m == "ASL" else 0.4
            s = rng.uniform(5 if m == "ASL" else 0, top)
            rows.append({"measure": m, "group": f"g{r % 8}", "run": f"run{r}", "score": s,
                         "score_logo": s * rng.uniform(0.8, 1)})
    table = pd.DataFrame(rows)
    table.attrs["depth"] = 100
    plot_scores(table, tmp_path / "scores", "t1")
    assert camera_ready_problems(tmp_path / "scores.pdf") == []


def test_a_figure_that_fails_costs_neither_the_tables_nor_the_report(files, tmp_path, monkeypatch, caplog):
    """The per-track step writes its tables, then a figure that says why it is missing; the
    report embeds that figure where the scores would be."""
    from reeval.analyses.reusability import figures
    from reeval.report.figures import STRICT, FigureError
    from reeval.report.html import PER_TRACK_DENSITY, report_html
    from reeval.report.images import PER_TRACK_COLOURS, embedded_png

    def too_wide(table, path_stem, track=""):
        raise FigureError(f"{path_stem}.png", 'the x tick label "0.050" of panel 4 of 8 reaches 0.05 in beyond '
                                              "the right edge")

    monkeypatch.setattr(figures, "plot_scores", too_wide)
    monkeypatch.delenv(STRICT)  # as in a real run
    qrels, runs, _ = files
    results = tmp_path / "results"
    track_dir = results / "tracks" / "small"
    write_track(ingest_track("small", qrels, runs), track_dir)
    out = track_dir / "reusability"
    track_reusability("small", track_dir, out, ["AP", "P@2"], groups=GROUPS, groups_from="config", depth=2)
    assert all((out / name).is_file() for name in ("by_run.csv", "verdict.csv", "groups.csv", "preferences.csv"))
    assert "scores.png not drawn: the x tick label \"0.050\"" in caplog.text
    text = "".join(t for t, _ in figure_facts(out / "scores.pdf")["texts"]).replace(" ", "")
    assert text.startswith("Thisfigurecouldnotbedrawn:thexticklabel\"0.050\"")
    inclusion = results / "summary" / "inclusion.csv"
    inclusion.parent.mkdir(parents=True)
    pd.DataFrame({"track": ["small"], "included": [True], "reason": ["included"], "runs_included": [4]}).to_csv(
        inclusion, index=False)
    html = report_html(results, [out / "scores.png", out / "verdict.csv"], inclusion)
    assert embedded_png(out / "scores.png", PER_TRACK_DENSITY, PER_TRACK_COLOURS)[0] in html  # the sentence, where the figure would be


def test_the_reusability_figures_name_each_measure_one_way_as_ir_measures_does(tmp_path):
    """Issue 39 item 5: the figures showed map, P_20, map_cut_100 beside P_rareness@100; they
    now print ir_measures' names (AP, P@20, AP@100) while verdicts.csv keeps reeval's."""
    import numpy as np

    from reeval.analyses.reusability.figures import plot_scores, plot_tau_by_track

    measures = ["map", "P_20", "ASL", "P_100", "P_rareness@100", "map_cut_100", "AP_rareness@100"]
    verdicts = pd.DataFrame({"track": np.repeat(["t1", "t2"], len(measures)), "measure": measures * 2,
                             "kendall_tau_left_out": np.linspace(0.7, 1.0, 2 * len(measures))})
    plot_tau_by_track(verdicts, tmp_path / "tau")
    texts = " ".join(t for t, _ in figure_facts(tmp_path / "tau.pdf")["texts"])
    for shown in ("τ of AP", "τ of P@20", "τ of P@100", "τ of AP@100", "τ of P_rareness@100", "τ of ASL"):
        assert shown in texts
    assert not any(name in texts for name in ("map", "P_20", "P_100 ", "cut"))
    table = pd.DataFrame({"group": ["g1", "g2", "g3"] * 2, "run": ["a", "b", "c"] * 2,
                          "measure": ["map"] * 3 + ["P_20"] * 3, "score": [0.3, 0.2, 0.1, 0.5, 0.4, 0.3],
                          "score_logo": [0.3, 0.19, 0.1, 0.5, 0.35, 0.3]})
    plot_scores(table, tmp_path / "scores", "t1")
    texts = [t for t, _ in figure_facts(tmp_path / "scores.pdf")["texts"]]
    assert "AP" in texts and "P@20" in texts and "map" not in texts and "P_20" not in texts


def test_display_names_are_ir_measures_names_that_read_back_as_the_same_measure():
    from reeval.measures import parse_measure
    from reeval.measures.vocabulary import display_name

    shown = {n: display_name(n) for n in ("map", "map_cut_100", "P_20", "ndcg_cut_10", "recip_rank", "recall_1000",
                                          "success_1", "Rprec", "bpref", "ASL", "P_rareness@100", "RR@10")}
    assert shown == {"map": "AP", "map_cut_100": "AP@100", "P_20": "P@20", "ndcg_cut_10": "nDCG@10",
                     "recip_rank": "RR", "recall_1000": "R@1000", "success_1": "Success@1", "Rprec": "Rprec",
                     "bpref": "Bpref", "ASL": "ASL", "P_rareness@100": "P_rareness@100", "RR@10": "RR@10"}
    assert all([m.name for m in parse_measure(d)] == [n] for n, d in shown.items())


def test_the_workflow_step_scores_as_the_function_on_the_same_runs(files, tmp_path):
    """The step matches judged rows to qrels rows by docno codes (coded_docnos), the function
    leave_one_group_out by docno strings: every column of every row is the same."""
    from reeval.api.reusability import leave_one_group_out

    qrels, runs, _ = files
    track_dir = tmp_path / "track"
    write_track(ingest_track("small", qrels, runs), track_dir)
    measures = ["AP", "P@2", "ASL", "nDCG@3", "bpref", "P_rareness@3", "AP_rareness@3"]
    step = track_reusability("small", track_dir, tmp_path, measures, groups=GROUPS, groups_from="config", depth=2,
                             figures=False)["by_run"].drop(columns="track")
    function = leave_one_group_out(qrels, runs, GROUPS, depth=2, measures=measures)
    assert len(step) == len(function) == 4 * len(measures)

    def ordered(table):  # measure by measure as given (the two name them apart), runs by name
        table = table.assign(nth=pd.factorize(table["measure"])[0])
        return table.sort_values(["nth", "run"]).drop(columns=["measure", "nth"]).reset_index(drop=True)

    want = ordered(function)[[c for c in step.columns if c != "measure"]]
    pd.testing.assert_frame_equal(ordered(step), want, check_exact=True, check_dtype=False)


def test_the_cross_track_tau_figure_names_the_tracks_farthest_from_the_line(tmp_path):
    """Which track is the 0.87 outlier? Per panel the NAMED_OUTLIERS tracks farthest from the
    identity line are numbered beside their point and named in the panel's key; the tracks
    on the line are not."""
    from reeval.analyses.reusability.figures import NAMED_OUTLIERS, outliers, plot_tau_by_track

    assert outliers([0.9, 0.9, 0.5, 1.0, 0.8, 0.7, float("nan")], [0.9, 0.8, 0.9, 0.7, 0.8, 0.7, 0.1], 2) == [2, 3]
    assert outliers([1, 1], [1, 1]) == [] and outliers([0.9] * 4, [0.9, 0.99, 0.9, 0.9]) == [1]
    assert outliers([0.99, 0.995, 1.0], [0.992, 0.999, 0.99]) == []  # none stands out: none named
    tracks = [f"track{k}" for k in range(7)] + ["trec6-clir-target-english"]
    base = [0.95, 0.96, 0.97, 0.98, 0.99, 0.94, 0.93, 0.99]
    measure = [0.95, 0.96, 0.87, 0.98, 0.99, 0.80, 0.93, 0.90]  # track5, then track2, then the long name
    verdicts = pd.DataFrame({"track": tracks * 2, "measure": ["map"] * 8 + ["P_20"] * 8,
                             "kendall_tau_left_out": base + measure})
    plot_tau_by_track(verdicts, tmp_path / "tau")
    texts = [t for t, _ in figure_facts(tmp_path / "tau.pdf")["texts"]]
    assert NAMED_OUTLIERS == 3
    assert {"1 track5", "2 track2", "3 trec6-clir-target-english", "1", "2", "3"} <= set(texts), texts
    assert not any(name in t for t in texts for name in ("track0", "track1", "track3", "track4", "track6"))
    assert camera_ready_problems(tmp_path / "tau.pdf") == []


def test_the_cross_track_tau_figures_key_sits_under_its_panel_and_the_track_count_in_the_title(tmp_path, monkeypatch):
    """The key of the tracks farthest from the line covers no point (it was drawn inside the
    panel, over the track at (1.00, 1.00)); the number of tracks is the title's, not a line
    of a panel's key that reads like a count of outliers."""
    from reeval.analyses.reusability import figures

    saved = []
    save = figures.save_figure_pair
    monkeypatch.setattr(figures, "save_figure_pair", lambda fig, stem: (saved.append(fig), save(fig, stem)))
    tracks = ["syn-graded", "syn-mixed", "syn-shallow"]
    verdicts = pd.DataFrame({"track": tracks * 3, "measure": ["map"] * 3 + ["P_20"] * 3 + ["ASL"] * 3,
                             "kendall_tau_left_out": [1.0, 1.0, 1.0, 1.0, 0.911, 1.0, 1.0, 1.0, 1.0]})
    figures.plot_tau_by_track(verdicts, tmp_path / "tau")
    (fig,) = saved
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)  # the figure as saved (closed: its layout kept, no layout engine)
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    assert fig.get_suptitle() == "Kendall's τ, full qrels against leave one group out (3 tracks)"
    keys = [(ax, t) for ax in fig.axes for t in ax.texts if t.get_text().startswith("farthest from the line:")]
    assert [t.get_text() for _, t in keys] == ["farthest from the line:\n1 syn-mixed"]  # panel P@20 only
    for ax, key in keys:
        box = key.get_window_extent(renderer)
        assert box.y1 <= ax.xaxis.label.get_window_extent(renderer).y0 + 0.5  # under the panel's x label
        assert box.y1 < ax.bbox.y0 and box.x0 >= ax.bbox.x0 - 0.5  # below the panel, from its left edge
        assert 0 <= box.y0 and box.x1 <= fig.bbox.x1  # inside the figure
    assert not any(t.get_text().split("\n")[0] == "3 tracks" for ax in fig.axes for t in ax.texts)
    assert camera_ready_problems(tmp_path / "tau.pdf") == []
