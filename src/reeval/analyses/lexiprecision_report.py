"""Workflow steps of the lexicographic-precision study (the Snakemake scripts call these).

Per track, under ``<track>/lexiprecision/`` (:data:`TRACK_TABLES` as Parquet and CSV,
:data:`TRACK_FIGURES` as PNG and PDF, plus ``positions.parquet`` and ``pairs.parquet``):
the position vectors, every pair x topic (i*, sgnLP, rrLP, dRR_1..20), the per-pair
tests and the paper's tables 2-4 and figures 3, 5, 6, 7 and 9. Across tracks, under
``lexiprecision/``: the same tables stacked, figure 2 (theory) and figures 3, 5, 6, 9
overlaid, and ``paper_comparison.csv``/``.md`` (our numbers beside the paper's for the
tracks ``lexiprecision.paper`` maps to its benchmark rows, :mod:`.lexiprecision_paper`).
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
from reeval.workflow.run_inclusion import included_runs, read_ingest_report

from . import lexiprecision as lx
from . import lexiprecision_paper as lp
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
    "table2_agreement": ("track", "relevance_level", "n_pair_topics", "sgnLP_suffix_agree", "dRR2_agree", "sgnLP_suffix_ties",
                         "dRR2_ties", "system_n_run_pairs", "system_rrLP_agree", "system_sgnLP_agree"),
    "table3_ties": ("track", "relevance_level", "n_pair_topics", "LP_ties", "RR_ties"),
    "table4_discriminative_power": ("track", "relevance_level", "test", "procedure", "measure", "n_run_pairs",
                                    "n_significant", "percent_significant", "n_significant_low",
                                    "n_significant_high", "percent_low", "percent_high", "resamples", "seeds"),
    "pair_tests": ("track", "run_i", "run_j", "topics", "mean_dRR1", "mean_rrLP", "mean_sgnLP", "wins",
                   "losses", "ties", "p_RR", "p_rrLP", "p_sgnLP", "p_RR_adjusted", "p_rrLP_adjusted",
                   "p_sgnLP_adjusted", "hsd_RR", "hsd_rrLP", "hsd_sgnLP"),
    "fig3_ties_by_p1": ("track", "p1", "tied", "rankings", "probability"),
    "fig5_ties_by_level": ("track", "level", "pair_topics", "ties", "probability"),
    "fig6_i_star_ecdf": ("track", "i_star", "count", "ecdf"),
    "fig7_correlation": ("track", "level") + tuple(f"dRR_{i}" for i in range(1, 9)),
    "fig7_regression": ("track", "i", "j", "coefficient", "r2", "n"),
    "fig9_label_removal": ("track", "fraction_removed", "RR_ties_mean", "LP_ties_mean", "RR_ties_std",
                           "LP_ties_std"),
    "fig9_label_removal_samples": ("track", "fraction_removed", "sample", "pair_topics", "RR_ties", "LP_ties"),
}



def study_level(config: dict, track: str) -> int:
    """Relevance level of the study for a track: ``lexiprecision.relevance_level`` when
    set, else the track's own level (``config`` filled by
    :func:`reeval.workflow.config_check.with_defaults`)."""
    return config["lexiprecision"]["relevance_level"] or config["tracks"][track]["relevance_level"]


def caption(figure: str) -> str:
    """Report caption file (relative to workflow/rules) of a figure name like fig3_ties_by_p1."""
    return f"../report/lexiprecision_{figure.split('_')[0]}.rst"


#: The paper's tables whose relevance level ``lexiprecision.table_relevance`` can set.
PAPER_TABLES = ("table1", "table2", "table3", "table4")


def table_levels(opts: dict, rel_level: int) -> dict:
    """Relevance level of each paper table: ``table_relevance[table]`` when set, else the
    study level ``rel_level`` (table1 is the profile; figures and ``pairs`` always use
    ``rel_level``)."""
    chosen = opts.get("table_relevance") or {}
    unknown = sorted(set(chosen) - set(PAPER_TABLES))
    if unknown:
        raise ValueError(f"lexiprecision.table_relevance: unknown table(s) {unknown}; known: {list(PAPER_TABLES)}")
    return {t: int(chosen.get(t) or rel_level) for t in PAPER_TABLES}


def _comparisons(judged, qrels, depth, runs, levels_needed, levels: int) -> dict:
    """{relevance level: (PositionVectors, PairComparison, RR runs x topics)}."""
    out = {}
    for lvl in sorted(set(levels_needed)):
        pv = lx.position_vectors(judged, qrels, depth, runs=runs, rel_level=lvl, levels=levels)
        out[lvl] = (pv, lx.compare_pairs(pv, levels=levels), lx.reciprocal_rank(pv))
    return out


def hsd_seeds(opts: dict, track: str) -> list:
    """Seeds of the randomised HSD for a track: ``hsd_seeds`` (the first gives the verdicts)
    for a track ``paper`` maps to the paper, whose table 4a cells need the range over
    seeds; the first seed alone for the others."""
    seeds = list(opts["hsd_seeds"])
    return seeds if track in (opts.get("paper") or {}) else seeds[:1]


def _table4(pc4, rr4, track: str, opts: dict) -> tuple:
    """(pair tests, table 4) at table 4's level; the randomised HSD's range over seeds
    for a track compared with the paper (:func:`hsd_seeds`)."""
    procedure = {"correction": opts["paired_correction"], "hsd_design": opts["hsd_design"],
                 "hsd_resamples": opts["hsd_resamples"]}
    seeds = hsd_seeds(opts, track)
    tests = lx.pair_tests(pc4, rr4, alpha=opts["alpha"], hsd_seed=seeds[0], **procedure)
    spread = (lx.hsd_seed_range(pc4, rr4, opts["alpha"], opts["hsd_resamples"], seeds[1:])
              if opts["hsd_design"] == "randomised" and len(seeds) > 1 else None)
    power = lx.discriminative_power(tests, alpha=opts["alpha"], seed_range=spread,
                                    n_seeds=len(seeds), **procedure)
    return tests, power


def _paper_tables(track: str, by_level: dict, at: dict, depth, opts: dict) -> dict:
    """Tables 1-4 and the pair tests, each at its level ``at[table]``."""
    pv1 = by_level[at["table1"]][0]
    pc2, pc3 = by_level[at["table2"]][1], by_level[at["table3"]][1]
    _, pc4, rr4 = by_level[at["table4"]]
    tests, power = _table4(pc4, rr4, track, opts)
    power.insert(0, "relevance_level", at["table4"])
    return {
        "profile": pd.DataFrame([{"track": track, "relevance_level": at["table1"],
                                  **lt.track_profile(pv1, depth)}]),
        "table2_agreement": pd.DataFrame([{"track": track, "relevance_level": at["table2"],
                                           **lx.ranking_agreement(pc2),
                                           **{f"system_{k}": v for k, v in lx.system_agreement(pc2).items()}}]),
        "table3_ties": pd.DataFrame([{"track": track, "relevance_level": at["table3"], **lx.tie_rates(pc3)}]),
        "table4_discriminative_power": power,
        "pair_tests": tests,
    }


def track_lexiprecision(track: str, track_dir, out_dir, rel_level: int, config: dict) -> dict:
    """Compute and write every per-track table and figure; returns the tables by name.
    ``config``: the ``lexiprecision`` section with its defaults filled in
    (:func:`reeval.workflow.config_check.section_with_defaults`).

    Tables 1-4 use the levels of :func:`table_levels`; the figures' data, ``positions``
    and ``pairs`` use ``rel_level``."""
    opts = config
    d = Path(track_dir)
    judged, depth, qrels = (pq.read_table(d / f"{n}.parquet") for n in ("judged", "depth", "qrels"))
    runs = included_runs(read_ingest_report(d))
    levels = int(opts["levels"])
    at = table_levels(opts, rel_level)
    by_level = _comparisons(judged, qrels, depth, runs, [rel_level, *at.values()], levels)
    pv, pc, _ = by_level[rel_level]
    corr, regression = lt.locality(pc)
    removal = lt.label_removal_ties(judged, qrels, depth, runs=runs, rel_level=rel_level,
                                    fractions=opts["label_removal"]["fractions"],
                                    samples=opts["label_removal"]["samples"],
                                    seed=opts["label_removal"]["seed"])
    tables = {
        **_paper_tables(track, by_level, at, depth, opts),
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


def summarize_lexiprecision(track_dirs: dict, out_dir, levels: dict, config: dict) -> None:
    """Cross-track tables, figures 2/3/5/6/9 overlaid, and the paper comparison
    (``paper_comparison.csv`` and ``.md``, tracks mapped by ``lexiprecision.paper``).
    ``levels`` (the study level per track) is kept for the callers; the tables carry
    their own relevance_level. ``config`` as for :func:`track_lexiprecision`."""
    opts = config
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
    rows = lp.comparison_table(tables, opts["paper"])
    write_table(rows, out / "paper_comparison.csv")
    write_text(lp.comparison_markdown(tables, rows, NO_TRACK_INCLUDED), out / "paper_comparison.md")
