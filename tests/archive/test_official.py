"""The manifest's official figures from the catalog (reeval.archive.official) and the files of
config/trec-official: one per track, the runs the manifest lists, the figures as printed."""

import pandas as pd
import pytest

from conftest import ROOT
from reeval.analyses.audit.official import read_official
from reeval.archive.official import official_tables, summary_figures
from reeval.workflow.tracks import load_manifest

CATALOG = ROOT.parent / "shared" / "catalog"


def test_summary_figures_keep_each_block_s_numbers_as_printed():
    text = '{"trec_eval": {"map": "0.3270", "P_10": "0.5587"}, "gdeval": {"ndcg@20": "0.40"}, "x": {"note": "n/a"}}'
    assert summary_figures(text) == [("trec_eval", "map", "0.3270"), ("trec_eval", "P_10", "0.5587"),
                                     ("gdeval", "ndcg@20", "0.40")]
    assert summary_figures("not json") == [] and summary_figures(None) == []


def test_the_committed_files_are_what_the_catalog_gives():
    if not CATALOG.is_dir():
        pytest.skip(f"the catalog is not at {CATALOG} (../shared/catalog beside the project)")
    manifest = load_manifest(ROOT / "config" / "trec-manifest.yaml")
    tables = official_tables(CATALOG, manifest)
    folder = ROOT / "config" / "trec-official"
    assert sorted(p.stem for p in folder.glob("*.csv")) == sorted(tables)
    for tid in ("trec1993-adhoc", "trec-covid-round1", "trec2003-robust"):
        committed = pd.read_csv(folder / f"{tid}.csv", dtype=str, keep_default_na=False)
        pd.testing.assert_frame_equal(committed, tables[tid].reset_index(drop=True))
        listed = {r["run"] for r in manifest[tid]["urls"]["runs"]}
        assert set(committed["run"]) <= listed
        assert len(read_official(folder / f"{tid}.csv")) == len(committed)
    assert sum(len(t) for t in tables.values()) == 65247
