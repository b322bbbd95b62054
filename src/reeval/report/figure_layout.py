"""A figure's layout, made, checked and fixed before it is saved
(:func:`reeval.report.figures.save_figure`): laid out by drawing it at its dpi
(:func:`lay_out`), its titles wrapped to their width (:func:`fit_titles`, at words:
:func:`fill`); how far the drawing reaches past the figure's edges (:func:`overflow`) and
which elements do so, named for the error (:func:`overflowing`, :func:`overflow_message`);
ticks fixed to those laid out (:func:`freeze_ticks`); tick labels that touch
(:func:`crowded`) thinned out (:func:`thin_ticks`). Functions of a matplotlib figure as last laid out; matplotlib is
imported by the functions that need it. Also the tick helpers the figures share: whole
numbers only (:func:`integer_ticks`), plain numbers on a log axis (:func:`plain_log_ticks`,
:func:`log2_ticks`).
"""

from __future__ import annotations

import textwrap

import numpy as np


def fill(line: str, chars: int) -> str:
    """``line`` wrapped at ``chars`` characters between words only: a word longer than a
    line stays whole, and math (``$...$``) is never split, so mathtext still renders."""
    parts = line.split("$")
    for k in range(1, len(parts) - 1, 2):  # the math segments (each closed by a $)
        parts[k] = parts[k].replace(" ", "\x00")
    text = textwrap.fill("$".join(parts), chars, break_long_words=False, break_on_hyphens=False)
    return text.replace("\x00", " ")


