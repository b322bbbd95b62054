"""A track whose runs all keep no line is left out and named, and no job fails on it.

Its runs folder holding only empty files, the measures job died with numpy's "cannot reshape
array of size 1 into shape (0,6)" (interpolated precision of no run). Such a track is now
left out when the workflow is planned (no job runs on it) and named with its files in the
inclusion table and the closing lines; a track whose runs keep no line for another reason
(every score NaN) is ingested, and its measures are tables of no run.
"""

import subprocess

import pandas as pd
import yaml

from conftest import ROOT, write_lines
from reeval.io.ingest import ingest_track, write_track
from reeval.workflow.measures_step import track_measures
from reeval.workflow.tracks import empty_run_tracks
from snakemake_command import SNAKEMAKE

QRELS = [f"{t} 0 D{d} {int((d + t) % 3 == 0)}" for t in (1, 2, 3) for d in range(0, 30, 2)]
ALL_MEASURES = ["map", "P.10", "iprec_at_recall", "11pt_avg", "ndcg_cut.10", "bpref", "recip_rank", "ASL",
                "ASL@g1-10", "set_F", "Rprec", "infAP"]


def good_run(i):
    return [f"{t} Q0 D{(d * 7 + i + t) % 30} {d + 1} {50 - d - i * 0.1:.2f} g{i}" for t in (1, 2, 3) for d in range(12)]


def test_the_measures_of_a_track_whose_runs_all_keep_no_line_are_tables_of_no_run(tmp_path):
    qrels = write_lines(tmp_path / "qrels.txt", QRELS)
    runs = [write_lines(tmp_path / "nan", ["1 Q0 D0 1 nan x", "2 Q0 D2 1 NaN x"]),
            write_lines(tmp_path / "empty", [])]
    write_track(ingest_track("t", qrels, runs), tmp_path / "t")
    by_run = track_measures("t", tmp_path / "t", tmp_path / "out", ALL_MEASURES)
    assert len(by_run) == 0 and "map" in by_run.columns
    assert len(pd.read_parquet(tmp_path / "out" / "measures_by_topic.parquet")) == 0


def test_a_local_track_whose_run_files_are_all_empty_is_left_out_with_its_files(tmp_path):
    empty = [write_lines(tmp_path / f"e{i}", []) for i in range(5)]
    full = write_lines(tmp_path / "g0", good_run(0))
    files = {"b": {"qrels": "q", "runs": [str(p) for p in empty]}, "a": {"qrels": "q", "runs": [str(full)]},
             "c": {"qrels": "q", "runs": [str(empty[0]), str(full)]}}
    status = empty_run_tracks(files)
    assert list(status) == ["b"]
    assert status["b"] == {"usable": False, "runs_listed": 5, "runs_parsed": 0,
                           "reason": "no line kept: every run file is empty (5: e0, e1, e2 and 2 more)"}


def test_the_workflow_runs_no_job_on_a_track_of_empty_run_files_and_names_it(tmp_path):
    for track in ("a", "b"):
        (tmp_path / track / "runs").mkdir(parents=True)
        write_lines(tmp_path / track / "qrels.txt", QRELS)
    for i in range(2):
        write_lines(tmp_path / "a" / "runs" / f"g{i}", good_run(i))
    write_lines(tmp_path / "b" / "runs" / "empty", [])
    results = tmp_path / "results"
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(yaml.safe_dump({"results": str(results), "study": {"min_runs": 2}, "tracks": {
        t: {"qrels": str(tmp_path / t / "qrels.txt"), "runs": str(tmp_path / t / "runs")} for t in ("a", "b")}}))
    proc = subprocess.run(SNAKEMAKE + [str(results / "summary" / "inclusion.csv"), "--cores", "2", "--configfile", str(cfg)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    assert "ingest b" not in out and not (results / "tracks" / "b" / "ingest_report.csv").exists(), out[-3000:]
    reason = "no line kept: every run file is empty (1: empty)"
    assert f"left out, 1 track (b): {reason}" in out, out[-3000:]
    table = pd.read_csv(results / "summary" / "inclusion.csv").set_index("track")
    assert table.loc["b", "reason"] == reason and not table.loc["b", "included"] and table.loc["a", "included"]
