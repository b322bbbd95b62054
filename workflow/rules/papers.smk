# The three papers' published cells beside ours, in one table (reeval.analyses.papers.comparison):
# each study's comparison rows (rareness, lexiprecision, the ASL study's) with a status.
from reeval.workflow.outputs import PAPER_COMPARISON_FILES

PAPERS_FILES = [f"{RESULTS}/{name}" for name in PAPER_COMPARISON_FILES]


rule papers:
    """results/papers/paper_comparison.csv and .md: every published cell of the three papers."""
    input:
        rareness=f"{RESULTS}/rareness/paper_comparison.csv",
        lexiprecision=[f for f in LEXI_SUMMARY_FILES if f.endswith(".parquet")],
        study=f"{STUDY_DIR}/paper_comparison.csv",
    output:
        PAPERS_FILES,
    params:
        results=lambda wildcards, output: str(Path(output[0]).parent.parent),  # papers/ is under the results
        asl=config["study"]["paper"],
        lexiprecision=config["lexiprecision"]["paper"],
    log:
        f"{RESULTS}/logs/papers/papers.log",
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 5 * attempt,
    conda:
        "../../environment.yml"
    script:
        "../../scripts/papers.py"