def lay_out(fig) -> None:
    """Lay ``fig`` out (its layout engine places the axes) by drawing it on matplotlib's
    Agg canvas (given one if it has another: a ``Figure`` made without pyplot), which then
    holds the picture at the figure's dpi (the style's: :data:`reeval.report.figures.PRINT_DPI`):
    what :func:`reeval.report.figures.save_figure` writes as the PNG when nothing changed since."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    fig.canvas.draw()


def fit_titles(fig) -> None:
    """Wrap every axes title of ``fig`` that reaches beyond the figure's edges or beyond
    its axes' share of a multi-panel figure (a long track or run name), at the characters
    that fit around its centre, between words and never inside math (:func:`fill`).
    Leaves ``fig`` laid out (:func:`lay_out`) as drawn with the titles it keeps."""
    for _ in range(4):
        lay_out(fig)
        wide = []
        for ax in fig.axes:
            t = ax.title
            if not (t.get_visible() and t.get_text()):
                continue
            e = t.get_window_extent()
            centre = (e.x0 + e.x1) / 2
            room = 2 * min(centre - fig.bbox.x0, fig.bbox.x1 - centre) - 4
            if len(fig.axes) > 1:
                room = min(room, ax.bbox.width * 1.15)
            if e.width > room:
                wide.append((t, room / e.width))
        if not wide:
            return
        for t, share in wide:
            lines = t.get_text().split("\n")
            chars = max(10, int(max(map(len, lines)) * share * 0.95))
            t.set_text("\n".join(fill(line, chars) for line in lines))
    lay_out(fig)  # laid out with the titles as last wrapped


def overflow(fig) -> float:
    """How far, in inches, the drawing of ``fig`` reaches beyond its edges (0 when all of it
    is inside: nothing cut off in print), from matplotlib's tight bounding box of the
    figure as last laid out (:func:`fit_titles` leaves it so)."""
    box = fig.get_tightbbox()
    w, h = fig.get_size_inches()
    return float(max(0.0, -box.x0, -box.y0, box.x1 - w, box.y1 - h))


#: inches a drawing may reach past the figure's edge (a glyph's antialiasing, not a cut)
OVERFLOW_TOLERANCE = 0.02


def freeze_ticks(fig) -> None:
    """Fix every axis of ``fig`` to the ticks it has as last laid out (a FixedLocator).

    Why: matplotlib's default locator picks the number of ticks from the axis's length, and
    constrained layout measures the tick labels at the size of its own last pass, then
    resizes the axes. A panel resized a little wider can gain a tick at its edge (limits
    0.98 to 1.01: ticks every 0.02 at the measured width, every 0.01 at the final one, so
    "1.01" sits on the right edge) whose label the layout never made room for: half of it
    past the figure's edge. With the ticks fixed, a second layout measures the labels that
    are drawn. (Ticks outside the view are kept: matplotlib draws only those inside.)"""
    from matplotlib.ticker import FixedLocator

    for ax in fig.axes:
        if not ax.axison:
            continue
        for axis in (ax.xaxis, ax.yaxis):
            major, minor = axis.get_majorticklocs(), axis.get_minorticklocs()
            axis.set_major_locator(FixedLocator(major))
            axis.set_minor_locator(FixedLocator(minor))


def crowded(axis, pad_pt: float = 2.0) -> bool:
    """Whether two neighbouring tick labels that ``axis`` draws (as last laid out) come
    closer than ``pad_pt`` points: "0.075" touching "0.100" on a narrow panel."""
    renderer = axis.get_figure(root=True).canvas.get_renderer()
    across = axis.axis_name == "x"
    boxes = sorted((t.label1.get_window_extent(renderer) for t in axis._update_ticks()
                    if t.label1.get_visible() and t.label1.get_text()), key=lambda b: b.x0 if across else b.y0)
    pad = renderer.points_to_pixels(pad_pt)
    return any((b.x0 < a.x1 + pad) if across else (b.y0 < a.y1 + pad) for a, b in zip(boxes, boxes[1:]))


#: tick steps (times a power of ten) of an axis thinned by :func:`thin_ticks`: matplotlib's
#: 1, 2, 2.5, 5, 10 and also 3, 4, 6, 8, without which a short axis (0.0725 to 0.1375) keeps
#: three ticks 0.025 apart (every coarser step of those leaves one tick in view, and the
#: locator then falls back to the finer one)
THIN_STEPS = (1, 2, 2.5, 3, 4, 5, 6, 8, 10)


def thin_ticks(fig) -> bool:
    """Fewer ticks on each axis of ``fig`` whose tick labels touch (:func:`crowded`), as long
    as its locator picks them (matplotlib's default, :func:`reeval.report.figures.integer_ticks`: a MaxNLocator,
    whose other settings stay): one interval fewer at a time, down to one, on the steps
    :data:`THIN_STEPS`. Returns
    whether any axis changed (the figure then needs laying out again)."""
    from matplotlib.ticker import MaxNLocator

    changed = False
    for ax in (a for a in fig.axes if a.get_visible() and a.axison):
        for axis in (ax.xaxis, ax.yaxis):
            locator = axis.get_major_locator()
            if not isinstance(locator, MaxNLocator):
                continue
            nbins = len(axis._update_ticks()) - 2  # intervals of one tick fewer than drawn
            while nbins >= 1 and crowded(axis):
                locator.set_params(nbins=nbins, steps=THIN_STEPS)
                changed, nbins = True, nbins - 1
    return changed


def _panel(fig, ax) -> str:
    """``panel 4 of 6 ("AP_rareness@100")`` (the first line of its title; panels counted
    among the axes drawn with their axis), ``the axes`` of a one-panel figure, ``a cell
    without axes`` (a legend's, say)."""
    shown = [a for a in fig.axes if a.get_visible() and a.axison]
    if ax not in shown:
        return "a cell without axes"
    if len(shown) == 1:
        return "the axes"
    title = next((t.get_text().split("\n")[0] for t in (ax.title, ax._left_title, ax._right_title)
                  if t.get_text()), "")
    where = f"panel {shown.index(ax) + 1} of {len(shown)}"
    return where + (f' ("{title}")' if title else "")


def _quoted(text: str, chars: int = 40) -> str:
    """``"text"`` on one line (line breaks as spaces), cut at ``chars`` characters."""
    one = " ".join(text.split())
    return '"' + (one if len(one) <= chars else one[:chars - 1] + "\u2026") + '"'


def figure_elements(fig) -> list:
    """``(description, artist)`` of what ``fig`` draws that a layout places: the figure's
    titles, texts and legends, and per visible axes its titles, axis labels, offset texts,
    the labels of the ticks it draws (those in view), texts and legend; the axes itself last."""
    from matplotlib.text import Text

    def shown(a):
        return a is not None and a.get_visible() and (not isinstance(a, Text) or a.get_text().strip())

    def texts(kind, items, where=""):
        return [(f"the {kind} {_quoted(t.get_text())}{where}", t) for t in items if shown(t)]

    out = texts("figure's title", [getattr(fig, k, None) for k in ("_suptitle", "_supxlabel", "_supylabel")])
    out += texts("text", fig.texts) + [("the figure's legend", leg) for leg in fig.legends]
    for ax in (a for a in fig.axes if a.get_visible()):
        of = f" of {_panel(fig, ax)}"
        out += texts("title", (ax.title, ax._left_title, ax._right_title), of)
        if ax.axison:
            for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
                out += texts(f"{name} label", [axis.label], of) + texts(f"{name} offset", [axis.offsetText], of)
                for tick in axis._update_ticks():  # the ticks matplotlib draws (those in view)
                    out += texts(f"{name} tick label", (tick.label1, tick.label2), of)
        out += texts("text", ax.texts, f" in {_panel(fig, ax)}")
        out += [(f"the legend{of}", ax.get_legend()), (_panel(fig, ax), ax)]
    return [(d, a) for d, a in out if shown(a)]


def overflowing(fig, tolerance: float = OVERFLOW_TOLERANCE) -> list:
    """``(description, inches, edge)`` of each element of ``fig`` (:func:`figure_elements`)
    that reaches more than ``tolerance`` inches beyond an edge of the figure as last laid
    out, the farthest first; an element past two edges is listed at its farthest."""
    renderer = fig.canvas.get_renderer()
    w, h = fig.bbox.width, fig.bbox.height
    found = []
    for what, artist in figure_elements(fig):
        e = artist.get_window_extent(renderer)
        if not np.isfinite(e.extents).all():
            continue
        edges = {"left": -e.x0, "bottom": -e.y0, "right": e.x1 - w, "top": e.y1 - h}
        edge, past = max(edges.items(), key=lambda kv: kv[1])
        if past / fig.dpi > tolerance:
            found.append((what, past / fig.dpi, edge))
    return sorted(found, key=lambda f: -f[1])


def overflow_message(fig, tolerance: float = OVERFLOW_TOLERANCE) -> str | None:
    """Why the drawing of ``fig`` does not fit its edges, naming what reaches beyond
    (:func:`overflowing`; up to three elements), or None when it fits within ``tolerance``."""
    cut = overflow(fig)
    if cut <= tolerance:
        return None
    found = overflowing(fig, tolerance)
    if not found:
        return f"the drawing reaches {cut:.2f} in beyond the figure's edge"
    named = "; ".join(f"{what} reaches {inches:.2f} in beyond the {edge} edge" for what, inches, edge in found[:3])
    more = f" (and {len(found) - 3} more)" if len(found) > 3 else ""
    return named + more


def integer_ticks(*axes) -> None:
    """Ticks at whole numbers only on each given axis (``ax.xaxis``, ``ax.yaxis``): counts,
    ranks, recall levels."""
    from matplotlib.ticker import MaxNLocator

    for axis in axes:
        axis.set_major_locator(MaxNLocator(integer=True))


def plain_log_ticks(*axes) -> None:
    """A log axis labelled 0.01, 0.1, 1, 10 ... (plain numbers, no superscript that would
    print under 7 pt); when it spans less than about one decade, 2, 3 and 5 times a power
    of ten are labelled too, and 2 and 5 times up to two and a half decades (else a short
    axis would show one or two numbers)."""
    from matplotlib.ticker import FuncFormatter

    def minor(axis):
        def label(v, _):
            lo, hi = sorted(axis.get_view_interval())
            decades = np.log10(hi / lo) if lo > 0 else np.inf
            digits = "235" if decades < 1.3 else "25" if decades < 2.5 else ""
            return f"{v:g}" if f"{v:e}"[0] in digits else ""
        return FuncFormatter(label)

    for axis in axes:
        axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        axis.set_minor_formatter(minor(axis))


def log2_ticks(axis) -> None:
    """A base-2 log axis ticked 2, 4, 8 ... written as plain integers."""
    from matplotlib.ticker import LogLocator, NullLocator, ScalarFormatter

    axis.set_major_locator(LogLocator(base=2))
    axis.set_major_formatter(ScalarFormatter())
    axis.set_minor_locator(NullLocator())
