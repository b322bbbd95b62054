"""Workflow steps of the lexicographic-precision study (the Snakemake scripts call these).

Per track, under ``<track>/lexiprecision/`` (:data:`TRACK_TABLES` as Parquet and CSV,
:data:`TRACK_FIGURES` as PNG and PDF, plus ``positions.parquet`` and ``pairs.parquet``):
the position vectors, every pair x topic (i*, sgnLP, rrLP, dRR_1..20), the per-pair
tests and the paper's tables 2-4 and figures 3, 5, 6, 7 and 9. Across tracks, under
``lexiprecision/``: the same tables stacked, figure 2 (theory) and figures 3, 5, 6, 9
overlaid, and ``paper_comparison.md`` (our numbers beside the paper's where the track is
the same).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from reeval.archive.inclusion import NO_TRACK_FIGURE_NOTE, NO_TRACK_INCLUDED
from reeval.io.tables import read_stacked, write_table, write_table_pair, write_text
from reeval.report.figures import pyplot, save_figure_pair
from reeval.report.markdown import fmt
from reeval.workflow.run_inclusion import included_runs, read_ingest_report

from . import lexiprecision as lx
from . import lexiprecision_ties as lt

#: Per-track tables, each written as <name>.parquet and <name>.csv.
TRACK_TABLES = ("profile", "table2_agreement", "table3_ties", "table4_discriminative_power",
                "pair_tests", "fig3_ties_by_p1", "fig5_ties_by_level", "fig6_i_star_ecdf",
                "fig7_correlation", "fig7_regression", "fig9_label_removal",
                "fig9_label_removal_samples")
#: Per-track figures, each written as <name>.png and <name>.pdf.
TRACK_FIGURES = ("fig3_ties_by_p1", "fig5_ties_by_level", "fig6_i_star_ecdf", "fig7_locality",
                 "fig9_label_removal")
#: Cross-track tables (stacked per-track tables, one ``track`` column).
SUMMARY_TABLES = ("profile", "table2_agreement", "table3_ties", "table4_discriminative_power",
                  "fig3_ties_by_p1", "fig5_ties_by_level", "fig6_i_star_ecdf", "fig9_label_removal")
SUMMARY_FIGURES = ("fig2_theoretical_ties", "fig3_ties_by_p1", "fig5_ties_by_level",
                   "fig6_i_star_ecdf", "fig9_label_removal")
#: The columns of every per-track table (the cross-track ones stack them), also when a
#: table has no row; the writer refuses a table whose columns differ.
TABLE_COLUMNS = {
    "profile": ("track", "relevance_level", "requests", "runs", "rel_per_request", "docs_per_request",
                "rel_retrieved_per_ranking"),
    "table2_agreement": ("track", "n_pair_topics", "sgnLP_suffix_agree", "dRR2_agree", "sgnLP_suffix_ties",
                         "dRR2_ties", "system_n_run_pairs", "system_rrLP_agree", "system_sgnLP_agree"),
    "table3_ties": ("track", "n_pair_topics", "LP_ties", "RR_ties"),
    "table4_discriminative_power": ("track", "test", "measure", "n_run_pairs", "n_significant",
                                    "percent_significant"),
    "pair_tests": ("track", "run_i", "run_j", "topics", "mean_dRR1", "mean_rrLP", "mean_sgnLP", "wins",
                   "losses", "ties", "p_RR", "p_rrLP", "p_sgnLP", "p_RR_bonferroni", "p_rrLP_bonferroni",
                   "p_sgnLP_bonferroni", "hsd_RR", "hsd_rrLP", "hsd_sgnLP"),
    "fig3_ties_by_p1": ("track", "p1", "tied", "rankings", "probability"),
    "fig5_ties_by_level": ("track", "level", "pair_topics", "ties", "probability"),
    "fig6_i_star_ecdf": ("track", "i_star", "count", "ecdf"),
    "fig7_correlation": ("track", "level") + tuple(f"dRR_{i}" for i in range(1, 9)),
    "fig7_regression": ("track", "i", "j", "coefficient", "r2", "n"),
    "fig9_label_removal": ("track", "fraction_removed", "RR_ties_mean", "LP_ties_mean", "RR_ties_std",
                           "LP_ties_std"),
    "fig9_label_removal_samples": ("track", "fraction_removed", "sample", "pair_topics", "RR_ties", "LP_ties"),
}

DEFAULTS = {"levels": lx.DEFAULT_LEVELS, "alpha": 0.05,
            "label_removal": {"fractions": [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9],
                              "samples": 10, "seed": 0},
            "figure2": {"n": 50000, "m": [1, 2, 5, 10, 20, 50, 100]}}

#: The paper's numbers (Diaz 2023, tables 1-4) for the tracks we also have.
PAPER = {
    "robust (2004)": {"requests": 249, "runs": 110, "rel_per_request": 69.93, "docs_per_request": 913.82,
                      "sgnLP_suffix_agree": 85.78, "dRR2_agree": 83.44, "LP_ties": 0.39, "RR_ties": 44.22,
                      "hsd": (27.42, 27.34, 23.55), "paired": (26.22, 27.36, 21.45)},
    "deep-pass (2019)": {"requests": 43, "runs": 37, "rel_per_request": 95.40, "docs_per_request": 892.51,
                         "sgnLP_suffix_agree": 90.45, "dRR2_agree": 88.87, "LP_ties": 2.63, "RR_ties": 56.89,
                         "hsd": (16.52, 18.47, 13.21), "paired": (15.02, 17.42, 10.36)},
    "deep-pass (2020)": {"requests": 54, "runs": 59, "rel_per_request": 66.78, "docs_per_request": 978.01,
                         "sgnLP_suffix_agree": 92.86, "dRR2_agree": 91.08, "LP_ties": 2.58, "RR_ties": 50.30,
                         "hsd": (37.46, 40.91, 28.35), "paired": (39.04, 39.45, 28.00)},
}
#: Our track -> the paper's row, and how the inputs differ.
PAPER_TRACKS = {
    "trec2003-robust": ("robust (2004)", "Robust 2003 here (17 of its runs, 100 topics), the "
                        "paper's Robust 2004 (110 runs, 249 topics): different topics and runs, "
                        "only indicative"),
    "trec2019-dl-passage": ("deep-pass (2019)", "same topics and qrels; 13 of the 37 runs here"),
    "trec2020-dl-passage": ("deep-pass (2020)", "same topics and qrels; 12 of the 59 runs here"),
}


def options(config: dict | None) -> dict:
    """The ``lexiprecision`` config section with defaults filled in (the relevance level
    is resolved per track by :func:`study_level`)."""
    cfg = dict(config or {})
    out = {k: cfg.get(k, v) for k, v in DEFAULTS.items() if not isinstance(v, dict)}
    for key in ("label_removal", "figure2"):
        out[key] = {**DEFAULTS[key], **(cfg.get(key) or {})}
    return out


def study_level(config: dict, track: str) -> int:
    """Relevance level of the study for a track: ``lexiprecision.relevance_level`` when
    set, else the track's own level."""
    from reeval.workflow.tracks import track_options

    return (config.get("lexiprecision") or {}).get("relevance_level") or \
        track_options(config, track)["relevance_level"]


