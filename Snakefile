# reeval: reanalysis of IR evaluation campaigns.
#   snakemake --cores 2                                   built-in synthetic campaign (offline)
#   snakemake --cores 2 --configfile config/shared-data.yaml   the real tracks in ../shared/data
from snakemake.utils import min_version, validate

min_version("8.0")


# --configfile replaces the default study instead of being merged into it
if not workflow.config_settings.configfiles:

    configfile: "config/config.yaml"



validate(config, "config/schema.yaml")


include: "workflow/rules/common.smk"
include: "workflow/rules/synthetic.smk"
include: "workflow/rules/ingest.smk"
include: "workflow/rules/metrics.smk"
include: "workflow/rules/summary.smk"
include: "workflow/rules/lexiprecision.smk"


rule all:
    input:
        expand(f"{RESULTS}/tracks/{{track}}/{{name}}", track=TRACKS, name=TRACK_FILES),
        expand(f"{RESULTS}/tracks/{{track}}/{{name}}", track=TRACKS, name=MEASURES_FILES),
        SUMMARY_FILES,
        expand(f"{RESULTS}/tracks/{{track}}/lexiprecision/{{name}}", track=TRACKS, name=LEXI_TRACK_FILES),
        LEXI_SUMMARY_FILES,
    default_target: True
