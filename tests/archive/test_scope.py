"""The study scope (reeval.archive.scope): the ASL paper's stated criteria applied to the
manifest, its counts beside the paper's on every run and dry run, and docs/trec-archive.md."""

import subprocess

import pandas as pd
import pytest
import yaml

from conftest import ROOT
from reeval.archive import scope as sc
from reeval.errors import InputError
from reeval.report.markdown import table
from reeval.workflow.config_check import with_defaults
from reeval.workflow.tracks import load_manifest, scope_counts, study_tracks
from snakemake_command import SNAKEMAKE

MANIFEST = ROOT / "config" / "trec-manifest.yaml"


@pytest.fixture(scope="module")
def manifest():
    return load_manifest(MANIFEST)


def entry(year=2004, n_runs=5, host="https://trec.nist.gov/results/trec13/robust", qrels=True):
    return {"year": year, "urls": {"qrels": [{"url": "https://trec.nist.gov/data/q.txt"}] if qrels else [],
                                   "runs": [{"run": f"r{i}", "url": f"{host}/input.r{i}.gz"} for i in range(n_runs)]}}


def test_each_criterion_of_the_asl_paper_leaves_a_track_out_and_says_which():
    assert sc.asl_paper_reason(entry()) is None
    assert sc.asl_paper_reason(entry(year=1993)) is None and sc.asl_paper_reason(entry(year=2020)) is None
    assert sc.asl_paper_reason(entry(year=2021)) == ("years", "TREC 2021")
    assert sc.asl_paper_reason(entry(year=1992)) == ("years", "TREC 1992")
    assert sc.asl_paper_reason(entry(qrels=False)) == ("qrels", "no qrels URL")
    assert sc.asl_paper_reason(entry(host="https://ir.nist.gov/trec-covid/archive/round1")) == \
        ("past results", "runs on ir.nist.gov")
    assert sc.asl_paper_reason(entry(n_runs=4)) == ("run files", "4 run files")
    assert sc.asl_paper_reason({"year": 2004, "qrels": "q.txt", "runs": "runs/"}) == \
        ("past results", "files not from a URL")
    # the first criterion that fails is named
    assert sc.asl_paper_reason(entry(year=2021, n_runs=2))[0] == "years"


def test_asl_paper_scope_on_the_manifest_keeps_138_tracks_and_names_why_11_are_out(manifest):
    t = sc.scope_table(manifest, "asl-paper")
    kept, out = t[t.in_scope], t[~t.in_scope]
    assert (len(t), len(kept), int(kept.runs.sum())) == (149, 138, 7871)
    assert set(out.track[out.criterion == "years"]) == {k for k, e in manifest.items() if e["year"] == 2021}
    assert set(out.track[out.criterion == "past results"]) == {f"trec-covid-round{i}" for i in range(1, 6)}
    assert len(out) == 11 and (out.reason != "").all() and (kept.reason == "").all()
    assert kept.year.between(1993, 2020).all() and (kept.runs >= 5).all()
    assert not any(e["edition"] == "trec12" and e["track"] == "web" for e in manifest.values())  # 2003 Web
    # DL 2020, the paper's table 1 tracks, are in, and Web 2009 (not an analysis candidate of the catalog)
    assert {"trec2020-deep-docs", "trec2020-deep-passages", "trec2009-web-adhoc"} <= set(kept.track)


def test_asl_paper_adhoc_scope_adds_the_ad_hoc_restriction_and_says_so():
    assert sc.asl_paper_reason({**entry(), "kind": "ranked-other"}) is None
    assert sc.asl_paper_reason({**entry(), "kind": "ranked-other"}, adhoc=True) == \
        ("ad hoc", "the catalog's kind is ranked-other")
    assert sc.asl_paper_reason({**entry(), "kind": "adhoc"}, adhoc=True) is None
    assert sc.asl_paper_reason(entry(), adhoc=True) == ("ad hoc", "the catalog's kind is not given")
    assert sc.asl_paper_reason({**entry(n_runs=3), "kind": "ranked-other"}, adhoc=True)[0] == "run files"