def caption(figure: str) -> str:
    """Report caption file (relative to workflow/rules) of a figure name like fig3_ties_by_p1."""
    return f"../report/lexiprecision_{figure.split('_')[0]}.rst"


def track_lexiprecision(track: str, track_dir, out_dir, rel_level: int = 1,
                        config: dict | None = None) -> dict:
    """Compute and write every per-track table and figure; returns the tables by name."""
    opts = options(config)
    d = Path(track_dir)
    judged, depth, qrels = (pq.read_table(d / f"{n}.parquet") for n in ("judged", "depth", "qrels"))
    runs = included_runs(read_ingest_report(d))
    levels = int(opts["levels"])
    pv = lx.position_vectors(judged, qrels, depth, runs=runs, rel_level=rel_level, levels=levels)
    pc = lx.compare_pairs(pv, levels=levels)
    rr = lx.reciprocal_rank(pv)
    tests = lx.pair_tests(pc, rr, alpha=opts["alpha"])
    corr, regression = lt.locality(pc)
    removal = lt.label_removal_ties(judged, qrels, depth, runs=runs, rel_level=rel_level,
                                    fractions=opts["label_removal"]["fractions"],
                                    samples=opts["label_removal"]["samples"],
                                    seed=opts["label_removal"]["seed"])
    profile = {"track": track, "relevance_level": rel_level, **lt.track_profile(pv, depth)}
    tables = {
        "profile": pd.DataFrame([profile]),
        "table2_agreement": pd.DataFrame([{"track": track, **lx.ranking_agreement(pc),
                                           **{f"system_{k}": v for k, v in lx.system_agreement(pc).items()}}]),
        "table3_ties": pd.DataFrame([{"track": track, **lx.tie_rates(pc)}]),
        "table4_discriminative_power": lx.discriminative_power(tests, alpha=opts["alpha"]),
        "pair_tests": tests,
        "fig3_ties_by_p1": lt.tie_probability_by_p1(pv),
        "fig5_ties_by_level": lt.tie_probability_by_level(pc),
        "fig6_i_star_ecdf": lt.i_star_distribution(pc),
        "fig7_correlation": _by_level(corr),
        "fig7_regression": regression,
        "fig9_label_removal": lt.summarize_label_removal(removal),
        "fig9_label_removal_samples": removal,
    }
    out = Path(out_dir)
    for name, df in tables.items():
        if "track" not in df.columns:
            df.insert(0, "track", track)
        write_table_pair(df, out, name, columns=TABLE_COLUMNS[name])
    write_table(pv.to_table(), out / "positions.parquet")
    write_table(pc.to_frame(), out / "pairs.parquet")
    _track_figures(track, tables, out)
    return tables


