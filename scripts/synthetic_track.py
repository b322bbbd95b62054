"""Rule synthetic_track: write one generated track (built-in campaign or a simulated study)."""
from _log import to_log
from reeval.synthetic import spec_from_config, write_track

log = to_log(snakemake)  # noqa: F821
spec = spec_from_config(snakemake.params.spec)  # noqa: F821
write_track(snakemake.output[0], spec, seed=snakemake.params.seed)  # noqa: F821
log.info("wrote synthetic track %s (%s) to %s", snakemake.wildcards.track, spec, snakemake.output[0])  # noqa: F821
