"""The workflow imports only what a step uses (issue 15): Snakefile parsing and every rule
script load no heavy library they do not call.

Each check runs in a fresh interpreter (a subprocess; this test process has imported
everything already) and looks at which modules were loaded. No timing.
"""

import json
import subprocess
import sys

import pytest
import yaml

from conftest import ROOT

#: libraries that a step must not load unless it uses them (seconds of import between them)
HEAVY = ("scipy", "matplotlib", "requests", "tqdm", "urllib3", "pandas", "pyarrow")
SCRIPTS = sorted(p for p in (ROOT / "scripts").glob("*.py") if p.name != "_log.py")
#: what each rule script may load before its body runs, beyond numpy, pandas and pyarrow
#: (figures import matplotlib and the statistics scipy when they draw or test)
ALLOWED = {"fetch.py": {"requests", "tqdm", "urllib3"}}


def loaded_after(code: str, cwd=ROOT) -> dict:
    """{"heavy": the HEAVY top-level packages, "reeval": the reeval modules} loaded by
    running ``code`` in a new interpreter with ``src`` and ``scripts`` on the path."""
    probe = (f"import sys\nsys.path[:0] = [{str(ROOT / 'src')!r}, {str(ROOT / 'scripts')!r}]\n{code}\n"
             "import json\n"
             f"print(json.dumps({{'heavy': sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r}),"
             " 'reeval': sorted(m for m in sys.modules if m.startswith('reeval'))}))")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=cwd)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    return {"heavy": set(out["heavy"]), "reeval": set(out["reeval"])}


def test_parsing_the_workflow_loads_no_scipy_matplotlib_or_fetching(tmp_path):
    """A dry run of the default study (Snakemake parses the Snakefile, checks the config
    and builds every job) loads neither scipy nor matplotlib nor reeval's downloader.
    (Snakemake itself imports requests and urllib3, and its SLURM plugin pandas.)"""
    code = ("from snakemake.cli import main\n"
            f"sys.argv = ['snakemake', '-n', '--config', 'results={tmp_path}']\n"
            "try:\n    main()\nexcept SystemExit as exc:\n    assert not exc.code, exc.code")
    loaded = loaded_after(code)
    assert not loaded["heavy"] & {"scipy", "matplotlib", "tqdm"}, loaded["heavy"]
    assert "reeval.archive.fetch" not in loaded["reeval"] and "reeval.archive.unpack" not in loaded["reeval"]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_rule_scripts_import_no_heavy_library_they_do_not_use(script):
    """A rule script's imports (the lines before its body, ``sm = snakemake``) load no
    scipy, matplotlib or downloader: the functions that draw or test import them."""
    text = script.read_text()
    assert "sm = snakemake" in text, script
    loaded = loaded_after(text[:text.index("sm = snakemake")])
    extra = loaded["heavy"] - {"pandas", "pyarrow"} - ALLOWED.get(script.name, set())
    assert not extra, (script.name, extra)


def test_the_synthetic_generator_loads_no_pandas():
    """The generator writes its files with pyarrow alone (reeval.io.atomic, not reeval.io.tables):
    ``python -m reeval.synth.tracks`` needs no pandas (rule synthetic_track, which ingests the
    track too, loads what rule ingest loads)."""
    assert loaded_after("import reeval.synth.tracks")["heavy"] == {"pyarrow"}


def test_measures_of_a_track_load_no_scipy(tmp_path):
    """The measures job (here its function, on a generated track of the default study)
    loads neither scipy nor matplotlib: the recall cut-offs come from reeval.stats, whose
    statistics import scipy when they run."""
    from reeval.workflow.config_check import with_defaults

    cfg = with_defaults(yaml.safe_load((ROOT / "config" / "config.yaml").read_text()))
    code = f"""
from pathlib import Path
from reeval.io.ingest import ingest_track, write_track
from reeval.workflow.measures_step import track_measures
from reeval.analyses.asl.study import REQUIRED_MEASURES
from reeval.synth.tracks import spec_from_config, write_track as write_synthetic
from reeval.workflow.tracks import resolve_runs
out = Path({str(tmp_path)!r})
write_synthetic(out / "raw", spec_from_config("syn-graded"), seed=1)
tables = ingest_track("t", str(out / "raw" / "qrels.txt"), resolve_runs(str(out / "raw" / "runs")))
write_track(tables, out / "t")
by_run = track_measures("t", out / "t", out / "t", {cfg['measures']!r} + list(REQUIRED_MEASURES))
assert len(by_run) and "iprec_at_recall_0.00" in by_run.columns
"""
    assert not loaded_after(code)["heavy"] & {"scipy", "matplotlib"}


