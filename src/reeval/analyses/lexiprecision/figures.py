"""Figures of the lexicographic-precision study, drawn from its tables in the reeval style
(:mod:`reeval.report.figures`).

Per track: figures 3, 5, 6, 9 (a column wide), 7 and 8 (a page wide). Across tracks:
figure 2 (theory), figures 3, 5, 6 with one line per track up to
:data:`~reeval.report.figures.MANY_LINES` tracks (the paper's 18 benchmarks), figure 9 up to
:data:`~reeval.report.figures.FEW_TRACKS` tracks, and above that the distribution over
tracks (median, middle half, range), the tracks then named in ``summary.md``'s table
(:func:`reeval.analyses.lexiprecision.report.tracks_table`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from reeval.report.figures import (FEW_TRACKS, MANY_LINES, PAGE, PALETTE, across_tracks, band_legend_handles,
                                   figure_style, integer_ticks, new_figure, note, plain_log_ticks,
                                   save_figure_pair, track_styles, with_math, wrapped)

#: the two measures of figure 9 and how they are drawn (the legend says which is which)
#: figure 9's series: (column prefix, line style, legend label, colour of a one-track figure),
#: as the paper draws them (RR solid green, rrLP dashed red); sgnLP ties exactly where rrLP
#: does (it is rrLP's sign), so the one dashed line is both, and its label says so
FIG9_SERIES = (("RR", "-", "RR", "#009E73"), ("LP", "--", "rrLP = sgnLP (the same ties)", "#D55E00"))
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


def plot_fig3(ax, df, label, color=None, linestyle="-") -> int:
    """Tie probability against p1 (log-log). A probability of 0 has no place on a log axis:
    it is not drawn and the line breaks there. Returns how many p1 had no tie."""
    ax.plot(df.p1, df.probability.where(df.probability > 0), marker=".", linestyle=linestyle, color=color,
            label=label)
    _fig3_axes(ax, df)
    return int((df.probability == 0).sum())


def plot_fig5(ax, df, label, color=None, linestyle="-") -> None:
    """Share of pair-topics tied at each recall level i (levels no pair reaches left out)."""
    df = df[df.pair_topics > 0]
    ax.plot(df.level, df.probability, marker="o", label=label, color=color, linestyle=linestyle)
    _fig5_axes(ax)


def _fig5_axes(ax) -> None:
    ax.set_xlabel("recall level i")
    ax.set_ylabel("share of pairs tied at level i")
    ax.set_ylim(0, 1)
    integer_ticks(ax.xaxis)


def plot_fig6(ax, df, label, color=None, linestyle="-") -> None:
    """The ECDF of i* as a step function from (1, 0)."""
    ax.step(np.r_[1, df.i_star], np.r_[0.0, df.ecdf], where="post", label=label, color=color, linestyle=linestyle)
    _fig6_axes(ax)


def _fig6_axes(ax) -> None:
    ax.set_xscale("log")
    plain_log_ticks(ax.xaxis)
    ax.set_xlim(left=1)
    ax.set_xlabel("recall level i* that breaks the tie")
    ax.set_ylabel("share of the pairs not tied (ECDF)")
    ax.set_ylim(0, 1.01)


def plot_fig9(ax, df, color=None, label_prefix: str = "") -> None:
    """RR (solid) and lexicographic precision (dashed; rrLP and sgnLP tie on the same pairs)
    ties against the fraction of labels removed, each with a band of +- one std over the
    samples; in ``color`` (a track's), else each series in its own (:data:`FIG9_SERIES`)."""
    x = df.fraction_removed
    for measure, style, name, own in FIG9_SERIES:
        mean, std = df[f"{measure}_ties_mean"], df[f"{measure}_ties_std"].fillna(0)
        ax.plot(x, mean, linestyle=style, color=color or own, label=f"{label_prefix}{name}")
        ax.fill_between(x, mean - std, mean + std, alpha=0.2, color=color or own, linewidth=0)
    _fig9_axes(ax)


def _fig9_axes(ax) -> None:
    ax.set_xlabel("fraction of relevance labels removed")
    ax.set_ylabel("tied pairs of rankings (%)")


#: figure 8's predictors as the paper draws them: dRR_1 solid green, rrLP dashed red
#: (vermillion), sgnLP dotted blue (Okabe & Ito's shades of those colours)
FIG8_SERIES = (("dRR1", r"$\delta RR_1$", "#009E73", "-"), ("rrLP", "rrLP", "#D55E00", "--"),
               ("sgnLP", "sgnLP", "#0072B2", ":"))
FIG8_PANELS = (("labels", "ranking"), ("labels", "system"), ("queries", "ranking"), ("queries", "system"))


def plot_fig8(ax, df, removed: str, kind: str) -> None:
    """One panel of figure 8: agreement (%) with full-data dRR_1 of each predictor against
    the fraction removed, the mean over samples and a band of one standard deviation.
    Ranking agreement of sgnLP equals rrLP's (same sign) and is omitted, as in the paper."""
    d = df[df.removal == removed].sort_values("fraction_removed")
    for key, label, color, style in FIG8_SERIES:
        if kind == "ranking" and key == "sgnLP":
            continue
        mean = d[f"{kind}_{key}_mean"].to_numpy(dtype=float)
        std = np.nan_to_num(d[f"{kind}_{key}_std"].to_numpy(dtype=float))
        x = d.fraction_removed.to_numpy(dtype=float)
        ax.plot(x, mean, color=color, linestyle=style, label=label)
        ax.fill_between(x, mean - std, mean + std, color=color, alpha=0.2, linewidth=0)
    ax.set_xlabel(f"fraction of {'relevance labels' if removed == 'labels' else 'queries'} removed")
    ax.set_ylabel(f"{kind} agreement (%)")


@figure_style()
def agreement_figure(track: str, df: pd.DataFrame, path_stem) -> None:
    """Figure 8 of one track, a page wide: ranking and system agreement with full-data
    dRR_1 as labels (top) and queries (bottom) are removed (``df``: the
    ``fig8_agreement`` table)."""
    fig, axes = new_figure("page", 4.4, 2, 2)
    samples = int(df.samples.max()) if len(df) else 0
    for ax, (removed, kind) in zip(axes.ravel(), FIG8_PANELS):
        plot_fig8(ax, df, removed, kind)
        ax.set_title(f"({'abcd'[FIG8_PANELS.index((removed, kind))]}) {removed} removed: {kind} agreement")
        if removed == "queries" and kind == "ranking" and len(df):
            ax.set_ylim(90, 101)
            note(ax, "100% by construction: a kept query's\npreferences are the full data's", "lower left")
    with_math(*axes[0, 1].legend(loc="lower left").get_texts())  # the legend of FIG8_SERIES
    pairs = int(df.pairs.max()) if len(df) else 0
    name = str(track).replace("$", r"\$")  # literal in a title drawn with math
    fig.suptitle(wrapped(f"{name}: agreement with full-data " + r"$\delta RR_1$" +
                         f" ({pairs:,} pairs of runs; mean of {samples} samples, band: one std)", PAGE - 0.6),
                 parse_math=True)
    save_figure_pair(fig, path_stem)


# ------------------------------------------------------------------ per track

@figure_style()
def track_figures(track: str, t: dict, out, points=None) -> None:
    """Figures 3, 5, 6, 7, 8 and 9 of one track (``t``: its tables by name) under ``out``;
    ``points``: figure 7's pair-topics (:func:`locality_points`)."""
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
    ax.set_title(f"{track}: ties (band: \u00b1 1 std over samples)")
    save_figure_pair(fig, out / "fig9_label_removal")
    locality_figure(track, t["fig7_correlation"], t["fig7_regression"], out / "fig7_locality", points)
    agreement_figure(track, t["fig8_agreement"], out / "fig8_agreement")


#: figure 7 (a): at most this many pair-topics are drawn per panel (a seeded sample, to which
#: each panel's line is fitted; Pearson r and (b) use every pair)
FIG7_POINTS = 3000


def locality_points(pv, max_level: int = 8, n: int = FIG7_POINTS, seed: int = 0) -> np.ndarray:
    """The points figure 7 (a) draws: dRR_1..dRR_max_level of at most ``n`` pair-topics
    with m >= max_level, each pair also reversed (-D, as the statistics count both
    orientations), from up to ``n`` seeded pairs of runs
    (:func:`reeval.analyses.lexiprecision.incomplete.compared_pairs`), then a seeded sample
    of ``n`` of them; ``(0, max_level)`` when there is none."""
    from .core import UNRETRIEVED
    from .incomplete import compared_pairs

    S, T = pv.shape
    use = np.flatnonzero(pv.m >= max_level)
    if S < 2 or not use.size or pv.positions.shape[2] < max_level:
        return np.zeros((0, max_level))
    ii, jj = compared_pairs(S, seed, n)
    P = pv.positions[:, use, :max_level]
    inv = np.where(P == UNRETRIEVED, 0.0, 1.0 / np.maximum(P, 1))
    D = (inv[ii] - inv[jj]).reshape(-1, max_level)
    D = np.concatenate([D, -D])
    if len(D) > n:
        D = D[np.random.default_rng(seed).choice(len(D), n, replace=False)]
    return D


def _fit_panel(ax, x, y, r) -> None:
    """One panel of figure 7 (a): dRR_j (x) against dRR_i (y), its least-squares line and
    Pearson r; the points are the panel's data (its limits fit them) and drawn by
    :func:`_scatter_panels`."""
    ax.update_datalim(np.column_stack([x, y]))
    if x.size > 1 and np.ptp(x) > 0:
        slope, intercept = np.polyfit(x, y, 1)
        xs = np.array([x.min(), x.max()])
        ax.plot(xs, intercept + slope * xs, color="black", linewidth=0.8)
    ax.text(0.04, 0.96, f"{r:.2f}", transform=ax.transAxes, ha="left", va="top", fontsize=7)


def _scatter_panels(fig, panels, color) -> None:
    """The points of every panel of figure 7 (a) (``(ax, x, y)``, each panel's limits final)
    as one rasterized collection on the figure, under the panels (made see-through): as each
    panel's own scatter (1 pt², alpha 0.25, inside its limits) looks, but rasterized once in
    the PDF instead of once a panel (matplotlib rasterizes each into a page-sized image: 28
    of them were two thirds of the figure's time)."""
    if not panels:
        return
    to_figure = fig.transFigure.inverted()
    for ax, _, _ in panels:
        ax.get_xlim(), ax.get_ylim()  # the limits autoscaled to the data, before transData is read
    xy = np.concatenate([(ax.transData + to_figure).transform(np.column_stack([x, y])) for ax, x, y in panels])
    for ax, _, _ in panels:
        ax.patch.set_visible(False)
    fig.add_artist(_points(xy, fig.transFigure, color))


def _points(offsets, transform, color):
    """Circles of 1 pt² at ``offsets`` (in ``transform``'s coordinates), ``color`` at alpha
    0.25, no edge, rasterized, under the axes (zorder -1): what ``ax.scatter(x, y, s=1,
    color=color, alpha=0.25, linewidths=0, rasterized=True)`` draws."""
    from matplotlib.collections import PathCollection
    from matplotlib.markers import MarkerStyle
    from matplotlib.transforms import IdentityTransform

    marker = MarkerStyle("o")
    return PathCollection([marker.get_path().transformed(marker.get_transform())], sizes=[1], offsets=offsets,
                          offset_transform=transform, transform=IdentityTransform(), facecolors=color,
                          edgecolors="face", alpha=0.25, linewidths=0, rasterized=True, zorder=-1)


def locality_figure(track: str, corr: pd.DataFrame, reg: pd.DataFrame, path_stem, D=None) -> None:
    """Figure 7 in the paper's form, a page wide: (a) every pair of dRR_1..dRR_8 as a
    scatter plot (pair-topics with m >= 8, both orientations; at most
    :data:`FIG7_POINTS` drawn, a seeded sample) with its least-squares line and Pearson r
    (the lower triangle: row dRR_i, column dRR_j, j < i), (b) the regression coefficients
    of dRR_i on dRR_i+1..i+4 against the lag j, one line per i (r and (b) from the tables, over
    every pair; each panel's line fitted to the points drawn). ``D`` (pair-topics x 8,
    :func:`locality_points`) gives the points; without it the panels hold r only."""
    import matplotlib.gridspec as gridspec

    fig = pyplot_figure(7.0, 4.6)
    outer = gridspec.GridSpec(1, 2, figure=fig, width_ratios=[1.3, 1.0], wspace=0.28,
                              left=0.09, right=0.985, bottom=0.11, top=0.86)
    values = corr.drop(columns=["track", "level"]).to_numpy(dtype=float)
    L = values.shape[0]
    inner = gridspec.GridSpecFromSubplotSpec(L - 1, L - 1, subplot_spec=outer[0], wspace=0.08, hspace=0.08)
    a2 = fig.add_subplot(outer[1])
    ok = np.isfinite(values).any()
    panels = []
    for r in range(1, L):
        for c in range(r):
            ax = fig.add_subplot(inner[r - 1, c])
            ax.set_xticks([])
            ax.set_yticks([])
            if ok:
                empty = np.array([])
                x, y = (D[:, c], D[:, r]) if D is not None else (empty, empty)
                _fit_panel(ax, x, y, values[r, c])
                panels.append((ax, x, y))
            if c == 0:
                ax.set_ylabel(rf"$\delta RR_{{{r + 1}}}$", parse_math=True)
            if r == L - 1:
                ax.set_xlabel(rf"$\delta RR_{{{c + 1}}}$", parse_math=True)
    if ok:
        for k, (i, g) in enumerate(reg.groupby("i")):
            a2.plot(g.j, g.coefficient, marker="o", color=PALETTE[k % len(PALETTE)],
                    linestyle=("-", "--", ":", "-.")[k % 4], label=f"i = {i}")
        a2.axhline(0, color="grey", linewidth=0.5)
        a2.legend(title="regressed level i", loc="upper right")
        integer_ticks(a2.xaxis)
    else:
        note(a2, "no pair of rankings with m >= 8", "center center")
    fig.suptitle(wrapped(f"{track}: locality of the reciprocal-rank differences (pair-topics with m \u2265 8)",
                         PAGE - 0.6), y=0.985)
    _scatter_panels(fig, panels, PALETTE[0])
    fig.text(0.09, 0.9, "(a) each pair of recall levels: scatter, linear fit, Pearson r", fontsize=8)
    a2.set_title("(b) regression coefficients", loc="left")
    a2.set_xlabel("lag j (predictor at level i + j)")
    a2.set_ylabel("coefficient")
    save_figure_pair(fig, path_stem)


def pyplot_figure(width: float, height: float):
    """A bare figure of ``width`` x ``height`` inches (layout by gridspec, not constrained)."""
    from reeval.report.figures import pyplot

    return pyplot().figure(figsize=(width, height), layout="none")


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
    the share of the pairs not tied that differ at or before i*), so tracks can be compared at each i*."""
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
    figures 3, 5, 6 with one line per track up to :data:`MANY_LINES` tracks, as the paper
    draws its 18 benchmarks (a column wide up to FEW_TRACKS tracks, above that a page wide
    with the legend beside), else the distribution over tracks; figure 9 with one line
    per track up to FEW_TRACKS. ``empty_note`` is written on them when no track is included."""
    tracks = sorted(tables["fig5_ties_by_level"].track.unique())
    n = len(tracks)
    styles = track_styles(tracks)
    colors = {t: c for t, (c, _) in styles.items()}
    plots = {"fig3_ties_by_p1": plot_fig3, "fig5_ties_by_level": plot_fig5, "fig6_i_star_ecdf": plot_fig6}
    for name, plot in plots.items():
        df = tables[name]
        fig, ax = new_figure("column" if n <= FEW_TRACKS or n > MANY_LINES else "page", 2.8)
        if n <= MANY_LINES:
            hidden = 0
            for track, g in df.groupby("track", sort=True):
                hidden += plot(ax, g, track, *styles[track]) or 0
            if n and n <= FEW_TRACKS:
                ax.legend(loc="lower left" if name == "fig3_ties_by_p1" else "best", title="track")
            elif n:
                fig.legend(*ax.get_legend_handles_labels(), loc="outside right upper", title="track",
                           ncol=1 if n <= 10 else 2)
            if hidden:
                note(ax, f"{hidden} (track, p1) with no tie\n(probability 0) not drawn")
        else:
            _distribution(ax, name, df)
            ax.legend(handles=band_legend_handles(PALETTE[0]), loc=DISTRIBUTION_LEGEND[name])
            if name == "fig3_ties_by_p1":
                note(ax, "p1 in bins 1, 2, 3\u20134, 5\u20139, 10\u201319 ...;\na bin with no tie (0) not drawn")
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
    if n == 1 and name == "fig9_label_removal":   # under the title: inside, it would sit on a curve
        ax.set_title(f"{what}, 1 track\n({ONE_TRACK_NOTE.removeprefix('1 track: ')})")
        return
    ax.set_title(f"{what}, {n} track{'s' if n != 1 else ''}")
    if n == 0:
        note(ax, empty_note, "center center")
    elif n == 1:
        note(ax, ONE_TRACK_NOTE, "upper right")


