"""The study's track manifest against ../shared/catalog, and the study config."""

import json

import pandas as pd
import pytest
import yaml

from conftest import ROOT
from reeval.archive.manifest import build_manifest, study_rows, technique
from reeval.archive.stated_criteria import stated_reason
from reeval.errors import InputError
from reeval.workflow.config_check import with_defaults
from reeval.workflow.tracks import load_manifest, study_tracks

CATALOG = (ROOT.parent / "shared" / "catalog").resolve()
MANIFEST = ROOT / "config" / "trec-manifest.yaml"


@pytest.fixture(scope="module")
def catalog():
    if not (CATALOG / "tracks.csv").is_file():
        pytest.skip(f"catalog not found at {CATALOG} (../shared/catalog beside the project)")
    tracks = pd.read_csv(CATALOG / "tracks.csv")
    runs = pd.read_csv(CATALOG / "runs.csv", low_memory=False,
                       usecols=["trec_edition", "track", "catalog_task", "run_tag", "md5", "input_url"])
    return tracks, runs


@pytest.fixture(scope="module")
def manifest():
    return load_manifest(MANIFEST)


def test_manifest_file_is_what_the_generator_writes(catalog, manifest):
    assert build_manifest(CATALOG) == manifest


def test_study_selects_the_stated_criteria_and_the_candidates_of_1993_2021_without_web_2003(catalog, manifest):
    tracks, _ = catalog
    stated = pd.Series([stated_reason(r) is None for r in tracks.to_dict("records")], index=tracks.index)
    expected = tracks[(stated | ((tracks.analysis_candidate == "yes") & tracks.year.between(1993, 2021)))
                      & ~((tracks.trec_edition == "trec12") & (tracks.track == "web"))]
    assert len(study_rows(tracks)) == len(expected) == len(manifest) == 149
    # every track the ASL paper's stated criteria keep is in the manifest (Web 2009 among them)
    assert int(stated.sum()) == 138 and "trec2009-web-adhoc" in manifest
    assert {e["kind"] for e in manifest.values()} == {"adhoc", "ranked-other"}
    got = {(e["edition"], e["track"], e["task"]) for e in manifest.values()}
    want = {(r.trec_edition, r.track, r.task if isinstance(r.task, str) else None) for r in expected.itertuples()}
    assert got == want
    assert not any(e["edition"] == "trec12" and e["track"] == "web" for e in manifest.values())
    assert all(1993 <= e["year"] <= 2021 for e in manifest.values())
    # study.scope all (the default) selects all of them; config/trec-study.yaml takes the ASL
    # paper's scope (tests/archive/test_scope.py)
    cfg = with_defaults({"manifest": str(MANIFEST)})
    assert set(study_tracks(cfg)) == set(manifest)


def test_every_url_and_md5_is_the_catalogs_and_run_counts_match(catalog, manifest):
    tracks, runs = catalog
    catalog_md5 = 0
    rows = {(r.trec_edition, r.track, r.task if isinstance(r.task, str) else None): r
            for r in tracks.itertuples()}
    for tid, e in manifest.items():
        row = rows[(e["edition"], e["track"], e["task"])]
        catalog_qrels = {link["url"] for link in json.loads(row.qrels_json)}
        for q in e["urls"]["qrels"]:
            assert q["url"] in catalog_qrels, (tid, q["url"])
        cat_runs = runs[(runs.trec_edition == e["edition"]) & (runs.track == e["track"])
                        & (runs.catalog_task.fillna("") == (e["task"] or "")) & runs.input_url.notna()]
        # a run tag listed twice keeps its first URL (TREC-4 routing's ORAdL1, categories a and b)
        cat_runs = cat_runs.sort_values(["run_tag", "input_url"]).drop_duplicates("run_tag")
        assert len(e["urls"]["runs"]) == len(cat_runs) == row.n_runs_with_input_url - (tid == "trec1995-routing"), tid
        catalog_md5 += int(cat_runs.md5.notna().sum())
        by_tag = cat_runs.set_index("run_tag")
        for r in e["urls"]["runs"]:
            ref = by_tag.loc[r["run"]]
            assert r["url"] == ref.input_url
            assert r.get("md5") == (ref.md5 if isinstance(ref.md5, str) else None)
        assert len({r["run"] for r in e["urls"]["runs"]}) == len(e["urls"]["runs"])
    n_runs = sum(len(e["urls"]["runs"]) for e in manifest.values())
    n_md5 = sum("md5" in r for e in manifest.values() for r in e["urls"]["runs"])
    assert n_runs == 8768 and n_md5 == catalog_md5 > 3000


