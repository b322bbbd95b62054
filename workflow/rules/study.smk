# The atomized-search-length study (reeval.analyses.asl_study, reeval.analyses.asl_report): per track the
# reordering ablation, appendix A.1 and figures 5-6; across tracks headroom (figures 1-4),
# table 2, the technique table and results/study/summary.md.
from reeval.analyses.asl_report import (STUDY_FIGURES, STUDY_TABLES, TRACK_STUDY_FIGURES,
                                 TRACK_STUDY_TABLES, study_options,
                                 techniques_from_labels, track_study_options)

# technique groups: the config's study.techniques, else the manifest's per-run labels
STUDY_OPTIONS = checked(study_options, config.get("study"), techniques_from_labels(config["tracks"]))
STUDY_DIR = f"{RESULTS}/study"
TRACK_STUDY_FILES = list(TRACK_STUDY_TABLES) + [
    f"{stem}.{ext}" for stem in TRACK_STUDY_FIGURES for ext in ("png", "pdf")]
STUDY_FILES = [f"{STUDY_DIR}/{name}.{ext}" for name in STUDY_TABLES for ext in ("parquet", "csv")] + [
    f"{STUDY_DIR}/{stem}.{ext}" for stem in STUDY_FIGURES for ext in ("png", "pdf")] + [
    f"{STUDY_DIR}/summary.md"]
PER_TRACK_FILES += [f"{RESULTS}/tracks/{{track}}/study/{name}" for name in TRACK_STUDY_FILES]


rule study_track:
    """Reordering ablation (table 2 per track), appendix A.1 and figures 5-6 of one track."""
    input:
        expand(f"{RESULTS}/tracks/{{{{track}}}}/{{name}}", name=MEASURES_FILES),
    output:
        tables=expand(f"{RESULTS}/tracks/{{{{track}}}}/study/{{name}}", name=TRACK_STUDY_TABLES),
        fig5=report(f"{RESULTS}/tracks/{{track}}/study/fig5_document_asl.png",
                    caption="../report/fig5.rst", category="ASL study",
                    subcategory="Per-document ASL (figure 5)", labels={"track": "{track}"}),
        fig5_pdf=f"{RESULTS}/tracks/{{track}}/study/fig5_document_asl.pdf",
        fig6=report(f"{RESULTS}/tracks/{{track}}/study/fig6_asl_difference.png",
                    caption="../report/fig6.rst", category="ASL study",
                    subcategory="Per-document ASL differences (figure 6)", labels={"track": "{track}"}),
        fig6_pdf=f"{RESULTS}/tracks/{{track}}/study/fig6_asl_difference.pdf",
    params:
        options=track_study_options(STUDY_OPTIONS),
    log:
        f"{RESULTS}/logs/study_track/{{track}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/study_track/{{track}}.tsv"
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    conda:
        "../../environment.yml"
    script:
        "../../scripts/study_track.py"


rule study:
    """Cross-track ASL study: headroom figures 1-4, table 2, techniques, A.1, summary.md."""
    input:
        measures=lambda wildcards: expand(f"{RESULTS}/tracks/{{track}}/measures_by_run.parquet",
                                          track=usable_tracks()),
        tracks=lambda wildcards: expand(f"{RESULTS}/tracks/{{track}}/study/{{name}}", track=usable_tracks(),
                                        name=TRACK_STUDY_FILES),
        inclusion=INCLUSION,
    output:
        tables=[f"{STUDY_DIR}/{name}.{ext}" for name in STUDY_TABLES for ext in ("parquet", "csv")
                if name != "table2"],
        table2=report(f"{STUDY_DIR}/table2.csv", caption="../report/table2.rst", category="ASL study",
                      subcategory="Tables", labels={"table": "2: reordering across tracks"}),
        table2_parquet=f"{STUDY_DIR}/table2.parquet",
        fig1=report(f"{STUDY_DIR}/fig1_p20.png", caption="../report/fig1.rst", category="ASL study",
                    subcategory="Headroom (figures 1-4)", labels={"figure": "1: best P@20"}),
        fig2=report(f"{STUDY_DIR}/fig2_aslg1-10.png", caption="../report/fig2.rst", category="ASL study",
                    subcategory="Headroom (figures 1-4)", labels={"figure": "2: best ASL@g1-10"}),
        fig3=report(f"{STUDY_DIR}/fig3_map.png", caption="../report/fig3.rst", category="ASL study",
                    subcategory="Headroom (figures 1-4)", labels={"figure": "3: best MAP"}),
        fig4=report(f"{STUDY_DIR}/fig4_asl.png", caption="../report/fig4.rst", category="ASL study",
                    subcategory="Headroom (figures 1-4)", labels={"figure": "4: best ASL"}),
        pdfs=[f"{STUDY_DIR}/{stem}.pdf" for stem in STUDY_FIGURES],
        summary=f"{STUDY_DIR}/summary.md",
    params:
        tracks={track: f"{RESULTS}/tracks/{track}" for track in TRACKS},
        options=STUDY_OPTIONS,
    log:
        f"{RESULTS}/logs/study/study.log",
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    conda:
        "../../environment.yml"
    script:
        "../../scripts/study.py"
