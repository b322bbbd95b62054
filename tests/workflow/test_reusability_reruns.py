"""Changing a track's groups reruns only the reusability jobs and what reads their tables
(the cross-track reusability summary, the track's figures, the report): on main a track's
``groups:`` sat in the params of rule inclusion (every track entry whole), whose new
``inclusion.csv`` reran every cross-track job after it (11 jobs: lexiprecision, rareness,
the study, the papers ...), and a groups file edited in place reran nothing. The track's
groups come from its ``official:`` leaderboard when its entry gives none (``groups_from``
official), and the workflow's verdict uses the one ``places`` default."""

import re

import pandas as pd
import pytest
import yaml

from conftest import write_lines
from test_adding_a_track import OPTIONS, planned_jobs, run_lines, snakemake

#: the jobs a change of a track's groups may plan: the track's reusability job, what reads
#: its tables (the cross-track summary, the track's figures, the report) and the target
READERS = {"reusability", "reusability_summary", "track_figures", "report", "all"}


def track(root):
    """t0: 3 topics of 12 judged documents, 4 runs of 10 documents a topic, two per team;
    its official figures a leaderboard naming each run's participant."""
    (root / "runs").mkdir(parents=True)
    qrels = write_lines(root / "qrels.txt", [f"{q} 0 D{d} {int((d + q) % 3 == 0)}" for q in (1, 2, 3)
                                             for d in range(12)])
    for r, name in enumerate(["a1", "a2", "b1", "b2"]):
        write_lines(root / "runs" / name, run_lines(name, 0, r))
    official = write_lines(root / "official.tsv", ["run\tparticipant\tmap"] +
                           [f"{name}\tteam_{name[0]}\t0.1" for name in ["a1", "a2", "b1", "b2"]])
    return {"qrels": str(qrels), "runs": str(root / "runs"), "official": str(official)}


def config(tmp_path, **entry):
    cfg = tmp_path / "study.yaml"
    data = tmp_path / "data"
    files = track(data) if not data.exists() else {"qrels": str(data / "qrels.txt"), "runs": str(data / "runs"),
                                                   "official": str(data / "official.tsv")}
    tracks = {"t0": {**files, **entry}}
    cfg.write_text(yaml.safe_dump({"results": str(tmp_path / "results"), "tracks": tracks, "study": {"min_runs": 2},
                                   **OPTIONS}))
    return cfg


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("reruns")
    snakemake(config(tmp))
    return tmp


def planned(out: str) -> dict:
    jobs = planned_jobs(out)
    jobs.pop("total", None)
    return jobs


def test_the_official_leaderboard_gives_the_groups_and_the_verdict_uses_the_one_places_default(ran):
    verdict = pd.read_csv(ran / "results" / "tracks" / "t0" / "reusability" / "verdict.csv")
    assert verdict["groups_from"].eq("official").all() and verdict["groups"].eq(2).all()
    assert verdict["places"].eq(0).all()
    by_run = pd.read_csv(ran / "results" / "tracks" / "t0" / "reusability" / "by_run.csv")
    assert set(by_run["group"]) == {"team_a", "team_b"}
    summary = (ran / "results" / "reusability" / "summary.md").read_text()
    assert "Groups of the 1 track: official 1." in summary and "alone" not in summary.split("Groups")[1]
    assert "Groups of the 1 track" in (ran / "results" / "report.html").read_text()


@pytest.mark.parametrize("entry", [{"groups": "^(.)"}, {"groups": {"a1": "x", "a2": "x", "b1": "y", "b2": "y"}},
                                   {"pool_depth": 3}])
def test_changing_a_tracks_groups_plans_only_the_reusability_jobs_and_their_readers(ran, entry):
    out = snakemake(config(ran, **entry), "-n")
    jobs = planned(out)
    assert "reusability" in jobs and set(jobs) <= READERS, out[-3000:]
    assert set(re.findall(r"wildcards: track=(\S+)", out)) == {"t0"}


def test_a_groups_file_given_or_the_official_leaderboard_edited_reruns_only_reusability(ran, tmp_path):
    groups = write_lines(tmp_path / "groups.txt", ["a1 x", "a2 x", "b1 y", "b2 y"])
    assert set(planned(snakemake(config(ran, groups=str(groups)), "-n"))) <= READERS
    # the official leaderboard edited in place: an input of the job, since its participants are
    # the track's groups (on main only the audit read it); the audit's figures are in it too
    official = ran / "data" / "official.tsv"
    text = official.read_text()
    official.write_text(text.replace("team_b", "team_c"))
    try:
        jobs = planned(snakemake(config(ran), "-n"))
        assert "reusability" in jobs and set(jobs) <= READERS | {"audit", "audit_summary"}
    finally:
        official.write_text(text)


@pytest.mark.parametrize("text, message", [
    ("run\tscore\nb1\t0.5\n", r"groups.txt: line 1: expected 'RUN GROUP' lines, or a CSV or TSV table whose "
                                r"header names a run column \(run, runid, tag\) and a group column \(group, team or "
                                r"participant\); the header names no group column"),  # not read as RUN GROUP
    ("a1 x y\n", r"groups.txt: line 1: expected 'RUN GROUP' lines, .*; found 3 fields"),
])
def test_a_groups_file_in_no_accepted_form_stops_the_workflow_in_one_line(ran, tmp_path, text, message):
    """On main a Snakemake traceback (the file was read by a params function)."""
    import subprocess

    from conftest import ROOT
    from snakemake_command import SNAKEMAKE

    groups = tmp_path / "groups.txt"
    groups.write_text(text)
    proc = subprocess.run(SNAKEMAKE + ["--cores", "1", "--configfile", str(config(ran, groups=str(groups))), "-n"],
                          cwd=ROOT, capture_output=True, text=True)
    out = proc.stdout + proc.stderr  # Snakemake prints a WorkflowError on stdout
    assert proc.returncode != 0 and "Traceback" not in out
    assert re.search(f"WorkflowError in file .*\n{re.escape(str(tmp_path))}/{message}\n", out), out[-3000:]