def test_qrels_choices_of_the_known_oddities(manifest):
    q = {tid: [f["url"].rsplit("/", 1)[1] for f in e["urls"]["qrels"]] for tid, e in manifest.items()}
    # trec2: the parts links point to TREC-1's qrels; the archive is right
    assert q["trec1993-adhoc"] == ["qrels.101-150.disk1.disk2.parts1-5.tar.gz"]
    # trec3: one archive holds two years, the task keeps its own topics
    assert q["trec1994-adhoc"] == ["qrels.151-200.201-250.disks1-3.all.tar.gz"]
    assert manifest["trec1994-adhoc"]["urls"]["topics"] == "151-200"
    # Deep Learning: NIST qrels linked under "Other"; the -no1 variant is not the official one
    assert q["trec2019-deep-passages"] == ["2019qrels-pass.txt"]
    assert q["trec2021-deep-passages"] == ["2021.qrels.pass.final.txt"]
    # trec_eval files, never sampled / inferred-measure ones
    assert q["trec2006-terabyte-adhoc"] == ["qrels.tb06.top50"]
    assert q["trec2011-medical"] == ["qrels.txt"]
    assert q["trec-covid-round3"] == ["qrels-covid_d3_j2.5-3.txt"]
    # prels and multi-file pages of the tracks the stated criteria add
    assert q["trec2009-web-adhoc"] == ["prels.1-50.gz"]
    assert q["trec2009-blog-topstories"] == ["blog09.topnews-blogpost.qrels"]
    assert all(len(v) == 1 for v in q.values())
    # relevance levels reproducing the official figures of ../shared/data
    assert manifest["trec2020-deep-passages"]["relevance_level"] == 2
    assert manifest["trec2021-cast"]["relevance_level"] == 2


def test_alternative_qrels_are_the_page_s_other_qrels_files_with_their_labels(manifest):
    """The audit's last cause: the cumulative and chronological TREC-COVID qrels and the -no1
    passage qrels are carried; per-part splits, sampled and CSV files are not."""
    alt = {tid: {f["url"].rsplit("/", 1)[1]: f["label"] for f in e["urls"].get("alternative_qrels", [])}
           for tid, e in manifest.items()}
    assert alt["trec-covid-round3"] == {
        "qrels-covid_d3_j0.5-3.txt": "Cumulative qrels for Round 3 documents and judgments",
        "qrels-covid_d3_j0.5-5.txt": "Chronological qrels for Round 3 documents and topics"}
    assert list(alt["trec2021-deep-passages"]) == ["2021.qrels.pass.final-no1.txt"]
    assert alt["trec1993-adhoc"] == {} and alt["trec2011-medical"] == {} and alt["trec2017-pm-abstracts"] == {}
    chosen = {tid: {f["url"] for f in e["urls"]["qrels"]} for tid, e in manifest.items()}
    assert all(not set(alt[t]) & {u.rsplit("/", 1)[1] for u in chosen[t]} for t in manifest)


def test_manifest_and_study_config_validate_against_the_schema(manifest):
    with_defaults({"tracks": manifest})
    cfg = yaml.safe_load((ROOT / "config" / "trec-study.yaml").read_text())
    with_defaults(cfg)


