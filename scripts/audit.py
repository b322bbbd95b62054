"""Rule audit: one track's official figures beside reeval's."""
from collections import Counter
from pathlib import Path

from _log import rule_log
from reeval.io.pandas_free import arrow_without_pandas
from reeval.workflow.audit_step import track_audit
from reeval.workflow.tracks import list_runs

sm = snakemake  # noqa: F821
arrow_without_pandas()  # the job uses pyarrow, never pandas (docs/benchmarks.md, the audit's cost)
with rule_log(sm) as log:
    runs = list_runs(sm.params.runs).files
    table = track_audit(Path(sm.input.tables[0]).parent, sm.input.official, sm.input.qrels, runs,
                        sm.params.options, Path(sm.output[0]).parents[1], list(sm.input.alternative_qrels))
    counts = Counter(table.column("status").to_pylist()).most_common()
    searched = table.schema.metadata or {}
    log.info("audit of %s: %d official figures: %s; searched %s settings in %s s", sm.wildcards.track,
             table.num_rows, ", ".join(f"{n} {s}" for s, n in counts), searched.get(b"settings", b"?").decode(),
             searched.get(b"seconds", b"?").decode())
