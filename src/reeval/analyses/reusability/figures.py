"""Figures of the reusability study, in the reeval style (:mod:`reeval.report.figures`).

Per track, ``scores``: one panel per measure, each run's score on the full qrels (x)
against its score without its group (y), one point per run, the identity line; the groups
coloured when there are at most :data:`FEW_GROUPS` of them (a legend names them), else one
colour. Across tracks, ``tau_by_track``: one panel per measure compared with its base,
Kendall's tau between the full and the leave-one-group-out orderings of each track, the
base's on x and the measure's on y (one point per track, the identity line; the
:data:`NAMED_OUTLIERS` tracks farthest from it numbered, and named in a key under the
panel's x label, where it covers no point; the number of tracks in the title): ASL and P@20
against AP, a rareness measure against the measure it weights (P@k, AP@k); a measure
that is there only as a rareness measure's base gets no panel of its own.

Both figures name a measure one way, ir_measures' (:func:`reeval.measures.vocabulary.display_name`:
AP, P@20, AP@100, P_rareness@100, ASL), where the tables' ``measure`` column keeps reeval's
(map, P_20, map_cut_100), the key that joins them with the other tables.
"""

from __future__ import annotations

import math

import numpy as np

from reeval.archive.inclusion import NO_TRACK_FIGURE_NOTE
from reeval.measures.vocabulary import display_name
from reeval.report.figures import MIN_TEXT_PT, PALETTE, figure_style, new_figure, note, save_figure_pair

#: at most this many groups get a colour each (and a legend entry)
FEW_GROUPS = len(PALETTE) - 1
#: panels per row
COLUMNS = 4
#: per panel of the cross-track figure, the tracks farthest from the identity line that are
#: numbered beside their point and named in the panel's key (which track is the outlier?)
NAMED_OUTLIERS = 3
#: a track is an outlier of a panel when its distance from the identity line is more than
#: this many times the median track's, and more than :data:`OUTLIER_MIN_GAP` (a tau apart)
OUTLIER_SPREAD, OUTLIER_MIN_GAP = 3.0, 0.01


def _grid(n: int):
    """(fig, flat list of n axes) on a page-wide grid of :data:`COLUMNS` columns; unused
    cells hidden (the first of them returned last, for a legend)."""
    ncols = min(COLUMNS, max(n, 1))
    nrows = math.ceil(max(n, 1) / ncols)
    fig, axes = new_figure("page", height=1.9 * nrows + 0.2, nrows=nrows, ncols=ncols, squeeze=False)
    flat = list(axes.ravel())
    for ax in flat[n:]:
        ax.set_axis_off()
    return fig, flat[:n], (flat[n] if len(flat) > n else None)


def _identity(ax, x, y) -> None:
    values = np.concatenate([np.asarray(x, float), np.asarray(y, float)])
    values = values[np.isfinite(values)]
    lo, hi = (float(values.min()), float(values.max())) if len(values) else (0.0, 1.0)
    pad = max(0.04 * (hi - lo), 0.01 * max(abs(hi), abs(lo), 1e-3))
    ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], color="#777777", lw=0.6, ls="--", zorder=0)
    ax.set_xlim(lo - pad, hi + pad)
    ax.set_ylim(lo - pad, hi + pad)


@figure_style()
def plot_scores(table, path_stem, track: str = "") -> None:
    """The per-track figure (module doc) of :func:`reeval.analyses.reusability.table.reusability_table`'s
    rows (its verdicts' tau in each panel's title)."""
    from reeval.stats.correlation import kendall_tau

    measures = list(dict.fromkeys(table["measure"]))
    groups = list(dict.fromkeys(table["group"]))
    few = len(groups) <= FEW_GROUPS
    fig, axes, spare = _grid(len(measures))
    for ax, m in zip(axes, measures):
        part = table[table["measure"] == m]
        if few:
            for i, g in enumerate(groups):
                sel = part[part["group"] == g]
                ax.scatter(sel["score"], sel["score_logo"], s=9, color=PALETTE[i % len(PALETTE)], label=str(g),
                           linewidths=0)
        else:
            ax.scatter(part["score"], part["score_logo"], s=7, color=PALETTE[0], alpha=0.7, linewidths=0)
        _identity(ax, part["score"], part["score_logo"])
        tau = kendall_tau(part["score"].to_numpy(), part["score_logo"].to_numpy())
        ax.set_title(f"{display_name(m)}\nτ = {tau:.3f}" if np.isfinite(tau) else display_name(m))
        ax.set_xlabel("full qrels")
        ax.set_ylabel("without its group")
    if few and axes:
        handles, labels = axes[0].get_legend_handles_labels()
        if spare is not None:
            spare.legend(handles, labels, loc="center", title="group")  # one column: no wider than a panel
        else:
            axes[0].legend(handles, labels, loc="upper left", title="group")
    elif axes:
        note(axes[0], f"{len(groups)} groups", loc="upper left")
    depth = table.attrs.get("depth")
    fig.suptitle(f"{track}: each run without its group's pool contribution"
                 + (f" (pool depth {depth})" if depth else ""))
    save_figure_pair(fig, path_stem)


