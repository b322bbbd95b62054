"""The audit in the workflow (rules audit and audit_summary, docs/audit.md): a local track's
``official:`` file audited at the track's own settings from its ingest's tables, the summary,
its figure and the closing line; a missing file stops the workflow in one line; the manifest's
tracks get their file from ``study.official``."""

import subprocess
import warnings

import pandas as pd
import pytest
import yaml

import reeval
from conftest import ROOT, write_lines
from reeval.workflow.tracks import study_tracks
from snakemake_command import SNAKEMAKE

MEASURES = ["map", "P_10", "ndcg_cut_10", "bpref"]


def snakemake(*args, check=True):
    proc = subprocess.run([*SNAKEMAKE, *args], cwd=ROOT, capture_output=True, text=True)
    if check:
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


@pytest.fixture(scope="module")
def small_track(tmp_path_factory):
    """Two topics, three runs; run b's scores tie in float32 only, so that its figures under
    trec_eval 9.x ordering differ from trec_eval 10's."""
    folder = tmp_path_factory.mktemp("audited")
    write_lines(folder / "qrels", [f"{t} 0 d{d} {int(d % 3 == 0) + int(d % 5 == 0)}" for t in (1, 2) for d in range(40)])
    runs = folder / "runs"
    runs.mkdir()
    for name, scores in {"a": [30.0 - i for i in range(30)],
                         "b": [1.0 + (i // 2) * 1e-3 + (i % 2) * 1e-12 for i in range(30)],
                         "c": [float(i) for i in range(30)]}.items():
        write_lines(runs / name, [f"{t} Q0 d{(d * 7 + t) % 40} {d} {s!r} {name}" for t in (1, 2)
                                  for d, s in enumerate(scores)])
    return folder


def official_file(folder, path, qrels="qrels", **setting):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", reeval.ReevalWarning)
        values = reeval.evaluate(folder / qrels, sorted(str(p) for p in (folder / "runs").iterdir()),
                                 MEASURES, **setting)
    wide = values.map(lambda v: f"{v:.4f}").rename(columns=lambda m: f"trec_eval:{m}")
    wide.insert(0, "team", "x")
    wide.reset_index().to_csv(path, sep="\t", index=False)
    return path


def config(tmp_path, folder, official, **entry):
    cfg = {"results": str(tmp_path / "results"),
           "tracks": {"small": {"qrels": str(folder / "qrels"), "runs": str(folder / "runs"), "official": str(official),
                                **entry}}}
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def test_the_workflow_audits_a_track_s_official_figures_and_says_so_in_the_closing_lines(tmp_path, small_track):
    official = official_file(small_track, tmp_path / "official.tsv", precision="float32")
    cfg = config(tmp_path, small_track, official)
    res = tmp_path / "results"
    out = snakemake(f"{res}/audit/summary.md", "--cores", "2", "--configfile", str(cfg))
    table = pd.read_csv(res / "tracks" / "small" / "audit" / "official.csv", dtype={"official": str})
    assert len(table) == 3 * len(MEASURES) and set(table.block) == {"trec_eval"}
    explained = table[table.status == "explained"]
    assert len(explained) and set(explained.run) == {"b"}
    assert set(explained.cause) == {"trec_eval 9.x ordering (scores as float32)"}
    assert set(table[table.run != "b"].status) == {"equal"}
    summary = pd.read_csv(res / "audit" / "summary.csv").iloc[0]
    assert (summary.track, summary.block, summary.runs, summary.figures) == ("small", "trec_eval", 3, 12)
    assert summary.equal + summary.explained == 12 and summary.unexplained == 0
    assert summary.reproduced == "relevance >= 1, trec_eval 9.x ordering (float32 scores), -c: 12/12"
    assert summary.settings_tried == 3  # the track's setting, another level, then float32
    assert set(table.reproduced_by) == {"relevance >= 1, trec_eval 9.x ordering (float32 scores), -c"}
    line = (f"official scores: {summary.equal} of 12 equal, {summary.explained} explained, 0 unexplained "
            f"(details: {res / 'audit' / 'summary.md'})")
    assert line in out.stdout + out.stderr
    assert (res / "audit" / "trust_by_track.png").is_file() and (res / "audit" / "trust_by_track.pdf").is_file()
    md = (res / "audit" / "summary.md").read_text()
    assert "| small | 12 |" in md and "trec_eval 9.x ordering (scores as float32) (" in md
    assert "| relevance >= 1, trec_eval 9.x ordering (float32 scores), -c: 12/12 | 3 |" in md
    assert "searched 3 settings in" in (res / "logs" / "audit" / "small.log").read_text()


def test_a_missing_official_file_stops_the_workflow_in_one_line(tmp_path, small_track):
    cfg = config(tmp_path, small_track, tmp_path / "absent.csv")
    proc = snakemake("-n", "--cores", "1", "--configfile", str(cfg), check=False)
    assert proc.returncode != 0
    assert f"tracks: small: official: {tmp_path / 'absent.csv'}: no such file" in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr


def test_a_local_track_s_alternative_qrels_explain_figures_computed_with_them(tmp_path, small_track):
    """The official figures come from another judging of the track (every grade 2 made 1, as a
    binary qrels): the track's ``alternative_qrels:`` file explains them."""
    alt = tmp_path / "qrels.binary"
    alt.write_text((small_track / "qrels").read_text().replace(" 2\n", " 1\n"))
    official = official_file(small_track, tmp_path / "official.tsv", qrels=alt)
    cfg = config(tmp_path, small_track, official, alternative_qrels=[str(alt)])
    res = tmp_path / "results"
    snakemake(f"{res}/tracks/small/audit/official.csv", "--cores", "1", "--configfile", str(cfg))
    table = pd.read_csv(res / "tracks" / "small" / "audit" / "official.csv", dtype={"official": str})
    assert (table.status == "explained").any() and set(table.status) <= {"equal", "explained"}
    assert set(table.loc[table.status == "explained", "cause"]) == {"the alternative qrels qrels.binary"}


def test_a_missing_alternative_qrels_file_stops_the_workflow_in_one_line(tmp_path, small_track):
    official = official_file(small_track, tmp_path / "official.tsv")
    cfg = config(tmp_path, small_track, official, alternative_qrels=[str(tmp_path / "absent")])
    proc = snakemake("-n", "--cores", "1", "--configfile", str(cfg), check=False)
    assert proc.returncode != 0
    assert f"tracks: small: alternative_qrels: {tmp_path / 'absent'}: no such file" in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr


def test_study_official_gives_each_manifest_track_its_file(tmp_path):
    folder = tmp_path / "official"
    folder.mkdir()
    (folder / "t1.csv").write_text("run,block,measure,value\nr,trec_eval,map,0.1\n")
    manifest = tmp_path / "manifest.yaml"
    manifest.write_text(yaml.safe_dump({"tracks": {"t1": {"urls": {}}, "t2": {"urls": {}},
                                                   "t3": {"urls": {}, "official": "own.csv"}}}))
    tracks = study_tracks({"manifest": str(manifest), "study": {"tracks": "all", "official": str(folder)}})
    assert tracks["t1"]["official"] == str(folder / "t1.csv")
    assert "official" not in tracks["t2"] and tracks["t3"]["official"] == "own.csv"


def test_the_workflow_s_audit_names_both_causes_of_a_block_that_needs_two(tmp_path, small_track):
    """Figures at relevance >= 2 with trec_eval 9.x ordering, the track at level 1 and trec_eval
    10: from the ingested tables and runs.parquet, the pair reproduces the block, every
    explained row names both, and the summary says which setting reproduces it."""
    official = official_file(small_track, tmp_path / "official.tsv", precision="float32", relevance_level=2)
    for one in ({"precision": "float32"}, {"relevance_level": 2}):
        single = official_file(small_track, tmp_path / "single.tsv", **one)
        assert single.read_text() != official.read_text(), "the case must need both causes"
    cfg = config(tmp_path, small_track, official)
    res = tmp_path / "results"
    snakemake(f"{res}/audit/summary.csv", "--cores", "2", "--configfile", str(cfg))
    table = pd.read_csv(res / "tracks" / "small" / "audit" / "official.csv", dtype={"official": str})
    assert set(table.status) <= {"equal", "explained"} and (table.status == "explained").any()
    assert set(table.loc[table.status == "explained", "cause"]) == {
        "relevance >= 2 and trec_eval 9.x ordering (scores as float32)"}
    summary = pd.read_csv(res / "audit" / "summary.csv").iloc[0]
    assert summary.reproduced == "relevance >= 2, trec_eval 9.x ordering (float32 scores), -c: 12/12"
