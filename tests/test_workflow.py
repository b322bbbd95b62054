"""End to end: the default synthetic study through Snakemake, lint, and incremental reruns."""

import subprocess
import sys

import pandas as pd
import pytest
import yaml

from conftest import ROOT, write_lines

SNAKEMAKE = [sys.executable, "-m", "snakemake"]


def snakemake(*args, check=True):
    proc = subprocess.run(SNAKEMAKE + list(args), cwd=ROOT, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(proc.stdout[-3000:] + proc.stderr[-3000:])
    return proc


@pytest.fixture(scope="module")
def default_run(tmp_path_factory):
    results = tmp_path_factory.mktemp("results")
    snakemake("--cores", "2", "--config", f"results={results}")
    return results


def test_default_study_produces_every_output(default_run):
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    tracks = sorted(cfg["tracks"])
    for track in tracks:
        d = default_run / "tracks" / track
        for name in ("runs.parquet", "qrels.parquet", "judged.parquet", "depth.parquet",
                     "ingest_report.csv", "measures_by_topic.parquet", "measures_by_run.parquet",
                     "measures_by_run.csv", "asl_by_document.parquet"):
            assert (d / name).is_file(), (track, name)
        report = pd.read_csv(d / "ingest_report.csv")
        outcomes = ["kept", "blank", "comment", "malformed", "nan_score", "unjudged_topic", "duplicate"]
        assert (report[outcomes].sum(axis=1) == report.lines_read).all()
        by_run = pd.read_parquet(d / "measures_by_run.parquet")
        assert sorted(by_run.run) == sorted(report.loc[report.kind == "run", "run"])
        assert {"map", "P_20", "ASL", "ASL@g1-10", "ndcg_cut_10"} <= set(by_run.columns)
        assert by_run["map"].between(0, 1).all() and (by_run["ASL"] >= 1).all()
        assert (default_run / "logs" / "ingest" / f"{track}.log").is_file()
    summary = pd.read_csv(default_run / "summary" / "tracks.csv")
    assert sorted(summary.track) == tracks
    # the synthetic campaign exercises the oddities: every drop reason a real track has
    assert summary.dropped_duplicate.sum() > 0 and summary.dropped_unjudged_topic.sum() > 0
    runs = pd.read_parquet(default_run / "summary" / "runs.parquet")
    assert len(runs) == summary.runs.sum()
    inclusion = pd.read_csv(default_run / "summary" / "inclusion.csv")
    assert list(inclusion.track) == tracks and inclusion.included.all()
    text = (default_run / "summary" / "summary.md").read_text()
    assert f"hold 3 included tracks: {', '.join(tracks)}." in text and "(3): all are included." in text
    assert (inclusion.source == "synthetic").all() and (inclusion.runs_ingested >= 5).all()


def test_rareness_outputs(default_run):
    from reeval.rareness_report import SUMMARY_FIGURES, SUMMARY_TABLES, TRACK_FIGURES, TRACK_TABLES

    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    for track in sorted(cfg["tracks"]):
        d = default_run / "tracks" / track / "rareness"
        for name in TRACK_TABLES + TRACK_FIGURES:
            assert (d / name).is_file() and (d / name).stat().st_size > 0, (track, name)
        by_run = pd.read_parquet(d / "by_run.parquet")
        measures = pd.read_parquet(default_run / "tracks" / track / "measures_by_run.parquet")
        p100 = by_run[(by_run.measure == "P_rareness@100") & (by_run.alpha == "0")].set_index("run").value
        assert (p100 - measures.set_index("run").P_100).abs().max() < 1e-12  # alpha = 0 is P@100
        tau = pd.read_csv(d / "tau.csv")
        assert (tau.loc[tau.alpha == 0, "tau"] > 1 - 1e-12).all()
        assert pd.read_csv(d / "n_systems.csv").mean_tau.between(-1, 1).all()
        assert (default_run / "logs" / "rareness" / f"{track}.log").is_file()
    for name in SUMMARY_TABLES + SUMMARY_FIGURES:
        assert (default_run / "rareness" / name).is_file(), name
    assert sorted(pd.read_csv(default_run / "rareness" / "stability.csv").track.unique()) == sorted(cfg["tracks"])


def test_default_study_outputs(default_run):
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    tracks = sorted(cfg["tracks"])
    study = default_run / "study"
    for stem in ("fig1_p20", "fig2_aslg1-10", "fig3_map", "fig4_asl"):
        assert (study / f"{stem}.png").read_bytes()[:4] == b"\x89PNG"
        assert (study / f"{stem}.pdf").read_bytes()[:4] == b"%PDF"
    for track in tracks:
        d = default_run / "tracks" / track / "study"
        for stem in ("fig5_document_asl", "fig6_asl_difference"):
            assert (d / f"{stem}.png").stat().st_size > 0 and (d / f"{stem}.pdf").stat().st_size > 0
        assert (default_run / "logs" / "study_track" / f"{track}.log").is_file()
    table2 = pd.read_csv(study / "table2.csv")
    assert len(table2) == 6 and (table2.n_tracks == len(tracks)).all()
    head = pd.read_csv(study / "headroom.csv")
    assert sorted(head.track) == tracks
    tech = pd.read_csv(study / "techniques.csv")
    assert sorted(tech.track.unique()) == sorted(cfg["study"]["techniques"])
    text = (study / "summary.md").read_text()
    for track in tracks:
        assert f"### {track}" in text
    assert "Method notes" in text and "26-60%" in text and "57% +- 16" in text


def test_report_builds(default_run, tmp_path):
    out = tmp_path / "report.html"
    snakemake("--config", f"results={default_run}", "--report", str(out))
    html = out.read_text(errors="replace")
    assert out.stat().st_size > 10000 and "fig5_document_asl.png" in html


def test_lexiprecision_outputs(default_run):
    from reeval.lexiprecision_report import SUMMARY_FIGURES, SUMMARY_TABLES, TRACK_FIGURES, TRACK_TABLES

    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    for track in sorted(cfg["tracks"]):
        d = default_run / "tracks" / track / "lexiprecision"
        for name in TRACK_TABLES:
            assert (d / f"{name}.parquet").is_file() and (d / f"{name}.csv").is_file(), (track, name)
        for name in TRACK_FIGURES:
            assert (d / f"{name}.png").stat().st_size > 0 and (d / f"{name}.pdf").is_file(), (track, name)
        pairs = pd.read_parquet(d / "pairs.parquet")
        runs = pd.read_parquet(default_run / "tracks" / track / "measures_by_run.parquet")
        S = len(runs)
        assert len(pairs) == S * (S - 1) // 2 * pairs.qid.nunique()
        # rrLP is the reciprocal-rank difference whenever that is non-zero, and RR is trec_eval's
        by_topic = pd.read_parquet(default_run / "tracks" / track / "measures_by_topic.parquet")
        rr = by_topic.set_index(["run", "qid"]).recip_rank
        d1 = rr.loc[list(zip(pairs.run_i, pairs.qid))].to_numpy() - rr.loc[list(zip(pairs.run_j, pairs.qid))].to_numpy()
        assert abs(d1 - pairs.dRR_1.to_numpy()).max() < 1e-12
        nz = pairs.dRR_1 != 0
        assert (pairs.rrLP[nz] == pairs.dRR_1[nz]).all()
    out = default_run / "lexiprecision"
    for name in SUMMARY_TABLES:
        assert set(pd.read_csv(out / f"{name}.csv").track) == set(cfg["tracks"]), name
    for name in SUMMARY_FIGURES:
        assert (out / f"{name}.png").is_file() and (out / f"{name}.pdf").is_file()
    assert (out / "paper_comparison.md").read_text().startswith("# Lexicographic precision")


def test_every_per_track_job_writes_its_benchmark(default_run):
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    for rule in ("synthetic_track", "ingest", "measures", "rareness", "study_track", "lexiprecision"):
        for track in cfg["tracks"]:
            b = pd.read_csv(default_run / "benchmarks" / rule / f"{track}.tsv", sep="\t")
            assert len(b) == 1 and b.s.iloc[0] > 0 and b.max_rss.iloc[0] > 0, (rule, track)


def test_rerun_is_a_no_op_and_a_new_track_schedules_only_its_jobs(default_run, tmp_path):
    dry = snakemake("-n", "--config", f"results={default_run}")
    assert "Nothing to be done" in dry.stdout + dry.stderr
    q = write_lines(tmp_path / "qrels.txt", ["1 0 A 1", "1 0 B 0", "2 0 C 1"])
    runs = tmp_path / "runs"
    runs.mkdir()
    write_lines(runs / "r1", ["1 Q0 A 1 2 r1", "1 Q0 B 2 1 r1", "2 Q0 C 1 1 r1"])
    write_lines(runs / "r2", ["1 Q0 B 1 2 r2", "2 Q0 D 1 1 r2"])
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    cfg["results"] = str(default_run)
    cfg["tracks"]["mine"] = {"qrels": str(q), "runs": str(runs)}
    cfg_path = tmp_path / "study.yaml"
    cfg_path.write_text(yaml.safe_dump(cfg))
    dry = snakemake("-n", "--configfile", str(cfg_path))
    out = dry.stdout + dry.stderr
    # the new track's own jobs, and every cross-track job once
    per_track = {"ingest", "measures", "rareness", "study_track", "lexiprecision"}
    cross_track = {"inclusion", "summary", "rareness_summary", "study", "lexiprecision_summary"}
    rules = per_track | cross_track | {"all", "synthetic_track", "fetch", "total"}
    jobs = {line.split()[0]: int(line.split()[1]) for line in out.splitlines()
            if len(line.split()) == 2 and line.split()[0] in rules and line.split()[1].isdigit()}
    expected = {rule: 1 for rule in per_track | cross_track | {"all"}}
    expected["total"] = len(expected)
    assert jobs == expected, out


def test_bad_config_stops_with_a_clear_message(tmp_path):
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    cfg["tracks"]["syn-graded"]["precison"] = "float32"
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(cfg))
    proc = snakemake("-n", "--configfile", str(path), check=False)
    assert proc.returncode != 0 and "precison" in proc.stdout + proc.stderr


