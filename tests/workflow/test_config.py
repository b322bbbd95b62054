"""Workflow configuration: schema validation and track resolution."""

import re

import pytest
import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from conftest import ROOT, write_lines
from reeval.workflow.config_check import TRACK_ID, ConfigError, check_config, check_measures
from reeval.measures import accepted_names, parse_measures
from reeval.workflow.tracks import local_track_files, resolve_qrels, resolve_runs, track_options
from reeval.io.trecio import InputError

SCHEMA = str(ROOT / "config" / "schema.yaml")


def load(name):
    return yaml.safe_load((ROOT / "config" / name).read_text())


@pytest.mark.parametrize("name", ["config.yaml", "shared-data.yaml", "simulated-study.yaml", "trec-study.yaml"])
def test_shipped_configs_are_valid(name):
    check_config(load(name))
    validate(load(name), SCHEMA)


def test_wrong_key_and_wrong_type_are_named():
    cfg = load("config.yaml")
    cfg["tracks"]["syn-graded"]["relevance_levle"] = 2
    with pytest.raises(WorkflowError, match="relevance_levle"):
        validate(cfg, SCHEMA)
    cfg = load("config.yaml")
    cfg["defaults"]["precision"] = "double"
    with pytest.raises(WorkflowError, match="double"):
        validate(cfg, SCHEMA)
    cfg = load("config.yaml")
    cfg["tracks"]["t"] = {"qrels": "q.txt"}  # runs missing
    with pytest.raises(WorkflowError):
        validate(cfg, SCHEMA)


def test_track_options_merge_defaults():
    cfg = {"defaults": {"precision": "float32"},
           "tracks": {"a": {"qrels": "q", "runs": "r", "relevance_level": 2, "grade_map": {"1": 0}}}}
    opts = track_options(cfg, "a")
    assert opts == {"relevance_level": 2, "precision": "float32", "on_malformed": "error",
                    "grade_map": {1: 0}}


def test_resolve_runs_folder_glob_list(tmp_path):
    for name in ("a.gz", "b.gz", ".hidden", "c.txt"):
        (tmp_path / name).write_text("x")
    assert [p.split("/")[-1] for p in resolve_runs(str(tmp_path))] == ["a.gz", "b.gz", "c.txt"]
    assert [p.split("/")[-1] for p in resolve_runs(str(tmp_path / "*.gz"))] == ["a.gz", "b.gz"]
    assert len(resolve_runs([str(tmp_path / "a.gz"), str(tmp_path / "*.gz")])) == 2
    with pytest.raises(FileNotFoundError, match="nope"):
        resolve_runs(str(tmp_path / "nope"))
    with pytest.raises(FileNotFoundError):
        resolve_qrels(str(tmp_path / "*.gz"))
    assert resolve_qrels(str(tmp_path / "c.*")).endswith("c.txt")


BAD_IDS = ["a/b", "a b", ".hidden", "cast(2021)", "t*", "", "piste-é"]
GOOD_IDS = ["cast+2021", "trec-covid-round1", "CLEF_2015.v2", "2021", "-x"]


@pytest.mark.parametrize("track", BAD_IDS)
def test_track_ids_outside_the_safe_set_are_refused_naming_the_id(track):
    cfg = load("config.yaml")
    cfg["tracks"][track] = {"synthetic": "syn-graded"}
    with pytest.raises(ConfigError, match=re.escape(f"tracks: track id {track!r} is not allowed")):
        check_config(cfg)
    with pytest.raises(WorkflowError, match="does not match"):
        validate(cfg, SCHEMA)
    cfg = {"manifest": "m.yaml", "study": {"tracks": ["ok", track]}}
    with pytest.raises(ConfigError, match=re.escape(f"study.tracks: track id {track!r}")):
        check_config(cfg)
    with pytest.raises(WorkflowError):
        validate(cfg, SCHEMA)


def test_safe_track_ids_pass_the_check_and_the_schema():
    cfg = load("config.yaml")
    cfg["tracks"] = {track: {"synthetic": "syn-graded"} for track in GOOD_IDS}
    cfg["study"]["tracks"] = GOOD_IDS
    check_config(cfg)
    validate(cfg, SCHEMA)
    schema = yaml.safe_load((ROOT / "config" / "schema.yaml").read_text())
    assert schema["$defs"]["track_id"]["pattern"] == TRACK_ID


