"""Rule synthetic_track: write one generated track (built-in campaign or a simulated study)."""
from _log import rule_log
from reeval.synth.tracks import spec_from_config, write_track

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    spec = spec_from_config(sm.params.spec)
    write_track(sm.output[0], spec, seed=sm.params.seed)
    log.info("wrote synthetic track %s (%s) to %s", sm.wildcards.track, spec, sm.output[0])
