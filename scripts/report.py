"""Rule report: results/report.html, every figure and table of the run in one self-contained file."""
from _log import rule_log
from reeval.io.tables import write_text
from reeval.report.html import report_html

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    write_text(report_html(sm.params.results, sm.input.files, sm.input.inclusion, sm.params.title,
                           sm.params.captions, sm.input.run_inclusion, sm.params.papers), sm.output[0])
    log.info("report of %d files: %s", len(sm.input.files), sm.output[0])
