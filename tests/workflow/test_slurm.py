"""The SLURM profile (workflow/profiles/slurm) on a real SLURM cluster: a single node
brought up on this machine by tests/workflow/slurm_cluster.sh (Debian packages, as root).

Marked ``slurm``: the default ``pytest`` run deselects these tests, ``pytest -m slurm``
(``make test-slurm``, run by .ci/run after the main suite) selects them. They skip when
not root, or when the packages are missing and there is no apt-get to install them.

The synthetic campaign runs through the profile as README.md says, with account and
partition in a copy of the profile; every job must be a completed SLURM job with its
rule's memory and time (sacct), and every output must equal a local run's. A job made to
fail once (scripts/_log.py, REEVAL_TEST_FAIL_ONCE) must be resubmitted with twice its
memory and time, and succeed.
"""

import importlib.util
import os
import re
import shutil
import signal
import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from conftest import ROOT
from test_scale import job_resources
from test_study_workflow import executed
from snakemake_command import SNAKEMAKE

pytestmark = pytest.mark.slurm

CLUSTER_SCRIPT = ROOT / "tests" / "workflow" / "slurm_cluster.sh"
ACCOUNT, PARTITION = "reeval", "main"  # as slurm_cluster.sh creates them
INSTALL_TIMEOUT = 20 * 60  # s, apt-get update and install on a slow mirror
CAMPAIGN_TIMEOUT = 30 * 60  # s, the whole campaign (about 5 min on a quiet 2-core machine)


@dataclass
class Cluster:
    """A running test cluster: its folder and the environment that reaches it."""

    folder: Path
    env: dict

    def sacct(self, job_ids) -> dict:
        """SLURM job id -> {State, ReqMem, Timelimit, Comment} of the given jobs (sacct)."""
        fields = ["JobID", "State", "ReqMem", "Timelimit", "Comment"]
        out = subprocess.run(["sacct", "-X", "-n", "-P", "-o", ",".join(fields), "-j", ",".join(job_ids)],
                             env=self.env, capture_output=True, text=True, check=True).stdout
        rows = [dict(zip(fields, line.split("|"))) for line in out.splitlines()]
        return {row["JobID"]: row for row in rows}


def cluster_script(*args, timeout=300):
    """Run slurm_cluster.sh; its output in the failure message."""
    try:
        proc = subprocess.run(["bash", str(CLUSTER_SCRIPT), *args], capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"slurm_cluster.sh {' '.join(args)}: no end after {timeout}s") from exc
    assert proc.returncode == 0, f"slurm_cluster.sh {' '.join(args)} failed:\n{proc.stdout}{proc.stderr}"
    return proc


def skip_unless_possible():
    if os.geteuid() != 0:
        pytest.skip("the SLURM tests need root (slurm_cluster.sh installs packages and runs daemons)")
    if importlib.util.find_spec("snakemake_executor_plugin_slurm") is None:
        pytest.skip("snakemake-executor-plugin-slurm is not installed (pip install 'reeval[slurm]')")
    if not shutil.which("apt-get") and not shutil.which("slurmctld"):
        pytest.skip("SLURM is not installed and there is no apt-get to install it (Debian packages)")


@pytest.fixture(scope="session")
def slurm_cluster(tmp_path_factory):
    """A single-node cluster for the session, stopped at the end even when a test fails or
    the run is interrupted (Ctrl-C; SIGTERM is turned into the same KeyboardInterrupt)."""
    skip_unless_possible()
    cluster_script("install", timeout=INSTALL_TIMEOUT)
    folder = tmp_path_factory.mktemp("slurm-cluster")
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        cluster_script("start", str(folder))
        env = dict(os.environ, SLURM_CONF=str(folder / "slurm.conf"), PYTHONPATH=str(ROOT / "src"))
        yield Cluster(folder, env)
    finally:
        try:
            cluster_script("stop", str(folder))
        finally:
            signal.signal(signal.SIGTERM, previous)


