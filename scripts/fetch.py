"""Rule fetch (a checkpoint): download, verify, unpack and check one track; never fails the DAG."""
import traceback

from _log import rule_log
from reeval.io.tables import write_table
from reeval.archive.inclusion import fetch_track, write_status

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    track = sm.wildcards.track
    try:
        status, report, _ = fetch_track(track, sm.params.entry, sm.params.data_dir, sm.params.fetch,
                                        on_malformed=sm.params.options["on_malformed"],
                                        min_runs=sm.params.min_runs, log=log)
    except Exception as exc:  # a problem of this track must not stop the others: its status says it
        log.error(traceback.format_exc())
        from pathlib import Path
        import pandas as pd
        Path(sm.output.folder, "runs").mkdir(parents=True, exist_ok=True)
        status = {"track": track, "usable": False, "reason": f"fetch error: {type(exc).__name__}: {exc}",
                  "runs_listed": len(sm.params.entry["urls"]["runs"]), "runs_fetched": 0, "runs_parsed": 0}
        report = pd.DataFrame(columns=["file", "url", "outcome", "error", "use"])
    write_table(report, sm.output.report)
    write_status(status, sm.output.status)
    log.info("%s: %s (%d of %d runs usable)", track, status["reason"], status["runs_parsed"], status["runs_listed"])