@pytest.fixture(scope="module")
def audited_track(tmp_path_factory):
    """A generated track of the default study, ingested, and an official file of its figures
    at relevance level 2 (explained), one per run and measure, but for a figure no cause
    gives (so that every cause is tried, runs.parquet read for the other orderings), a run
    the track lacks and a measure reeval lacks."""
    import warnings

    import reeval
    from reeval.io.ingest import ingest_track, write_track
    from reeval.synth.tracks import spec_from_config, write_track as write_synthetic
    from reeval.workflow.tracks import resolve_runs

    out = tmp_path_factory.mktemp("audit-imports")
    write_synthetic(out / "raw", spec_from_config("syn-graded"), seed=1)
    runs = resolve_runs(str(out / "raw" / "runs"))
    write_track(ingest_track("t", str(out / "raw" / "qrels.txt"), runs), out / "t")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", reeval.ReevalWarning)
        values = reeval.evaluate(str(out / "raw" / "qrels.txt"), runs, ["map", "P_10", "bpref"], relevance_level=2)
    values.iloc[0, 0] = 0.9999
    lines = ["run,block,measure,value", "ghost,trec_eval,map,0.1000", f"{values.index[0]},trec_eval,iP10,0.5000"]
    lines += [f"{run},trec_eval,{m},{v:.4f}" for run, row in values.iterrows() for m, v in row.items()]
    (out / "official.csv").write_text("\n".join(lines) + "\n")
    return out, runs, len(lines) - 1


def test_the_audit_job_loads_no_pandas(audited_track):
    """The audit rule's job (scripts/audit.py: pyarrow's pandas integration switched off, then
    the step function) reads the official file, the ingest report and the track's tables,
    audits and writes official.csv and official.parquet without importing pandas."""
    out, runs, figures = audited_track
    code = f"""
from pathlib import Path
from reeval.io.pandas_free import arrow_without_pandas
assert arrow_without_pandas()
from reeval.workflow.audit_step import track_audit
out = Path({str(out)!r})
table = track_audit(out / "t", out / "official.csv", out / "raw" / "qrels.txt", {runs!r},
                    {{"relevance_level": 1, "precision": "float64"}}, out / "t")
assert table.num_rows == {figures}
assert set(table.column("status").to_pylist()) == {{"not compared", "explained", "unexplained"}}, table.to_pydict()
assert (out / "t" / "audit" / "official.parquet").is_file()
"""
    loaded = loaded_after(code)
    assert "pandas" not in loaded["heavy"] and "pyarrow" in loaded["heavy"], loaded["heavy"]
    assert "reeval.analyses.audit.core" in loaded["reeval"]


def test_with_pyarrow_s_pandas_integration_off_pandas_still_converts_tables():
    """arrow_without_pandas: pa.array no longer imports pandas; an explicit to_pandas does and
    works; where pandas is loaded already, the switch does nothing."""
    code = """
import pyarrow as pa
from reeval.io.pandas_free import arrow_without_pandas
assert arrow_without_pandas()
table = pa.table({"run": pa.array(["a", None]), "map": pa.array([0.5, float("nan")], from_pandas=True)})
assert table.column("map").null_count == 1 and "pandas" not in sys.modules
frame = table.to_pandas()
assert frame["run"].tolist()[0] == "a" and "pandas" in sys.modules
assert not arrow_without_pandas()
"""
    assert loaded_after(code)["heavy"] == {"pyarrow", "pandas"}
