# Each track's own figures (config figures.per_track), drawn from the tables of its
# analyses and reusability jobs by a job of their own: whether a study draws them (auto:
# at most 12 tracks) is no input of those jobs, so a study that crosses the threshold
# reruns nothing already made (reeval.workflow.outputs.draws_track_figures).
from reeval.analyses.asl.report import FIGURE_OPTION_KEYS as STUDY_FIGURE_OPTION_KEYS


rule track_figures:
    """Per track: rareness tau, n_systems and synthetic; ASL study figures 5-6; lexicographic
    precision figures 3, 5-9; reusability scores. The default target and the report ask for
    them only when figures.per_track draws them."""
    input:
        measures=step_files("measures"),
        rareness=step_files("rareness"),
        study=step_files("study"),
        lexiprecision=step_files("lexiprecision"),
        reusability=step_files("reusability"),
    output:
        **track_figure_outputs("rareness", {
            stem: dict(caption=f"../report/rareness_{stem}.rst", category="Rareness", subcategory="{track}")
            for stem in ("tau", "n_systems", "synthetic")}),
        **track_figure_outputs("study", {
            "fig5_document_asl": dict(caption="../report/fig5.rst", category="ASL study",
                                      subcategory="Per-document ASL (figure 5)", labels={"track": "{track}"}),
            "fig6_asl_difference": dict(caption="../report/fig6.rst", category="ASL study",
                                        subcategory="Per-document ASL differences (figure 6)",
                                        labels={"track": "{track}"})}),
        **track_figure_outputs("lexiprecision", {
            name: dict(caption=caption(name), category="Lexicographic precision", subcategory="{track}")
            for name in LEXI_TRACK_FIGURES}),
        **track_figure_outputs("reusability", {
            "scores": dict(caption="../report/reusability_scores.rst", category="Reusability",
                           subcategory="{track}")}),
    params:
        study={key: STUDY_OPTIONS[key] for key in STUDY_FIGURE_OPTION_KEYS},
        lexiprecision_level=lambda wildcards: study_level(config, wildcards.track),
    log:
        f"{RESULTS}/logs/track_figures/{{track}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/track_figures/{{track}}.tsv"
    priority: track_priority(0)  # the largest track first (common.smk)
    # each step's figures drawn by a forked worker, one a thread (reeval.report.figure_workers):
    # about 4 s of wall a track on a quiet machine (docs/benchmarks.md)
    threads: 2
    resources:
        mem_mb=lambda wildcards, attempt: 2000 * attempt,
        runtime=lambda wildcards, attempt: 10 * attempt,
    conda:
        "../../environment.yml"
    script:
        "../../scripts/track_figures.py"
