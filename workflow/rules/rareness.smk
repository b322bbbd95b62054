from reeval.analyses.rareness.report import SUMMARY_FIGURES as RARENESS_SUMMARY_FIGURES
from reeval.analyses.rareness.report import SUMMARY_TABLES as RARENESS_SUMMARY_TABLES
from reeval.analyses.rareness.report import TRACK_TABLES as RARENESS_TRACK_TABLES
from reeval.analyses.rareness.report import with_parsed_alphas

RARENESS = with_parsed_alphas(config["rareness"])
RARENESS_SUMMARY_FILES = [f"{RESULTS}/rareness/{name}"
                          for name in RARENESS_SUMMARY_TABLES + RARENESS_SUMMARY_FIGURES]


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
        levels={track: track_options(config, track)["relevance_level"] for track in TRACKS},
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
