rule ingest:
    """Parse a track's qrels and runs once into Parquet, with a per-file ingest report."""
    input:
        unpack(ingest_inputs),
    output:
        expand(f"{RESULTS}/tracks/{{{{track}}}}/{{name}}", name=TRACK_FILES),
    params:
        options=lambda wildcards: track_options(config, wildcards.track),
    log:
        f"{RESULTS}/logs/ingest/{{track}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/ingest/{{track}}.tsv"
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 6000 * attempt,
        runtime=lambda wildcards, attempt: 20 * attempt,
    conda:
        "../../environment.yml"
    script:
        "../../scripts/ingest.py"
