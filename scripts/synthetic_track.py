"""Rule synthetic_track: write one track of the built-in campaign."""
from _log import to_log
from reeval.synthetic import DEFAULT_CAMPAIGN, write_track

log = to_log(snakemake)  # noqa: F821
spec = DEFAULT_CAMPAIGN[snakemake.params.spec]  # noqa: F821
write_track(snakemake.output[0], spec, seed=snakemake.params.seed)  # noqa: F821
log.info("wrote synthetic track %s (%s) to %s", snakemake.wildcards.track, spec, snakemake.output[0])  # noqa: F821
