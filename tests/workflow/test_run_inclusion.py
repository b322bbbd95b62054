"""The one definition of an included run (reeval.workflow.run_inclusion) and every analysis using it."""

import gzip
import os
import shutil
import subprocess

import pandas as pd
import pytest
import yaml

import reeval
from conftest import ROOT, track_files, write_lines
from reeval.archive.inclusion import inclusion_table
from reeval.io.ingest import ingest_track, write_track
from reeval.analyses.lexiprecision.report import track_lexiprecision
from reeval.workflow.measures_step import summarize, track_measures
from reeval.analyses.rareness.report import with_parsed_alphas
from reeval.analyses.rareness.report import track_rareness
from reeval.workflow.run_inclusion import (excluded_messages, included_runs, ingest_report_rows, read_ingest_report,
                                  run_inclusion, study_run_inclusion)
from reeval.analyses.asl.report import study_options, track_study, track_study_options
from reeval.workflow.config_check import section_with_defaults
from snakemake_command import SNAKEMAKE

MEASURES = ["map", "P.10", "ASL", "ASL@g1", "ASL@g1-10", "P.20", "recip_rank"]
QRELS = [f"{t} 0 D{d} {int((d + t) % 3 == 0)}" for t in (1, 2, 3) for d in range(0, 30, 2)]
BAD_RUNS = {  # file -> lines: none of them keeps a line
    "empty": [],
    "allnan": ["1 Q0 D0 1 nan x", "2 Q0 D2 1 NaN x"],
    "unjudged": ["9 Q0 D0 1 1 x", "9 Q0 D2 2 0.5 x"],
    "blank": ["", "# a comment"],
}


def good_run(i):
    return [f"{t} Q0 D{(d * 7 + i + t) % 30} {d + 1} {50 - d - i * 0.1:.2f} g{i}" for t in (1, 2, 3) for d in range(12)]


def make_track(tmp_path, name, good=("g0", "g1", "g2"), bad=tuple(BAD_RUNS)):
    """A written, ingested track: good runs g0.. and the chosen runs that keep no line."""
    src = tmp_path / "src" / name
    (src / "runs").mkdir(parents=True)
    qrels = write_lines(src / "qrels.txt", QRELS)
    runs = [write_lines(src / "runs" / g, good_run(int(g[1:]))) for g in good]
    runs += [write_lines(src / "runs" / b, BAD_RUNS[b]) for b in bad]
    out = tmp_path / "tracks" / name
    write_track(ingest_track(name, qrels, runs), out)
    return out


RAR = with_parsed_alphas(section_with_defaults("rareness", {"trials": 5, "n_systems": [2, 4]}))
LEXI = section_with_defaults("lexiprecision", {"label_removal": {"samples": 2}})


def test_a_run_that_kept_no_line_is_left_out_with_its_reason(tmp_path):
    report = read_ingest_report(make_track(tmp_path, "t"))
    table = run_inclusion(report)
    assert list(table.columns[:7]) == ["track", "run", "file", "included", "reason", "lines_read", "kept"]
    reasons = table.set_index("run").reason.to_dict()
    assert reasons == {
        "allnan": "no line kept: 2 lines read: 2 with a NaN score",
        "blank": "no line kept: 2 lines read: 1 blank, 1 comment",
        "empty": "no line kept: empty file",
        "g0": "included", "g1": "included", "g2": "included",
        "unjudged": "no line kept: 2 lines read: 2 on a topic without judgments",
    }
    assert included_runs(report) == included_runs(ingest_report_rows(tmp_path / "tracks" / "t")) == ["g0", "g1", "g2"]
    assert table.set_index("run").included.to_dict() == {r: r.startswith("g") for r in reasons}
    messages = excluded_messages(table)
    assert len(messages) == 4 and messages[0].startswith("t: run allnan (") and "2 with a NaN score" in messages[0]


def test_run_inclusion_reads_the_report_without_a_pandas_row_per_run(tmp_path, monkeypatch):
    """Issue 41 item 1: ``iterrows`` cost 0.5 ms a run (1.6 s at 3,000 runs); the same
    reasons come from the rows as dicts."""
    report = read_ingest_report(make_track(tmp_path, "t"))
    want = run_inclusion(report)
    monkeypatch.setattr(pd.DataFrame, "iterrows", lambda self: pytest.fail("a pandas row per run"))
    pd.testing.assert_frame_equal(run_inclusion(report), want)


