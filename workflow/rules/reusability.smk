# Test-collection reusability, leave one group out (reeval.analyses.reusability.report):
# per track, each group's runs scored without the judged documents only that group pooled;
# across tracks, the verdicts stacked and Kendall's tau of each measure against its base.
from reeval.analyses.reusability.report import SUMMARY_FIGURES as REUSABILITY_SUMMARY_FIGURES
from reeval.analyses.reusability.report import SUMMARY_MARKDOWN as REUSABILITY_SUMMARY_MARKDOWN
from reeval.analyses.reusability.report import SUMMARY_TABLES as REUSABILITY_SUMMARY_TABLES

REUSABILITY_SUMMARY_FILES = [f"{RESULTS}/reusability/{name}" for name in
                             (*REUSABILITY_SUMMARY_TABLES, *REUSABILITY_SUMMARY_FIGURES, REUSABILITY_SUMMARY_MARKDOWN)]


rule reusability:
    """Per track: every run scored on the full qrels and without its group's pool contribution."""
    input:
        unpack(reusability_inputs),
    output:
        step_files("reusability"),
    params:
        options=track_reusability_options,
    log:
        f"{RESULTS}/logs/reusability/{{track}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/reusability/{{track}}.tsv"
    # benchmarks/bench_reusability.py: at most twice the measures job (docs/benchmarks.md)
    priority: track_priority(0)  # the largest track first (common.smk)
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 20 * attempt,
    conda:
        "../../environment.yml"
    script:
        "../../scripts/reusability.py"


rule reusability_summary:
    """Reusability across tracks: every track's verdicts, Kendall's tau of each measure against its base."""
    input:
        tables=lambda wildcards: expand(f"{RESULTS}/tracks/{{track}}/reusability/verdict.csv", track=usable_tracks()),
        inclusion=INCLUSION,
    output:
        table=f"{RESULTS}/reusability/verdicts.csv",
        summary=f"{RESULTS}/reusability/{REUSABILITY_SUMMARY_MARKDOWN}",
        tau=report(f"{RESULTS}/reusability/tau_by_track.png", caption="../report/reusability_tau.rst",
                   category="Reusability", subcategory="across tracks"),
        pdf=f"{RESULTS}/reusability/tau_by_track.pdf",
    params:
        tracks={track: f"{RESULTS}/tracks/{track}/reusability" for track in TRACKS},
    log:
        f"{RESULTS}/logs/reusability_summary/reusability_summary.log",
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    conda:
        "../../environment.yml"
    script:
        "../../scripts/reusability_summary.py"
