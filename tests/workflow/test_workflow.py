"""End to end: the default synthetic study through Snakemake, lint, and incremental reruns."""

import re
import shutil
import subprocess

import pandas as pd
import pytest
import yaml

import browser as browsers
from conftest import ROOT, write_lines
from snakemake_command import SNAKEMAKE

browser = browsers.browser  # the headless Chromium fixture (tests/browser.py)


def snakemake(*args, check=True):
    proc = subprocess.run(SNAKEMAKE + list(args), cwd=ROOT, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(proc.stdout[-3000:] + proc.stderr[-3000:])
    return proc


@pytest.fixture(scope="module")
def default_run(tmp_path_factory):
    results = tmp_path_factory.mktemp("results")
    proc = snakemake("--cores", "2", "--config", f"results={results}")
    console_of(results).write_text(proc.stdout + proc.stderr)  # Snakemake's job lines
    return results


def console_of(results):
    """Where default_run keeps Snakemake's console output (beside its results folder)."""
    return results.with_name(results.name + ".console.txt")


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
        # generated and ingested by one job (rule synthetic_track), which logs both
        assert f"ingested {track}: " in (default_run / "logs" / "synthetic_track" / f"{track}.log").read_text()
        assert not (default_run / "logs" / "ingest" / f"{track}.log").exists()
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


def test_summary_tells_each_tracks_story_and_cites_no_path_outside_the_results(default_run):
    text = (default_run / "summary" / "summary.md").read_text()
    for track in sorted(yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["tracks"]):
        by_run = pd.read_parquet(default_run / "tracks" / track / "measures_by_run.parquet")
        top = by_run.loc[by_run["map"].idxmax()]
        section = text.split(f"### {track}: {len(by_run)} runs, ")[1].split("###")[0]
        assert f"MAP {top['map']:.4f} (`{top['run']}`)" in section
        # the reordering line's tau is the ASL study's own (its ladder's cumulative step)
        reordering = pd.read_parquet(default_run / "tracks" / track / "study" / "reordering.parquet")
        tau = reordering.set_index("comparison").kendall_tau["cumulative"]
        assert f"by ASL instead of MAP gives Kendall's tau {tau:.2f};" in section
    assert text.count("Headroom: the best P@20 is") == text.count("Reordering: ranking the") == 3
    cited = [p for p in default_run.rglob("*") if p.suffix in (".md", ".html", ".csv") and "../shared" in p.read_text()]
    assert not cited  # a user has no ../shared


def test_rareness_outputs(default_run):
    from reeval.analyses.rareness.report import SUMMARY_FIGURES, SUMMARY_TABLES, TRACK_FIGURES, TRACK_TABLES

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
        assert "rareness of" in (default_run / "logs" / "analyses" / f"{track}.log").read_text()
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
        assert "study of" in (default_run / "logs" / "analyses" / f"{track}.log").read_text()
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


def test_every_pdf_of_the_default_run_is_camera_ready(default_run):
    """No Type 3 font, no text under 7 pt, at most 7 in wide (tests/pdffigures.py)."""
    from pdffigures import camera_ready_problems

    pdfs = sorted(default_run.rglob("*.pdf"))
    assert len(pdfs) == 48  # 12 cross-track figures, 12 per track (figures.per_track: auto, 3 tracks)
    assert [p for pdf in pdfs for p in camera_ready_problems(pdf)] == []


def test_report_builds(default_run, tmp_path):
    out = tmp_path / "report.html"
    snakemake("--config", f"results={default_run}", "--report", str(out))
    html = out.read_text(errors="replace")
    assert out.stat().st_size > 10000 and "fig5_document_asl.png" in html


def test_the_report_opens_in_a_browser_with_every_figure_and_the_leaderboards(default_run, browser):
    """results/report.html in headless Chromium: every figure loaded (embedded or beside
    it, nothing fetched from the network, linked to its PNG), the front page's leaderboard per track (runs ranked by MAP, 4 decimals; ASL whole ranks),
    the inclusion table and the links to each study's section."""
    from selenium.webdriver.common.by import By

    browser.open((default_run / "report.html").as_uri())
    # every block opened and every image asked for now,
    # then read once each has loaded or failed
    images = browser.execute_async_script("""const done = arguments[arguments.length - 1];
        document.querySelectorAll('details').forEach(d => d.open = true);
        const images = Array.from(document.images);
        images.forEach(i => i.loading = 'eager');
        Promise.allSettled(images.map(i => i.decode())).then(() => done(images.map(i =>
            [i.alt, i.complete, i.naturalWidth, i.src, i.parentElement.getAttribute('href')])));""")
    assert all(complete and width > 0 for _, complete, width, *_ in images), [i[:3] for i in images if not i[2]]
    pngs = sorted(p.relative_to(default_run).as_posix() for p in default_run.rglob("*.png"))
    assert len(pngs) > 40 and sorted({href for *_, href in images}) == pngs   # each figure shown, linked to its PNG
    assert all(src.startswith("data:image/png;base64,") for *_, src, href in images)   # every one embedded
    assert not browser.execute_script("return document.querySelectorAll('script[src], link[href]').length")
    for track in ("syn-graded", "syn-mixed", "syn-shallow"):
        runs = pd.read_csv(default_run / "tracks" / track / "measures_by_run.csv")
        best = runs.sort_values(["map", "run"], ascending=[False, True]).iloc[0]
        block = browser.find_element(By.ID, f"track-{track}")
        assert f"{track}: {len(runs)} runs, included" in block.find_element(By.TAG_NAME, "summary").text
        rows = block.find_elements(By.CSS_SELECTOR, "tbody tr")
        assert len(rows) == len(runs)
        first = [td.text for td in rows[0].find_elements(By.TAG_NAME, "td")]
        head = [th.text for th in block.find_elements(By.CSS_SELECTOR, "thead th")]  # a track with a run
        # that lost lines has a "lines dropped" column after the run's name
        assert first[:2] == ["1", best.run] and first[head.index("MAP")] == f"{best['map']:.4f}", (head, first)
        assert first[-1] == f"{best['ASL@g1-10']:.0f}", first   # whole ranks, as the ASL paper prints them
    front = browser.find_element(By.ID, "front").text
    assert "3 of 3 tracks included" in front
    for section in ("asl-study", "lexiprecision", "rareness", "summary", "per-track"):
        assert browser.find_element(By.CSS_SELECTOR, f'#front a[href="#{section}"]')
        assert browser.find_element(By.ID, section).text.strip()
    study = browser.find_element(By.ID, "asl-study").text
    assert "Atomized search length study" in study and "Tables of ASL study" in study


def test_the_report_copied_alone_to_another_folder_opens_complete(default_run, browser, tmp_path):
    """report.html is one self-contained file: copied alone elsewhere, every figure shows (all
    embedded), nothing is fetched, and its title names the config file, not a machine's folder."""
    copy = tmp_path / "elsewhere" / "report.html"
    copy.parent.mkdir()
    copy.write_bytes((default_run / "report.html").read_bytes())
    browser.open(copy.as_uri())
    images = browser.execute_async_script("""const done = arguments[arguments.length - 1];
        document.querySelectorAll('details').forEach(d => d.open = true);
        const images = Array.from(document.images);
        Promise.allSettled(images.map(i => i.decode())).then(() => done(images.map(i =>
            [i.alt, i.complete, i.naturalWidth])));""")
    assert len(images) > 40 and all(complete and width > 0 for _, complete, width in images), \
        [alt for alt, complete, width in images if not (complete and width)]
    assert browser.title == "reeval report: config.yaml"
    assert not browser.execute_script("return document.querySelectorAll('script[src], link[href], [loading]').length")


def test_the_report_fits_a_1280_pixel_window_without_scrolling_sideways(default_run, browser):
    """Issue 39 item 7: the report scrolled sideways at 1400 px (the summaries' page-wide
    figures at their own 1,400 pixels). At 1280 px, every folded block opened, the page is
    no wider than the window: wide tables scroll in their own box, images fit the page."""
    browser.open((default_run / "report.html").as_uri())
    assert browser.execute_script("return window.innerWidth") == 1280   # tests/browser.py's window
    browser.execute_script("document.querySelectorAll('details').forEach(d => d.open = true)")
    wide, window = browser.execute_script(
        "return [document.scrollingElement.scrollWidth, document.documentElement.clientWidth]")
    assert wide <= window, browser.execute_script(
        "const w = document.documentElement.clientWidth; return Array.from(document.querySelectorAll('body *'))"
        ".filter(e => e.getBoundingClientRect().right > w).slice(0, 5).map(e => e.outerHTML.slice(0, 120))")


def test_a_section_reached_from_the_sticky_nav_starts_below_it(default_run, browser):
    """The navigation bar stays at the top of the window; a link to a section scrolled its
    heading under the bar, hidden. Every section's top is now below the bar's bottom."""
    browser.open((default_run / "report.html").as_uri())
    hidden = browser.execute_script("""
        const nav = document.querySelector('nav');
        const out = [];
        for (const a of nav.querySelectorAll('a[href^="#"]')) {
            const target = document.getElementById(a.getAttribute('href').slice(1));
            target.scrollIntoView();
            const bar = nav.getBoundingClientRect().bottom, top = target.getBoundingClientRect().top;
            if (top < bar - 0.5 && window.scrollY > 0) out.push([a.textContent, top, bar]);
        }
        return out;""")
    assert not hidden, hidden


def test_the_report_of_the_default_study_weighs_under_3_mb_every_figure_embedded(default_run):
    """Per-track figures are drawn up to 12 tracks (figures.per_track: auto), so 12 tracks is
    the heaviest report: under 10 MB with every figure embedded (tests/workflow/
    test_adding_a_track.py). The default study's 3 tracks and its cross-track figures, which do
    not grow with the tracks: under 3 MB (2.55 MB measured; docs/benchmarks.md)."""
    assert (default_run / "report.html").stat().st_size < 3e6


def test_lexiprecision_outputs(default_run):
    from reeval.analyses.lexiprecision.report import SUMMARY_FIGURES, SUMMARY_TABLES, TRACK_FIGURES, TRACK_TABLES

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
    # one paper comparison: no lexiprecision file of its own, the studies' files the same rows
    assert not (out / "paper_comparison.csv").exists() and not (out / "paper_comparison.md").exists()
    unified = pd.read_csv(default_run / "papers" / "paper_comparison.csv", dtype=str, keep_default_na=False)
    cell_keys = ["study", "item", "row", "column", "track"]
    assert not unified.duplicated(cell_keys).any(), unified[unified.duplicated(cell_keys, keep=False)][cell_keys]
    rareness = pd.read_csv(default_run / "rareness" / "paper_comparison.csv", dtype=str, keep_default_na=False)
    keys = ["item", "row", "column", "track", "status", "reproduced"]
    assert rareness[keys].equals(unified[unified.study == "rareness"][keys].reset_index(drop=True))
    study = pd.read_csv(default_run / "study" / "paper_comparison.csv", dtype=str, keep_default_na=False)
    keys = ["item", "row", "column", "status", "reproduced"]
    assert study[keys].equals(unified[unified.study == "asl"][keys].reset_index(drop=True))


def test_every_per_track_job_writes_its_benchmark(default_run):
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    for rule in ("synthetic_track", "measures", "analyses", "reusability", "track_figures"):
        for track in cfg["tracks"]:
            b = pd.read_csv(default_run / "benchmarks" / rule / f"{track}.tsv", sep="\t", na_values=["-", "NA"])
            # Snakemake samples memory while the job runs: a job of a second on a busy machine
            # can end before the first sample, and the file then says NA (never 0 or less)
            rss = b.max_rss.iloc[0]
            assert len(b) == 1 and b.s.iloc[0] > 0 and (pd.isna(rss) or rss > 0), (rule, track, b.to_dict())


def test_generation_and_ingest_come_first(default_run):
    """The rules' priorities (synthetic_track 2, ingest 1, the others 0, each plus its track's
    share below 1, the largest track's the highest): a freed core goes to a ready generator
    (which ingests its track too: no ingest job for a synthetic track), then to a ready ingest
    of a local or fetched track (a large track's takes both cores), then to an analysis.
    Checked on the dry run's plan, and on what holds for every interleaving of the run itself:
    both cores start with generators, and the third generator takes the first freed core, so
    the first two jobs to finish are generators."""
    from test_study_workflow import job_order

    dry = snakemake("-n", "--forceall", "--config", f"results={default_run}").stdout
    jobs = [(m.group(1), m.group(2), float(m.group(3))) for m in re.finditer(
        r"rule (\w+):(?:\n    .*)*?\n    wildcards: track=([\w.+-]+)(?:\n    .*)*?\n    priority: ([\d.]+)", dry)]
    tiers = {rule: {int(p) for r, _, p in jobs if r == rule} for rule, _, _ in jobs}
    assert tiers.pop("synthetic_track") == {2} and "ingest" not in tiers, tiers
    assert tiers and all(tier == {0} for tier in tiers.values()), tiers   # measures, analyses ...
    from reeval.synth.campaign import run_lines
    from reeval.synth.tracks import spec_from_config

    work = {t: run_lines(spec_from_config(entry["synthetic"]))
            for t, entry in yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["tracks"].items()}
    for rule in {r for r, _, _ in jobs}:   # within a rule, the largest track first
        by_priority = [t for _, t, _ in sorted((j for j in jobs if j[0] == rule), key=lambda j: -j[2])]
        assert by_priority == sorted(work, key=lambda t: -work[t]), (rule, by_priority, work)
    finished = job_order(console_of(default_run).read_text())
    assert "ingest" not in finished and finished.count("synthetic_track") == 3, finished
    assert finished[:2] == ["synthetic_track"] * 2, finished


def test_the_run_prints_one_line_per_job_and_where_the_results_are(default_run):
    """What `make run` prints (the same command, its own results folder): at most 60 lines,
    none over 400 characters, one per job, then the closing lines naming summary.md and
    report.html; nothing of Snakemake's per-job file lists."""
    from test_study_workflow import job_order

    lines = console_of(default_run).read_text().splitlines()
    assert len(lines) <= 60 and max(map(len, lines)) <= 400, lines
    jobs = job_order("\n".join(lines))
    # 3 tracks x 5 per-track rules (synthetic_track generates and ingests; track_figures: 3 tracks
    # draw their figures), 8 cross-track rules and all
    assert len(jobs) == 24 and jobs[-1] == "all" and "report" in jobs, jobs
    text = "\n".join(lines)
    assert "Tracks: 3 of 3 included (syn-graded, syn-mixed, syn-shallow); runs: 24 of 24 included." in text
    # the synthetic campaign repeats a document in two runs: ingest keeps the first, the run says so
    assert ("Scored without some of their lines, 2 runs (counts per run: "
            f"{default_run / 'summary' / 'run_inclusion.csv'}):\n  syn-graded/run02: 1 duplicate\n"
            "  syn-mixed/run04: 1 duplicate\n") in text
    assert f"{default_run / 'summary' / 'summary.md'}" in text and f"{default_run / 'study' / 'summary.md'}" in text
    assert f"Report: {default_run / 'report.html'}" in text
    assert "input:" not in text and "output:" not in text and "reason:" not in text


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
    per_track = {"ingest", "measures", "analyses", "reusability", "track_figures"}  # 4 tracks: figures drawn
    cross_track = {"inclusion", "summary", "rareness_summary", "study", "lexiprecision_summary", "papers",
                   "reusability_summary", "report"}
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


@pytest.mark.parametrize("case", ["malformed line", "truncated gzip run", "truncated gzip qrels"])
def test_bad_input_fails_ingest_with_one_line_naming_the_file(tmp_path, case):
    import gzip
    q = write_lines(tmp_path / "qrels.txt", ["1 0 D0 1", "1 0 D1 0"])
    (tmp_path / "runs").mkdir()
    if case == "malformed line":
        bad = write_lines(tmp_path / "runs" / "r1", ["1 Q0 D0 1 2 r1", "1 Q0 D1 2"])
        expected = f"error: {bad}:2: expected 6"
    else:
        write_lines(tmp_path / "runs" / "r1", ["1 Q0 D0 1 2 r1"])
        qrels_case = case == "truncated gzip qrels"
        bad = tmp_path / "qrels.gz" if qrels_case else tmp_path / "runs" / "r2.gz"
        bad.write_bytes(gzip.compress(q.read_bytes() if qrels_case else b"1 Q0 D1 1 2 r2\n")[:-4])
        q = bad if qrels_case else q
        expected = f"error: {bad}: truncated gzip stream ("
    cfg = {"results": str(tmp_path / "results"), "measures": ["map"],
           "tracks": {"bad": {"qrels": str(q), "runs": str(tmp_path / "runs")}}}
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(cfg))
    proc = snakemake("--cores", "1", "--configfile", str(path), check=False)
    assert proc.returncode != 0
    log_path = tmp_path / "results" / "logs" / "ingest" / "bad.log"
    log = log_path.read_text()
    assert len(log.splitlines()) == 1 and expected in log and "Traceback" not in log
    assert expected in proc.stderr
    # the console names the failing rule, its log and the log's last lines, then says what to do
    assert "Error in rule ingest (track=bad), job " in proc.stderr
    assert f"log: {log_path} (its last 1 lines:)" in proc.stderr and f"    | {log.rstrip()}" in proc.stderr
    assert "The run stopped with errors" in proc.stderr


