"""benchmarks/job_fixed_cost.py: a job's fixed CPU cost part by part (issue 41 item 4). What it
measures is checked, not how long anything takes."""

from __future__ import annotations


import pytest

from conftest import load_file_module


@pytest.fixture(scope="module")
def jfc():
    return load_file_module("benchmarks/job_fixed_cost.py", register=True)


def test_a_scripts_imports_are_its_lines_before_the_body(jfc):
    for script in jfc.SCRIPTS:
        imports = jfc.imports_of(script)
        assert "from _log import rule_log" in imports and "sm = snakemake" not in imports
        compile(imports, script, "exec")  # whole statements


def test_the_benchmark_prints_every_probe_and_reevals_own_modules(jfc, capsys):
    jfc.main(["--repeat", "1", "--scripts", "synthetic_track"])
    out = capsys.readouterr().out
    for probe in ("interpreter", "preamble", "third-party", "synthetic_track imports", "synthetic_track both"):
        assert f"  {probe} " in out, probe
    line = next(line for line in out.splitlines() if line.startswith("  synthetic_track ") and "modules" in line)
    assert int(line.split()[1]) > 1 and "compile" in line  # reeval.synth.tracks and what it imports
