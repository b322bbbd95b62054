from reeval.analyses.lexiprecision.report import SUMMARY_FIGURES, SUMMARY_TABLES, caption, study_level
from reeval.analyses.lexiprecision.report import TRACK_FIGURES as LEXI_TRACK_FIGURES

LEXI_CONFIG = config["lexiprecision"]
LEXI_SUMMARY_FILES = [f"{RESULTS}/lexiprecision/{name}.{ext}"
                      for name in SUMMARY_TABLES + ("fig2_theoretical_ties",) for ext in ("parquet", "csv")] + [
    f"{RESULTS}/lexiprecision/{name}.pdf" for name in SUMMARY_FIGURES] + [f"{RESULTS}/lexiprecision/summary.md"]
LEXI_SUMMARY_PNGS = [f"{RESULTS}/lexiprecision/{name}.png" for name in SUMMARY_FIGURES]


rule lexiprecision_summary:
    """Lexiprecision across tracks: stacked tables, figure 2 and overlays (the paper's cells: rule papers)."""
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