def local_track_config(tmp_path, tracks, **extra):
    """A config of local tracks {id: (qrels lines, {run file: lines})} written under tmp_path."""
    entries = {}
    for i, (track, (qrels, runs)) in enumerate(tracks.items()):
        folder = tmp_path / f"track{i}"
        (folder / "runs").mkdir(parents=True)
        for name, lines in runs.items():
            write_lines(folder / "runs" / name, lines)
        entries[track] = {"qrels": str(write_lines(folder / "qrels.txt", qrels)), "runs": str(folder / "runs")}
    cfg = {"results": str(tmp_path / "results"), "measures": ["map"], "tracks": entries, **extra}
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


TINY = (["1 0 D0 1", "1 0 D1 0"], {"r1": ["1 Q0 D0 1 2 r1"], "r2": ["1 Q0 D1 1 2 r2"]})


def test_track_ids_with_regex_characters_build_the_dag(tmp_path):
    path = local_track_config(tmp_path, {"cast+2021": TINY, "cast": TINY, "c.st": TINY})
    out = snakemake("-n", "--configfile", str(path)).stdout
    jobs = {line.split()[0]: int(line.split()[1]) for line in out.splitlines()
            if len(line.split()) == 2 and line.split()[1].isdigit()}
    assert jobs["ingest"] == jobs["measures"] == jobs["analyses"] == 3 and jobs["summary"] == 1


