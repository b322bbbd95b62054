"""Workflow steps of the lexicographic-precision study (the Snakemake scripts call these).

Per track, under ``<track>/lexiprecision/`` (:data:`TRACK_TABLES` as Parquet and CSV,
:data:`TRACK_FIGURES` as PNG and PDF, plus ``positions.parquet`` and ``pairs.parquet``):
the position vectors, every pair x topic (i*, sgnLP, rrLP, dRR_1..20), the per-pair
tests and the paper's tables 2-4 and figures 3, 5, 6, 7, 8 and 9. Across tracks, under
``lexiprecision/``: the same tables stacked, figure 2 (theory) and figures 3, 5, 6, 9
overlaid. The paper's cells beside ours are in the one paper comparison
(``papers/paper_comparison``, from these tables and :mod:`.paper`).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from reeval.archive.inclusion import NO_TRACK_FIGURE_NOTE, NO_TRACK_INCLUDED
from reeval.io.tables import read_stacked, write_table, write_table_pair, write_text
from reeval.report.markdown import fmt, render, table
from reeval.workflow.measures_step import IncludedTrack, read_included_track

from . import core as lx
from . import figures as lf
from . import incomplete as li
from . import pairblocks as pb
from . import paper as lp
from .paper import other_level
from . import significance as ls
from . import ties as lt

#: Per-track tables, each written as <name>.parquet and <name>.csv.
TRACK_TABLES = ("profile", "table2_agreement", "table3_ties", "table4_discriminative_power",
                "pair_tests", "fig3_ties_by_p1", "fig5_ties_by_level", "fig6_i_star_ecdf",
                "fig7_correlation", "fig7_regression", "fig8_agreement", "fig8_agreement_samples",
                "fig9_label_removal", "fig9_label_removal_samples")
#: Per-track figures, each written as <name>.png and <name>.pdf.
TRACK_FIGURES = ("fig3_ties_by_p1", "fig5_ties_by_level", "fig6_i_star_ecdf", "fig7_locality",
                 "fig8_agreement", "fig9_label_removal")
#: Cross-track tables (stacked per-track tables, one ``track`` column).
SUMMARY_TABLES = ("profile", "table2_agreement", "table3_ties", "table4_discriminative_power",
                  "fig3_ties_by_p1", "fig5_ties_by_level", "fig6_i_star_ecdf", "fig8_agreement",
                  "fig9_label_removal")
SUMMARY_FIGURES = ("fig2_theoretical_ties", "fig3_ties_by_p1", "fig5_ties_by_level",
                   "fig6_i_star_ecdf", "fig9_label_removal")
#: The columns of every per-track table (the cross-track ones stack them), also when a
#: table has no row; the writer refuses a table whose columns differ.
TABLE_COLUMNS = {
    "profile": ("track", "relevance_level", "requests", "runs", "rel_per_request", "docs_per_request",
                "rel_retrieved_per_ranking", "rel_retrieved_sd_per_ranking", "other_relevance_level", "other_requests",
                "other_runs", "other_rel_per_request", "other_docs_per_request"),
    "table2_agreement": ("track", "relevance_level", "n_pair_topics", "sgnLP_suffix_agree", "dRR2_agree", "sgnLP_suffix_ties",
                         "dRR2_ties", "system_n_run_pairs", "system_rrLP_agree", "system_sgnLP_agree")
    + ("other_relevance_level", "other_sgnLP_suffix_agree", "other_dRR2_agree"),
    "table3_ties": ("track", "relevance_level", "n_pair_topics", "LP_ties", "RR_ties")
    + ("other_relevance_level", "other_LP_ties", "other_RR_ties"),
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
    "fig8_agreement": ("track", "relevance_level", "removal", "fraction_removed")
    + tuple(f"{a}_{s}" for a in li.AGREEMENT for s in ("mean", "std")) + ("samples", "pairs"),
    "fig8_agreement_samples": ("track",) + li.SAMPLE_COLUMNS,
    "fig9_label_removal": ("track", "relevance_level", "fraction_removed", "RR_ties_mean", "LP_ties_mean",
                           "RR_ties_std", "LP_ties_std"),
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


def track_table_levels(opts: dict, track: str, rel_level: int) -> dict:
    """:func:`table_levels` of ``track``, table 4 at :func:`.paper.official_level` for a
    track holding a benchmark of the paper unless ``table_relevance`` sets it: the
    benchmark's one level in every configuration holding its data."""
    at = table_levels(opts, rel_level)
    if lp.compared(opts, track) and "table4" not in (opts.get("table_relevance") or {}):
        at["table4"] = lp.official_level(opts, track, rel_level)
    return at