def test_study_track_selection(tmp_path, manifest):
    cfg = with_defaults({"manifest": str(MANIFEST), "study": {"tracks": ["trec2004-robust", "trec2019-deep-docs"]},
                         "tracks": {"mine": {"qrels": "q", "runs": "r"}}})
    assert sorted(study_tracks(cfg)) == ["mine", "trec2004-robust", "trec2019-deep-docs"]
    cfg["study"]["tracks"] = ["trec2004-robust", "nope"]
    with pytest.raises(InputError, match="nope"):
        study_tracks(cfg)


@pytest.mark.parametrize("tag,label", [("bm25base_rm3", "bm25"), ("d_tct0", "neural"),
                                       ("BM25_BERT_FC", "neural"), ("udel_fang_ltr_nobert", None),
                                       ("bl_bcai_trad", "traditional"), ("monoT5", "neural"),
                                       ("UDInfoPMCT5", None), ("p_unicoil0", "neural")])
def test_technique_labels_from_tags(tag, label):
    assert technique(tag) == label


REVIEWED_TRACKS = ("trec2020-deep-docs", "trec2020-deep-passages")


def test_reviewed_technique_labels_rest_on_each_runs_own_description(catalog):
    """Every label of the reviewed list quotes words of the run's description in the catalog
    (../shared/catalog/run_descriptions.csv), and the list covers every run of its tracks."""
    from reeval.archive.manifest import TECHNIQUE_LABELS

    labels = pd.read_csv(TECHNIQUE_LABELS, dtype=str, keep_default_na=False)
    described = pd.read_csv(CATALOG / "run_descriptions.csv", dtype=str, keep_default_na=False)
    merged = labels.merge(described, left_on=["edition", "track", "task", "run"],
                          right_on=["trec_edition", "track", "task", "run_tag"], how="left", validate="1:1")
    assert merged.description.notna().all() and len(merged) == 123
    assert all(ev in text for ev, text in zip(merged.evidence, merged.description)), "evidence not in the description"
    assert set(labels.technique) == {"bm25", "neural", "traditional"} and (labels.reason != "").all()
    dl20 = described[(described.trec_edition == "trec29") & (described.track == "deep")]
    assert set(zip(dl20.task, dl20.run_tag)) == set(zip(labels.task, labels.run))


def test_re_rankers_a_tag_pattern_files_as_bm25_are_labelled_neural_from_their_descriptions(manifest):
    runs = {r["run"]: r for t in REVIEWED_TRACKS for r in manifest[t]["urls"]["runs"]}
    for run in ("p_bm25rm3_duo", "p_d2q_bm25_duo", "CoRT-bm25"):
        assert technique(run) == "bm25"                             # what the tag says
        assert runs[run]["technique"] == "neural"                   # what the run was
    assert 'duoT5 re-rankers' in runs["p_bm25rm3_duo"]["technique_reason"]
    assert 'its description: "This run comprises candidates from CoRT merged with BM25"' in \
        runs["CoRT-bm25"]["technique_reason"]
    # every run of the reviewed tracks is labelled, with its reason
    assert all(r.get("technique") and r.get("technique_reason") for r in runs.values())


def test_dl2020_technique_groups_come_from_the_reviewed_labels(manifest):
    from reeval.analyses.asl.report import techniques_from_labels

    groups = techniques_from_labels({t: manifest[t] for t in REVIEWED_TRACKS})
    assert sorted(groups["trec2020-deep-passages"]["groups"]["bm25"]) == \
        ["bm25_bert_token", "p_bm25", "p_bm25rm3", "terrier-BM25"]
    assert sorted(groups["trec2020-deep-docs"]["groups"]["bm25"]) == \
        ["bl_bcai_multfld", "d_bm25", "d_bm25rm3", "nlm-bm25-prf-1", "nlm-bm25-prf-2", "rindri-bm25"]
    assert groups["trec2020-deep-passages"]["baseline"] == "bm25"
    assert "CoRT-bm25" in groups["trec2020-deep-passages"]["groups"]["neural"]
