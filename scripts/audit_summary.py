"""Rule audit_summary: the official figures of every audited track, and the trust figure."""
from _log import rule_log
from reeval.workflow.audit_step import closing_line, summarize_audits

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    summary = summarize_audits(sm.params.tracks, sm.params.results)
    log.info("audit summary of %d tracks: %s", summary["track"].nunique(), closing_line(summary))