#: the paper's tables whose relevance level the paper does not state (the lexiprecision
#: paper does not say which grades count as relevant in tables 1-3): for a track compared
#: with the paper they are also computed at :func:`other_level`, named beside the cell
UNSTATED_LEVEL_TABLES = ("table1", "table2", "table3")
#: their columns given at the other level (``other_<column>``)
OTHER_COLUMNS = {"table1": ("requests", "runs", "rel_per_request", "docs_per_request"),
                 "table2": ("sgnLP_suffix_agree", "dRR2_agree"), "table3": ("LP_ties", "RR_ties")}


def _comparisons(grid, at: dict, rel_level: int, levels: int, opts: dict, pairs_path, extra_levels=()) -> dict:
    """{relevance level: (PositionVectors, PairTotals, RR runs x topics)} of a track's grid,
    every pair compared a block at a time (:mod:`.pairblocks`); the pairs of ``rel_level``
    written to ``pairs_path`` on the way; ``extra_levels`` computed too."""
    from reeval.io.tables import table_schema, write_table_parts

    out = {}
    for lvl in sorted({rel_level, *at.values(), *extra_levels}):
        pv = lx.grid_position_vectors(grid, rel_level=lvl, levels=levels)
        S, T = pv.shape
        keep = (lvl == at["table4"] and opts["hsd_design"] == "randomised"
                and pb.randomised_preferences(S, T, opts["hsd_resamples"]))
        if lvl == rel_level:
            totals = pb.PairTotals(pv, levels, keep_values=keep)
            write_table_parts(pb.pair_rows(pv, levels, totals), table_schema(lx.pair_columns(levels)), pairs_path)
        else:
            totals = pb.fold_pairs(pv, levels, keep_values=keep)
        out[lvl] = (pv, totals, lx.reciprocal_rank(pv))
    return out


def hsd_seeds(opts: dict, track: str) -> list:
    """Seeds of the randomised HSD for a track: ``hsd_seeds`` (the first gives the verdicts)
    for a track compared with the paper (:func:`.paper.compared`), whose table 4a cells
    need the range over seeds; the first seed alone for the others."""
    seeds = list(opts["hsd_seeds"])
    return seeds if lp.compared(opts, track) else seeds[:1]


#: the paired tests' corrections table 4 gives for a track compared with the paper: the
#: paper's stated Bonferroni and Holm's step-down, which reproduces its DL-2019 cells
PAPER_CORRECTIONS = ("bonferroni", "holm")