@pytest.mark.parametrize("track", ["a/b", "a b", "cast(2021)"])
def test_a_track_id_outside_the_safe_set_stops_the_dry_run_naming_it(tmp_path, track):
    proc = snakemake("-n", "--configfile", str(local_track_config(tmp_path, {track: TINY})), check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and f"track id {track!r} is not allowed" in out and "Traceback" not in out
    assert not (tmp_path / "results").exists()


def test_a_manifest_track_id_outside_the_safe_set_stops_the_dry_run_naming_it(tmp_path):
    entry = {"urls": {"qrels": [{"url": "file:///none/qrels"}], "runs": [{"url": "file:///none/r", "run": "r"}]}}
    manifest = tmp_path / "manifest.yaml"
    manifest.write_text(yaml.safe_dump({"tracks": {"good": entry, "bad id": entry}}))
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump({"results": str(tmp_path / "results"), "manifest": str(manifest),
                                    "study": {"tracks": "all"}}))
    proc = snakemake("-n", "--configfile", str(path), check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and f"{manifest}: track id 'bad id' is not allowed" in out and "Traceback" not in out


def test_an_unknown_measure_stops_the_dry_run_naming_it(tmp_path):
    proc = snakemake("-n", "--configfile", str(local_track_config(tmp_path, {"t": TINY}, measures=["map", "mapp"])),
                     check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Traceback" not in out
    assert "measures: unknown measure 'mapp'; did you mean 'map'" in out and "; accepted: map, AP, gm_map," not in out


@pytest.mark.parametrize("problem", ["unknown study track", "missing manifest", "bad study buckets"])
def test_a_bad_study_setting_stops_the_dry_run_in_one_message(tmp_path, problem):
    path = local_track_config(tmp_path, {"t": TINY})
    cfg = yaml.safe_load(path.read_text())
    manifest = tmp_path / "manifest.yaml"
    manifest.write_text(yaml.safe_dump({"tracks": {}}))
    if problem == "unknown study track":
        cfg.update(manifest=str(manifest), study={"tracks": ["nope"]})
        expected = f"study.tracks names tracks that {manifest} does not have: ['nope']"
    elif problem == "missing manifest":
        cfg.update(manifest=str(tmp_path / "absent.yaml"))
        expected = f"manifest {tmp_path / 'absent.yaml'}: cannot be read"
    else:
        cfg.update(study={"asl_buckets": [5, 1]})
        expected = "study: asl_buckets must be at least 2 strictly increasing edges >= 1"
    path.write_text(yaml.safe_dump(cfg))
    proc = snakemake("-n", "--configfile", str(path), check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Traceback" not in out and expected in out, out


def test_a_local_track_whose_qrels_are_missing_stops_the_dry_run_naming_it(tmp_path):
    path = local_track_config(tmp_path, {"t": TINY})
    cfg = yaml.safe_load(path.read_text())
    cfg["tracks"]["t"]["qrels"] += ".missing"
    path.write_text(yaml.safe_dump(cfg))
    proc = snakemake("-n", "--configfile", str(path), check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Traceback" not in out
    assert f"tracks: t: qrels '{cfg['tracks']['t']['qrels']}' must name exactly one existing file" in out


def good_run(i):
    return [f"{t} Q0 D{(d * 7 + i + t) % 30} {d + 1} {50 - d - i * 0.1:.2f} g{i}" for t in (1, 2, 3) for d in range(12)]


QRELS = [f"{t} 0 D{d} {int((d + t) % 3 == 0)}" for t in (1, 2, 3) for d in range(0, 30, 2)]
NO_LINE_KEPT = {"empty": [], "allnan": ["1 Q0 D0 1 nan x", "2 Q0 D2 1 nan x"], "unjudged": ["9 Q0 D0 1 1 x"]}


@pytest.fixture(scope="module")
def runs_without_lines(tmp_path_factory):
    """A study whose tracks hold runs that keep no line: cast+2021 (5 runs that keep lines, 3
    that keep none), few (2 and 1) and void (none and 2); min_runs 3."""
    tmp = tmp_path_factory.mktemp("no-line")
    tracks = {"cast+2021": (QRELS, {**{f"g{i}": good_run(i) for i in range(5)}, **NO_LINE_KEPT}),
              "few": (QRELS, {"g0": good_run(0), "g1": good_run(1), "empty": []}),
              "void": (QRELS, {"empty": [], "allnan": NO_LINE_KEPT["allnan"]})}
    path = local_track_config(tmp, tracks, measures=["map", "P.10", "ASL"], study={"min_runs": 3},
                              rareness={"trials": 10, "n_systems": [2, 4]},
                              lexiprecision={"label_removal": {"samples": 2}})
    snakemake("--cores", "2", "--configfile", str(path))
    return tmp / "results"


@pytest.mark.slow
def test_runs_that_keep_no_line_are_named_and_left_out_of_every_analysis(runs_without_lines):
    res = runs_without_lines
    runs = pd.read_csv(res / "summary" / "run_inclusion.csv", keep_default_na=False)
    left_out = runs[~runs.included].set_index(["track", "run"]).reason.to_dict()
    assert left_out == {("cast+2021", "allnan"): "no line kept: 2 lines read: 2 with a NaN score",
                        ("cast+2021", "empty"): "no line kept: empty file",
                        ("cast+2021", "unjudged"): "no line kept: 1 line read: 1 on a topic without judgments",
                        ("few", "empty"): "no line kept: empty file",
                        # runs of a track below study.min_runs are not in the studies either (issue 34)
                        **{("few", g): "track left out: 2 runs kept a line (1 kept no line); the study needs >= 3; "
                                       "to include it, set study.min_runs: 2" for g in ("g0", "g1")},
                        ("void", "allnan"): "no line kept: 2 lines read: 2 with a NaN score",
                        ("void", "empty"): "no line kept: empty file"}
    good = [f"g{i}" for i in range(5)]
    assert sorted(runs[runs.included & (runs.track == "cast+2021")].run) == good
    track = res / "tracks" / "cast+2021"
    assert sorted(pd.read_parquet(track / "measures_by_run.parquet").run) == good
    assert sorted(pd.read_parquet(track / "rareness" / "by_run.parquet").run.unique()) == good
    pairs = pd.read_parquet(track / "lexiprecision" / "pairs.parquet")
    assert sorted(set(pairs.run_i) | set(pairs.run_j)) == good
    assert sorted(pd.read_parquet(track / "study" / "reordering_by_run.parquet").run.unique()) == good
    assert pd.read_csv(res / "study" / "headroom.csv").set_index("track").n_runs.to_dict() == {"cast+2021": 5}
    assert sorted(pd.read_csv(res / "summary" / "runs.csv").run) == good
    for rule in ("ingest", "measures"):
        log = (res / "logs" / rule / "cast+2021.log").read_text()
        assert "cast+2021: run empty (" in log and "left out: no line kept: empty file" in log, rule
        assert "run allnan (" in log and "run unjudged (" in log, rule
    assert (res / "logs" / "inclusion" / "inclusion.log").read_text().count(" left out: ") == 6


@pytest.mark.slow
def test_tracks_csv_and_inclusion_csv_count_runs_alike(runs_without_lines):
    res = runs_without_lines
    inc = pd.read_csv(res / "summary" / "inclusion.csv").set_index("track")
    assert inc.included.to_dict() == {"cast+2021": True, "few": False, "void": False}
    assert inc.loc["few", "reason"] == "2 runs kept a line (1 kept no line); the study needs >= 3; to include it, set study.min_runs: 2"
    assert inc.loc["void", "reason"] == "0 runs kept a line (2 kept no line); the study needs >= 3"
    assert inc.runs_ingested.to_dict() == {"cast+2021": 8, "few": 3, "void": 2}
    runs = pd.read_csv(res / "summary" / "run_inclusion.csv", keep_default_na=False)
    # a run counted included is in the studies: none of a track left out (issue 34)
    assert runs.groupby("track").included.sum().to_dict() == {"cast+2021": 5, "few": 0, "void": 0}
    tracks = pd.read_csv(res / "summary" / "tracks.csv").set_index("track")
    assert list(tracks.index) == ["cast+2021"]
    assert (tracks.loc["cast+2021", "runs"], tracks.loc["cast+2021", "runs_excluded"]) == (5, 3)
    assert tracks.loc["cast+2021", "runs"] == inc.loc["cast+2021", "runs_included"]
    # the track without an included run still has its per-track tables and figures
    void = res / "tracks" / "void"
    assert pd.read_parquet(void / "measures_by_run.parquet").empty
    assert (void / "rareness" / "tau.png").is_file() and (void / "study" / "fig5_document_asl.png").is_file()


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
    from reeval.analyses.lexiprecision.report import summarize_lexiprecision
    from reeval.workflow.measures_step import summarize
    from reeval.analyses.rareness.report import summarize_rareness, with_parsed_alphas
    from reeval.analyses.reusability.report import summarize_reusability
    from reeval.workflow.config_check import with_defaults
    from reeval.analyses.asl.report import study, study_options

    cfg = with_defaults(yaml.safe_load((ROOT / "config" / "config.yaml").read_text()))
    track, d = "syn-graded", default_run / "tracks" / "syn-graded"
    inclusion = pd.read_csv(default_run / "summary" / "inclusion.csv")
    summarize({track: d}, tmp_path / "summary", {track: 1}, inclusion=inclusion)
    info = study({track: d}, tmp_path / "study", study_options(cfg["study"]))
    summarize_lexiprecision({track: d / "lexiprecision"}, tmp_path / "lexiprecision", {track: 1},
                            cfg["lexiprecision"])
    summarize_rareness({track: d / "rareness"}, tmp_path / "rareness", with_parsed_alphas(cfg["rareness"]))
    summarize_reusability({track: d / "reusability"}, tmp_path / "reusability")
    assert_outputs_conform(tmp_path)
    assert list(pd.read_csv(tmp_path / "summary" / "tracks.csv").track) == [track]
    assert "1 included track: syn-graded" in (tmp_path / "summary" / "summary.md").read_text()
    assert info["tracks"] == 1 and (pd.read_csv(tmp_path / "study" / "table2.csv").n_tracks == 1).all()
    assert "(1 value, no std)" in (tmp_path / "study" / "summary.md").read_text()
    for name in ("profile", "table3_ties"):
        assert list(pd.read_csv(tmp_path / "lexiprecision" / f"{name}.csv").track) == [track]
    assert set(pd.read_csv(tmp_path / "rareness" / "tau.csv").track) == {track}
    assert list(pd.read_csv(tmp_path / "reusability" / "verdicts.csv").track.unique()) == [track]
    for stem in ("study/fig1_p20", "lexiprecision/fig3_ties_by_p1", "rareness/tau_by_track", "reusability/tau_by_track"):
        assert (tmp_path / f"{stem}.pdf").read_bytes()[:5] == b"%PDF-"


@pytest.mark.slow
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


def test_one_synthetic_track_forced_again_reruns_its_one_job_with_the_same_bytes(tmp_path):
    """`snakemake --forcerun` of a synthetic track's tables reruns the one job that generates
    and ingests it (no ingest job), which writes the same files and tables again. (The
    default study's tracks up to rule synthetic_track, in a results folder of its own.)"""
    results, track = tmp_path / "results", "syn-graded"
    snakemake("--cores", "2", "--until", "synthetic_track", "--config", f"results={results}")
    first = tmp_path / "first"
    shutil.copytree(results, first)
    args = ["--forcerun", f"{results}/tracks/{track}/ingest_report.csv", "--until", "synthetic_track",
            "--config", f"results={results}"]
    out = snakemake("-n", *args).stdout
    stats = out.split("Job stats:")[1].split("Reasons:")[0]
    jobs = dict(re.findall(r"^(\w+)\s+(\d+)$", stats, flags=re.M))
    assert jobs == {"synthetic_track": "1", "total": "1"}, out
    snakemake("--cores", "1", *args)
    for sub in (f"synthetic/{track}", f"tracks/{track}"):
        for path in sorted((first / sub).rglob("*")):
            if path.is_file() and path.name != "ingest_report.csv":
                assert (results / path.relative_to(first)).read_bytes() == path.read_bytes(), path
    report = (results / "tracks" / track / "ingest_report.csv").read_text()
    assert report == (first / "tracks" / track / "ingest_report.csv").read_text().replace(str(first), str(results))
    assert f"ingested {track}: 8 runs" in (results / "logs" / "synthetic_track" / f"{track}.log").read_text()
