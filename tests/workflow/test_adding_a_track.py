"""Adding a track to a study reruns no other track's job (issue 39, item 1): crossing the
12 tracks up to which ``figures.per_track: auto`` draws each track's figures changes no
input or parameter of a per-track job, because those figures are drawn by a rule of their
own (``track_figures``) and every per-track rule reads only its own track's options.
The same 12-track run shows what the workflow dropped (item 3): track t00 has a run that
repeats documents and one with NaN scores."""

import re
import subprocess

import pytest
import yaml

from conftest import ROOT, write_lines
from snakemake_command import SNAKEMAKE

#: the 12-track run takes about 200 CPU seconds (docs/benchmarks.md): make test-slow. make test
#: keeps a new track planning only its own jobs (test_workflow.py, the default study's 3 tracks
#: and a 4th), figures.per_track planned per setting (test_figures_workflow.py) and the closing
#: lines naming runs scored without some lines (test_workflow.py)
pytestmark = pytest.mark.slow

PER_TRACK = {"ingest", "measures", "analyses", "reusability", "track_figures"}
CROSS_TRACK = {"inclusion", "summary", "rareness_summary", "study", "lexiprecision_summary", "papers",
               "reusability_summary", "report"}
#: cheap settings: the analyses' trials and samples, not the tracks, would dominate the run
OPTIONS = {"measures": ["map", "P.10"],
           "rareness": {"trials": 5, "n_systems": [2], "stability_seeds": 1, "alpha": [0, 1]},
           "lexiprecision": {"label_removal": {"samples": 2, "fractions": [0.0, 0.5]}, "hsd_resamples": 20,
                             "hsd_seeds": [0]},
           "reusability": {"measures": ["AP", "P@10"]}}


def snakemake(cfg, *args):
    proc = subprocess.run(SNAKEMAKE + ["--cores", "2", "--configfile", str(cfg), *args], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout + proc.stderr


def run_lines(tag, i, r):
    return [f"{q} Q0 D{(d * 5 + r + q + i) % 12} {d + 1} {20 - d - r / 10:.2f} {tag}" for q in (1, 2, 3) for d in range(10)]


def small_track(root, i):
    """Track ``t<i>``: 3 topics of 12 judged documents, 3 runs of 10 documents a topic; t00
    also a run that repeats 3 documents (``dups``) and one with 2 NaN scores (``nans``)."""
    folder = root / f"t{i:02d}"
    (folder / "runs").mkdir(parents=True)
    qrels = write_lines(folder / "qrels.txt", [f"{q} 0 D{d} {int((d + q + i) % 3 == 0)}"
                                               for q in (1, 2, 3) for d in range(12)])
    for r in range(3):
        write_lines(folder / "runs" / f"r{r}", run_lines(f"r{r}", i, r))
    if i == 0:
        dups = run_lines("dups", i, 3)
        again = [" ".join(dups[k].split()[:3] + ["11", "0.5", "dups"]) for k in (0, 10, 20)]  # each topic's first
        write_lines(folder / "runs" / "dups", dups + again)
        nans = run_lines("nans", i, 4)
        write_lines(folder / "runs" / "nans", nans[:-2] + [" ".join(line.split()[:4] + ["nan", "nans"])
                                                            for line in nans[-2:]])
    return {"qrels": str(qrels), "runs": str(folder / "runs")}


def study(tmp_path, n_tracks):
    cfg = tmp_path / f"study{n_tracks}.yaml"
    tracks = {f"t{i:02d}": small_track(tmp_path / "data", i) if not (tmp_path / "data" / f"t{i:02d}").exists()
              else {"qrels": str(tmp_path / "data" / f"t{i:02d}" / "qrels.txt"),
                    "runs": str(tmp_path / "data" / f"t{i:02d}" / "runs")} for i in range(n_tracks)}
    cfg.write_text(yaml.safe_dump({"results": str(tmp_path / "results"), "tracks": tracks, **OPTIONS}))
    return cfg


def planned_jobs(out: str) -> dict:
    """Rule -> jobs of a dry run's 'Job stats' table."""
    jobs = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit() and re.fullmatch(r"[a-z_]+", parts[0]):
            jobs[parts[0]] = int(parts[1])
    return jobs


@pytest.fixture(scope="module")
def twelve_tracks(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("twelve")
    (tmp / "console.txt").write_text(snakemake(study(tmp, 12)))
    return tmp


def test_a_study_of_12_tracks_draws_and_reports_each_tracks_figures(twelve_tracks):
    results = twelve_tracks / "results"
    for i in range(12):
        assert (results / "tracks" / f"t{i:02d}" / "rareness" / "tau.png").is_file()
        assert (results / "tracks" / f"t{i:02d}" / "lexiprecision" / "fig7_locality.pdf").is_file()
    html = (results / "report.html").read_text()
    assert 'id="per-track"' in html and "t11/reusability/scores.png" in html
    assert (results / "report.html").stat().st_size < 10e6   # issue 39 item 7: at 12 tracks, the most drawing per-track figures


def test_a_13th_track_plans_only_its_own_jobs_and_the_cross_track_ones(twelve_tracks):
    out = snakemake(study(twelve_tracks, 13), "-n")
    assert "Params have changed" not in out, out[-3000:]
    assert set(re.findall(r"wildcards: track=(\S+)", out)) == {"t12"}, out[-3000:]
    expected = {rule: 1 for rule in PER_TRACK - {"track_figures"} | CROSS_TRACK | {"all"}}
    expected["total"] = len(expected)  # 13 tracks: auto draws no per-track figure, not even the new one's
    assert planned_jobs(out) == expected, out[-3000:]



def test_the_closing_lines_and_the_report_name_the_runs_scored_without_some_lines(twelve_tracks):
    results = twelve_tracks / "results"
    console = (twelve_tracks / "console.txt").read_text()
    assert (f"Scored without some of their lines, 2 runs (counts per run: {results / 'summary' / 'run_inclusion.csv'}):"
            "\n  t00/dups: 3 duplicate\n  t00/nans: 2 nan_score\n") in console
    html = (results / "report.html").read_text()
    assert "<b>t00</b>: 5 runs, included, <span" in html and "2 scored without some of their lines" in html
    assert "<td>3 duplicate</td>" in html and "<td>2 nan_score</td>" in html
    # t01 lost no line: no flag (it has 3 runs, fewer than study.min_runs: left out of the cross-track studies)
    assert re.search(r"<b>t01</b>: 3 runs, <span class=\"out\">left out: [^<]*</span></summary>", html)
    assert html.count("scored without some of their lines") == 1
