# Official figures against reeval's (reeval.workflow.audit_step, docs/audit.md): per track that
# gives them (its entry's `official:` file), every published figure beside reeval's value at
# its block's setting, equal, explained or unexplained; across tracks, the summary and figure
# (the tracks audited and the rules' inputs: AUDITED, audit_inputs, audit_outputs in common.smk).


rule audit:
    """Per track: each official figure beside reeval's (equal, explained by the setting with the fewest causes, unexplained)."""
    input:
        unpack(audit_inputs),
    output:
        [f"{RESULTS}/tracks/{{track}}/{name}" for name in TRACK_AUDIT_FILES],
    params:
        options=lambda wildcards: track_options(config, wildcards.track),
        runs=runs_spec,  # the run files as ingest listed them (the same names)
    log:
        f"{RESULTS}/logs/audit/{{track}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/audit/{{track}}.tsv"
    # benchmarks/bench_audit.py (2026-12-07, shared machine, load 9-13, docs/benchmarks.md), the search of the
    # lattice of settings: CPU 0.48-0.77 of the track's measures job on the seven tracks, two runs (main: 0.50-0.68); a block
    # no setting reproduces is compared under all of them (DL-2019: 40 settings, about twice the measures job)
    priority: track_priority(0)  # the largest track first (common.smk)
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    conda:
        "../../environment.yml"
    script:
        "../../scripts/audit.py"


rule audit_summary:
    """Across tracks: the official figures equal, explained and unexplained, tracks by trust."""
    input:
        audit_outputs,
    output:
        tables=[f"{RESULTS}/{name}" for name in AUDIT_SUMMARY_TABLES],
        figure=report(f"{RESULTS}/{AUDIT_SUMMARY_FIGURES[0]}", caption="../report/audit_trust.rst",
                      category="Audit", subcategory="across tracks"),
        pdf=f"{RESULTS}/{AUDIT_SUMMARY_FIGURES[1]}",
    params:
        tracks=lambda wildcards: {t: f"{RESULTS}/tracks/{t}/{TRACK_AUDIT_FILES[0]}"
                                  for t in usable_tracks() if t in AUDITED},
        results=lambda wildcards, output: str(Path(output.pdf).parents[1]),
    log:
        f"{RESULTS}/logs/audit_summary/audit_summary.log",
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    conda:
        "../../environment.yml"
    script:
        "../../scripts/audit_summary.py"
