rule measures:
    """Per-topic, per-run and per-document measures of one track (trec_eval + ASL)."""
    input:
        step_files("ingest"),
    output:
        step_files("measures"),
    params:
        measures=MEASURE_SPECS,
        relevance_level=lambda wildcards: track_options(config, wildcards.track)["relevance_level"],
        precision=lambda wildcards: track_options(config, wildcards.track)["precision"],
        unretrieved=config["asl"]["unretrieved"],
    log:
        f"{RESULTS}/logs/measures/{{track}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/measures/{{track}}.tsv"
    # bench_scale.py: 1.9 GB peak on the track with the most judged rows (Robust 2004 shape)
    priority: track_priority(0)  # the largest track first (common.smk)
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    conda:
        "../../environment.yml"
    script:
        "../../scripts/measures.py"