def test_the_ingest_report_is_parsed_once_with_its_names_as_text(tmp_path, monkeypatch):
    """Every job reading the report (measures, audit, the analyses) parsed it twice, its header
    alone first; the header is now read by the csv module: one pandas parse, the same table."""
    folder = make_track(tmp_path, "t")
    want = read_ingest_report(folder)
    parses = []
    read_csv = pd.read_csv
    monkeypatch.setattr(pd, "read_csv", lambda *args, **kwargs: parses.append(1) or read_csv(*args, **kwargs))
    pd.testing.assert_frame_equal(read_ingest_report(folder), want)
    assert len(parses) == 1
    assert want["run"].map(type).eq(str).all() and want["kept"].dtype == "int64"


def test_runs_that_kept_no_line_change_no_analysis(tmp_path):
    """The track with four runs that keep no line gives the tables of the track without their files."""
    with_bad, without = make_track(tmp_path / "a", "t"), make_track(tmp_path / "b", "t", bad=())
    for d in (with_bad, without):
        track_measures("t", d, d, MEASURES)
        track_rareness("t", d, d / "rareness", RAR)
        track_lexiprecision("t", d, d / "lexiprecision", rel_level=1, config=LEXI)
    for table in ("measures_by_run", "measures_by_topic", "asl_by_document", "rareness/by_run",
                  "rareness/n_systems", "rareness/synthetic", "rareness/documents", "lexiprecision/pairs",
                  "lexiprecision/table4_discriminative_power"):
        pd.testing.assert_frame_equal(pd.read_parquet(with_bad / f"{table}.parquet"),
                                      pd.read_parquet(without / f"{table}.parquet"), obj=table)
    assert sorted(pd.read_parquet(with_bad / "measures_by_run.parquet").run) == ["g0", "g1", "g2"]


def test_run_names_that_read_as_missing_values_or_numbers_stay_names(tmp_path):
    d = make_track(tmp_path, "t", good=("g0", "g1"), bad=())
    src = tmp_path / "src" / "t"
    for name in ("NA", "nan", "1.0"):
        write_lines(src / "runs" / name, good_run(3))
    write_track(ingest_track("t", src / "qrels.txt", sorted((src / "runs").iterdir())), d)
    assert included_runs(read_ingest_report(d)) == included_runs(ingest_report_rows(d)) == ["1.0", "NA", "g0", "g1",
                                                                                            "nan"]
    by_run = track_measures("t", d, d, ["map"])
    assert sorted(by_run.run) == ["1.0", "NA", "g0", "g1", "nan"]
    assert by_run.set_index("run")["map"]["NA"] == by_run.set_index("run")["map"]["nan"] > 0


def test_inclusion_tracks_csv_and_run_inclusion_count_runs_alike(tmp_path):
    tracks = {"t": make_track(tmp_path, "t"), "few": make_track(tmp_path, "few", good=("g0",), bad=("empty",))}
    for name, d in tracks.items():
        track_measures(name, d, d, MEASURES)
    reports = {name: d / "ingest_report.csv" for name, d in tracks.items()}
    inc = inclusion_table({name: {"qrels": "q", "runs": "r"} for name in tracks}, {}, reports, min_runs=2)
    inc = inc.set_index("track")
    assert inc.runs_ingested.to_dict() == {"few": 2, "t": 7} and inc.runs_included.to_dict() == {"few": 1, "t": 3}
    assert inc.included.to_dict() == {"few": False, "t": True}
    assert inc.loc["few", "reason"] == "1 runs kept a line (1 kept no line); the study needs >= 2"
    runs = study_run_inclusion(reports)
    assert runs.groupby("track").included.sum().to_dict() == inc.runs_included.to_dict()
    summarize({"t": tracks["t"]}, tmp_path / "summary", {"t": 1})
    row = pd.read_csv(tmp_path / "summary" / "tracks.csv").iloc[0]
    assert (row.runs, row.runs_excluded) == (inc.loc["t", "runs_included"], 4)
    assert len(pd.read_csv(tmp_path / "summary" / "runs.csv")) == row.runs


@pytest.mark.parametrize("good", [(), ("g0",)], ids=["no_included_run", "one_included_run"])
def test_per_track_analyses_of_a_track_with_fewer_than_two_included_runs(tmp_path, good):
    d = make_track(tmp_path, "t", good=good)
    assert len(track_measures("t", d, d, MEASURES)) == len(good)
    rare = track_rareness("t", d, d / "rareness", RAR)
    assert rare["by_run"].run.nunique() == len(good) and rare["n_systems"].empty
    assert (d / "rareness" / "n_systems.csv").is_file() and (d / "rareness" / "synthetic.png").is_file()
    lexi = track_lexiprecision("t", d, d / "lexiprecision", rel_level=1, config=LEXI)
    assert lexi["pair_tests"].empty
    info = track_study("t", d, d / "study", track_study_options(study_options(section_with_defaults("study"))))
    assert info["runs"] == len(good)
    assert (d / "study" / "fig5_document_asl.png").is_file()
    assert len(pd.read_parquet(d / "study" / "map_share.parquet")) == len(good)


