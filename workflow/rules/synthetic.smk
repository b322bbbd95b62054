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
    # as rule ingest: 2 threads for a large track (a run is judged in one while the next is
    # generated in the other), 1 for a small one (reeval.workflow.tracks.ingest_threads).
    # Memory: ingest's peak plus the generator's working arrays (docs/cluster.md, the section
    # on this job): trec15-terabyte-adhoc of the full simulated study, 108 M run lines,
    # measured in docs/cluster.md; SLURM retries with twice the memory.
    threads: track_ingest_threads
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 30 * attempt,
    conda:
        "../../environment.yml"
    script:
        "../../scripts/synthetic_track.py"
