"""Figures of the lexicographic-precision study, drawn from its tables in the reeval style
(:mod:`reeval.report.figures`).

Per track: figures 3, 5, 6, 9 (a column wide) and 7 (a page wide). Across tracks:
figure 2 (theory) and figures 3, 5, 6, 9 with one line per track up to
:data:`~reeval.report.figures.FEW_TRACKS` tracks, and above that the distribution over
tracks (median, middle half, range), the tracks then named in ``summary.md``'s table
(:func:`reeval.analyses.lexiprecision.report.tracks_table`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from reeval.report.figures import (FEW_TRACKS, PALETTE, across_tracks, band_legend_handles, figure_style,
                                   integer_ticks, new_figure, note, plain_log_ticks, save_figure_pair)

#: the two measures of figure 9 and how they are drawn (the legend says which is which)
FIG9_SERIES = (("RR", "-", "RR (solid)"), ("LP", "--", "rrLP, sgnLP (dashed)"))
#: first-relevant positions p1 grouped for figure 3 across many tracks (a bin is [e_k, e_k+1))
P1_BIN_EDGES = (1, 2, 3, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 10 ** 9)
ONE_TRACK_NOTE = "1 track: no distribution across tracks"
#: where the legend of a distribution over tracks goes (clear of its bands)
DISTRIBUTION_LEGEND = {"fig3_ties_by_p1": "lower left", "fig5_ties_by_level": "upper right",
                       "fig6_i_star_ecdf": "lower right"}


def _fig3_axes(ax, df=None) -> None:
    """Log-log axes of figure 3 (linear when ``df`` has no positive probability to draw:
    a log axis needs one)."""
    if df is None or (df.probability > 0).any():
        ax.set_xscale("log")
        ax.set_yscale("log", nonpositive="mask")
        plain_log_ticks(ax.xaxis, ax.yaxis)
    ax.set_xlabel("position p1 of the first relevant document")
    ax.set_ylabel("P(another run ties on p1)")


def plot_fig3(ax, df, label, color=None) -> int:
    """Tie probability against p1 (log-log). A probability of 0 has no place on a log axis:
    it is not drawn and the line breaks there. Returns how many p1 had no tie."""
    ax.plot(df.p1, df.probability.where(df.probability > 0), marker=".", linestyle="-", color=color, label=label)
    _fig3_axes(ax, df)
    return int((df.probability == 0).sum())


def plot_fig5(ax, df, label, color=None) -> None:
    df = df[df.pair_topics > 0]
    ax.plot(df.level, df.probability, marker="o", label=label, color=color)
    _fig5_axes(ax)


def _fig5_axes(ax) -> None:
    ax.set_xlabel("recall level i")
    ax.set_ylabel("share of pairs tied at level i")
    ax.set_ylim(0, 1)
    integer_ticks(ax.xaxis)


def plot_fig6(ax, df, label, color=None) -> None:
    ax.step(np.r_[1, df.i_star], np.r_[0.0, df.ecdf], where="post", label=label, color=color)
    _fig6_axes(ax)


def _fig6_axes(ax) -> None:
    ax.set_xscale("log")
    plain_log_ticks(ax.xaxis)
    ax.set_xlim(left=1)
    ax.set_xlabel("recall level i* that breaks the tie")
    ax.set_ylabel("share of tied pairs (ECDF)")
    ax.set_ylim(0, 1.01)


def plot_fig9(ax, df, color=None, label_prefix: str = "") -> None:
    """RR (solid) and lexicographic precision (dashed) ties against the fraction of labels
    removed, each with a band of +- one std over the samples."""
    x = df.fraction_removed
    for measure, style, name in FIG9_SERIES:
        mean, std = df[f"{measure}_ties_mean"], df[f"{measure}_ties_std"].fillna(0)
        line, = ax.plot(x, mean, linestyle=style, color=color, label=f"{label_prefix}{name}")
        color = line.get_color()
        ax.fill_between(x, mean - std, mean + std, alpha=0.2, color=color, linewidth=0)
    _fig9_axes(ax)


def _fig9_axes(ax) -> None:
    ax.set_xlabel("fraction of relevance labels removed")
    ax.set_ylabel("tied pairs of rankings (%)")


# ------------------------------------------------------------------ per track

@figure_style()
def track_figures(track: str, t: dict, out) -> None:
    """Figures 3, 5, 6, 7 and 9 of one track (``t``: its tables by name) under ``out``."""
    fig, ax = new_figure("column")
    hidden = plot_fig3(ax, t["fig3_ties_by_p1"], track)
    if hidden:
        note(ax, f"{hidden} values of p1 with no tie\n(probability 0) not drawn")
    ax.set_title(track)
    save_figure_pair(fig, out / "fig3_ties_by_p1")
    for name, plot in (("fig5_ties_by_level", plot_fig5), ("fig6_i_star_ecdf", plot_fig6)):
        fig, ax = new_figure("column")
        plot(ax, t[name], track)
        ax.set_title(track)
        save_figure_pair(fig, out / name)
    fig, ax = new_figure("column")
    plot_fig9(ax, t["fig9_label_removal"])
    ax.legend(loc="upper left")
    ax.set_title(f"{track}: ties (band: +- 1 std over samples)")
    save_figure_pair(fig, out / "fig9_label_removal")
    locality_figure(track, t["fig7_correlation"], t["fig7_regression"], out / "fig7_locality")


def locality_figure(track: str, corr: pd.DataFrame, reg: pd.DataFrame, path_stem) -> None:
    """Figure 7: Pearson r among the dRR_i (heat map) and the regression coefficients of
    dRR_i on dRR_i+1..i+4, a page wide."""
    fig, (a1, a2) = new_figure("page", 3.0, 1, 2)
    values = corr.drop(columns=["track", "level"]).to_numpy(dtype=float)
    if np.isfinite(values).any():
        im = a1.imshow(values, vmin=-1, vmax=1, cmap="RdBu_r")
        ticks = np.arange(values.shape[0])
        a1.set_xticks(ticks, [str(k + 1) for k in ticks])
        a1.set_yticks(ticks, [str(k + 1) for k in ticks])
        for (r, c), v in np.ndenumerate(values):
            a1.text(c, r, f"{v:.2f}", ha="center", va="center", fontsize=7,
                    color="white" if abs(v) > 0.6 else "black")
        fig.colorbar(im, ax=a1, shrink=0.9, label="Pearson $r$")
        for k, (i, g) in enumerate(reg.groupby("i")):
            a2.plot(g.j, g.coefficient, marker="o", color=PALETTE[k % len(PALETTE)], label=rf"$\Delta RR_{{{i}}}$")
        a2.axhline(0, color="grey", linewidth=0.5)
        a2.legend(title="regressed", loc="upper right")
        integer_ticks(a2.xaxis)
    else:
        note(a1, "no pair of rankings with $m \\geq 8$", "center center")
        note(a2, "no pair of rankings with $m \\geq 8$", "center center")
    a1.set_title(rf"{track}: Pearson $r$ among $\Delta RR_i$ ($m \geq 8$)")
    a1.set_xlabel("recall level $i$")
    a1.set_ylabel("recall level $i$")
    a2.set_title(r"regression of $\Delta RR_i$ on $\Delta RR_{i+1} \ldots \Delta RR_{i+4}$")
    a2.set_xlabel(r"$j$ (predictor $\Delta RR_{i+j}$)")
    a2.set_ylabel("coefficient")
    save_figure_pair(fig, path_stem)


# ------------------------------------------------------------------ across tracks

@figure_style()
def theoretical_figure(theory: pd.DataFrame, n: int, path_stem) -> None:
    """Figure 2: P(tie | p1) of a uniformly random second ranking, one line per m."""
    fig, ax = new_figure("column")
    for m, g in theory[theory.probability > 0].groupby("m"):
        ax.loglog(g.p1, g.probability, label=f"m = {m}")
    at_top = theory.loc[theory.p1 == 1, "probability"]
    ax.set_ylim(1e-3 * at_top.min(), 3 * at_top.max())
    plain_log_ticks(ax.xaxis, ax.yaxis)
    ax.set_xlabel("position p1 of the first relevant document")
    ax.set_ylabel("P(tie on p1)")
    ax.set_title(f"uniformly random second ranking, n = {n:,}")
    ax.legend(ncol=2, loc="lower left", title="relevant documents")
    save_figure_pair(fig, path_stem)


def binned_fig3(df: pd.DataFrame) -> pd.DataFrame:
    """Figure 3's table per track pooled in the p1 bins of :data:`P1_BIN_EDGES`:
    ``track, p1`` (the bin's geometric middle), ``probability`` (the rankings-weighted mean
    of the bin's probabilities: its tied pairs over its rankings' possible pairs)."""
    edges = np.asarray(P1_BIN_EDGES)
    k = np.searchsorted(edges, df.p1.to_numpy(), side="right") - 1
    lo, hi = edges[k], edges[k + 1] - 1
    d = df.assign(bin=k, mid=np.sqrt(lo * np.minimum(hi, df.p1.max())), w=df.probability * df.rankings)
    g = d.groupby(["track", "bin"], as_index=False).agg(p1=("mid", "first"), w=("w", "sum"), r=("rankings", "sum"))
    return g.assign(probability=g.w / g.r)[["track", "p1", "probability"]]


def ecdf_on_grid(df: pd.DataFrame) -> pd.DataFrame:
    """Figure 6's ECDF of every track evaluated at every i* any track has (a step function:
    the share of tied pairs broken at or before i*), so tracks can be compared at each i*."""
    grid = np.unique(df.i_star.to_numpy())
    rows = []
    for track, g in df.groupby("track", sort=True):
        at = np.searchsorted(g.i_star.to_numpy(), grid, side="right") - 1
        rows.append(pd.DataFrame({"track": track, "i_star": grid,
                                  "ecdf": np.where(at >= 0, g.ecdf.to_numpy()[np.maximum(at, 0)], 0.0)}))
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=["track", "i_star", "ecdf"])


@figure_style()
def cross_track_figures(tables: dict, out, empty_note: str) -> None:
    """Figures 3, 5, 6 and 9 across tracks (``tables``: the stacked per-track tables):
    one line per track up to FEW_TRACKS tracks, else the distribution over tracks;
    ``empty_note`` is written on them when no track is included."""
    tracks = sorted(tables["fig5_ties_by_level"].track.unique())
    n = len(tracks)
    few = n <= FEW_TRACKS
    colors = {t: PALETTE[k % len(PALETTE)] for k, t in enumerate(tracks)}
    for name in ("fig3_ties_by_p1", "fig5_ties_by_level", "fig6_i_star_ecdf"):
        df = tables[name]
        fig, ax = new_figure("column", 2.8)
        if few:
            hidden = 0
            for track, g in df.groupby("track", sort=True):
                if name == "fig3_ties_by_p1":
                    hidden += plot_fig3(ax, g, track, colors[track])
                else:
                    {"fig5_ties_by_level": plot_fig5, "fig6_i_star_ecdf": plot_fig6}[name](ax, g, track, colors[track])
            if n:
                ax.legend(loc="lower left" if name == "fig3_ties_by_p1" else "best", title="track")
            if hidden:
                note(ax, f"{hidden} (track, p1) with no tie\n(probability 0) not drawn")
        else:
            _distribution(ax, name, df)
            ax.legend(handles=band_legend_handles(PALETTE[0]), loc=DISTRIBUTION_LEGEND[name])
            if name == "fig3_ties_by_p1":
                note(ax, "p1 in bins 1, 2, 3-4, 5-9, 10-19 ...;\na bin with no tie (0) not drawn")
        if name == "fig3_ties_by_p1":
            _fig3_axes(ax, df)
        else:
            _axes_of(name)(ax)
        _title(ax, name, n, empty_note)
        save_figure_pair(fig, out / name)
    fig9_across_tracks(tables["fig9_label_removal"], tracks, colors, out / "fig9_label_removal", empty_note)


def _axes_of(name):
    return {"fig3_ties_by_p1": _fig3_axes, "fig5_ties_by_level": _fig5_axes, "fig6_i_star_ecdf": _fig6_axes}[name]


def _distribution(ax, name: str, df: pd.DataFrame) -> None:
    if name == "fig3_ties_by_p1":
        b = binned_fig3(df)
        across_tracks(ax, b.assign(probability=b.probability.where(b.probability > 0)), "p1", "probability",
                      PALETTE[0], marker=".")
    elif name == "fig5_ties_by_level":
        across_tracks(ax, df[df.pair_topics > 0], "level", "probability", PALETTE[0], marker="o")
    else:
        across_tracks(ax, ecdf_on_grid(df), "i_star", "ecdf", PALETTE[0])


def _title(ax, name: str, n: int, empty_note: str) -> None:
    what = {"fig3_ties_by_p1": "ties by first relevant position", "fig5_ties_by_level": "ties by recall level",
            "fig6_i_star_ecdf": "recall level breaking a tie", "fig9_label_removal": "ties as labels are removed"}[name]
    ax.set_title(f"{what}, {n} track{'s' if n != 1 else ''}")
    if n == 0:
        note(ax, empty_note, "center center")
    elif n == 1:
        note(ax, ONE_TRACK_NOTE, "lower right" if name == "fig9_label_removal" else "upper right")


def fig9_across_tracks(df: pd.DataFrame, tracks: list, colors: dict, path_stem, empty_note: str) -> None:
    """Figure 9 across tracks: per track a colour (few tracks) or the distribution over
    tracks (many), RR solid and lexicographic precision dashed either way, said in the legend."""
    from matplotlib.lines import Line2D

    fig, ax = new_figure("column", 2.8)
    n = len(tracks)
    style = [Line2D([], [], color="black", linestyle=s, label=label) for _, s, label in FIG9_SERIES]
    if n <= FEW_TRACKS:
        for track, g in df.groupby("track", sort=True):
            for measure, s, _ in FIG9_SERIES:
                ax.plot(g.fraction_removed, g[f"{measure}_ties_mean"], linestyle=s, color=colors[track])
        handles = style + [Line2D([], [], color=colors[t], label=t) for t in tracks]
    else:
        handles = []
        for (measure, s, label), color in zip(FIG9_SERIES, PALETTE):
            across_tracks(ax, df, "fraction_removed", f"{measure}_ties_mean", color, linestyle=s)
            handles.append(Line2D([], [], color=color, linestyle=s, label=f"{label}: median of the tracks"))
        handles += band_legend_handles()[1:]
    if n:
        ax.legend(handles=handles, loc="upper left")
    _fig9_axes(ax)
    _title(ax, "fig9_label_removal", n, empty_note)
    save_figure_pair(fig, path_stem)
