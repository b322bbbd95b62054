"""Figures of the ASL study: bar histograms with labelled buckets, a column wide, in the
reeval style (:mod:`reeval.report.figures`), saved as PNG and PDF side by side."""

from __future__ import annotations

from reeval.report.figures import MIN_TEXT_PT, figure_style, integer_ticks, new_figure, save_figure_pair, wrapped


@figure_style()
def bar_histogram(labels, counts, title: str, xlabel: str, ylabel: str, path_stem,
                  colors=None, note: str | None = None, subtitle: str | None = None) -> None:
    """One bar per bucket (``labels``, ``counts``), count printed above each bar, counts
    ticked at whole numbers; saved as ``<path_stem>.png`` and ``<path_stem>.pdf``.
    ``subtitle`` (its lines as given, at the smallest size) goes under the title, the figure
    then a little taller; ``note`` below the subtitle, out of the axes, so that it covers
    no bar and no count."""
    subtitle = "\n".join(filter(None, [subtitle, note]))
    fig, ax = new_figure("column", 3.0 if subtitle else 2.6)
    x = range(len(labels))
    bars = ax.bar(x, counts, color=colors or "#0072B2", edgecolor="black", linewidth=0.4)
    ax.bar_label(bars, labels=[str(int(c)) for c in counts], fontsize=7, padding=1)
    rotate = len(labels) > 5
    ax.set_xticks(list(x), labels, rotation=45 if rotate else 0, ha="right" if rotate else "center",
                  rotation_mode="anchor")
    if subtitle:
        fig.suptitle(wrapped(title))
        ax.set_title(subtitle, fontsize=MIN_TEXT_PT)
    else:
        ax.set_title(wrapped(title))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    integer_ticks(ax.yaxis)
    ax.set_ylim(0, 1.15 * max([1, *counts]))  # room for the count labels; 0 to 1 when every bucket is empty
    save_figure_pair(fig, path_stem)
