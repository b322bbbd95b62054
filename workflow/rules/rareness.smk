from reeval.analyses.rareness_report import SUMMARY_FIGURES as RARENESS_SUMMARY_FIGURES
from reeval.analyses.rareness_report import SUMMARY_TABLES as RARENESS_SUMMARY_TABLES
from reeval.analyses.rareness_report import TRACK_TABLES as RARENESS_TRACK_TABLES
from reeval.analyses.rareness_report import with_parsed_alphas

RARENESS = with_parsed_alphas(config["rareness"])
RARENESS_DIR = f"{RESULTS}/tracks/{{track}}/rareness"
RARENESS_SUMMARY_FILES = [f"{RESULTS}/rareness/{name}"
                          for name in RARENESS_SUMMARY_TABLES + RARENESS_SUMMARY_FIGURES]


rule rareness:
    """Rareness measures of one track (P/AP rareness at k, every alpha) and the analyses of
    the ECIR 2023 paper: Kendall tau per alpha, Tukey HSD discriminative power, stability,
    number of systems, the synthetic rare/common experiment."""
    input:
        step_files("ingest"),
    output:
        tables=[f"{RARENESS_DIR}/{name}" for name in RARENESS_TRACK_TABLES],
        **track_figure_outputs("rareness", {
            stem: dict(caption=f"../report/rareness_{stem}.rst", category="Rareness", subcategory="{track}")
            for stem in ("tau", "n_systems", "synthetic")}),
    params:
        options=RARENESS,
        relevance_level=lambda wildcards: track_options(config, wildcards.track)["relevance_level"],
        figures=TRACK_FIGURES,
    log:
        f"{RESULTS}/logs/rareness/{{track}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/rareness/{{track}}.tsv"
    # bench_scale.py: 1.5 GB peak on the track with the most judged rows (Robust 2004 shape)
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 3000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    conda:
        "../../environment.yml"
    script:
        "../../scripts/rareness.py"


rule rareness_summary:
    """Rareness analyses across tracks, the paper's numbers beside ours, figure 2 by track."""
    input:
        tables=lambda wildcards: expand(f"{RESULTS}/tracks/{{track}}/rareness/{{name}}", track=usable_tracks(),
                                        name=[n for n in RARENESS_TRACK_TABLES if n.endswith(".parquet")]),
        inclusion=INCLUSION,
    output:
        tables=expand(f"{RESULTS}/rareness/{{name}}", name=RARENESS_SUMMARY_TABLES),
        tau=report(f"{RESULTS}/rareness/tau_by_track.png", caption="../report/rareness_tau_by_track.rst",
                   category="Rareness", subcategory="across tracks"),
        n_systems=report(f"{RESULTS}/rareness/n_systems_by_track.png",
                         caption="../report/rareness_n_systems_by_track.rst",
                         category="Rareness", subcategory="across tracks"),
        pdfs=expand(f"{RESULTS}/rareness/{{stem}}.pdf", stem=("tau_by_track", "n_systems_by_track")),
    params:
        tracks={track: f"{RESULTS}/tracks/{track}/rareness" for track in TRACKS},
        options=RARENESS,
    log:
        f"{RESULTS}/logs/rareness_summary/rareness_summary.log",
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    conda:
        "../../environment.yml"
    script:
        "../../scripts/rareness_summary.py"