def run_snakemake(args, console: Path, env=None, timeout=CAMPAIGN_TIMEOUT) -> str:
    """Snakemake in a session of its own, its output to ``console``; killed (the whole
    session: the plugin may ignore SIGTERM) on a timeout or an interrupt. Returns the output."""
    with open(console, "w") as out:
        proc = subprocess.Popen(SNAKEMAKE + list(args), cwd=ROOT, env=env, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
        try:
            proc.wait(timeout=timeout)
        except BaseException as exc:  # the timeout, or Ctrl-C / SIGTERM of the test run
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            if isinstance(exc, subprocess.TimeoutExpired):
                raise AssertionError(f"snakemake {' '.join(args)} did not end within {timeout}s, "
                                     f"killed ({console}):\n{console.read_text()[-5000:]}") from None
            raise
    text = console.read_text()
    assert proc.returncode == 0, f"snakemake {' '.join(args)} failed ({console}):\n{text[-5000:]}"
    return text


def slurm_profile(folder: Path) -> Path:
    """A copy of workflow/profiles/slurm with the cluster's account and partition in its
    default-resources, as docs/cluster.md tells users to do."""
    cfg = yaml.safe_load((ROOT / "workflow" / "profiles" / "slurm" / "config.yaml").read_text())
    cfg["default-resources"].update(slurm_account=ACCOUNT, slurm_partition=PARTITION)
    folder.mkdir()
    (folder / "config.yaml").write_text(yaml.safe_dump(cfg))
    return folder


def slurm_args(tmp: Path, results: Path) -> list:
    """The README's command with the profile's copy; SLURM logs kept in ``tmp``; the first
    status check after 5 s instead of 40 (a small cluster answers at once)."""
    return ["--profile", str(slurm_profile(tmp / "profile")), "--config", f"results={results}",
            "--slurm-logdir", str(tmp / "slurm-logs"), "--slurm-keep-successful-logs",
            "--slurm-init-seconds-before-status-checks", "5"]


def submitted(console: str) -> dict:
    """SLURM job id -> Snakemake job id of every job a run submitted, from its output."""
    found = re.findall(r"^Job (\d+) has been submitted with SLURM jobid (\d+)", console, re.M)
    return {slurm_id: job for job, slurm_id in found}


def outputs(results: Path) -> dict:
    """relative path -> bytes of every output (logs and timings aside), the results folder
    written as RESULTS in text files (the ingest report names the files it read)."""
    found = {}
    for path in sorted(results.rglob("*")):
        rel = path.relative_to(results)
        if path.is_file() and rel.parts[0] not in ("logs", "benchmarks"):
            found[rel] = path.read_bytes().replace(str(results).encode(), b"RESULTS")
    return found


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    """(results folder, Snakemake output) of the campaign on this machine, no SLURM."""
    tmp = tmp_path_factory.mktemp("local")
    console = run_snakemake(["--cores", "2", "--config", f"results={tmp / 'results'}"], tmp / "console.txt",
                            env=dict(os.environ, PYTHONPATH=str(ROOT / "src")))
    return tmp / "results", console


@pytest.fixture(scope="module")
def slurm_run(slurm_cluster, tmp_path_factory):
    """(results folder, Snakemake output) of the campaign through the SLURM profile."""
    tmp = tmp_path_factory.mktemp("through-slurm")
    console = run_snakemake(slurm_args(tmp, tmp / "results"), tmp / "console.txt", env=slurm_cluster.env)
    return tmp / "results", console


def minutes(timelimit: str) -> int:
    """sacct's Timelimit ([D-]HH:MM:SS) in whole minutes."""
    days, _, clock = timelimit.rpartition("-")
    hours, mins, _ = map(int, clock.split(":"))
    return (int(days or 0) * 24 + hours) * 60 + mins


def test_every_job_of_the_campaign_is_a_completed_slurm_job_with_its_rules_resources(
        slurm_cluster, slurm_run, local_run, tmp_path):
    results, console = slurm_run
    jobs = slurm_cluster.sacct(submitted(console))
    assert jobs and len(jobs) == len(submitted(console)), (submitted(console), jobs)
    not_completed = {i: job["State"] for i, job in jobs.items() if job["State"] != "COMPLETED"}
    assert not not_completed, not_completed
    # one SLURM job per Snakemake job of a local run (but `all`, a local rule there too)
    local_jobs = executed(local_run[1])
    assert local_jobs.pop("all") == 1 and executed(console) == {**local_jobs, "all": 1}
    rules = Counter(re.match(r"rule_(\w+?)(?:_wildcards_|$)", job["Comment"]).group(1) for job in jobs.values())
    assert rules == local_jobs, (rules, local_jobs)
    # the campaign: 3 tracks x 5 per-track rules (synthetic_track, which ingests its track too,
    # measures, analyses, reusability, track_figures) and the 8 cross-track ones (inclusion,
    # summary, study, lexiprecision_summary, rareness_summary, papers, reusability_summary, report)
    assert len(jobs) == 3 * 5 + 8, sorted(rules.items())
    # sbatch got each rule's mem_mb and runtime (minutes) at the first attempt, as a dry run
    # of the same command declares them (the run itself prints one line per job)
    declared = job_resources(run_snakemake(slurm_args(tmp_path, results) + ["-n", "--forceall"],
                                           tmp_path / "dry-console.txt", env=slurm_cluster.env))
    for job in jobs.values():
        rule = re.match(r"rule_(\w+?)(?:_wildcards_|$)", job["Comment"]).group(1)
        mem = re.search(r"\bmem_mb=(\d+)", declared[rule]).group(1)
        runtime = int(re.search(r"\bruntime=(\d+)", declared[rule]).group(1))
        assert (job["ReqMem"], minutes(job["Timelimit"])) == (f"{mem}M", runtime), (rule, job)


def test_the_campaign_through_slurm_equals_a_local_run(slurm_run, local_run):
    """Every table, markdown page, figure and generated track, byte for byte."""
    through_slurm, local = outputs(slurm_run[0]), outputs(local_run[0])
    assert sorted(through_slurm) == sorted(local)
    differ = sorted(str(p) for p in local if local[p] != through_slurm[p])
    assert not differ, differ
    kinds = Counter(p.suffix for p in local)
    assert kinds[".parquet"] > 50 and kinds[".csv"] > 50 and kinds[".md"] >= 3, kinds


def test_a_failed_slurm_job_is_resubmitted_with_twice_the_memory_and_time(slurm_cluster, tmp_path):
    """One job (synthetic_track) fails on its first attempt through the test-only switch of
    the rule scripts; `retries: 1` of the profile resubmits it with both doubled."""
    results, marker = tmp_path / "results", tmp_path / "failed-once"
    env = dict(slurm_cluster.env, REEVAL_TEST_FAIL_ONCE=f"synthetic_track:{marker}")
    target = str(results / "synthetic" / "syn-graded")
    console = run_snakemake(slurm_args(tmp_path, results) + [target], tmp_path / "console.txt", env=env)
    assert marker.exists(), "the switch did not fire: no first attempt failed"
    assert (results / "synthetic" / "syn-graded" / "qrels.txt").is_file()
    jobs = slurm_cluster.sacct(submitted(console))
    assert len(jobs) == 2, jobs
    first, second = (jobs[i] for i in sorted(jobs, key=int))
    assert (first["State"], second["State"]) == ("FAILED", "COMPLETED"), jobs
    assert first["Comment"] == second["Comment"] == "rule_synthetic_track_wildcards_syn-graded", jobs
    mem = [int(job["ReqMem"].rstrip("M")) for job in (first, second)]
    assert mem[1] == 2 * mem[0], jobs
    assert minutes(second["Timelimit"]) == 2 * minutes(first["Timelimit"]), jobs
