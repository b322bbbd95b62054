"""The Makefile's two commands: ``make run`` installs only the main job's packages,
``make test`` the test, bench, slurm and docs extras too, and CI runs every test target:
``make test``, then the slow checks it deselects (``make test-slow``), then ``make test-slurm``."""

import re
import shutil
import subprocess
import sys
import tomllib

import pytest

from conftest import ROOT


def planned(target: str, tmp_path) -> str:
    """What ``make TARGET`` would run from scratch (``-n -B``, a venv of its own)."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    done = subprocess.run(["make", "-n", "-B", target, f"VENV={tmp_path / 'venv'}"], cwd=ROOT,
                          capture_output=True, text=True, check=True)
    return done.stdout


def installs(plan: str) -> list[str]:
    """The ``pip install`` targets of a make plan."""
    return re.findall(r"pip install -q -e (\S+)", plan)


def test_make_run_installs_only_what_the_workflow_needs(tmp_path):
    plan = planned("run", tmp_path)
    assert installs(plan) == ["."] and "snakemake --cores" in plan
    assert "compileall" not in plan  # the jobs keep their own bytecode (reeval.workflow.bytecode)


def test_make_test_installs_every_extra_and_runs_the_suite_on_workers(tmp_path):
    plan = planned("test", tmp_path)
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert installs(plan)[0] == "."
    assert set(re.fullmatch(r"'?\.\[([\w,-]+)\]'?", installs(plan)[1]).group(1).split(",")) == set(extras)
    assert any(p.startswith("pytest-xdist") for p in extras["test"])
    assert re.search(r"bin/pytest -n \S+", plan)
    addopts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["addopts"]
    assert "--dist loadfile" in addopts  # a file's module fixtures (a workflow run) run once, on one worker


def test_ci_runs_the_suite_then_the_slow_checks_then_the_slurm_tests():
    lines = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.startswith("make ")]
    assert lines == ["make test", "make test-slow", "make test-slurm"]


def test_make_test_slow_runs_on_workers_what_make_test_deselects(tmp_path):
    plan = planned("test-slow", tmp_path)
    assert installs(plan)[0] == "." and re.search(r"bin/pytest -n \S+ -m slow$", plan, flags=re.M)
    ini = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert "-m 'not slurm and not slow'" in ini["addopts"]
    assert any(m.startswith("slow:") for m in ini["markers"])


def collected(*args: str) -> set[str]:
    """The test ids pytest collects with ``args`` (pyproject.toml's addopts apply)."""
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--collect-only", "-q",
                           "-n", "0", *args], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode in (0, 5), done.stdout[-2000:] + done.stderr[-2000:]  # 5: none collected
    return {line for line in done.stdout.splitlines() if "::" in line}


def test_make_test_keeps_one_end_to_end_run_and_trec_eval_parity_on_one_real_track():
    """What a developer needs on every run stays in make test: the default workflow run's
    checks and trec_eval 10's parity on a real track; the rest of each runs with -m slow."""
    files = ["tests/measures/test_trec_eval10.py", "tests/workflow/test_workflow.py"]
    fast, slow = collected(*files), collected(*files, "-m", "slow")
    assert fast and slow and not fast & slow
    for test in ("test_all_trec_topic_by_topic_on_every_run[", "test_printed_lines_equal_trec_eval_s_on_every_run[",
                 "test_default_study_produces_every_output"):
        assert any(test in t for t in fast), test
    assert any("test_all_trec_topic_by_topic_on_every_run[" in t for t in slow)


def test_make_docs_installs_the_docs_extra_builds_the_site_and_serves_it_on_this_machine(tmp_path):
    """The site's search needs the pages served over HTTP: ``make docs`` builds the site
    strictly and serves it on 127.0.0.1 (tests/api/test_api_docs.py searches it so)."""
    plan = planned("docs", tmp_path)
    assert installs(plan) == [".", "'.[docs]'"]
    assert re.search(r"bin/mkdocs build --strict .*-d site", plan)
    assert re.search(r"-m http\.server --bind 127\.0\.0\.1 --directory site \d+", plan)
