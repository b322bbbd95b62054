"""Figures of the ASL study: bar histograms with labelled buckets, saved as PNG and PDF
side by side (:func:`reeval.report.figures.save_figure_pair`)."""

from __future__ import annotations

from reeval.report.figures import pyplot, save_figure_pair


def bar_histogram(labels, counts, title: str, xlabel: str, ylabel: str, path_stem,
                  colors=None, note: str | None = None) -> None:
    """One bar per bucket (``labels``, ``counts``), count printed above each bar; saved
    as ``<path_stem>.png`` and ``<path_stem>.pdf``. ``note`` is printed in the upper
    right corner."""
    plt = pyplot()
    width = max(6.0, 0.6 * len(labels) + 2)
    fig, ax = plt.subplots(figsize=(width, 4.0), layout="constrained")
    x = range(len(labels))
    bars = ax.bar(x, counts, color=colors or "#4C72B0", edgecolor="black", linewidth=0.5)
    ax.bar_label(bars, labels=[str(int(c)) for c in counts], fontsize=8, padding=2)
    ax.set_xticks(list(x), labels, rotation=30 if len(labels) > 7 else 0, ha="right" if len(labels) > 7 else "center")
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.margins(y=0.12)
    if note:
        ax.text(0.99, 0.97, note, transform=ax.transAxes, ha="right", va="top", fontsize=8)
    save_figure_pair(fig, path_stem)
