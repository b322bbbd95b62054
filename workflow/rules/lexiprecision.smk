from reeval.analyses.lexiprecision_report import SUMMARY_FIGURES, SUMMARY_TABLES, caption, study_level
from reeval.analyses.lexiprecision_report import TRACK_FIGURES as LEXI_TRACK_FIGURES

LEXI_CONFIG = config["lexiprecision"]
LEXI_SUMMARY_FILES = [f"{RESULTS}/lexiprecision/{name}.{ext}"
                      for name in SUMMARY_TABLES + ("fig2_theoretical_ties",) for ext in ("parquet", "csv")] + [
    f"{RESULTS}/lexiprecision/{name}.pdf" for name in SUMMARY_FIGURES] + [
    f"{RESULTS}/lexiprecision/paper_comparison.md", f"{RESULTS}/lexiprecision/paper_comparison.csv",
    f"{RESULTS}/lexiprecision/summary.md"]
LEXI_SUMMARY_PNGS = [f"{RESULTS}/lexiprecision/{name}.png" for name in SUMMARY_FIGURES]


rule lexiprecision:
    """Lexicographic precision of every pair of runs on one track: tables 2-4, figures 3, 5, 6, 7, 9."""
    input:
        step_files("ingest"),
    output:
        files=step_files("lexiprecision"),
        **track_figure_outputs("lexiprecision", {
            name: dict(caption=caption(name), category="Lexicographic precision", subcategory="{track}")
            for name in LEXI_TRACK_FIGURES}),
    params:
        relevance_level=lambda wildcards: study_level(config, wildcards.track),
        options=LEXI_CONFIG,
        figures=TRACK_FIGURES,
    log:
        f"{RESULTS}/logs/lexiprecision/{{track}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/lexiprecision/{{track}}.tsv"
    # pairs x topics x 20 recall levels in float64: ~1.8 GB at 300 runs x 250 topics
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 20 * attempt,
    conda:
        "../../environment.yml"
    script:
        "../../scripts/lexiprecision.py"


rule lexiprecision_summary:
    """Lexiprecision across tracks: stacked tables, figure 2 and overlays, the paper's values beside ours."""
    input:
        tracks=lambda wildcards: [f for t in usable_tracks() for f in step_files("lexiprecision", t)],
        inclusion=INCLUSION,
    output:
        files=LEXI_SUMMARY_FILES,
        figures=[report(path, caption=caption(Path(path).stem), category="Lexicographic precision",
                        subcategory="all tracks") for path in LEXI_SUMMARY_PNGS],
    params:
        tracks={track: f"{RESULTS}/tracks/{track}/lexiprecision" for track in TRACKS},
        levels={track: study_level(config, track) for track in TRACKS},
        options=LEXI_CONFIG,
    log:
        f"{RESULTS}/logs/lexiprecision_summary/summary.log",
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    conda:
        "../../environment.yml"
    script:
        "../../scripts/lexiprecision_summary.py"
