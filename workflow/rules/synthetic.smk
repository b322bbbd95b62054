rule synthetic_track:
    """Write one track of the built-in seeded synthetic campaign (no download)."""
    output:
        directory(f"{RESULTS}/synthetic/{{track}}"),
    params:
        spec=lambda wildcards: config["tracks"][wildcards.track]["synthetic"],
        seed=config["synthetic"]["seed"],
    log:
        f"{RESULTS}/logs/synthetic_track/{{track}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/synthetic_track/{{track}}.tsv"
    # first, then the ingests (priority 1, ingest.smk), then the analyses (0); within each, the
    # largest track first (common.smk, track_priority)
    priority: track_priority(2)
    # bench_scale.py: 0.7 GB peak, 4 min for 120 M run lines (gzip)
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 20 * attempt,
    conda:
        "../../environment.yml"
    script:
        "../../scripts/synthetic_track.py"