def test_asl_paper_adhoc_scope_on_the_manifest_keeps_71_tracks_not_the_papers_76(manifest):
    t = sc.scope_table(manifest, "asl-paper-adhoc")
    kept, out = t[t.in_scope], t[~t.in_scope]
    assert (len(kept), int(kept.runs.sum())) == (71, 5045)
    assert (out.criterion == "ad hoc").sum() == 67 and "trec2009-web-adhoc" in set(out.track)
    assert all(manifest[k]["kind"] == "adhoc" for k in kept.track)
    assert "left out: 67 tracks, 2,826 run files: not an ad hoc task" in sc.counts_text(t, "asl-paper-adhoc")


def test_scope_all_keeps_every_manifest_track_and_an_unknown_scope_is_refused(manifest):
    assert sc.scope_table(manifest, "all").in_scope.all()
    with pytest.raises(ValueError, match="study.scope must be one of"):
        sc.scope_table(manifest, "asl")


def test_year_table_lists_every_year_and_the_tracks_left_out_with_their_reason(manifest):
    years = sc.year_table(sc.scope_table(manifest, "asl-paper")).set_index("year")
    assert list(years.index) == list(range(1993, 2022))
    assert years.loc[2009, "manifest tracks"] == years.loc[2009, "tracks in scope"] == 8
    assert (years.loc[2020, "manifest tracks"], years.loc[2020, "tracks in scope"]) == (12, 7)
    assert "trec-covid-round3: runs not in TREC's Past Results: runs on ir.nist.gov" in years.loc[2020, "left out (why)"]
    assert years["runs in scope"].sum() == 7871 and years["manifest runs"].sum() == 8768
    assert sc.year_table(sc.scope_table({"t": entry()}, "asl-paper")).set_index("year").loc[2009, "left out (why)"] \
        == "no track in the manifest"


def test_the_per_year_table_of_the_docs_is_the_manifests(manifest):
    want = table(sc.year_table(sc.scope_table(manifest, "asl-paper")))
    assert want in (ROOT / "docs" / "trec-archive.md").read_text()


def test_counts_are_printed_beside_the_papers_with_queries_once_known(manifest):
    t = sc.scope_table(manifest, "asl-paper")
    text = sc.counts_text(t, "asl-paper")
    assert text.startswith("study scope asl-paper: 138 of 149 manifest tracks, 7,871 run files, queries known once")
    assert "the ASL paper: 76 tracks, 4,302 run identifiers, 5,043 queries" in text
    assert "left out: 6 tracks, 341 run files: outside the paper's 28 years (1993-2020)" in text
    assert "left out: 5 tracks, 556 run files: runs not in TREC's Past Results" in text
    assert ("    2020: 7 of 12 tracks, 346 of 902 run files; trec-covid-round1, trec-covid-round2, trec-covid-round3, "
            "trec-covid-round4, trec-covid-round5: runs not in TREC's Past Results: runs on ir.nist.gov") in text
    assert "    2009:" not in text and "    2021: 0 of 6 tracks" in text
    assert "  per year, tracks in scope (ad hoc tasks among them; docs/trec-archive.md says which and why): " \
        "1993 2 (1), " in text and ", 2009 8 (0), " in text
    assert len(text.splitlines()) == 7                    # the years that agree are not printed
    inclusion = pd.DataFrame({"track": ["trec2004-robust", "trec2005-robust", "trec-covid-round1", "trec1993-adhoc"],
                              "included": [True, True, True, False], "qrels_topics": [249, 50, 30, 50]})
    assert "299 queries on the 2 tracks included so far" in sc.counts_text(t, "asl-paper", inclusion)


def study_config(**study):
    return with_defaults({"manifest": str(MANIFEST), "study": study})


def test_study_tracks_apply_the_scope_and_refuse_a_listed_track_outside_it(manifest):
    assert len(study_tracks(study_config(scope="asl-paper"))) == 138
    assert len(study_tracks(study_config(scope="asl-paper-adhoc"))) == 71
    assert set(study_tracks(study_config())) == set(manifest)
    assert sorted(study_tracks(study_config(scope="asl-paper", tracks=["trec2004-robust"]))) == ["trec2004-robust"]
    with pytest.raises(InputError, match=r"outside study.scope asl-paper: trec-covid-round1 \(runs not in TREC's Past"):
        study_tracks(study_config(scope="asl-paper", tracks=["trec2004-robust", "trec-covid-round1"]))


