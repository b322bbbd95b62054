# results/report.html: the run's figures and tables in one self-contained file
# (reeval.report.html; its inputs and captions: report_inputs, report_captions in
# common.smk), and the closing lines every run prints (reeval.workflow.closing).
from snakemake.logging import logger

from reeval.report.scope import mapped_papers, report_title
from reeval.workflow.closing import closing_lines, run_outcome

REPORT_HTML = f"{RESULTS}/report.html"


rule report:
    """results/report.html: leaderboards per track, every figure and table, offline."""
    input:
        files=report_inputs,
        inclusion=INCLUSION,
        run_inclusion=RUN_INCLUSION,  # the runs scored without some of their lines, flagged
    output:
        REPORT_HTML,
    params:
        results=lambda wildcards, output: str(Path(output[0]).parent),
        title=report_title(workflow.config_settings.configfiles),
        captions=lambda wildcards: report_captions(),
        papers=mapped_papers(config),
    log:
        f"{RESULTS}/logs/report/report.log",
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    conda:
        "../../environment.yml"
    script:
        "../../scripts/report.py"


onsuccess:
    logger.info("\n".join(closing_lines(RESULTS)))


onerror:
    # what failed, and the outputs an earlier run left that this one did not make again
    _failed, _stale = run_outcome(workflow)
    logger.error("\n".join(closing_lines(RESULTS, failed=True, failed_jobs=_failed, stale=_stale)))