def fig9_across_tracks(df: pd.DataFrame, tracks: list, colors: dict, path_stem, empty_note: str) -> None:
    """Figure 9 across tracks: per track a colour (few tracks) or the distribution over
    tracks (many), RR solid and lexicographic precision dashed either way, said in the legend."""
    from matplotlib.lines import Line2D

    fig, ax = new_figure("column", 2.8)
    n = len(tracks)
    style = [Line2D([], [], color="black", linestyle=s, label=label) for _, s, label, _ in FIG9_SERIES]
    if n <= FEW_TRACKS:
        for track, g in df.groupby("track", sort=True):
            for measure, s, _, _ in FIG9_SERIES:
                ax.plot(g.fraction_removed, g[f"{measure}_ties_mean"], linestyle=s, color=colors[track])
        handles = style + [Line2D([], [], color=colors[t], label=t) for t in tracks]
    else:
        handles = []
        for measure, s, label, color in FIG9_SERIES:
            across_tracks(ax, df, "fraction_removed", f"{measure}_ties_mean", color, linestyle=s)
            handles.append(Line2D([], [], color=color, linestyle=s, label=f"{label}: median of the tracks"))
        handles += band_legend_handles()[1:]
    if n:
        ax.legend(handles=handles, loc="upper left")
    _fig9_axes(ax)
    _title(ax, "fig9_label_removal", n, empty_note)
    save_figure_pair(fig, path_stem)
