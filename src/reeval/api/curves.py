"""Recall-precision curves: trec_eval's 11-point interpolated precision per run as a tidy
frame (:func:`recall_precision`), and the classic figure of IR papers drawing several runs
(:func:`plot_recall_precision`).

The values are the measures layer's ``iprec_at_recall_0.00`` ... ``iprec_at_recall_1.00``
(:mod:`reeval.measures.classic`, trec_eval's ``iprec_at_recall``: at recall level L the
highest precision at any rank whose recall is at least L; 0 when the run never reaches
L), through :func:`reeval.evaluate`, so they are ``reeval score``'s numbers bit for bit.
"""

from __future__ import annotations

import pandas as pd

from reeval.errors import InputError

from .scoring import evaluate

IPREC = "iprec_at_recall"
#: Figure size (inches) and text size (points): one column of an ACM paper.
FIGURE_SIZE = (3.3, 2.5)
FONT_SIZE = 7
#: matplotlib settings of the figure: TrueType fonts in PDF/PS, 7 pt text everywhere.
RC = {"pdf.fonttype": 42, "ps.fonttype": 42, "font.size": FONT_SIZE, "axes.titlesize": FONT_SIZE,
      "axes.labelsize": FONT_SIZE, "xtick.labelsize": FONT_SIZE, "ytick.labelsize": FONT_SIZE,
      "legend.fontsize": FONT_SIZE, "lines.linewidth": 1.0, "lines.markersize": 3,
      "text.parse_math": False}  # run names drawn as named: "$_$" is no math
#: Up to this many runs the legend sits inside the plot; beyond, beside it (the figure widens).
LEGEND_INSIDE = 6
#: Line styles cycled with the colours, so that curves stay apart in black and white.
DASHES = ("-", "--", "-.", ":")


def _tidy(frame: pd.DataFrame) -> pd.DataFrame:
    """An evaluate frame with the 11 ``iprec_at_recall_L`` columns as rows: run (and
    query_id), recall (float L), precision."""
    columns = [c for c in frame.columns if str(c).startswith(f"{IPREC}_")]
    if len(columns) != 11:
        raise InputError(f"expected the 11 {IPREC}_L columns of evaluate(..., ['{IPREC}']); "
                         f"got {len(columns)}")
    long = frame[columns].rename(columns=lambda c: float(c.removeprefix(f"{IPREC}_"))).stack()
    long.index = long.index.set_names([*frame.index.names, "recall"])
    return long.rename("precision").reset_index()


def recall_precision(qrels, runs=None, *, relevance_level: int = 1, precision: str = "float64",
                     depth: int | None = None, per_topic: bool = False, complete: bool = True) -> pd.DataFrame:
    """trec_eval's 11-point interpolated precision of each run, as a tidy frame.

    ``qrels``/``runs`` in any form :func:`reeval.evaluate` takes (its reading options as
    there); or ``qrels`` alone: a frame ``evaluate`` returned with the
    ``iprec_at_recall`` columns. Returns one row per run and recall level L = 0.0, 0.1,
    ..., 1.0: run, recall, precision (the mean over every qrels topic, trec_eval -c; over
    the topics each run answered with ``complete=False``); with ``per_topic`` one row per
    run, query_id and level.
    """
    if isinstance(qrels, pd.DataFrame) and runs is None and any(str(c).startswith(IPREC) for c in qrels.columns):
        return _tidy(qrels)
    if runs is None:
        raise InputError("runs: give the runs (or pass a frame evaluate returned with iprec_at_recall)")
    frame = evaluate(qrels, runs, [IPREC], relevance_level=relevance_level, precision=precision, depth=depth,
                     per_topic=per_topic, complete=complete)
    out = _tidy(frame)
    out.attrs.update(frame.attrs)
    return out


def plot_recall_precision(curves: pd.DataFrame, path=None, *, runs=None, ax=None, title: str | None = None):
    """Draw the recall-precision curve of each run (the frame of :func:`recall_precision`,
    one row per run and level) on one axes: recall 0-1 on x, interpolated precision 0-1 on
    y, one line per run with its own colour, dash and marker, a legend naming the runs.

    ``runs`` picks and orders the runs drawn (default: all, in the frame's order). With
    ``ax`` the curves go on that axes; otherwise a figure of 3.3 x 2.5 inches with 7 pt
    text is made (wider when more than 6 runs put the legend beside the plot). ``path`` (one path or a list: .png, .pdf, .svg) saves it with
    :func:`reeval.report.figures.save_figure` (TrueType fonts in the PDF). Returns the figure.
    """
    import matplotlib

    from reeval.report.figures import pyplot, save_figure

    if "query_id" in curves.columns:
        raise InputError("curves: one row per run and level (recall_precision without per_topic)")
    missing = {"run", "recall", "precision"} - set(curves.columns)
    if missing:
        raise InputError(f"curves: expected columns run, recall, precision; missing {', '.join(sorted(missing))}")
    names = list(pd.unique(curves.run)) if runs is None else list(runs)
    absent = [r for r in names if r not in set(curves.run)]
    if absent:
        raise InputError(f"runs: {absent[0]!r} is not in the curves")
    with matplotlib.rc_context(RC):
        if ax is None:   # a legend beside the plot gets its own width
            width = FIGURE_SIZE[0] + (1.4 * _legend_columns(len(names)) if len(names) > LEGEND_INSIDE else 0)
            fig, ax = pyplot().subplots(figsize=(width, FIGURE_SIZE[1]), layout="constrained")
        fig = ax.figure
        _draw(ax, curves, names)
        if title:
            ax.set_title(title)
        if path is not None:
            save_figure(fig, *([path] if isinstance(path, (str, bytes)) or hasattr(path, "__fspath__") else path))
    return fig


def _draw(ax, curves: pd.DataFrame, names: list) -> None:
    """One line per run, then the axes: 0-1 on both, ticks every 0.2, a legend beside
    the plot when more than LEGEND_INSIDE runs are drawn."""
    markers = "os^vDx+*<>ph"
    for k, name in enumerate(names):
        g = curves[curves.run == name].sort_values("recall")
        ax.plot(g.recall, g.precision, linestyle=DASHES[k % len(DASHES)], marker=markers[k % len(markers)],
                label=str(name))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_xticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.set_xlabel("recall")
    ax.set_ylabel("interpolated precision")
    ax.grid(alpha=0.3, linewidth=0.5)
    if len(names) > LEGEND_INSIDE:
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False, ncol=_legend_columns(len(names)))
    else:
        ax.legend(loc="upper right", frameon=False)


def _legend_columns(n_runs: int) -> int:
    """Columns of a legend beside the plot: at most 16 runs per column."""
    return 1 + (n_runs - 1) // 16
