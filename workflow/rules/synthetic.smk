rule synthetic_track:
    """Write one track of the built-in seeded synthetic campaign (no download) and ingest it
    in the same job: its files as before, and the tables, report and log of rule ingest."""
    output:
        synthetic=directory(f"{RESULTS}/synthetic/{{track}}"),
        tables=step_files("ingest"),
    params:
        spec=lambda wildcards: config["tracks"][wildcards.track]["synthetic"],
        seed=config["synthetic"]["seed"],
        options=lambda wildcards: track_options(config, wildcards.track),
        runs=runs_spec,  # the runs folder as rule ingest names it: the report's paths are the same
    # the synthetic tracks only; every other track's tables come from rule ingest
    wildcard_constraints:
        track=SYNTHETIC_PATTERN,
    log:
        f"{RESULTS}/logs/synthetic_track/{{track}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/synthetic_track/{{track}}.tsv"
    # first, then the ingests of the other tracks (priority 1, ingest.smk), then the analyses
    # (0); within each, the largest track first (common.smk, track_priority)
    priority: track_priority(2)
    # 1 thread, whatever the track's size: each run is judged as soon as it is written. With 2
    # (ingest_threads, as rule ingest had for the largest track), the largest track's job, the
    # one that should start first, waited for the end of the study: with --cores 2 a freed core
    # went to a ready single-core job every time (the topic-scale-0.1 study, 2026-11-28: the
    # 2-thread ingest of trec15-terabyte-adhoc ran as the 406th of 419 jobs).
    # Memory: ingest's peak, the generator's arrays and one run's text: 2.4 GB on the full
    # simulated study's largest track (trec15-terabyte-adhoc, 108 M run lines; rule ingest
    # alone: 2.2 GB, ingest.smk); SLURM retries with twice the memory (docs/cluster.md, the
    # section on this job).
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 30 * attempt,
    conda:
        "../../environment.yml"
    script:
        "../../scripts/synthetic_track.py"