def _table4(pv4, totals4, rr4, track: str, opts: dict) -> tuple:
    """(pair tests, table 4) at table 4's level; the randomised HSD's range over seeds
    for a track compared with the paper (:func:`hsd_seeds`). Beyond
    :data:`.pairblocks.HSD_PREFERENCE_CELLS` the preferences take the blocked HSD, and
    their table 4 rows say so in ``procedure`` (:func:`.pairblocks.mark_blocked_preferences`)."""
    S, T = pv4.shape
    alpha, design, resamples = opts["alpha"], opts["hsd_design"], opts["hsd_resamples"]
    procedure = {"correction": opts["paired_correction"], "hsd_design": design, "hsd_resamples": resamples}
    seeds = hsd_seeds(opts, track)
    ii, jj = pb.pair_range(S, 0, S * (S - 1) // 2)
    tests = ls.pair_tests_from(pv4.runs, ii, jj, T, totals4.sums, rr4, opts["paired_correction"],
                               lambda: pb.hsd_verdicts(totals4, rr4, alpha, design, resamples, seeds[0]))
    spread = (pb.hsd_seed_range(totals4, rr4, alpha, resamples, seeds[1:])
              if design == "randomised" and len(seeds) > 1 else None)
    # a track compared with the paper: both Bonferroni (table 4b's stated correction) and Holm
    also = PAPER_CORRECTIONS if lp.compared(opts, track) else ()
    power = ls.discriminative_power(tests, alpha=alpha, seed_range=spread, n_seeds=len(seeds), also=also,
                                    **procedure)
    if design == "randomised":
        pb.mark_blocked_preferences(power, S, T, resamples)
    return tests, power


def _other(by_level: dict, others: dict, table: str, values) -> dict:
    """``other_relevance_level`` and ``other_<column>`` of a table whose level the paper
    does not state, at ``others[table]`` (NaN for a track not compared with the paper);
    ``values``: (PositionVectors, PairTotals, RR) -> {column: value} (:data:`OTHER_COLUMNS`)."""
    lvl = others.get(table)
    got = values(by_level[lvl]) if lvl is not None else {}
    return {"other_relevance_level": lvl if lvl is not None else math.nan,
            **{f"other_{k}": got.get(k, math.nan) for k in OTHER_COLUMNS[table]}}


def _paired_at(level_tables: tuple, level: int, opts: dict) -> pd.DataFrame:
    """Table 4b's rows (the paired tests under the configured correction and
    :data:`PAPER_CORRECTIONS`) at another relevance ``level``, from that level's
    (PositionVectors, PairTotals, RR): the other choice of the level the paper does not
    state, beside table 4b's cells. The HSD is not run at it (no table 4a rows)."""
    pv, totals, rr = level_tables
    S, T = pv.shape
    ii, jj = pb.pair_range(S, 0, S * (S - 1) // 2)
    tests = ls.pair_tests_from(pv.runs, ii, jj, T, totals.sums, rr, opts["paired_correction"],
                               lambda: {name: np.zeros(ii.size, dtype=bool) for name in ls.MEASURES})
    power = ls.discriminative_power(tests, alpha=opts["alpha"], correction=opts["paired_correction"],
                                    hsd_design=opts["hsd_design"], also=PAPER_CORRECTIONS)
    power = power[power.test == "paired"].reset_index(drop=True)
    power.insert(0, "relevance_level", level)
    return power


def _paper_tables(track: str, by_level: dict, at: dict, depth, opts: dict, others: dict | None = None) -> dict:
    """Tables 1-4 and the pair tests, each at its level ``at[table]``; tables 1-3 also at
    ``others[table]`` (:data:`UNSTATED_LEVEL_TABLES`) when given, and table 4b at
    ``others["table4"]`` (rows after table 4's own, :func:`_paired_at`)."""
    others = others or {}
    pv1 = by_level[at["table1"]][0]
    t2, t3 = by_level[at["table2"]][1], by_level[at["table3"]][1]
    pv4, t4, rr4 = by_level[at["table4"]]
    tests, power = _table4(pv4, t4, rr4, track, opts)
    power.insert(0, "relevance_level", at["table4"])
    if "table4" in others:
        power = pd.concat([power, _paired_at(by_level[others["table4"]], others["table4"], opts)], ignore_index=True)
    return {
        "profile": pd.DataFrame([{"track": track, "relevance_level": at["table1"],
                                  **lt.track_profile(pv1, depth),
                                  **_other(by_level, others, "table1", lambda c: lt.track_profile(c[0], depth))}]),
        "table2_agreement": pd.DataFrame([{"track": track, "relevance_level": at["table2"],
                                           **t2.ranking_agreement(),
                                           **{f"system_{k}": v for k, v in t2.system_agreement().items()},
                                           **_other(by_level, others, "table2", lambda c: c[1].ranking_agreement())}]),
        "table3_ties": pd.DataFrame([{"track": track, "relevance_level": at["table3"], **t3.tie_rates(),
                                      **_other(by_level, others, "table3", lambda c: c[1].tie_rates())}]),
        "table4_discriminative_power": power,
        "pair_tests": tests,
    }


def track_lexiprecision(track: str, track_dir, out_dir, rel_level: int, config: dict,
                        figures: bool = True, included: IncludedTrack | None = None) -> dict:
    """Compute and write every per-track table, and its figures when ``figures``; returns
    the tables by name.
    ``config``: the ``lexiprecision`` section with its defaults filled in
    (:func:`reeval.workflow.config_check.section_with_defaults`).

    Tables 1-4 use the levels of :func:`track_table_levels`; figures 8 and 9 the benchmark's
    one level for a track holding a benchmark of the paper (:func:`.paper.official_level`:
    their claims are cells of the paper comparison, the same in every configuration holding
    the data), else ``rel_level``, recorded in their ``relevance_level`` column; the other
    figures' data, ``positions`` and ``pairs`` use ``rel_level``. ``included``: the track as
    already read (:func:`reeval.workflow.measures_step.read_included_track` of ``track_dir``), shared
    with the other studies of a job; read here when not given."""
    opts = config
    included = included or read_included_track(track_dir)
    grid, depth = included.grid, included.depth
    levels = int(opts["levels"])
    at = track_table_levels(opts, track, rel_level)
    others = ({t: other_level(at[t], rel_level) for t in (*UNSTATED_LEVEL_TABLES, "table4")}
              if lp.compared(opts, track) else {})
    out = Path(out_dir)
    by_level = _comparisons(grid, at, rel_level, levels, opts, out / "pairs.parquet", others.values())
    pv, totals, _ = by_level[rel_level]
    corr, regression = totals.locality()
    # figures 8 and 9 remove the same labels: their position vectors built once for both
    fig_level = lp.official_level(opts, track, rel_level)
    agreement, removal = li.grid_label_removal_studies(grid, rel_level=fig_level,
                                                       fractions=opts["label_removal"]["fractions"],
                                                       samples=opts["label_removal"]["samples"],
                                                       seed=opts["label_removal"]["seed"])
    tables = {
        **_paper_tables(track, by_level, at, depth, opts, others),
        "fig3_ties_by_p1": lt.tie_probability_by_p1(pv),
        "fig5_ties_by_level": totals.tie_probability_by_level(),
        "fig6_i_star_ecdf": totals.i_star_distribution(),
        "fig7_correlation": _by_level(corr),
        "fig7_regression": regression,
        "fig8_agreement": li.summarize_agreement(agreement).assign(relevance_level=fig_level),
        "fig8_agreement_samples": agreement,
        "fig9_label_removal": lt.summarize_label_removal(removal).assign(relevance_level=fig_level),
        "fig9_label_removal_samples": removal,
    }
    for name, df in tables.items():
        if "track" not in df.columns:
            df.insert(0, "track", track)
        write_table_pair(df, out, name, columns=TABLE_COLUMNS[name])
    write_table(pv.to_table(), out / "positions.parquet")
    if figures:
        track_lexiprecision_figures(track, out, rel_level)
    return tables


#: the tables of :func:`track_lexiprecision` its figures draw (with ``positions.parquet``)
FIGURE_TABLES = ("fig3_ties_by_p1", "fig5_ties_by_level", "fig6_i_star_ecdf", "fig7_correlation",
                 "fig7_regression", "fig8_agreement", "fig9_label_removal")


def track_lexiprecision_figures(track: str, out_dir, rel_level: int) -> None:
    """Figures 3, 5, 6, 7, 8 and 9 of one track, drawn from the tables
    :func:`track_lexiprecision` wrote in ``out_dir`` (:data:`FIGURE_TABLES`; figure 7's
    points from ``positions.parquet``, :func:`read_positions`): the rule ``track_figures``,
    apart from the per-track analyses, so that whether a study draws them is no input of those."""
    out = Path(out_dir)
    tables = {name: pd.read_parquet(out / f"{name}.parquet") for name in FIGURE_TABLES}
    pv = read_positions(out / "positions.parquet", rel_level)
    lf.track_figures(track, tables, out, lf.locality_points(pv))


def read_positions(path, rel_level: int, levels: int = 8) -> lx.PositionVectors:
    """The position vectors ``positions.parquet`` holds (one row per run x topic, runs
    major, as :meth:`reeval.analyses.lexiprecision.core.PositionVectors.to_table` writes
    them) at relevance level ``rel_level``: positions beyond ``found`` are UNRETRIEVED and
    the last axis is max(``levels``, the most found) long (the default 8: figure 7's
    dRR_1..dRR_8)."""
    import pyarrow.parquet as pq

    t = pq.read_table(path)
    qid, run = t.column("qid").to_pylist(), t.column("run").to_pylist()
    n_topics = next((i for i, r in enumerate(run) if r != run[0]), len(run)) if run else 0
    runs, topics = run[::n_topics] if n_topics else [], qid[:n_topics]
    found = t.column("found").to_numpy().astype(np.int64).reshape(len(runs), n_topics)
    width = max(levels, int(found.max()) if found.size else 0)
    positions = np.full((len(runs), n_topics, width), lx.UNRETRIEVED, dtype=np.int32)
    filled = np.arange(width)[None, None, :] < found[:, :, None]
    positions[filled] = t.column("positions").combine_chunks().flatten().to_numpy()
    m = t.column("m").to_numpy()[:n_topics].astype(np.int64)
    return lx.PositionVectors(runs, topics, m, found, positions, rel_level)


def _by_level(corr: pd.DataFrame) -> pd.DataFrame:
    """The correlation matrix of :func:`reeval.analyses.lexiprecision.ties.locality` (rows and columns
    dRR_1 ..) with the row's recall level i as an integer column ``level``."""
    out = corr.reset_index(drop=True)
    out.insert(0, "level", [int(name.removeprefix("dRR_")) for name in corr.index])
    return out


def summarize_lexiprecision(track_dirs: dict, out_dir, levels: dict, config: dict) -> None:
    """Cross-track tables, figures 2/3/5/6/9 overlaid and ``summary.md`` (the paper's
    cells beside ours: rule ``papers``).
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
    lf.theoretical_figure(theory, n, out / "fig2_theoretical_ties")
    lf.cross_track_figures(tables, out, NO_TRACK_FIGURE_NOTE)
    write_text(summary_markdown(tables), out / "summary.md")


def _at(df: pd.DataFrame, key: str, value, column: str) -> pd.Series:
    """Per track, ``column`` of the row whose ``key`` equals ``value`` (NaN where none)."""
    return df[df[key] == value].set_index("track")[column]


def tracks_table(tables: dict) -> pd.DataFrame:
    """One row per track with the values the cross-track figures draw, so that the tracks
    behind a distribution can be named: the tie probability at p1 = 1 (figure 3), at
    recall levels 1 and 10 (figure 5), the median i* (figure 6: the smallest i* whose ECDF
    reaches 0.5), and the tied pairs of RR and LP with every label and with the largest
    fraction of labels removed (figure 9). Numbers as text (markdown), ``n/a`` where the
    track has none."""
    tracks = sorted(tables["profile"].track.unique())
    f5, f9 = tables["fig5_ties_by_level"], tables["fig9_label_removal"]
    f5 = f5[f5.pair_topics > 0]
    e = tables["fig6_i_star_ecdf"]
    median_i = e[e.ecdf >= 0.5].groupby("track").i_star.min()
    most = f9.fraction_removed.max() if len(f9) else math.nan
    cols = {
        "ties at p1 = 1 (fig. 3)": _at(tables["fig3_ties_by_p1"], "p1", 1, "probability"),
        "P(p_1 = p'_1) (fig. 5)": _at(f5, "level", 1, "probability"),
        "P(p_10 = p'_10) (fig. 5)": _at(f5, "level", 10, "probability"),
        "median i* (fig. 6)": median_i,
        "RR ties % (fig. 9)": _at(f9, "fraction_removed", 0.0, "RR_ties_mean"),
        "LP ties % (fig. 9)": _at(f9, "fraction_removed", 0.0, "LP_ties_mean"),
        f"RR ties %, {fmt(100 * most, 0)}% removed": _at(f9, "fraction_removed", most, "RR_ties_mean"),
        f"LP ties %, {fmt(100 * most, 0)}% removed": _at(f9, "fraction_removed", most, "LP_ties_mean"),
    }
    out = pd.DataFrame({"track": tracks})
    for name, values in cols.items():
        digits = 1 if "%" in name else 3
        out[name] = [fmt(values.get(t, math.nan), digits) for t in tracks]
    return out


def summary_markdown(tables: dict) -> str:
    """``lexiprecision/summary.md``: the cross-track figures and the table naming the
    tracks behind them (template ``lexiprecision_summary.md``)."""
    n = int(tables["profile"].track.nunique())
    return render("lexiprecision_summary.md", n_tracks=n, few_tracks=lf.FEW_TRACKS, many_lines=lf.MANY_LINES,
                  no_track_note="" if n else NO_TRACK_INCLUDED,
                  one_track_note=lf.ONE_TRACK_NOTE + "." if n == 1 else "",
                  tracks_table=table(tracks_table(tables)))
