"""Workflow configuration: schema validation and track resolution."""

import pytest
import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from conftest import ROOT
from reeval.tracks import resolve_qrels, resolve_runs, track_options

SCHEMA = str(ROOT / "config" / "schema.yaml")


def load(name):
    return yaml.safe_load((ROOT / "config" / name).read_text())


@pytest.mark.parametrize("name", ["config.yaml", "shared-data.yaml"])
def test_shipped_configs_are_valid(name):
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
