"""Rule papers: every published cell of the three papers beside ours, with a status."""
from pathlib import Path

from _log import rule_log
from reeval.analyses.papers.comparison import write_paper_comparison

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    rows = write_paper_comparison(sm.params.results, Path(sm.output[0]).parent, sm.params.asl,
                                  sm.params.lexiprecision)
    log.info("paper comparison: %d published cells (%s)", len(rows),
             ", ".join(f"{n} {s}" for s, n in rows.status.value_counts().items()))