@pytest.mark.parametrize("spec, named", [
    ("mapp", "unknown measure 'mapp'"),
    ("P.0", "measure 'P.0': cutoffs must be positive integers"),
    ("ASL@g1-0", "unknown measure 'ASL@g1-0'"),
    ("P_rareness@100", "'P_rareness@100' is a rareness measure, computed over a set of runs: rareness measures "
                       "are listed under rareness.measures"),
])
def test_a_measure_the_measures_rule_cannot_compute_is_named_with_what_is_accepted(spec, named):
    cfg = load("config.yaml")
    cfg["measures"] = ["map", spec, "ndcg"]
    with pytest.raises(ConfigError, match=re.escape(f"measures: {named}") + ".*; accepted.*: map, AP, gm_map, P, "):
        check_config(cfg)


def test_every_name_the_message_lists_is_accepted():
    """The spellings the registry lists (k, k1,k2, n and L standing for numbers) all parse;
    those of the per-topic families pass the config check."""
    listed = accepted_names().split(", ")
    per_topic = accepted_names(per_topic_only=True).split(", ")
    from reeval.measures import REGISTRY
    assert set(listed) - set(per_topic) == {n for f in REGISTRY.values() if f.needs_runs for n in f.names}
    for spelling in listed:
        name = re.sub(r"k1,k2$", "5,10", spelling)
        name = re.sub(r"(?<=[_.@])k$", "10", name).replace("-n", "-10").replace("_L", "_0.50")
        assert parse_measures([name]), spelling
    check_measures([n for n in listed if n in per_topic and not n.endswith(("k", "n", "L", "k1,k2"))])


def test_local_track_files_are_resolved_once_and_a_missing_one_names_its_track(tmp_path):
    q = write_lines(tmp_path / "qrels.txt", ["1 0 D 1"])
    (tmp_path / "runs").mkdir()
    write_lines(tmp_path / "runs" / "r1", ["1 Q0 D 1 1 r1"])
    tracks = {"ok": {"qrels": str(q), "runs": str(tmp_path / "runs")}, "gen": {"synthetic": "syn-graded"},
              "far": {"urls": {"qrels": [], "runs": []}}}
    assert local_track_files(tracks) == {"ok": {"qrels": str(q), "runs": [str(tmp_path / "runs" / "r1")]}}
    tracks["lost"] = {"qrels": str(tmp_path / "nope.txt"), "runs": str(tmp_path / "runs")}
    with pytest.raises(ConfigError, match=re.escape(f"tracks: lost: qrels '{tmp_path / 'nope.txt'}' must name")):
        local_track_files(tracks)
    tracks["lost"] = {"qrels": str(q), "runs": [str(tmp_path / "runs" / "*.gz")]}
    with pytest.raises(ConfigError, match="tracks: lost: no run files found"):
        local_track_files(tracks)


def test_config_values_a_rule_cannot_use_are_input_errors(tmp_path):
    from reeval.io.ingest import ingest_track, write_track
    from reeval.analyses.rareness_report import options, track_rareness
    from reeval.analyses.asl_techniques import label_runs

    with pytest.raises(InputError, match="study.techniques: run 'p_bm25' matches groups 'a' and 'b'"):
        label_runs(["p_bm25"], {"a": ["p_*"], "b": ["*bm25"]})
    q = write_lines(tmp_path / "qrels.txt", ["1 0 D 1"])
    runs = [write_lines(tmp_path / f"r{i}", [f"1 Q0 D 1 1 r{i}"]) for i in range(2)]
    write_track(ingest_track("t", q, runs), tmp_path / "t")
    opts = options({"trials": 2, "synthetic": {"topics": {"t": "99"}}})
    with pytest.raises(InputError, match="rareness.synthetic.topics: topic '99' is not a qrels topic of track 't'"):
        track_rareness("t", tmp_path / "t", tmp_path / "out", opts)