def test_manifest_options_replace_a_manifest_entrys_reading_options(manifest):
    cfg = study_config(scope="asl-paper")
    cfg["manifest_options"] = {"trec2020-deep-passages": {"relevance_level": 1}}
    tracks = study_tracks(cfg)
    assert manifest["trec2020-deep-passages"]["relevance_level"] == 2
    assert tracks["trec2020-deep-passages"]["relevance_level"] == 1
    assert tracks["trec2020-deep-passages"]["urls"] == manifest["trec2020-deep-passages"]["urls"]
    cfg["manifest_options"] = {"trec2020-deep-pasages": {"relevance_level": 1}}
    with pytest.raises(InputError, match="manifest_options names tracks that .* does not have: \\['trec2020-deep-pasages'\\]"):
        study_tracks(cfg)


def test_trec_study_config_takes_the_asl_paper_scope_and_its_table_1_tracks_at_level_1(manifest):
    cfg = with_defaults(yaml.safe_load((ROOT / "config" / "trec-study.yaml").read_text()))
    assert cfg["study"]["scope"] == "asl-paper"
    assert cfg["study"]["paper"] == {"documents": "trec2020-deep-docs", "passages": "trec2020-deep-passages"}
    cfg["manifest"] = str(MANIFEST)
    tracks = study_tracks(cfg)
    assert len(tracks) == 138
    assert tracks["trec2020-deep-passages"]["relevance_level"] == tracks["trec2020-deep-docs"]["relevance_level"] == 1
    assert scope_counts(cfg).startswith("study scope asl-paper: 138 of 149")


def test_a_dry_run_of_the_trec_study_prints_its_counts_beside_the_papers_and_downloads_nothing(tmp_path):
    results = tmp_path / "results"
    proc = subprocess.run([*SNAKEMAKE, "-n", "--configfile", "config/trec-study.yaml",
                           "--config", f"results={results}"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout + proc.stderr
    assert "study scope asl-paper: 138 of 149 manifest tracks, 7,871 run files" in out
    assert "the ASL paper: 76 tracks, 4,302 run identifiers, 5,043 queries" in out
    assert "2021: 0 of 6 tracks, 0 of 341 run files" in out  # the years that differ, and why
    assert "fetch                      138" in out            # the jobs it would run: one fetch per track
    assert not results.exists() or not any(results.rglob("*"))  # nothing fetched, nothing written


def test_trec_study_maps_the_rareness_and_lexiprecision_papers_onto_archive_tracks_in_scope(manifest):
    from reeval.analyses.papers.published import published

    cfg = with_defaults(yaml.safe_load((ROOT / "config" / "trec-study.yaml").read_text()))
    cfg["manifest"] = str(MANIFEST)
    tracks = study_tracks(cfg)
    rare, lexi = cfg["rareness"]["paper"], cfg["lexiprecision"]["paper"]
    assert rare == {"trec1996-adhoc": "TREC-5", "trec1999-adhoc": "TREC-8", "trec2014-web": "WT14",
                    "trec2020-deep-docs": "DLT20"}
    assert set(rare) <= set(tracks) and set(rare.values()) == set(published("rareness"))
    assert set(lexi) <= set(tracks) and set(lexi.values()) <= set(published("lexiprecision")["benchmarks"])
    # each mapped track is the benchmark's year and task
    for track, label in lexi.items():
        name, year = label.rstrip(")").split(" (")
        assert manifest[track]["year"] == int(year)
        assert {"robust": "robust", "core": "core", "web": "web", "deep-docs": "deep", "deep-pass": "deep"}[name] \
            == manifest[track]["track"]
        assert ("passages" in track) == (name == "deep-pass")
    # every web/robust/core/deep benchmark of 1993-2020 with a manifest track is mapped; 2009 has none
    unmapped = set(published("lexiprecision")["benchmarks"]) - set(lexi.values())
    assert unmapped == {"deep-docs (2021)", "deep-pass (2021)", "ml-1M (2018)",
                        "libraryThing (2018)", "beerAdvocate (2018)"}
    assert lexi["trec2009-web-adhoc"] == "web (2009)"
