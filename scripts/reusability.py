"""Rule reusability: one track's runs scored on the full qrels and without their group."""
from pathlib import Path

from _log import rule_log
from reeval.analyses.reusability.groups import ALONE
from reeval.analyses.reusability.report import ALONE_FROM, track_reusability

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    o = sm.params.options
    tables = track_reusability(sm.wildcards.track, Path(sm.input.tables[0]).parent, Path(sm.output[0]).parent,
                               o["measures"], groups=o["groups"], groups_from=o["groups_from"], depth=o["depth"],
                               rel_level=o["relevance_level"], precision=o["precision"],
                               unretrieved=o["unretrieved"], places=o["places"], alpha=o["alpha"],
                               systems=o["systems"], pooled=o["pooled"], figures=False)
    v = tables["verdict"]
    log.info("reusability of %s: %d runs in %d groups (%s), pool depth %d", sm.wildcards.track,
             int(v["runs"].max()) if len(v) else 0, int(v["groups"].max()) if len(v) else 0,
             o["groups_from"], o["depth"])
    beyond = tables["by_run"].attrs["beyond_depth"]
    if beyond.judged_beyond:  # reeval.analyses.reusability.depth: verdict.csv's judged_beyond_depth
        log.warning("%s: %s: judged beyond the pool depth, leave-one-group-out does not test it (pool_depth: "
                    "in its entry, if it was pooled)", sm.wildcards.track, beyond.sentence())
    if o["groups_from"] == ALONE_FROM:
        log.warning("%s: %s (groups: in its entry, a leaderboard with run and participant columns, 'RUN GROUP' "
                    "lines or a pattern)", sm.wildcards.track, ALONE)