# ---- issue 27: the runs folder walked by the workflow, stale tracks named -----------------

def _snakemake(*args):
    return subprocess.run([*SNAKEMAKE, *args], cwd=ROOT, capture_output=True, text=True)


def _real_track_config(tmp_path, track="covid2"):
    """TREC-COVID round 2 as a local track: three runs in runs/, one in runs/sub/deeper/, a
    hidden run and OS litter beside them."""
    qrels, runs = track_files("trec-covid-round2")
    folder = tmp_path / "runs"
    (folder / "sub" / "deeper").mkdir(parents=True)
    for run in runs[:3]:
        shutil.copy(run, folder)
    shutil.copy(runs[3], folder / "sub" / "deeper")
    shutil.copy(runs[4], folder / ".hidden-run.gz")
    (folder / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1")
    (folder / "sub" / "Thumbs.db").write_bytes(b"x")
    config = tmp_path / "study.yaml"
    config.write_text(yaml.safe_dump({"results": str(tmp_path / "results"), "measures": ["map"],
                                      "tracks": {track: {"qrels": qrels, "runs": str(folder)}}}))
    return config, folder, runs


@pytest.fixture(scope="module")
def covid2_run(tmp_path_factory):
    """_real_track_config's track run up to ``summary/run_inclusion.csv``, once for the module:
    (its folder, the runs folder, the track's run files)."""
    tmp = tmp_path_factory.mktemp("covid2")
    config, folder, runs = _real_track_config(tmp)
    proc = _snakemake(str(tmp / "results" / "summary" / "run_inclusion.csv"), "--cores", "2", "--configfile",
                      str(config))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return tmp, folder, runs


def test_the_workflow_reads_runs_in_subfolders_and_names_every_file_it_skips(covid2_run):
    tmp_path, folder, runs = covid2_run
    target = str(tmp_path / "results" / "summary" / "run_inclusion.csv")
    table = pd.read_csv(target, keep_default_na=False)
    read = table[table.kind == "run"]
    assert sorted(read.run) == ["Bioinfo-run3", "CincyMedIR-11", "Emory_IRLab_Run1", "HKPU-Gos1-pPRF"]
    # 4 runs, each kept a line, below study.min_runs (5): in no study, so none counted included (issue 34)
    assert not read.included.any()
    assert set(read.reason) == {"track left out: 4 runs kept a line; the study needs >= 5; "
                                "to include it, set study.min_runs: 4"}
    lines = {os.path.basename(r)[:-3]: gzip.decompress(open(r, "rb").read()).count(b"\n") for r in runs[:4]}
    assert read.set_index("run").lines_read.to_dict() == lines  # every line of the run in a subfolder too
    skipped = table[table.kind == "skipped"].set_index("file").reason.to_dict()
    assert skipped == {str(folder / ".DS_Store"): "not read: hidden file (its name starts with '.')",
                       str(folder / ".hidden-run.gz"): "not read: hidden file (its name starts with '.')",
                       str(folder / "sub" / "Thumbs.db"): "not read: a Windows thumbnail cache, not a run"}
    log = (tmp_path / "results" / "logs" / "ingest" / "covid2.log").read_text()
    assert "ingested covid2: 4 runs (4 kept a line), 3 files skipped" in log
    for path in skipped:
        assert f"covid2: {path} not read: " in log
    report = read_ingest_report(tmp_path / "results" / "tracks" / "covid2")
    assert sorted(report.kind) == ["qrels"] + ["run"] * 4 + ["skipped"] * 3


def test_a_runs_folder_that_cannot_be_read_stops_the_workflow_in_one_line(tmp_path):

    config, folder, runs = _real_track_config(tmp_path)
    os.symlink("loop", folder / "sub" / "loop")
    proc = _snakemake("-n", "--configfile", str(config))
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Traceback" not in out
    assert (f"tracks: covid2: {folder / 'sub' / 'loop'}: too many levels of symbolic links (a link loop, or a chain "
            "of more than 40 links)") in out
    os.remove(folder / "sub" / "loop")
    shutil.copy(runs[0], folder / "sub")  # one run name in two folders
    proc = _snakemake("-n", "--configfile", str(config))
    out = proc.stdout + proc.stderr
    name = os.path.basename(runs[0])
    assert (f"tracks: covid2: {folder / 'sub' / name}: run name '{name[:-3]}' also given by {folder / name}: "
            "rename one") in out


def test_a_renamed_track_leaves_a_stale_folder_that_is_named_and_marked(covid2_run, tmp_path):
    """The results of covid2_run copied (its track's folder as the old name's), then the same
    runs configured as track new-name."""
    ran = covid2_run[0]
    shutil.copytree(ran / "results", tmp_path / "results")
    config = tmp_path / "study.yaml"
    cfg = yaml.safe_load((ran / "study.yaml").read_text())
    cfg["results"] = str(tmp_path / "results")
    cfg["tracks"] = {"new-name": cfg["tracks"]["covid2"]}
    config.write_text(yaml.safe_dump(cfg))
    target = str(tmp_path / "results" / "summary" / "run_inclusion.csv")
    proc = _snakemake(target, "--cores", "2", "--configfile", str(config))
    assert proc.returncode == 0, proc.stderr[-3000:]
    log = (tmp_path / "results" / "logs" / "inclusion" / "inclusion.log").read_text()
    assert f"{tmp_path / 'results' / 'tracks' / 'covid2'}: not a track of this configuration" in log
    results = reeval.read_results(tmp_path / "results")
    assert sorted(results.stale) == [f"tracks/covid2/{t}" for t in ("depth", "ingest_report", "judged", "qrels",
                                                                    "runs")]
    assert not any(name.startswith("tracks/new-name") for name in results.stale)
    assert sorted(pd.read_csv(target, keep_default_na=False).track.unique()) == ["new-name"]


# ---- issue 34 item 4: inclusion said once and consistently ---------------------------------

def test_runs_of_a_track_below_min_runs_are_not_counted_included_and_the_fix_is_named(tmp_path):
    from reeval.workflow.closing import inclusion_lines

    tracks = {"big": make_track(tmp_path, "big", good=("g0", "g1", "g2", "g3", "g4"), bad=()),
              "small": make_track(tmp_path, "small", good=("g0", "g1", "g2", "g3"), bad=("empty",))}
    reports = {name: d / "ingest_report.csv" for name, d in tracks.items()}
    inc = inclusion_table({name: {"qrels": "q", "runs": "r"} for name in tracks}, {}, reports, min_runs=5)
    reason = inc.set_index("track").loc["small", "reason"]
    assert reason == "4 runs kept a line (1 kept no line); the study needs >= 5; to include it, set study.min_runs: 4"
    runs = study_run_inclusion(reports, inc)
    small = runs[runs.track == "small"].set_index("run")
    assert not small.included.any()
    assert small.loc["g0", "reason"] == "track left out: " + reason
    assert small.loc["empty", "reason"].startswith("no line kept")
    assert runs[runs.track == "big"].included.all()
    summary = tmp_path / "results" / "summary"
    summary.mkdir(parents=True)
    inc.to_csv(summary / "inclusion.csv", index=False)
    runs.to_csv(summary / "run_inclusion.csv", index=False)
    lines = inclusion_lines(tmp_path / "results")
    assert lines[0] == "Tracks: 1 of 2 included (big); runs: 5 of 10 included (4 in tracks left out)."
    assert any("small" in line and "study.min_runs: 4" in line for line in lines[1:])
    assert sum("study.min_runs" in line for line in lines) == 1  # said once: the runs are not listed again
    assert any("small/empty" in line and "no line kept" in line for line in lines)


def test_inclusion_csv_counts_a_local_tracks_runs_and_qrels_topics(tmp_path):
    d = make_track(tmp_path, "t")
    inc = inclusion_table({"t": {"qrels": "q", "runs": "r"}}, {}, {"t": d / "ingest_report.csv"}, min_runs=2)
    row = inc.iloc[0]
    assert (row.runs_listed, row.runs_parsed, row.runs_ingested, row.runs_included, row.qrels_topics) == (7, 7, 7, 3, 3)
    assert pd.isna(row.runs_fetched)


def test_a_track_of_one_run_names_no_min_runs_fix(tmp_path):
    d = make_track(tmp_path, "t", good=("g0",), bad=())
    inc = inclusion_table({"t": {"qrels": "q", "runs": "r"}}, {}, {"t": d / "ingest_report.csv"}, min_runs=5)
    assert inc.iloc[0].reason == "1 runs kept a line; the study needs >= 5"
