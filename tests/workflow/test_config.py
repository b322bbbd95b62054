"""Workflow configuration: schema validation and track resolution (the defaults: test_defaults.py)."""

import re

import pytest
import yaml

from conftest import ROOT, write_lines
from reeval.workflow.config_check import (TRACK_ID, ConfigError, check_config, check_measures, load_schema,
                                          section_with_defaults, with_defaults)
from reeval.measures import accepted_names, parse_measures
from reeval.workflow.tracks import local_track_files, resolve_qrels, resolve_runs, track_options
from reeval.io.trecio import InputError


def load(name):
    return yaml.safe_load((ROOT / "config" / name).read_text())


@pytest.mark.parametrize("name", ["config.yaml", "shared-data.yaml", "simulated-study.yaml", "trec-study.yaml"])
def test_shipped_configs_are_valid(name):
    check_config(load(name))
    with_defaults(load(name))


def test_wrong_key_and_wrong_type_are_named_with_their_key_path():
    cfg = load("config.yaml")
    cfg["tracks"]["syn-graded"]["relevance_levle"] = 2
    with pytest.raises(ConfigError, match=r"^config tracks\.syn-graded: unknown key 'relevance_levle'; did you mean 'relevance_level'\?$"):
        with_defaults(cfg)
    cfg = load("config.yaml")
    cfg["defaults"] = {"precision": "double"}
    with pytest.raises(ConfigError, match=r"^config defaults\.precision: 'double' is not one of"):
        with_defaults(cfg)
    cfg = load("config.yaml")
    cfg["rareness"] = {"synthetic": {"max_docs": 0}}
    with pytest.raises(ConfigError, match=r"^config rareness\.synthetic\.max_docs: 0 is less than the minimum of 1"):
        with_defaults(cfg)
    cfg = load("config.yaml")
    cfg["lexiprecision"] = {"figure2": {"m": []}}
    with pytest.raises(ConfigError, match=r"^config lexiprecision\.figure2\.m: \[\] should be non-empty"):
        with_defaults(cfg)
    cfg = load("config.yaml")
    cfg["tracks"]["t"] = {"qrels": "q.txt"}  # runs missing
    with pytest.raises(ConfigError, match=r"^config tracks\.t: "):
        with_defaults(cfg)
    with pytest.raises(ConfigError, match=r"^config \(top level\): \{'results': 'r'\} is not valid under any of the given schemas"):
        with_defaults({"results": "r"})
    with pytest.raises(ConfigError, match=r"^config study\.min_runs: 0 is less than the minimum of 1"):
        section_with_defaults("study", {"min_runs": 0})


def test_track_options_take_the_config_defaults():
    cfg = with_defaults({"defaults": {"precision": "float32"},
                         "tracks": {"a": {"qrels": "q", "runs": "r", "relevance_level": 2, "grade_map": {"1": 0}}}})
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
    with pytest.raises(ConfigError, match="does not match"):
        with_defaults(cfg)
    cfg = {"manifest": "m.yaml", "study": {"tracks": ["ok", track]}}
    with pytest.raises(ConfigError, match=re.escape(f"study.tracks: track id {track!r}")):
        check_config(cfg)
    with pytest.raises(ConfigError, match=r"^config study\.tracks"):
        with_defaults(cfg)


def test_safe_track_ids_pass_the_check_and_the_schema():
    cfg = load("config.yaml")
    cfg["tracks"] = {track: {"synthetic": "syn-graded"} for track in GOOD_IDS}
    cfg["study"]["tracks"] = GOOD_IDS
    check_config(cfg)
    with_defaults(cfg)
    assert load_schema()["$defs"]["track_id"]["pattern"] == TRACK_ID


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
    with pytest.raises(ConfigError, match=re.escape(f"measures: {named}")) as raised:
        check_config(cfg)
    # a name no family takes, or bad parameters: the nearest names, not the list of every name
    listed = "rareness" in named
    message = str(raised.value)
    assert ("; accepted here: map, AP, gm_map, " in message) == listed and (listed or len(message) < 300)


def test_every_name_the_message_lists_is_accepted():
    """The spellings the registry lists (k, k1,k2, n and L standing for numbers) all parse;
    those of the per-topic families pass the config check."""
    listed = accepted_names().split(", ")
    per_topic = accepted_names(per_topic_only=True).split(", ")
    from reeval.measures import REGISTRY
    assert set(listed) - set(per_topic) == {n for f in REGISTRY.values() if f.needs_runs for n in f.names}
    numbers = [(r"k1,k2$", "5,10"), (r"x1,x2$", "0.5,2"), (r"L1,L2$", ".1,.5"), (r"c1,c2,c3,c4$", "1,-1,0,0"),
               (r"grade=gain,\.\.\.$", "1=3,2=7"), (r"\{g:x,\.\.\.\}", "{0:0,1:1}"), (r"(?<=[_.@])k$", "10"),
               (r"(?<=[_.@])[xL]$", "0.5"), (r"=x", "=0.5"), (r"=n", "=2"), (r"-n$", "-10")]
    for spelling in listed:
        name = spelling
        for pattern, number in numbers:
            name = re.sub(pattern, number, name)
        assert parse_measures([name]), spelling
    text = {"runid", "relstring", "relstring.k"}
    check_measures([n for n in listed if n in per_topic and n not in text and not re.search(r"\d,|[knxL]\d?$|\.\.\.|=x|=n|,k2|,x2|,L2|,c4", n)])


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
    from reeval.analyses.rareness.report import track_rareness, with_parsed_alphas
    from reeval.analyses.asl.techniques import label_runs

    with pytest.raises(InputError, match="study.techniques: run 'p_bm25' matches groups 'a' and 'b'"):
        label_runs(["p_bm25"], {"a": ["p_*"], "b": ["*bm25"]})
    q = write_lines(tmp_path / "qrels.txt", ["1 0 D 1"])
    runs = [write_lines(tmp_path / f"r{i}", [f"1 Q0 D 1 1 r{i}"]) for i in range(2)]
    write_track(ingest_track("t", q, runs), tmp_path / "t")
    opts = with_parsed_alphas(section_with_defaults("rareness", {"trials": 2, "synthetic": {"topics": {"t": "99"}}}))
    with pytest.raises(InputError, match="rareness.synthetic.topics: topic '99' is not a qrels topic of track 't'"):
        track_rareness("t", tmp_path / "t", tmp_path / "out", opts)


def test_the_schema_is_read_by_libyaml_as_the_pure_python_loader_reads_it(monkeypatch):
    """``schema.yaml`` (26 kB) read by PyYAML's pure-Python loader cost each fresh process that
    fills a config's defaults about 8 times the CPU of libyaml's: the same mapping, read by
    libyaml, never by ``yaml.safe_load``."""
    from reeval.workflow import config_check

    text = config_check.SCHEMA_PATH.read_text()
    want = yaml.safe_load(text)
    config_check._schema.cache_clear()
    monkeypatch.setattr(yaml, "safe_load", lambda *args, **kwargs: pytest.fail("pure-Python YAML loader"))
    try:
        assert load_schema() == want
    finally:
        config_check._schema.cache_clear()
