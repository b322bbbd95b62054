rule summary:
    """Cross-track tables: every included track's runs' means, one row per track, summary.md."""
    input:
        measures=lambda wildcards: [f for t in usable_tracks() for f in step_files("measures", t)],
        reports=lambda wildcards: expand(f"{RESULTS}/tracks/{{track}}/ingest_report.csv", track=usable_tracks()),
        inclusion=INCLUSION,
    output:
        SUMMARY_FILES,
    params:
        tracks={track: f"{RESULTS}/tracks/{track}" for track in TRACKS},
        levels={track: track_options(config, track)["relevance_level"] for track in TRACKS},
        measures=MEASURE_SPECS,  # the columns of runs.parquet when no track is included
    log:
        f"{RESULTS}/logs/summary/summary.log",
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    conda:
        "../../environment.yml"
    script:
        "../../scripts/summary.py"
