"""Configs that would turn the workflow on itself or on the machine (issue 38): a results folder
inside a track's runs or qrels, or the reverse (item 8); a dry run that writes in the results
(item 8); YAML alias bombs and repeated keys (item 9)."""

import os
import re
import shutil
import subprocess
import sys

import pytest
import yaml

from conftest import ROOT, write_lines
from reeval.workflow.config_check import (MAX_CONFIG_ITEMS, ConfigError, check_config, check_config_file,
                                          check_results_apart, expanded_size)
from reeval.workflow.tracks import load_manifest
from snakemake_command import SNAKEMAKE

QRELS = ["1 0 D0 1", "1 0 D1 0", "2 0 D0 1"]


def snakemake(*args):
    return subprocess.run([*SNAKEMAKE, *args], cwd=ROOT, capture_output=True, text=True)


def track_folder(tmp_path):
    """qrels.txt and runs/{r1,r2} under tmp_path/track."""
    folder = tmp_path / "track"
    (folder / "runs").mkdir(parents=True)
    write_lines(folder / "runs" / "r1", ["1 Q0 D0 1 2 r1", "1 Q0 D1 2 1 r1", "2 Q0 D0 1 1 r1"])
    write_lines(folder / "runs" / "r2", ["1 Q0 D1 1 2 r2", "1 Q0 D0 2 1 r2", "2 Q0 D0 1 1 r2"])
    write_lines(folder / "qrels.txt", QRELS)
    return folder


def study(tmp_path, results, runs=None, qrels=None):
    folder = track_folder(tmp_path) if not (tmp_path / "track").exists() else tmp_path / "track"
    cfg = {"results": str(results), "measures": ["map"],
           "tracks": {"t": {"qrels": str(qrels or folder / "qrels.txt"), "runs": runs or str(folder / "runs")}}}
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


# ---- item 8: the results folder apart from the inputs ---------------------------------------

@pytest.mark.parametrize("results, runs, qrels, named", [
    ("track/runs/out", "track/runs", None, "config results '{tmp}/track/runs/out' is inside tracks.t.runs "
                                           "'{tmp}/track/runs'"),
    ("track/runs", "track/runs", None, "config results '{tmp}/track/runs' is inside tracks.t.runs"),
    ("track/runs/out", "track/r*/*", None, "is inside tracks.t.runs '{tmp}/track/r*/*'"),
    ("track/runs/out", ["track/runs/r1", "track/runs"], None, "is inside tracks.t.runs '{tmp}/track/runs'"),
    ("track", "track/runs", None, "config tracks.t.qrels '{tmp}/track/qrels.txt' is inside results '{tmp}/track'"),
    ("track/out", "track/runs", "track/out/qrels.txt", "config tracks.t.qrels '{tmp}/track/out/qrels.txt' is "
                                                       "inside results"),
    ("link/out", "track/runs", None, "config results '{tmp}/link/out' is inside tracks.t.runs"),  # link -> runs
])
def test_a_results_folder_inside_a_tracks_inputs_or_holding_them_is_refused(tmp_path, results, runs, qrels, named):
    track_folder(tmp_path)
    os.symlink(tmp_path / "track" / "runs", tmp_path / "link")
    where = lambda p: str(tmp_path / p)  # noqa: E731
    tracks = {"t": {"qrels": where(qrels or "track/qrels.txt"),
                    "runs": [where(r) for r in runs] if isinstance(runs, list) else where(runs)},
              "gen": {"synthetic": "syn-graded"}}
    with pytest.raises(ConfigError, match=re.escape(named.format(tmp=tmp_path))):
        check_results_apart(where(results), tracks)


@pytest.mark.parametrize("results", ["results", "track/runs2", "track/out", "runs-out"])
def test_a_results_folder_beside_the_inputs_is_accepted(tmp_path, results):
    track_folder(tmp_path)
    tracks = {"t": {"qrels": str(tmp_path / "track" / "qrels.txt"), "runs": str(tmp_path / "track" / "runs" / "r*")},
              "gen": {"synthetic": "syn-graded"}, "far": {"urls": {"qrels": [], "runs": []}}}
    check_results_apart(str(tmp_path / results), tracks)


def test_a_results_folder_inside_the_runs_folder_stops_the_dry_run_in_one_line(tmp_path):
    results = tmp_path / "track" / "runs" / "results"
    proc = snakemake("-n", "--configfile", str(study(tmp_path, results)))
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Traceback" not in out and "Cyclic" not in out
    assert (f"config results '{results}' is inside tracks.t.runs '{tmp_path / 'track' / 'runs'}': the workflow "
            "would read its own outputs as inputs") in out
    assert sorted(os.listdir(tmp_path / "track" / "runs")) == ["r1", "r2"]  # nothing written


def test_a_dry_run_writes_nothing_and_still_plans_the_ingest_new_content_needs(tmp_path):
    results = tmp_path / "results"
    config = study(tmp_path, results)
    target = str(results / "tracks" / "t" / "measures_by_run.csv")
    first = snakemake(target, "-n", "--configfile", str(config))
    assert first.returncode == 0, first.stderr[-3000:]
    assert not results.exists()  # before: inputs.json and inputs.sha256 were written
    assert snakemake(target, "--cores", "1", "--configfile", str(config)).returncode == 0
    fingerprint = results / "tracks" / "t" / "inputs.sha256"
    listing = results / "tracks" / "t" / "inputs.json"

    def written():  # what a write changes (a read may change the access time: not compared)
        return (fingerprint.read_bytes(), fingerprint.stat().st_mtime_ns, listing.read_bytes(),
                listing.stat().st_mtime_ns, listing.stat().st_ctime_ns, listing.stat().st_ino)

    before = written()
    new = write_lines(tmp_path / "new", ["1 0 D0 0", "1 0 D1 1", "2 0 D0 1"])  # same size, other bytes, dated 2000
    os.utime(new, (946684800, 946684800))
    shutil.copy2(new, tmp_path / "track" / "qrels.txt")
    plan = snakemake(target, "-n", "--configfile", str(config))
    assert plan.returncode == 0 and "Nothing to be done" not in plan.stdout + plan.stderr
    assert "ingest          1" in plan.stdout and "measures        1" in plan.stdout
    assert written() == before  # the dry run wrote nothing
    run = snakemake(target, "--cores", "1", "--configfile", str(config))
    assert run.returncode == 0 and "ingest t" in run.stdout + run.stderr