def test_lint_is_clean():
    proc = snakemake("--lint", check=False)
    assert proc.returncode == 0 and "Congratulations" in proc.stdout + proc.stderr


def test_every_table_of_the_campaign_is_typed_by_the_registry(default_run):
    from conftest import assert_outputs_conform

    runs = (default_run / "summary" / "runs.csv").read_text().splitlines()
    values = dict(zip(runs[0].split(","), runs[1].split(",")))
    for count in ("num_q", "num_ret", "num_rel", "num_rel_ret"):
        assert values[count].isdigit(), (count, values[count])  # 35000, not 35000.0
    assert assert_outputs_conform(default_run) > 100


def test_judged_joins_measures_by_topic_with_pyarrow(default_run):
    import pyarrow.parquet as pq

    d = default_run / "tracks" / "syn-graded"
    judged = pq.read_table(d / "judged.parquet")
    by_topic = pq.read_table(d / "measures_by_topic.parquet").select(["run", "qid", "map", "num_ret"])
    joined = judged.join(by_topic, keys=["run", "qid"], join_type="inner")
    assert joined.num_rows == judged.num_rows > 0  # every judged row has its (run, topic) measures
    depth = pq.read_table(d / "depth.parquet")
    assert depth.join(by_topic, keys=["run", "qid"]).num_rows == depth.num_rows


