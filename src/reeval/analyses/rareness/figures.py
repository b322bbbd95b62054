"""Figures of the rareness study, drawn from its tables in the reeval style
(:mod:`reeval.report.figures`).

Per track: ``tau`` (the paper's figure 2: Kendall's tau of each rareness measure with its
base, against alpha), ``n_systems`` (table 3 drawn: tau between the full ranking and one
computed from N sampled runs) and ``synthetic`` (figure 1: the rank of the rare and common
synthetic systems against the relevant documents they retrieve). Across tracks:
``tau_by_track`` and ``n_systems_by_track``, one panel per track up to
:data:`PAGE_TRACKS` tracks (a page; ``tau_by_track`` is then the paper's figure 2: Kendall
tau against alpha, one panel per track, its two measures), else per measure family the
distribution over tracks, the tracks then named in ``summary.md``'s table.

Series that coincide (the normalized and plain measure often rank the runs alike) are
drawn once, with one legend entry naming both (``A = B``).
"""

from __future__ import annotations

import math

import pandas as pd

from reeval.report.figures import (PALETTE, across_tracks, band_legend_handles, coinciding,
                                   coinciding_label, figure_style, integer_ticks, log2_ticks, new_figure,
                                   note, save_figure_pair)

TAU_LABEL = "Kendall's τ with the base (α = 0)"
#: up to this many tracks the cross-track figures have one panel per track, four to a row
#: (three rows fill a page); figure 2 is then in the paper's form (:func:`paper_measures`)
PAGE_TRACKS = 12
#: the measures of the paper's figure 2 (its series: P@k vs P@k rareness, AP vs AP rareness)
PAPER_FAMILIES = ("P_rareness", "AP_rareness")
ALPHA_LABEL = "rarity weight α"
ONE_TRACK_NOTE = "1 track: no distribution across tracks"


def numeric_alpha(df: pd.DataFrame) -> pd.DataFrame:
    """Rows whose alpha is a number, with it as ``alpha_value`` (``1/R`` is kept in the
    tables, not on alpha axes)."""
    a = pd.to_numeric(df["alpha"], errors="coerce")
    return df.assign(alpha_value=a)[a.notna()]


def n_systems_rows(df: pd.DataFrame) -> pd.DataFrame:
    """Rows at the largest numeric alpha (the paper's table 3 uses alpha = 1)."""
    num = numeric_alpha(df)
    return num[num.alpha_value == num.alpha_value.max()] if len(num) else num


def short(measure: str) -> str:
    """A measure as the legends write it: ``AP_rareness_norm@100`` -> ``AP rareness norm``
    (the cutoff k goes in the legend's title, :func:`cutoff`)."""
    return measure.split("@")[0].replace("_", " ")


def cutoff(measures) -> str:
    """``k = 100`` from measure names like ``P_rareness@100`` ("" without a cutoff)."""
    ks = sorted({m.split("@")[1] for m in measures if "@" in m})
    return f"k = {', '.join(ks)}" if ks else ""


def coincide_note(ax, groups: list, n_series: int, what: str = "") -> None:
    """Say on the panel which series are drawn once because they coincide."""
    same = [g for g in groups if len(g) > 1]
    if not same:
        return
    if len(same) == 1 and len(same[0]) == n_series:
        text = f"{'both' if n_series == 2 else f'all {n_series}'} {what}coincide"
    else:
        text = "\n".join(coinciding_label(g) for g in same) + f"\n{what}coincide"
    note(ax, text, "lower left")


def paper_measures(measures) -> list:
    """The measures the paper's figure 2 draws (P_rareness@k, AP_rareness@k) among
    ``measures``; all of them when neither is there."""
    chosen = [m for m in measures if m.split("@")[0] in PAPER_FAMILIES]
    return chosen or list(measures)


def _family(measure: str) -> str:
    return short(measure).replace(" norm", "")


def _style(measure: str) -> str:
    """Normalized measures dashed, plain ones solid."""
    return "--" if "norm" in measure else "-"


def _colors(measures) -> dict:
    """One colour per measure family (P, AP), the normalized measure dashed in the same colour."""
    families = list(dict.fromkeys(_family(m) for m in measures))
    return {m: PALETTE[families.index(_family(m)) % len(PALETTE)] for m in measures}