def _by_level(corr: pd.DataFrame) -> pd.DataFrame:
    """The correlation matrix of :func:`reeval.analyses.lexiprecision_ties.locality` (rows and columns
    dRR_1 ..) with the row's recall level i as an integer column ``level``."""
    out = corr.reset_index(drop=True)
    out.insert(0, "level", [int(name.removeprefix("dRR_")) for name in corr.index])
    return out


def _track_figures(track: str, t: dict, out: Path) -> None:
    plt = pyplot()
    for name in ("fig3_ties_by_p1", "fig5_ties_by_level", "fig6_i_star_ecdf", "fig9_label_removal"):
        fig, ax = plt.subplots(figsize=(5, 3.5), layout="constrained")
        PLOTS[name](ax, t[name], track)
        ax.set_title(track)
        save_figure_pair(fig, out / name)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
    corr, reg = t["fig7_correlation"], t["fig7_regression"]
    values = corr.drop(columns=["track", "level"]).to_numpy(dtype=float)
    if np.isfinite(values).any():
        im = a1.imshow(values, vmin=-1, vmax=1, cmap="RdBu_r")
        ticks = np.arange(values.shape[0])
        a1.set_xticks(ticks, [str(k + 1) for k in ticks])
        a1.set_yticks(ticks, [str(k + 1) for k in ticks])
        for (r, c), v in np.ndenumerate(values):
            a1.text(c, r, f"{v:.2f}", ha="center", va="center", fontsize=6)
        fig.colorbar(im, ax=a1, shrink=0.8)
        for i, g in reg.groupby("i"):
            a2.plot(g.j, g.coefficient, marker="o", label=f"dRR_{i}")
        a2.legend(fontsize=8)
    else:
        a1.text(0.5, 0.5, "no pair of rankings with m >= 8", ha="center", transform=a1.transAxes)
    a1.set_title(f"{track}: Pearson r among dRR_i (m >= 8)")
    a1.set_xlabel("recall level i")
    a1.set_ylabel("recall level i")
    a2.set_title("regression of dRR_i on dRR_i+1..i+4")
    a2.set_xlabel("j (predictor dRR_i+j)")
    a2.set_ylabel("coefficient")
    save_figure_pair(fig, out / "fig7_locality")


def _plot_fig3(ax, df, label):
    ax.plot(df.p1, df.probability, marker=".", linestyle="-", label=label)
    if (df.probability > 0).any():
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.set_xlabel("position of the first relevant document p1")
    ax.set_ylabel("P(tie with another run | p1)")


