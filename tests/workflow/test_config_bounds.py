"""The config schema bounds what the command line bounds (issue 31, items 10 and 12): each
value a job would fail on is refused when the workflow is parsed, in one line naming the key."""

import subprocess

import pytest
import yaml

from conftest import ROOT, write_lines
from reeval.synth.tracks import DEFAULT_CAMPAIGN
from reeval.workflow.config_check import INT64, ConfigError, check_config, load_schema, with_defaults
from snakemake_command import SNAKEMAKE


def local(**extra):
    return {"tracks": {"t": {"qrels": "q.txt", "runs": "runs"}}, **extra}


def refused(cfg) -> str:
    with pytest.raises(ConfigError) as caught:
        check_config(cfg)
        with_defaults(cfg)
    return str(caught.value)


@pytest.mark.parametrize("cfg, expected", [
    (local(results=""), "config results: '' should be non-empty"),
    (local(defaults={"grade_map": {"a": 1}}), "config defaults.grade_map: key 'a' is not a grade"),
    ({"tracks": {"t": {"qrels": "q", "runs": "r", "grade_map": {2**63: 1}}}},
     f"config tracks.t.grade_map: key {2**63} is not a grade; a grade is an integer from {INT64[0]} to {INT64[1]}"),
    (local(defaults={"grade_map": {1: 1e20}}), "config defaults.grade_map.1: 1e+20 is not of type 'integer'"),
    (local(defaults={"grade_map": {1: 10**20}}),
     f"config defaults.grade_map.1: {10**20} is greater than the maximum of {INT64[1]}"),
    (local(defaults={"relevance_level": 2**63}), f"config defaults.relevance_level: {2**63} is greater than"),
    (local(defaults={"relevance_level": 2.0}), "config defaults.relevance_level: 2.0 is not of type 'integer'"),
    (local(lexiprecision={"relevance_level": 2**64}), "config lexiprecision.relevance_level: "),
    (local(synthetic="nope"), "config synthetic: 'nope' is not of type 'object'"),
    ({"tracks": {"t": {"synthetic": "nope"}}},
     "config tracks.t.synthetic: 'nope' is not a track of the built-in campaign (syn-graded, "),
    (local(measures=["nDCG@1e20"]), "measures: measure 'nDCG@1e20': the cutoff must be an integer"),
    (local(measures=["map", "nDCG@9223372036854775808"]),
     "measures: measure 'nDCG@9223372036854775808': cutoffs must be integers from 1 to 2^63 - 1"),
    (local(rareness={"k": 100.0}), "config rareness.k: 100.0 is not of type 'integer'"),
])
def test_a_value_a_job_would_fail_on_is_refused_in_one_line_naming_its_key(cfg, expected):
    message = refused(cfg)
    assert message.startswith(expected) and "\n" not in message, message


def test_results_naming_a_file_is_refused(tmp_path):
    file = write_lines(tmp_path / "results", ["not a folder"])
    assert refused(local(results=str(file))) == (f"config results: {str(file)!r} is a file; results must "
                                                 f"name a folder (made if absent)")
    check_config(local(results=str(tmp_path)))  # an existing folder is fine, and so is a new one
    check_config(local(results=str(tmp_path / "new")))


def test_grade_maps_within_int64_pass_with_keys_as_numbers_or_strings():
    cfg = with_defaults(local(defaults={"grade_map": {"1": 0, -3: 0, INT64[0]: INT64[1], "+2": 1}}))
    assert cfg["tracks"]["t"]["grade_map"] == {"1": 0, -3: 0, INT64[0]: INT64[1], "+2": 1}
    with_defaults(local(defaults={"relevance_level": INT64[1]}, measures=[f"P@{INT64[1]}", "ndcg.1=3,2=9"]))


def test_the_schema_names_every_track_of_the_built_in_campaign():
    enum = load_schema()["$defs"]["track"]["properties"]["synthetic"]["oneOf"][0]["enum"]
    assert sorted(enum) == sorted(DEFAULT_CAMPAIGN)


def test_the_dry_run_stops_on_a_bad_grade_map_with_one_line_and_no_traceback(tmp_path):
    cfg = {"results": str(tmp_path / "results"), "tracks": {"t": {"synthetic": "syn-graded", "grade_map": {1: 1.0e+20}}}}
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(cfg))
    proc = subprocess.run([*SNAKEMAKE, "-n", "--configfile", str(path)], cwd=ROOT,
                          capture_output=True, text=True)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Traceback" not in out
    assert "config tracks.t.grade_map.1: 1e+20 is not of type 'integer'" in out
