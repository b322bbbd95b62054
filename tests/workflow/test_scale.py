"""Scale: per-rule resources, the local and SLURM profiles, the catalog-shaped campaign,
and memory bounded per track (ingest + measures under an address-space limit)."""

import importlib.util
import re
import subprocess
import sys

import pytest

from conftest import ROOT, load_file_module
from snakemake_command import SNAKEMAKE



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
            assert key in text, f"rule {name} declares no {key.rstrip(':=')} (see docs/cluster.md)"
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
    # the default study's tracks are synthetic: generated and ingested by rule synthetic_track
    assert "mem_mb=4000" in resources["synthetic_track"] and "runtime=30" in resources["synthetic_track"], resources
    assert "mem_mb=4000" in resources["measures"], resources


# --- the simulated campaign with the real study's shape ------------------------------

CATALOG = ROOT.parent / "shared" / "catalog"


def catalog():
    if not (CATALOG / "tracks.csv").is_file():
        pytest.skip(f"TREC catalog not found at {CATALOG} (../shared/catalog beside the project)")
    return CATALOG / "tracks.csv", CATALOG / "runs.csv"


def test_study_tracks_are_the_catalogs_candidates_without_2003_web():
    from reeval.synth.campaign import campaign_specs, study_tracks
    tracks_csv, _ = catalog()
    t = study_tracks(tracks_csv)
    # catalog README: 83 candidate rows in 1993-2021 with 6,035 runs; 2003 Web has 93
    assert len(t) == 82 and t.n_runs_with_input_url.sum() == 6035 - 93
    assert not ((t.trec_edition == "trec12") & (t.track == "web")).any()
    specs = campaign_specs(tracks_csv)
    blog = specs["trec17-blog-baseline-opinion"]
    assert (blog.n_runs, blog.n_topics, blog.depth) == (232, 50, 1000)    # the largest track
    dl = specs["trec28-deep-passages"]
    assert (dl.n_topics, dl.n_topics + dl.n_unjudged_topics) == (43, 200)  # 200 queries, 43 judged
    assert specs["trec13-robust"].n_topics == 249
    assert len(specs) == len(set(specs))


def test_relevance_density_from_the_catalog_matches_real_qrels():
    """Robust 2003's density estimated from its official P_1000/recall figures against its
    real qrels in ../shared/data (60.7 relevant documents per topic)."""
    import pandas as pd
    from conftest import track_files
    from reeval.synth.campaign import relevant_per_topic
    _, runs_csv = catalog()
    qrels, _ = track_files("trec2003-robust")
    q = pd.read_csv(qrels, sep=r"\s+", header=None, names=["qid", "iter", "docno", "rel"])
    real = (q.rel >= 1).sum() / q.qid.nunique()
    est = relevant_per_topic(runs_csv)[("trec12", "robust", "")]
    assert abs(est - real) / real < 0.1, (est, real)


def test_committed_simulated_study_is_what_the_catalog_gives():
    import yaml
    from reeval.synth.campaign import campaign_specs
    from reeval.synth.tracks import spec_from_config
    tracks_csv, runs_csv = catalog()
    cfg = yaml.safe_load((ROOT / "config" / "simulated-study.yaml").read_text())
    committed = {name: spec_from_config(entry["synthetic"]) for name, entry in cfg["tracks"].items()}
    assert committed == campaign_specs(tracks_csv, runs_csv)


def test_simulated_study_config_validates_and_schedules_every_track(tmp_path):
    out = snakemake("-n", "--configfile", "config/simulated-study.yaml", "--config", f"results={tmp_path}")
    jobs = {line.split()[0]: int(line.split()[1]) for line in out.splitlines()
            if len(line.split()) == 2 and line.split()[1].isdigit()}
    assert jobs["synthetic_track"] == jobs["measures"] == 82 and "ingest" not in jobs, jobs  # one job generates and ingests


def test_a_real_shaped_track_scaled_down_keeps_its_oddities(tmp_path):
    import dataclasses
    from reeval.synth.campaign import campaign_specs
    from reeval.io.ingest import ingest_track
    from reeval.synth.tracks import write_track
    tracks_csv, runs_csv = catalog()
    spec = campaign_specs(tracks_csv, runs_csv)["trec28-deep-passages"]   # 200 queries, 43 judged
    spec = dataclasses.replace(spec, n_runs=20, n_topics=6, n_unjudged_topics=10, depth=200)
    write_track(tmp_path, spec, seed=1)
    runs = sorted(str(p) for p in (tmp_path / "runs").iterdir())
    t = ingest_track("dl", tmp_path / "qrels.txt", runs)
    rep = t.report[t.report.kind == "run"]
    assert len(rep) == 20 and rep.unjudged_topic.sum() > 0 and rep.duplicate.sum() == 1
    depth = t.depth.to_pandas()
    assert depth.n_ret.max() == 200 and depth.n_ret.min() == 100            # a shallow run
    assert depth.groupby("run").qid.nunique().min() < 6                     # a run missing a topic
    qrels = t.qrels.to_pandas()
    assert abs((qrels.rel > 0).sum() / 6 - spec.relevant_per_topic) < 0.5 * spec.relevant_per_topic
    assert set(qrels.rel) == {0, 1, 2}
    scores = t.runs.to_pandas().groupby(["run", "qid"]).score.apply(lambda s: s.duplicated().mean())
    assert scores.max() > 0.5                                               # a mostly tied run