def _plot_fig5(ax, df, label):
    df = df[df.pair_topics > 0]
    ax.plot(df.level, df.probability, marker="o", markersize=3, label=label)
    ax.set_xlabel("recall level i")
    ax.set_ylabel("P(p_i = p'_i)")
    ax.set_ylim(0, 1)


def _plot_fig6(ax, df, label):
    ax.step(np.r_[1, df.i_star], np.r_[0.0, df.ecdf], where="post", label=label)
    ax.set_xscale("log")
    ax.set_xlim(left=1)
    ax.set_xlabel("recall level i* needed to break the tie")
    ax.set_ylabel("ECDF")
    ax.set_ylim(0, 1.01)


def _plot_fig9(ax, df, label):
    x = df.fraction_removed
    color = None
    for measure, style, name in (("RR", "-", "RR"), ("LP", "--", "rrLP, sgnLP")):
        mean, std = df[f"{measure}_ties_mean"], df[f"{measure}_ties_std"].fillna(0)
        line, = ax.plot(x, mean, linestyle=style, color=color, label=f"{label} {name}")
        color = line.get_color()
        ax.fill_between(x, mean - std, mean + std, alpha=0.2, color=color)
    ax.set_xlabel("fraction of relevance labels removed")
    ax.set_ylabel("tied pairs of rankings (%)")


PLOTS = {"fig3_ties_by_p1": _plot_fig3, "fig5_ties_by_level": _plot_fig5,
         "fig6_i_star_ecdf": _plot_fig6, "fig9_label_removal": _plot_fig9}


def _fmt(v, digits=2):
    """The paper comparison's numbers: two decimals (:func:`reeval.report.markdown.fmt`)."""
    return fmt(v, digits)


def paper_comparison(tables: dict, levels: dict) -> str:
    """Markdown: our tables 1-4 beside the paper's for the tracks it also analyzed."""
    ours = [t for t in PAPER_TRACKS if t in set(tables["profile"].track)]
    lines = ["# Lexicographic precision: our numbers beside the paper's", "",
             "Paper: Diaz, *Best-Case Retrieval Evaluation: Improving the Sensitivity of "
             "Reciprocal Rank with Lexicographic Precision*, tables 1-4. The paper's relevance "
             "is grade > 0 (pref_eval); ours is the track's relevance level shown below.", ""]
    if tables["profile"].empty:
        lines += [NO_TRACK_INCLUDED, ""]
    if not ours:
        lines.append("None of the configured tracks is one the paper analyzed "
                     f"({', '.join(PAPER_TRACKS)}).")
        return "\n".join(lines) + "\n"
    lines.append("## Inputs")
    lines.append("")
    if any(levels.get(t, 1) != 1 for t in ours):
        lines += ["Where our level is not 1 the relevant sets differ from the paper's; "
                  "`lexiprecision: {relevance_level: 1}` in the config reproduces its.", ""]
    lines.append("| track (ours / paper) | level | requests | runs | rel/request | docs/request | how the inputs differ |")
    lines.append("|---|---|---|---|---|---|---|")
    prof = tables["profile"].set_index("track")
    for t in ours:
        name, note = PAPER_TRACKS[t]
        p, o = PAPER[name], prof.loc[t]
        lines.append(f"| {t} / {name} | {levels.get(t, 1)} / >0 | {int(o.requests)} / {p['requests']} | "
                     f"{int(o.runs)} / {p['runs']} | {_fmt(o.rel_per_request)} / {p['rel_per_request']:.2f} | "
                     f"{_fmt(o.docs_per_request)} / {p['docs_per_request']:.2f} | {note} |")
    t2 = tables["table2_agreement"].set_index("track")
    t3 = tables["table3_ties"].set_index("track")
    t4 = tables["table4_discriminative_power"]
    lines += ["", "## Table 2: ranking agreement with dRR_1 (%, pairs with dRR_1 != 0)", "",
              "| track | sgnLP on p_2..m (ours / paper) | dRR_2 (ours / paper) | system agreement rrLP / sgnLP (ours) |",
              "|---|---|---|---|"]
    for t in ours:
        p, o = PAPER[PAPER_TRACKS[t][0]], t2.loc[t]
        lines.append(f"| {t} | {_fmt(o.sgnLP_suffix_agree)} / {p['sgnLP_suffix_agree']:.2f} | "
                     f"{_fmt(o.dRR2_agree)} / {p['dRR2_agree']:.2f} | "
                     f"{_fmt(o.system_rrLP_agree)} / {_fmt(o.system_sgnLP_agree)} |")
    lines += ["", "## Table 3: tied pairs of rankings (%)", "",
              "| track | rrLP, sgnLP (ours / paper) | RR (ours / paper) |", "|---|---|---|"]
    for t in ours:
        p, o = PAPER[PAPER_TRACKS[t][0]], t3.loc[t]
        lines.append(f"| {t} | {_fmt(o.LP_ties)} / {p['LP_ties']:.2f} | {_fmt(o.RR_ties)} / {p['RR_ties']:.2f} |")
    for test, key, title in (("tukey_hsd", "hsd", "(a) topic-blocked Tukey HSD"),
                             ("paired_bonferroni", "paired", "(b) paired tests, Bonferroni")):
        lines += ["", f"## Table 4{title[:3]}: run pairs different at p < 0.05 (%), {title[4:]}", "",
                  "| track | rrLP (ours / paper) | sgnLP (ours / paper) | RR (ours / paper) |",
                  "|---|---|---|---|"]
        for t in ours:
            p = PAPER[PAPER_TRACKS[t][0]][key]
            o = t4[(t4.track == t) & (t4.test == test)].set_index("measure").percent_significant
            lines.append(f"| {t} | " + " | ".join(f"{_fmt(o[m])} / {p[k]:.2f}"
                                                  for k, m in enumerate(("rrLP", "sgnLP", "RR"))) + " |")
    return "\n".join(lines) + "\n"


