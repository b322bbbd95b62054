"""Scale: per-rule resources, the local and SLURM profiles, the catalog-shaped campaign,
and memory bounded per track (ingest + measures under an address-space limit)."""

import importlib.util
import re
import subprocess
import sys

import pytest

from conftest import ROOT

SNAKEMAKE = [sys.executable, "-m", "snakemake"]


def snakemake(*args):
    proc = subprocess.run(SNAKEMAKE + list(args), cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout + proc.stderr


def rule_blocks():
    """rule name -> text of its block, for every rule in workflow/rules/*.smk."""
    blocks = {}
    for path in sorted((ROOT / "workflow" / "rules").glob("*.smk")):
        parts = re.split(r"^rule (\w+):\n", path.read_text(), flags=re.M)
        blocks.update(dict(zip(parts[1::2], parts[2::2])))
    return blocks


def test_every_rule_declares_threads_memory_runtime_and_per_track_rules_a_benchmark():
    blocks = rule_blocks()
    assert {"ingest", "measures", "summary", "synthetic_track"} <= set(blocks)
    for name, text in blocks.items():
        for key in ("threads:", "mem_mb=", "runtime="):
            assert key in text, f"rule {name} declares no {key.rstrip(':=')} (see README, Scale)"
        if "{{track}}" in text.split("log:")[-1].split("conda:")[0]:  # a job per track
            assert f"benchmarks/{name}/{{{{track}}}}.tsv" in text, \
                f"per-track rule {name} has no benchmark: results/benchmarks/{name}/<track>.tsv"


def job_resources(out: str) -> dict:
    """rule -> 'resources:' line of its first job in a dry run's printout."""
    found = {}
    for block in re.split(r"\n(?=(?:local)?rule \w+:)", out):
        m = re.match(r"(?:local)?rule (\w+):", block)
        r = re.search(r"^\s+resources: (.*)$", block, flags=re.M)
        if m and r:
            found.setdefault(m.group(1), r.group(1))
    return found


def test_local_profile_dry_run(tmp_path):
    out = snakemake("--profile", "workflow/profiles/local", "--dry-run", "--config", f"results={tmp_path}")
    assert "ingest" in out and "measures" in out


def test_slurm_profile_dry_run_parses_and_passes_each_rules_resources(tmp_path):
    if importlib.util.find_spec("snakemake_executor_plugin_slurm") is None:
        pytest.skip("snakemake-executor-plugin-slurm is not installed (pip install 'reeval[slurm]')")
    out = snakemake("--profile", "workflow/profiles/slurm", "--dry-run", "--config", f"results={tmp_path}")
    resources = job_resources(out)
    assert "mem_mb=6000" in resources["ingest"] and "runtime=20" in resources["ingest"], resources
    assert "mem_mb=6000" in resources["measures"], resources