# --- memory bounded per track --------------------------------------------------------

CHILD = r'''
import resource, sys
from pathlib import Path
import numpy, pandas, pyarrow  # imported before the limit: the baseline is the interpreter's
from reeval.io.ingest import ingest_track, write_track
from reeval.workflow.measures_step import track_measures

def vm_kb():
    return next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmSize"))

campaign, mode, budget_mb = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
limit = (vm_kb() + budget_mb * 1024) * 1024
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
kept = []
for src in sorted(p for p in campaign.iterdir() if p.is_dir()):
    out = campaign.parent / "out" / mode / src.name
    tables = ingest_track(src.name, src / "qrels.txt", sorted(str(p) for p in (src / "runs").iterdir()))
    write_track(tables, out)
    by_run = track_measures(src.name, out, out, ["official", "ASL", "ASL@g1-10"])
    if mode == "accumulate":  # what a campaign-wide design does: every track's tables stay alive
        kept.append((tables, pandas.read_parquet(out / "asl_by_document.parquet")))
    del tables
print("peak_kb", next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmPeak")))
'''


@pytest.mark.slow
def test_ingest_and_measures_of_a_campaign_stay_under_a_per_track_memory_limit(tmp_path):
    """Eight tracks of 0.5 M run lines each go through ingest + measures one after the
    other in one process whose address space may grow by at most BUDGET_MB over the
    interpreter with numpy/pandas/pyarrow loaded: memory must be per track, freed between
    tracks. The control keeps each track's tables alive (memory growing with the number
    of tracks, 4 M lines in all) and must hit the same limit, so the limit does bite.

    Measured (VmPeak over the interpreter's, 2026-11-26): per track 92 MB, the control
    310 MB; the limit sits between them with room on both sides."""
    from reeval.synth.tracks import TrackSpec, write_track
    budget_mb = 200
    spec = TrackSpec(n_runs=25, n_topics=20, depth=1000, relevant_per_topic=100,
                     judged_nonrel_per_topic=300, tie_fraction=0.1, duplicate_docs=1, compress="none")
    campaign = tmp_path / "campaign"
    for i in range(8):
        write_track(campaign / f"t{i}", spec, seed=i)
    env = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin",
           "ARROW_DEFAULT_MEMORY_POOL": "system",  # Arrow allocates through malloc: no allocator
           "MALLOC_ARENA_MAX": "2", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}  # reservations

    def child(mode):
        return subprocess.run([sys.executable, "-X", "faulthandler", "-c", CHILD, str(campaign), mode,
                               str(budget_mb)],
                              capture_output=True, text=True, env=env)

    per_track = child("per-track")
    assert per_track.returncode == 0, per_track.stderr[-3000:]
    for i in range(8):
        assert (tmp_path / "out" / "per-track" / f"t{i}" / "measures_by_run.parquet").is_file()
    accumulate = child("accumulate")
    assert accumulate.returncode != 0, "the control kept 8 tracks alive under the limit: the limit is too loose"
    # out of memory: a MemoryError (std::bad_alloc from Arrow), or a crash where a library
    # does not check an allocation (pandas' merge hash tables: SIGSEGV, traceback below)
    assert (accumulate.returncode < 0 or "memory" in accumulate.stderr.lower()
            or "bad_alloc" in accumulate.stderr), accumulate.stderr[-2000:]


# --- the projection of benchmarks/bench_scale.py -------------------------------------

def bench_scale():
    return load_file_module("benchmarks/bench_scale.py")


def test_projection_fit_and_sizes():
    import numpy as np
    from reeval.synth.tracks import TrackSpec
    bs = bench_scale()
    x = np.array([1e5, 1e7, 3e7])
    assert np.allclose(bs.fit(x, 150 + 5e-5 * x), (150, 5e-5))
    assert np.allclose(bs.fit(np.array([2e6, 2e6]), np.array([4.0, 6.0])), (0, 2.5e-6))  # one size
    assert bs.fit(x, np.array([50.0, 10.0, 30.0]))[0] == 0                             # a < 0 or b < 0
    spec = TrackSpec(n_runs=80, n_topics=50, n_unjudged_topics=100, depth=10_000,
                     relevant_per_topic=188, judged_nonrel_per_topic=1000)
    assert bs.size("ingest", spec) == 80 * 150 * 10_000
    assert bs.size("ingest", spec, memory=True) == 80 * 50 * 10_000
    assert bs.size("measures", spec) == 80 * 50 * 1188
    assert bs.size("analyses", spec) == 80 * 79 / 2 * 50
    out = "rule ingest:\n    jobid: 3\n    threads: 2\nlocalrule all:\n    jobid: 0\nrule measures:\n    threads: 1\n"
    assert bs.threads_of(out) == {"ingest": 2, "measures": 1}
