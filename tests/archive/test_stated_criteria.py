"""The ASL paper's stated criteria on the whole TREC catalog (reeval.archive.stated_criteria):
each criterion on hand-made catalog rows, the per-year table beside the study's scope, and
docs/trec-archive.md."""

import pandas as pd
import pytest

from conftest import ROOT
from reeval.archive import scope
from reeval.archive import stated_criteria as sc
from reeval.report.markdown import table
from reeval.workflow.tracks import load_manifest

CATALOG = ROOT.parent / "shared" / "catalog" / "tracks.csv"


def row(**kw):
    base = {"trec_edition": "trec13", "year": 2004, "track": "robust", "task": float("nan"), "kind": "adhoc",
            "analysis_candidate": "yes", "has_qrels_file_link": "yes", "n_runs_with_input_url": 5,
            "run_url_pattern": "https://trec.nist.gov/results/trec13/robust/input.{run}.gz", "notes": ""}
    return {**base, **kw}


def test_each_stated_criterion_leaves_a_catalog_track_out_and_says_which():
    assert sc.stated_reason(row()) is None
    # ranked tasks other than ad hoc pass: the paper names no task
    assert sc.stated_reason(row(kind="ranked-other", analysis_candidate="maybe")) is None
    assert sc.stated_reason(row(year=2021)) == ("years", "TREC 2021")
    assert sc.stated_reason(row(year=1992)) == ("years", "TREC 1992")
    assert sc.stated_reason(row(trec_edition="trec12", year=2003, track="web"))[0] == "web 2003"
    assert sc.stated_reason(row(trec_edition="trec12", year=2003, track="robust")) is None
    assert sc.stated_reason(row(has_qrels_file_link="no", notes="qrels only via HTML page")) == \
        ("qrels", "qrels only via HTML page")
    assert sc.stated_reason(row(run_url_pattern="https://ir.nist.gov/trec-covid/archive/round1/{run}.gz")) == \
        ("past results", "runs on ir.nist.gov")
    assert sc.stated_reason(row(run_url_pattern=float("nan"))) == ("past results", "no run URL")
    assert sc.stated_reason(row(n_runs_with_input_url=4)) == ("run files", "4 run files")
    assert sc.stated_reason(row(kind="not-ranked", notes="filtering: unranked sets per profile")) == \
        ("formats", "filtering: unranked sets per profile")
    assert sc.stated_reason(row(year=2021, n_runs_with_input_url=0))[0] == "years"   # the first that fails


def test_year_table_names_the_tracks_the_ad_hoc_reading_drops_and_the_ad_hoc_tasks_left_out_with_why():
    tracks = pd.DataFrame([row(), row(track="web", kind="ranked-other", analysis_candidate="maybe",
                                      notes="judged with prels", n_runs_with_input_url=9),
                           row(track="qa", kind="not-ranked", analysis_candidate="no"),
                           row(track="hard", has_qrels_file_link="no", notes="HARD: clarification forms")])
    study = {"trec2004-robust": {"edition": "trec13", "track": "robust", "task": None}}
    t = sc.catalog_table(tracks, study)
    assert list(t.stated) == [True, True, False, False] and list(t.adhoc) == [True, False, False, False]
    assert list(t.study) == ["trec2004-robust", "", "", ""]
    y = sc.year_table(t).set_index("year").loc[2004]
    assert (y["stated: tracks"], y["stated: run files"], y["ad hoc: tracks"], y["ad hoc: run files"]) == (2, 14, 1, 5)
    assert y["stated, not ad hoc (catalog)"] == "trec13 web, 9 runs: ranked-other (judged with prels)"
    assert y["ad hoc, not stated (why)"] == \
        "trec13 hard: no qrels file identified (the catalog has no direct qrels-file link): HARD: clarification forms"
    assert sc.totals_text(t).startswith("The paper's stated criteria keep 2 of the catalog's 4 tracks of 1993-2020 "
                                        "(14 run files; left out: 1 by qrels, 1 by formats); the ad hoc tasks among "
                                        "them 1 (5 run files)")


@pytest.fixture(scope="module")
def catalog_table():
    manifest = load_manifest(ROOT / "config" / "trec-manifest.yaml")
    return sc.catalog_table(pd.read_csv(CATALOG), scope.in_scope(manifest, "asl-paper"))


def test_on_the_catalog_the_stated_criteria_keep_138_tracks_all_in_the_study_71_of_them_ad_hoc(catalog_table):
    t = catalog_table
    years = sc.year_table(t).set_index("year")
    assert (years["stated: tracks"].sum(), years["stated: run files"].sum()) == (138, 7872)
    assert (years["ad hoc: tracks"].sum(), years["ad hoc: run files"].sum()) == (71, 5045)
    # the study's scope asl-paper is exactly the tracks the stated criteria keep
    assert (t.stated == (t.study != "")).all()
    # 2009: the Web ad hoc task is kept by the stated criteria; the catalog files it ranked-other
    assert years.loc[2009, "stated: tracks"] == 8 and years.loc[2009, "ad hoc: tracks"] == 0
    assert "trec18 web (adhoc), 71 runs: ranked-other (web ad hoc; adhoc judged with statAP/MTC prels)" in \
        years.loc[2009, "stated, not ad hoc (catalog)"]
    # 2020: the TREC-COVID rounds are ad hoc but their runs are not in TREC's Past Results
    assert years.loc[2020, "ad hoc, not stated (why)"].count("runs on ir.nist.gov") == 5


def test_the_per_year_table_of_the_docs_is_the_catalogs(catalog_table):
    text = (ROOT / "docs" / "trec-archive.md").read_text()
    assert table(sc.year_table(catalog_table)) in text
    assert sc.totals_text(catalog_table) in " ".join(text.split())
