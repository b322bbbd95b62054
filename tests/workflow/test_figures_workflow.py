"""Camera-ready figures from the workflow: a real track run end to end (every PDF read back
as a venue's PDF check reads it), one track's cross-track figures saying so, and the
per-track figures drawn only when ``figures.per_track`` asks for them."""

import subprocess

import pytest
import yaml

from conftest import ROOT, SHARED_DATA
from pdffigures import camera_ready_problems, figure_facts
from snakemake_command import SNAKEMAKE

#: the smallest real track (6 runs, relevance level 2 as its official evaluation)
REAL_TRACK = "trec2021-cast-doc"


def run(*args, check=True):
    proc = subprocess.run(SNAKEMAKE + list(args), cwd=ROOT, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(proc.stdout[-3000:] + proc.stderr[-3000:])
    return proc


def study_config(tmp_path, tracks: dict, **extra) -> str:
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump({"results": str(tmp_path / "results"), "tracks": tracks, **extra}))
    return str(path)


def every_problem(results) -> tuple:
    pdfs = sorted(results.rglob("*.pdf"))
    return len(pdfs), [p for pdf in pdfs for p in camera_ready_problems(pdf)]


@pytest.fixture(scope="module")
def real_run(tmp_path_factory):
    if not (SHARED_DATA / REAL_TRACK).is_dir():
        pytest.skip(f"real track {REAL_TRACK} not found under {SHARED_DATA} (../shared/data beside the project)")
    tmp = tmp_path_factory.mktemp("real")
    data = SHARED_DATA / REAL_TRACK
    cfg = study_config(tmp, {REAL_TRACK: {"qrels": str(next((data / "qrels").iterdir())),
                                          "runs": str(data / "runs"), "relevance_level": 2}})
    run("--cores", "2", "--configfile", cfg)
    return tmp / "results"


@pytest.mark.slow
def test_every_pdf_of_a_real_track_run_is_camera_ready(real_run):
    n, problems = every_problem(real_run)
    assert n == 24 and problems == []  # 12 cross-track figures, the 12 of the track (auto: 1 track)


@pytest.mark.slow
def test_one_track_cross_track_figures_say_so(real_run):
    for pdf in ("study/fig1_p20.pdf", "lexiprecision/fig5_ties_by_level.pdf", "rareness/tau_by_track.pdf"):
        text = " ".join(t for t, _ in figure_facts(real_run / pdf)["texts"])
        assert "1 track" in text and "distribution" in text, (pdf, text)
    for md in ("lexiprecision/summary.md", "rareness/summary.md"):
        text = (real_run / md).read_text()
        assert "1 track: no distribution across tracks." in text and f"| {REAL_TRACK} |" in text, md


def planned_files(cfg: str) -> set:
    """Every file the workflow would write (``snakemake --summary``), nothing run."""
    out = run("--summary", "--configfile", cfg).stdout
    return {line.split("\t")[0] for line in out.splitlines()[1:] if line.strip()}


@pytest.mark.parametrize("setting, drawn", [("auto", True), (False, False)])
def test_per_track_figures_are_planned_only_when_asked(tmp_path, setting, drawn):
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    cfg["figures"] = {"per_track": setting}
    files = planned_files(study_config(tmp_path, cfg.pop("tracks"), **cfg))
    per_track = {f for f in files if "/tracks/" in f and f.endswith((".png", ".pdf"))}
    assert len(per_track) == (3 * 24 if drawn else 0), sorted(per_track)[:5]
    assert {f for f in files if f.endswith("study/fig1_p20.pdf")}  # cross-track figures always


def test_auto_draws_per_track_figures_for_small_studies_only():
    from reeval.workflow.outputs import AUTO_TRACK_FIGURES_MAX_TRACKS, draws_track_figures, track_files

    assert draws_track_figures("auto", 11) and not draws_track_figures("auto", 82)
    assert draws_track_figures("auto", 12) and not draws_track_figures("auto", 13)  # the 12-track run: -m slow
    assert AUTO_TRACK_FIGURES_MAX_TRACKS == 12 and draws_track_figures(True, 82) and not draws_track_figures(False, 1)
    figures = set(track_files()) - set(track_files(figures=False))
    assert len(figures) == 24 and all(f.endswith((".png", ".pdf")) for f in figures)
