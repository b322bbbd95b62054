"""Rule synthetic_track: write one generated track and ingest it in the same process."""
from pathlib import Path

from _log import rule_log
from reeval.io.ingest import write_track
from reeval.synth.ingested import generate_and_ingest
from reeval.synth.tracks import spec_from_config
from reeval.workflow.ingest_step import log_ingested
from reeval.workflow.tracks import list_runs

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    spec, opts = spec_from_config(sm.params.spec), sm.params.options
    tables = generate_and_ingest(sm.wildcards.track, sm.output.synthetic, sm.params.runs, spec, seed=sm.params.seed,
                                 precision=opts["precision"], on_malformed=opts["on_malformed"],
                                 grade_map=opts["grade_map"], threads=sm.threads)
    log.info("wrote synthetic track %s (%s) to %s", sm.wildcards.track, spec, sm.output.synthetic)
    runs = list_runs(sm.params.runs)  # the folder as the ingest rule walks it: the files just written, nothing else
    runs.check()
    write_track(tables, Path(sm.output.tables[0]).parent)
    log_ingested(log, sm.wildcards.track, tables, runs)
