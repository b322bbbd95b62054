"""The audit's cross-track figure, ``trust_by_track``: one horizontal bar per track, the share
of its official figures equal, explained and unexplained (stacked, 0-100 %), the most trusted
track on top, each track labelled with the figures compared; a track flagged as probably
mismatched (most MAPs unexplained) is marked with an asterisk, said under the axis.

:func:`plot_audit_trust` draws inside :func:`reeval.report.figures.drawn_or_told` itself, the one
place for every caller: a drawing that fails writes the sentence saying why in the figure's
files and never ends the step."""

from __future__ import annotations

from reeval.report.figures import PALETTE, drawn_or_told, figure_style, new_figure, note, save_figure_pair

#: the bars' colours: equal, explained, unexplained
COLOURS = {"equal": PALETTE[2], "explained": PALETTE[1], "unexplained": PALETTE[3]}
#: inches of height per track, and around the bars
PER_TRACK, MARGIN = 0.16, 0.9


def plot_audit_trust(trust, path_stem) -> None:
    """Draw ``trust`` (:func:`reeval.workflow.audit_step.trust_by_track`) to ``path_stem``.png/pdf,
    or the sentence saying why it could not be (module doc)."""
    with drawn_or_told(path_stem):
        _draw_trust(trust, path_stem)


@figure_style()
def _draw_trust(trust, path_stem) -> None:
    """The drawing of :func:`plot_audit_trust`."""
    n = len(trust)
    fig, ax = new_figure("page", height=MARGIN + PER_TRACK * max(n, 3))
    if n == 0:
        ax.set_axis_off()
        note(ax, "no track with official figures", "center center")
        save_figure_pair(fig, path_stem)
        return
    rows = trust.iloc[::-1].reset_index(drop=True)  # the most trusted at the top
    share = rows[list(COLOURS)].div(rows["figures"].clip(lower=1), axis=0) * 100
    left = 0
    for status, colour in COLOURS.items():
        ax.barh(range(n), share[status], left=left, color=colour, height=0.75, label=status, linewidth=0)
        left = left + share[status]
    labels = [f"{t} ({f:,}){' *' if m else ''}" for t, f, m in zip(rows["track"], rows["figures"], rows["mismatched"])]
    ax.set_yticks(range(n), labels)
    ax.set_ylim(-0.6, n - 0.4)
    ax.set_xlim(0, 100)
    flagged = "\n* probably mismatched (most MAPs unexplained)" if rows["mismatched"].any() else ""
    ax.set_xlabel(f"share of the official figures (%); in brackets, the figures compared{flagged}")
    fig.legend(*ax.get_legend_handles_labels(), loc="outside upper center", ncols=3, frameon=False)
    save_figure_pair(fig, path_stem)