def draw_series(ax, series: dict, colors: dict, styles: dict, marker="o") -> list:
    """Lines ``label -> (x, y)``; series that coincide drawn once, labelled ``A = B``.
    Returns the groups of :func:`reeval.report.figures.coinciding`."""
    groups = coinciding(series)
    for group in groups:
        x, y = series[group[0]]
        ax.plot(x, y, marker=marker, color=colors[group[0]], linestyle=styles[group[0]],
                label=coinciding_label(group))
    return groups


def _measure_series(df: pd.DataFrame, x: str, y: str) -> dict:
    return {short(m): (g[x].to_numpy(float), g[y].to_numpy(float))
            for m, g in df.sort_values(x).groupby("measure", sort=False)}


def _draw_measures(ax, df: pd.DataFrame, x: str, y: str, colors: dict, in_legend: bool) -> list:
    series = _measure_series(df, x, y)
    groups = draw_series(ax, series, colors, {m: _style(m) for m in series})
    if not in_legend:
        coincide_note(ax, groups, len(series))
    return groups


def _tau_axes(ax, df: pd.DataFrame, colors: dict, in_legend: bool = True) -> None:
    _draw_measures(ax, numeric_alpha(df), "alpha_value", "tau", colors, in_legend)
    ax.axhline(0.9, color="grey", linewidth=0.6, linestyle=":")
    ax.set_xlabel(ALPHA_LABEL)


def _n_systems_axes(ax, df: pd.DataFrame, colors: dict, in_legend: bool = True) -> None:
    _draw_measures(ax, n_systems_rows(df), "n_systems", "mean_tau", colors, in_legend)
    ax.set_xscale("log", base=2)
    log2_ticks(ax.xaxis)
    ax.set_xlabel("runs sampled N")


# ------------------------------------------------------------------ per track

@figure_style()
def plot_tau(tau: pd.DataFrame, path_stem, title: str = "") -> None:
    """Kendall tau between each rareness measure and its base, against alpha (figure 2);
    the dotted line is tau = 0.9."""
    fig, ax = new_figure("column", 2.8)
    _tau_axes(ax, tau, _colors([short(m) for m in tau.measure.unique()]))
    ax.set_ylabel(TAU_LABEL)
    ax.set_title(title)
    if len(tau):
        ax.legend(loc="lower left", title=cutoff(tau.measure.unique()))
    save_figure_pair(fig, path_stem)


@figure_style()
def plot_n_systems(n_systems: pd.DataFrame, path_stem, title: str = "") -> None:
    """Mean Kendall tau between full and sample rankings against the sample size N, at
    the largest alpha."""
    fig, ax = new_figure("column", 2.8)
    rows = n_systems_rows(n_systems)
    _n_systems_axes(ax, n_systems, _colors([short(m) for m in rows.measure.unique()]))
    ax.set_ylabel("mean Kendall's τ, sample vs all runs")
    ax.set_title(title)
    if len(rows):
        ax.legend(loc="lower right", title=f"{cutoff(rows.measure.unique())}, α = {rows.alpha.iloc[0]}")
    else:
        note(ax, "fewer runs than the smallest sample", "center center")
    save_figure_pair(fig, path_stem)


@figure_style()
def plot_synthetic(syn: pd.DataFrame, path_stem, title: str = "") -> None:
    """Rank of S_rare (left) and S_common (right) among the real runs against D, the
    relevant documents they retrieve (figure 1), one line per measure and alpha."""
    fig, axes = new_figure("page", 4.0, 1, 2, sharey=True)
    keys = list(dict.fromkeys(zip(syn.measure, syn.alpha)))
    colors = {f"{short(m)}, α = {a}": PALETTE[k % len(PALETTE)] for k, (m, a) in enumerate(keys)}
    for ax, system in zip(axes, ("rare", "common")):
        sub = syn[syn.system == system]
        series = {f"{short(m)}, α = {a}": (g.docs.to_numpy(float), g["rank"].to_numpy(float))
                  for (m, a), g in sub.groupby(["measure", "alpha"], sort=False)}
        draw_series(ax, series, colors, {k: _style(k) for k in series}, marker=None)
        moving = sub.loc[sub["rank"] > 1, "docs"]
        if len(moving):  # show where the ranks move, not a long flat tail at rank 1
            ax.set_xlim(0, min(sub.docs.max(), max(10, int(1.5 * moving.max()) + 2)))
        ax.set_xlabel("relevant documents retrieved D")
        ax.set_title(f"$S_{{\\mathrm{{{system}}}}}$", parse_math=True)  # system: "rare" or "common"
        integer_ticks(ax.xaxis, ax.yaxis)
        if len(sub):
            ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), title=cutoff(sub.measure.unique()))
    axes[0].set_ylabel("rank among the runs (1 = best)")
    qid = syn["qid"].iloc[0] if len(syn) else "-"
    fig.suptitle(f"{title}: topic {qid}")
    save_figure_pair(fig, path_stem)


