# reeval: reanalysis of IR evaluation campaigns.
#   snakemake --cores 2                                   built-in synthetic campaign (offline)
#   snakemake --cores 2 --configfile config/shared-data.yaml   the real tracks in ../shared/data
#   snakemake --cores 4 --configfile config/trec-study.yaml    the TREC study (downloads; README)
import os

from snakemake.utils import min_version

min_version("8.0")

# Every job's numpy would start OpenBLAS threads that spin on the cores the other jobs
# use; no rule does large matrix products (see reeval.cli.process_settings)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


# --configfile replaces the default study instead of being merged into it
if not workflow.config_settings.configfiles:

    configfile: "config/config.yaml"



# common.smk checks the config (track ids, measure names, then the schema) before any rule
include: "workflow/rules/common.smk"
include: "workflow/rules/fetch.smk"
include: "workflow/rules/synthetic.smk"
include: "workflow/rules/ingest.smk"
include: "workflow/rules/measures.smk"
include: "workflow/rules/summary.smk"
include: "workflow/rules/rareness.smk"
include: "workflow/rules/study.smk"
include: "workflow/rules/lexiprecision.smk"
include: "workflow/rules/analyses.smk"
include: "workflow/rules/papers.smk"
include: "workflow/rules/reusability.smk"
include: "workflow/rules/audit.smk"
include: "workflow/rules/track_figures.smk"
include: "workflow/rules/report.smk"


rule all:
    input:
        *TRACK_OUTPUTS,  # every track's tables and analyses (fetched tracks: those the fetch found usable)
        SUMMARY_FILES,
        INCLUSION,
        RUN_INCLUSION,
        RARENESS_SUMMARY_FILES,
        STUDY_FILES,
        LEXI_SUMMARY_FILES,
        PAPERS_FILES,
        REUSABILITY_SUMMARY_FILES,
        audit_outputs,
        AUDIT_SUMMARY_FILES,
        REPORT_HTML,
    default_target: True
