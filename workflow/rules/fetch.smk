from reeval.workflow.tracks import FETCH_KEYS, INCLUSION_KEYS, entry_keys


checkpoint fetch:
    """Download (or find in fetch.mirror), verify, unpack and check one `urls` track.

    Never fails the workflow for a problem of the track: status.json says usable or why
    not, the fetch report has one row per file. Editing the track's manifest entry reruns it.
    """
    output:
        status=f"{RESULTS}/fetch/{{track}}/status.json",
        report=f"{RESULTS}/fetch/{{track}}/fetch_report.csv",
        folder=directory(f"{DATA_DIR}/tracks/{{track}}"),
    params:
        entry=lambda wildcards: entry_keys(config["tracks"][wildcards.track], FETCH_KEYS),
        options=lambda wildcards: track_options(config, wildcards.track),
        fetch=FETCH,
        data_dir=lambda wildcards, output: str(Path(output.folder).parents[1]),
        min_runs=STUDY_MIN_RUNS,
    log:
        f"{RESULTS}/logs/fetch/{{track}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/fetch/{{track}}.tsv"
    # downloads: runtime is what the network allows; a retry doubles it
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 120 * attempt,
    conda:
        "../../environment.yml"
    script:
        "../../scripts/fetch.py"


rule inclusion:
    """Every track: included in the cross-track tables or not, and why; every ingested run too."""
    input:
        statuses=FETCH_STATUSES,
        reports=ingest_reports,
    output:
        tracks=INCLUSION,
        runs=RUN_INCLUSION,
    params:
        entries={t: entry_keys(config["tracks"][t], INCLUSION_KEYS) for t in TRACKS},
        statuses=dict(zip(FETCHED, FETCH_STATUSES)),
        left_out=EMPTY_RUN_TRACKS,  # local tracks whose run files are all empty (common.smk)
        min_runs=STUDY_MIN_RUNS,
    log:
        f"{RESULTS}/logs/inclusion/inclusion.log",
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 1000 * attempt,
        runtime=lambda wildcards, attempt: 5 * attempt,
    conda:
        "../../environment.yml"
    script:
        "../../scripts/inclusion.py"