# ------------------------------------------------------------------ across tracks

@figure_style()
def by_track_figure(what: str, stacked: pd.DataFrame, tracks: list, path_stem, empty_note: str) -> None:
    """``tau_by_track`` (``what`` = "tau") or ``n_systems_by_track``: one panel per track up to
    PAGE_TRACKS tracks, four to a row (figure 2 then draws the paper's two measures,
    :func:`paper_measures`), else one panel per measure family with the distribution over
    tracks of the plain (solid) and normalized (dashed) measure."""
    n = len(tracks)
    ylabel = TAU_LABEL if what == "tau" else "mean Kendall's τ, sample vs all runs"
    if n <= PAGE_TRACKS:
        if what == "tau":
            stacked = stacked[stacked.measure.isin(paper_measures(list(dict.fromkeys(stacked.measure))))]
        measures = list(dict.fromkeys(short(m) for m in stacked.measure))
        colors = _colors(measures)
        cols = min(4, max(n, 1))
        rows = math.ceil(max(n, 1) / cols)
        fig, axes = new_figure("page", 2.0 * rows + 0.8, rows, cols, sharey=True, squeeze=False)
        for ax, track in zip(axes.ravel(), tracks):
            df = stacked[stacked.track == track]
            (_tau_axes if what == "tau" else _n_systems_axes)(ax, df, colors, in_legend=False)
            ax.set_title(track)
        for ax in axes.ravel()[max(n, 1):]:
            ax.set_visible(False)
        for ax in axes[:, 0]:  # a full label needs the height of one row alone
            ax.set_ylabel(ylabel if rows == 1 else ("Kendall's τ" if what == "tau" else "mean Kendall's τ"))
        from matplotlib.lines import Line2D
        handles = [Line2D([], [], color=colors[m], linestyle=_style(m), marker="o", label=m) for m in measures]
        if handles:
            fig.legend(handles=handles, loc="outside lower center", ncol=min(4, len(handles)),
                       title=cutoff(stacked.measure.unique()) + (", each against its base (α = 0)"
                                                                  if what == "tau" else ""))
        if n == 1:
            note(axes[0, 0], ONE_TRACK_NOTE, "lower right")
    else:
        measures = list(dict.fromkeys(short(m) for m in stacked.measure))
        families = list(dict.fromkeys(_family(m) for m in measures))
        fig, axes = new_figure("page", 2.8, 1, len(families), sharey=True, squeeze=False)
        for ax, family in zip(axes.ravel(), families):
            _family_distribution(ax, what, stacked, [m for m in dict.fromkeys(stacked.measure)
                                                     if _family(m) == family])
            ax.set_title(f"{family}: {n} tracks")
        fig.legend(handles=band_legend_handles(), loc="outside lower center", ncol=3)
        axes[0, 0].set_ylabel(ylabel)
    if not n:
        note(axes[0, 0], empty_note, "center center")
    save_figure_pair(fig, path_stem)


def _family_distribution(ax, what: str, stacked: pd.DataFrame, members: list) -> None:
    """The distribution over tracks of each measure of one family (plain solid, normalized
    dashed); medians that coincide are said on the panel."""
    x, y = ("alpha_value", "tau") if what == "tau" else ("n_systems", "mean_tau")
    rows = numeric_alpha(stacked) if what == "tau" else pd.concat(
        [n_systems_rows(g) for _, g in stacked.groupby("track")]) if len(stacked) else stacked
    medians = {}
    for k, m in enumerate(members):
        sub = rows[rows.measure == m]
        across_tracks(ax, sub, x, y, PALETTE[k], linestyle=_style(m), label=f"{short(m)}, median", marker="o")
        med = sub.groupby(x)[y].median()
        medians[short(m)] = (med.index.to_numpy(float), med.to_numpy(float))
    coincide_note(ax, coinciding(medians), len(medians), "medians ")
    if what == "tau":
        ax.axhline(0.9, color="grey", linewidth=0.6, linestyle=":")
        ax.set_xlabel(ALPHA_LABEL)
    else:
        ax.set_xscale("log", base=2)
        log2_ticks(ax.xaxis)
        ax.set_xlabel("runs sampled N")
    ax.legend(loc="lower right", title=cutoff(members))