def summarize_lexiprecision(track_dirs: dict, out_dir, levels: dict, config: dict | None = None) -> None:
    """Cross-track tables, figures 2/3/5/6/9 overlaid, and the paper comparison."""
    opts = options(config)
    out = Path(out_dir)
    tables = {}
    for name in SUMMARY_TABLES:
        tables[name] = read_stacked([Path(d) / f"{name}.parquet" for d in track_dirs.values()],
                                    TABLE_COLUMNS[name])
        write_table_pair(tables[name], out, name, columns=TABLE_COLUMNS[name])
    n, ms = int(opts["figure2"]["n"]), [int(m) for m in opts["figure2"]["m"]]
    p1 = np.unique(np.round(np.logspace(0, math.log10(n), 400)).astype(np.int64))
    theory = pd.DataFrame([{"n": n, "m": m, "p1": p, "probability": v} for m in ms
                           for p, v in zip(p1, lt.theoretical_tie_probability(n, m, p1))])
    write_table_pair(theory, out, "fig2_theoretical_ties")
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5, 3.5))
    for m, g in theory[theory.probability > 0].groupby("m"):
        ax.loglog(g.p1, g.probability, label=f"m = {m}")
    at_top = theory.loc[theory.p1 == 1, "probability"]
    ax.set_ylim(1e-3 * at_top.min(), 3 * at_top.max())
    ax.set_xlabel("position of the first relevant document p1")
    ax.set_ylabel("P(tie | p1)")
    ax.set_title(f"uniformly random second ranking, n = {n}")
    ax.legend(fontsize=7)
    save_figure_pair(fig, out / "fig2_theoretical_ties")
    for name in ("fig3_ties_by_p1", "fig5_ties_by_level", "fig6_i_star_ecdf", "fig9_label_removal"):
        fig, ax = plt.subplots(figsize=(6, 4))
        for track, g in tables[name].groupby("track", sort=True):
            PLOTS[name](ax, g, track)
        if track_dirs:
            ax.legend(fontsize=6)
        else:
            ax.text(0.5, 0.5, NO_TRACK_FIGURE_NOTE, ha="center", va="center", transform=ax.transAxes)
        save_figure_pair(fig, out / name)
    write_text(paper_comparison(tables, levels), out / "paper_comparison.md")
