# The atomized-search-length study (reeval.analyses.asl.study, reeval.analyses.asl.report): per track (in
# rule analyses) the reordering ablation, appendix A.1 and figures 5-6; across tracks headroom (figures 1-4),
# table 2, the technique table and results/study/summary.md.
from reeval.analyses.asl.report import (STUDY_FIGURES, STUDY_TABLES, study_options,
                                        techniques_from_labels, track_study_options)
from reeval.workflow.tracks import paper_track_sets

# technique groups: the config's study.techniques, else the manifest's per-run labels
STUDY_OPTIONS = checked(study_options, config["study"], techniques_from_labels(config["tracks"]))
STUDY_DIR = f"{RESULTS}/study"
STUDY_FILES = [f"{STUDY_DIR}/{name}.{ext}" for name in STUDY_TABLES for ext in ("parquet", "csv")] + [
    f"{STUDY_DIR}/{stem}.{ext}" for stem in STUDY_FIGURES for ext in ("png", "pdf")] + [
    f"{STUDY_DIR}/summary.md"]


rule study:
    """Cross-track ASL study: headroom figures 1-4, table 2, techniques, A.1, summary.md."""
    input:
        measures=lambda wildcards: expand(f"{RESULTS}/tracks/{{track}}/measures_by_run.parquet",
                                          track=usable_tracks()),
        tracks=lambda wildcards: [f for t in usable_tracks() for f in step_files("study", t)],
        inclusion=INCLUSION,
        table1=lambda wildcards: [f for t in usable_tracks() if t in (config["study"]["paper"] or {}).values()
                                  for f in step_files("ingest", t)],
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
        track_figures=TRACK_FIGURES,
        # section 4.1's counts at the ASL paper's stated and ad hoc settings, from the manifest
        track_sets=checked(paper_track_sets, config),
        # table 1 is recomputed at the paper's settings from the ingested tables of the
        # tracks study.paper maps (reeval.analyses.asl.report.table1_by_run), in their precision
        precision={track: track_options(config, track)["precision"]
                   for track in (config["study"]["paper"] or {}).values() if track in TRACKS},
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