def outliers(x, y, n: int = NAMED_OUTLIERS) -> list:
    """Indices of at most ``n`` points farthest from the identity line, the farthest first
    (ties by index), among those whose distance ``|y - x|`` exceeds :data:`OUTLIER_SPREAD`
    times the median distance and :data:`OUTLIER_MIN_GAP`: tracks that stand out, none
    when all scatter alike; a point with a NaN is none."""
    gap = np.abs(np.asarray(y, float) - np.asarray(x, float))
    finite = np.isfinite(gap)
    if not finite.any():
        return []
    bound = max(OUTLIER_SPREAD * float(np.median(gap[finite])), OUTLIER_MIN_GAP)
    off = np.flatnonzero(finite & (gap > bound))
    return [int(k) for k in off[np.argsort(-gap[off], kind="stable")][:n]]


def number_outliers(ax, x, y, names) -> str:
    """Number the :func:`outliers` of a panel 1, 2, 3 beside their points (towards the
    panel's centre, so a number stays inside it); returns their key, a line each (``1
    trec8-adhoc``), for the panel's key: a long track name fits a panel's width there,
    where beside its point it would reach past the figure's edge."""
    which = outliers(x, y)
    x0, x1 = ax.get_xlim()
    for number, k in enumerate(which, 1):
        left = x[k] > (x0 + x1) / 2
        ax.annotate(str(number), (x[k], y[k]), xytext=(-2 if left else 2, 1), textcoords="offset points",
                    ha="right" if left else "left", va="bottom", fontsize=MIN_TEXT_PT)
    return "\n".join(["farthest from the line:"] * bool(which)
                     + [f"{number} {names[k]}" for number, k in enumerate(which, 1)])


def rareness_base(measure: str) -> str | None:
    """The measure a rareness measure weights: ``P_rareness@100`` -> ``P_100``,
    ``AP_rareness@100`` -> ``map_cut_100`` (AP cut at k); None for any other measure."""
    if "_rareness" not in measure or "@" not in measure:
        return None
    family, k = measure.split("@")
    return f"P_{k}" if family.startswith("P_") else f"map_cut_{k}"


def compared_pairs(measures) -> list:
    """(base, measure) of the cross-track panels: each rareness measure against the measure
    it weights (when measured), every other measure against AP (``map``, when measured),
    except AP itself and the measures that are only there as a rareness measure's base."""
    bases = {rareness_base(m) for m in measures} - {None}
    pairs = []
    for m in measures:
        base = rareness_base(m)
        if base is not None:
            if base in measures:
                pairs.append((base, m))
        elif m != "map" and m not in bases and "map" in measures:
            pairs.append(("map", m))
    return pairs


@figure_style()
def plot_tau_by_track(verdicts, path_stem) -> None:
    """The cross-track figure (module doc) of the stacked per-track verdicts (``track``,
    ``measure``, ``kendall_tau_left_out``)."""
    measures = list(dict.fromkeys(verdicts["measure"]))
    pairs = compared_pairs(measures)
    if not pairs:  # no track, or no measure with a base to compare
        fig, ax = new_figure()
        ax.set_axis_off()
        note(ax, NO_TRACK_FIGURE_NOTE if verdicts.empty else "no measure with a base (AP, P@k) to compare",
             loc="center center")
    else:
        # every measure a column, also one whose tau is undefined (NaN: not drawn) on every track
        tau = verdicts.drop_duplicates(["track", "measure"]).pivot(index="track", columns="measure",
                                                                     values="kendall_tau_left_out")
        fig, axes, _ = _grid(len(pairs))
        for ax, (base, m) in zip(axes, pairs):
            x, y = tau[base].to_numpy(float), tau[m].to_numpy(float)
            ax.scatter(x, y, s=10, color=PALETTE[0], linewidths=0)
            _identity(ax, x, y)
            ax.set_xlabel(f"τ of {display_name(base)}")
            ax.set_ylabel(f"τ of {display_name(m)}")
            ax.set_title(f"{display_name(m)}\nagainst {display_name(base)}")
            key = number_outliers(ax, x, y, tau.index)
            if key:  # under the x label, where it covers no point (the layout makes room)
                ax.annotate(key, (0, 0), xycoords=("axes fraction", ax.xaxis.label), xytext=(0, -2),
                            textcoords="offset points", ha="left", va="top", fontsize=MIN_TEXT_PT)
    count = f" ({len(tau)} track{'s' * (len(tau) != 1)})" if pairs else ""
    fig.suptitle(f"Kendall's τ, full qrels against leave one group out{count}")
    save_figure_pair(fig, path_stem)
