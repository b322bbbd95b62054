# The three studies of one track in one job: rareness (reeval.analyses.rareness.report),
# the ASL study's per-track part (reeval.analyses.asl.report) and lexicographic precision
# (reeval.analyses.lexiprecision.report). One process pays the imports (pandas, pyarrow,
# scipy) and Snakemake's per-job cost once instead of three times: at the simulated
# study's 82 tracks of 5 topics those were most of each analysis's seconds (docs/cluster.md).
# It also reads the track's tables and builds its grid once for rareness and lexiprecision
# (reeval.workflow.measures_step.read_included_track): 44 s less CPU over the full study's
# 82 jobs (docs/cluster.md, "Where the CPU goes").
# Changing the options of one study reruns the three of every track.


rule analyses:
    """Per track: rareness measures and the ECIR 2023 analyses (Kendall tau per alpha, Tukey
    HSD discriminative power, stability, number of systems, the synthetic rare/common
    experiment); the ASL study's reordering ablation (table 2 per track), appendix A.1 and
    tables of figures 5-6; lexicographic precision of every pair of runs (tables 2-4, the
    tables of figures 3, 5-9). The figures themselves: rule track_figures."""
    input:
        ingest=step_files("ingest"),
        measures=step_files("measures"),
    output:
        rareness=step_files("rareness"),
        study=step_files("study"),
        lexiprecision=step_files("lexiprecision"),
    params:
        rareness=lambda wildcards: own_section(RARENESS, "rareness", wildcards.track),
        rareness_level=lambda wildcards: track_options(config, wildcards.track)["relevance_level"],
        study=track_study_options(STUDY_OPTIONS),
        lexiprecision=lambda wildcards: own_section(LEXI_CONFIG, "lexiprecision", wildcards.track),
        lexiprecision_level=lambda wildcards: study_level(config, wildcards.track),
    log:
        f"{RESULTS}/logs/analyses/{{track}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/analyses/{{track}}.tsv"
    # bench_scale.py: 1.7 GB peak on the track with the most judged rows (Robust 2004 shape);
    # pairs compared in blocks (lexiprecision.pairblocks): bench_pairs.py, 3,000 runs (4.5 M
    # pairs) x 12 topics: 2.1 GB peak; memory as a function of runs and topics: docs/cluster.md
    priority: track_priority(0)  # the largest track first (common.smk)
    threads: 1
    resources:
        mem_mb=lambda wildcards, attempt: 4000 * attempt,
        runtime=lambda wildcards, attempt: 40 * attempt,
    conda:
        "../../environment.yml"
    script:
        "../../scripts/analyses.py"