# ---- item 9: YAML alias bombs and keys given twice ----------------------------------------------

def alias_bomb(levels, key="measures"):
    """``key`` holding ``levels`` levels of nine aliases of the level below: 9**levels names."""
    lines = ["anchors:", "  - &l0 [map, map, map, map, map, map, map, map, map]"]
    lines += [f"  - &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return "\n".join(lines + [f"{key}: *l{levels - 1}"]) + "\n"


def peak_kb_and_output(*args):
    """Run ``snakemake *args`` below a small Python parent that reports the peak resident
    memory of its child (kB): the peak of this one process, not of the test session's others."""
    parent = ("import resource, subprocess, sys; rc = subprocess.run(sys.argv[1:]).returncode; "
              "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); sys.exit(rc)")
    proc = subprocess.run([sys.executable, "-c", parent, *SNAKEMAKE, *args], cwd=ROOT,
                          capture_output=True, text=True)
    *err, peak = proc.stderr.splitlines()
    return proc.returncode, int(peak), proc.stdout + "\n".join(err)


def test_an_alias_bomb_is_refused_in_a_short_message_without_being_spelled_out(tmp_path):
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(f"results: {tmp_path / 'results'}\n" + alias_bomb(9))  # 9**9 names: 226 MB once spelled out
    rc, peak_kb, out = peak_kb_and_output("-n", "--configfile", str(bomb))
    assert rc != 0 and "Traceback" not in out
    assert f"config file {bomb}: more than 1,000,000 values once its YAML aliases (*name) are spelled out" in out
    assert len(out) < 2000  # before: a message of 226 MB
    assert peak_kb < 500_000  # before: 0.9 GB; Snakemake itself takes about 0.2 GB
    assert not (tmp_path / "results").exists()


def test_a_value_under_the_size_limit_is_quoted_in_a_few_hundred_characters():
    config = yaml.safe_load(alias_bomb(6))  # 531,441 names: under the limit, still 4 MB spelled out
    del config["anchors"]
    assert 9 ** 6 < expanded_size(config) < MAX_CONFIG_ITEMS
    with pytest.raises(ConfigError) as error:
        check_config(config)
    message = str(error.value)
    assert message.startswith("measures: [[[[") and "is not a measure name" in message
    assert len(message.split("; accepted")[0]) < 300


def test_a_value_that_holds_itself_or_nests_too_deep_is_refused():
    loop = yaml.safe_load("&a [*a]")
    with pytest.raises(ConfigError, match=r"^config: a value holds itself through a YAML alias"):
        check_config({"measures": loop})
    deep = yaml.safe_load("x: " + "[" * 60 + "]" * 60)
    with pytest.raises(ConfigError, match=r"^config: values nested more than 50 levels deep"):
        check_config(deep)


def test_a_key_given_twice_in_one_mapping_is_refused_naming_the_key_and_both_lines(tmp_path):
    path = tmp_path / "twice.yaml"
    path.write_text("results: r\ntracks:\n  t:\n    qrels: a.txt\n    runs: runs\n    qrels: b.txt\nmeasures: [map]\n")
    with pytest.raises(ConfigError, match=re.escape(f"config file {path}: line 6: key 'qrels' is given twice in one "
                                                    "mapping (first on line 4); YAML would keep only the last value")):
        check_config_file(path)
    path.write_text("base: &b {relevance_level: 2, precision: float32}\ndefaults:\n  <<: *b\n  precision: float64\n")
    check_config_file(path)  # a merge key's value may be overridden
    path.write_text("{measures: [map], measures: [P.10]}\n")  # JSON-style flow mapping
    with pytest.raises(ConfigError, match="line 1: key 'measures' is given twice"):
        check_config_file(path)
    manifest = tmp_path / "manifest.yaml"
    manifest.write_text("tracks:\n  a: {urls: {}}\n  a: {urls: {}}\n")
    with pytest.raises(ConfigError, match=re.escape(f"manifest {manifest}: line 3: key 'a' is given twice")):
        load_manifest(manifest)


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "config").glob("*.yaml")))
def test_the_shipped_configs_give_each_key_once_and_are_far_below_the_size_limit(name):
    check_config_file(ROOT / "config" / name)
    assert expanded_size(yaml.safe_load((ROOT / "config" / name).read_text())) < MAX_CONFIG_ITEMS / 10


def test_a_key_given_twice_stops_the_dry_run_in_one_line(tmp_path):
    folder = track_folder(tmp_path)
    path = tmp_path / "study.yaml"
    path.write_text(f"results: {tmp_path / 'results'}\nmeasures: [map]\ntracks:\n  t:\n    qrels: {folder / 'qrels.txt'}\n"
                    f"    runs: {folder / 'runs'}\nmeasures: [P.10]\n")
    proc = snakemake("-n", "--configfile", str(path))
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Traceback" not in out and not (tmp_path / "results").exists()
    assert f"config file {path}: line 7: key 'measures' is given twice in one mapping (first on line 2)" in out