def test_cross_track_rules_with_one_included_track(default_run, tmp_path):
    """The cross-track functions the rules call, on one included track."""
    from conftest import assert_outputs_conform
    from reeval.lexiprecision_report import summarize_lexiprecision
    from reeval.pipeline import summarize
    from reeval.rareness_report import options as rareness_options, summarize_rareness
    from reeval.study_report import study, study_options

    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    track, d = "syn-graded", default_run / "tracks" / "syn-graded"
    inclusion = pd.read_csv(default_run / "summary" / "inclusion.csv")
    summarize({track: d}, tmp_path / "summary", {track: 1}, inclusion=inclusion)
    info = study({track: d}, tmp_path / "study", study_options(cfg["study"]))
    summarize_lexiprecision({track: d / "lexiprecision"}, tmp_path / "lexiprecision", {track: 1})
    summarize_rareness({track: d / "rareness"}, tmp_path / "rareness", rareness_options(cfg["rareness"]))
    assert_outputs_conform(tmp_path)
    assert list(pd.read_csv(tmp_path / "summary" / "tracks.csv").track) == [track]
    assert "1 included track: syn-graded" in (tmp_path / "summary" / "summary.md").read_text()
    assert info["tracks"] == 1 and (pd.read_csv(tmp_path / "study" / "table2.csv").n_tracks == 1).all()
    assert "(1 value, no std)" in (tmp_path / "study" / "summary.md").read_text()
    for name in ("profile", "table3_ties"):
        assert list(pd.read_csv(tmp_path / "lexiprecision" / f"{name}.csv").track) == [track]
    assert set(pd.read_csv(tmp_path / "rareness" / "tau.csv").track) == {track}
    for stem in ("study/fig1_p20", "lexiprecision/fig3_ties_by_p1", "rareness/tau_by_track"):
        assert (tmp_path / f"{stem}.pdf").read_bytes()[:5] == b"%PDF-"


def test_two_runs_of_the_campaign_give_byte_identical_outputs(default_run):
    """Every output (tables, figures, markdown, the generated tracks) of a second run of the
    whole synthetic campaign equals the first byte for byte (logs and timings aside).
    Runs last in this module: it reruns every job in ``default_run``."""
    skip = ("logs", "benchmarks")
    first = {p.relative_to(default_run): p.read_bytes() for p in default_run.rglob("*")
             if p.is_file() and p.relative_to(default_run).parts[0] not in skip}
    snakemake("--cores", "2", "--forceall", "--config", f"results={default_run}")
    second = {p.relative_to(default_run): p.read_bytes() for p in default_run.rglob("*")
              if p.is_file() and p.relative_to(default_run).parts[0] not in skip}
    assert sorted(second) == sorted(first)
    differ = sorted(str(p) for p in first if first[p] != second[p])
    assert not differ, differ
    assert any(p.suffix == ".pdf" for p in first) and any(p.suffix == ".md" for p in first)
