rule ingest:
    """Parse a track's qrels and runs once into Parquet, with a per-file ingest report."""
    # a local or fetched track; a synthetic one is ingested by the job that writes it
    # (rule synthetic_track, synthetic.smk)
    wildcard_constraints:
        track=READ_PATTERN,
    input:
        unpack(ingest_inputs),
    output:
        step_files("ingest"),
    params:
        options=lambda wildcards: track_options(config, wildcards.track),
        runs=runs_spec,  # walked again by the script: the files it reads and those it skips, named
    log:
        f"{RESULTS}/logs/ingest/{{track}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/ingest/{{track}}.tsv"
    # every ingest before the analyses (synthetic_track, priority 2, before them): a large
    # track's ingest needs 2 free cores, and with --cores 2 a freed core always goes to a ready
    # single-core job, so without priority a track's ingest waited for the analyses of the
    # tracks before it while one core idled
    priority: track_priority(1)
    # the full simulated study (docs/cluster.md), when this rule read its generated files (rule
    # synthetic_track ingests them now): 2.7 GB peak at most, 2.2 GB on its largest track
    # (TREC 2006 Terabyte shape, 108 M run lines, 36 M of judged topics); SLURM retries with
    # twice the memory.
    # 2 threads for a large track, 1 for a small one (reeval.workflow.tracks.ingest_threads)
    threads: track_ingest_threads
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 15 * attempt,
    conda:
        "../../environment.yml"
    script:
        "../../scripts/ingest.py"
