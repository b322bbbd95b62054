"""Figures: one camera-ready style and one saver for every figure reeval draws.

The style (:data:`STYLE`, applied by :func:`figure_style`, a context manager that also
decorates a drawing function) follows the venues' PDF checks: fonts embedded as TrueType
(``pdf.fonttype``/``ps.fonttype`` 42, never Type 3), every text at least
:data:`MIN_TEXT_PT` at the figure's printed size, figures a paper column
(:data:`COLUMN` inches) or a page (:data:`PAGE`) wide, made by :func:`new_figure`. The
saver (:func:`save_figure`, :func:`save_figure_pair`) keeps the figure's own size (no
tight bounding box that would rescale it), lays it out again with its ticks fixed when the
first layout reaches past an edge (:func:`freeze_ticks`: the layout then makes room for
every tick label drawn), refuses a
figure wider than a page, a text under 7 pt or a drawing past the figure's edge with a
:class:`FigureError` naming what reaches beyond (:func:`overflow_message`), embeds TrueType
fonts whatever style the figure was drawn in, and is byte-reproducible: PDF and SVG without
a creation date, SVG ids salted by a constant, each file written atomically
(:func:`reeval.io.atomic.atomic_write`), fonts embedded without the tables no PDF reads
(:func:`lean_font_subsets`). Every text is drawn literally (``text.parse_math`` off: a run
named ``$_$`` or ``$x^2$`` is drawn as named); the texts reeval writes as math turn it on
(``parse_math=True``, :func:`with_math`). A report figure never ends its step: one the
saver refuses is written by :func:`save_figure_pair` as a sentence saying why
(:func:`failure_figure`) and logged on :data:`FIGURE_LOG`; a step that draws inside
:func:`drawn_or_told` does the same for any error of the drawing. (The test suite sets
:data:`STRICT`: there, both raise.) A figure is laid out once, by drawing it at print
resolution, and that picture is its PNG (:func:`lay_out`); a track's figures are drawn by
forked workers, step by step (:mod:`reeval.report.figure_workers`).

Helpers shared by the figures: :func:`integer_ticks` (counts and discrete axes),
:func:`coinciding` (series drawn on top of each other, to say so), :func:`across_tracks`
(a distribution over tracks in place of one line per track, used above
:data:`FEW_TRACKS` tracks), :func:`track_styles` (up to :data:`MANY_LINES` lines told
apart by colour and dash), :func:`note` (a sentence on the figure) and :func:`fill` /
:func:`wrapped` (text wrapped between words, never inside math).

Use::

    from reeval.report.figures import figure_style, new_figure, save_figure_pair

    @figure_style()
    def plot_x(df, path_stem):
        fig, ax = new_figure("column")
        ...
        save_figure_pair(fig, path_stem)

matplotlib is imported by these functions, never by importing this module.
"""

from __future__ import annotations

import os
import textwrap
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from reeval.io.atomic import atomic_write

from .figure_fonts import UNUSED_FONT_TABLES, lean_font_subsets  # re-exported
from .figure_layout import (OVERFLOW_TOLERANCE, THIN_STEPS, crowded, figure_elements,  # re-exported
                            fill, fit_titles, freeze_ticks, integer_ticks, lay_out, log2_ticks, overflow,
                            overflow_message, overflowing, plain_log_ticks, thin_ticks)

#: widths in inches: one column of a two-column paper (ACM, IEEE) and a whole page
COLUMN, PAGE = 3.3, 7.0
#: pixels per inch of every PNG: print resolution, so a column-wide PNG is 3.3 x 300 = 990
#: pixels wide and a page-wide one 2,100 (the PDF is the vector original)
PRINT_DPI = 300
#: the smallest text on a figure, in points at the figure's own size
MIN_TEXT_PT = 7.0
#: mathtext draws sub- and superscripts at this share of the text's size (matplotlib's
#: SHRINK_FACTOR), so a text with scripts needs MIN_TEXT_PT / SCRIPT_SHRINK = 10 pt
SCRIPT_SHRINK = 0.7
#: up to this many tracks a cross-track figure draws one line (or panel) per track;
#: above it, the distribution across tracks (:func:`across_tracks`) and a table names them
FEW_TRACKS = 6
#: up to this many tracks a figure drawn in a paper's form keeps one line per track (the
#: lexiprecision paper draws its 18 benchmarks so); the lines then take
#: :func:`track_styles` and the legend goes beside the axes on a page-wide figure
MANY_LINES = 18
#: Okabe & Ito's colour-blind-safe palette (it also stays distinct in greyscale by lightness)
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")

#: matplotlib rcParams of every figure (after SciencePlots' venue sheets: 7-8 pt text, thin
#: lines; plus TrueType fonts, which those sheets leave to matplotlib's Type 3 default)
STYLE = {
    "pdf.fonttype": 42, "ps.fonttype": 42,
    "font.size": 8, "axes.titlesize": 8, "axes.labelsize": 8, "figure.titlesize": 8,
    "xtick.labelsize": 7, "ytick.labelsize": 7, "legend.fontsize": 7, "legend.title_fontsize": 7,
    "figure.figsize": (COLUMN, 2.5), "figure.constrained_layout.use": True,
    "axes.linewidth": 0.6, "axes.titlepad": 4, "axes.labelpad": 2,
    "lines.linewidth": 1.2, "lines.markersize": 3,
    "xtick.major.width": 0.6, "ytick.major.width": 0.6, "xtick.minor.width": 0.4, "ytick.minor.width": 0.4,
    "xtick.major.size": 3, "ytick.major.size": 3, "xtick.minor.size": 1.5, "ytick.minor.size": 1.5,
    "legend.frameon": False, "legend.handlelength": 2.0, "legend.borderaxespad": 0.3,
    "legend.labelspacing": 0.3, "legend.columnspacing": 1.0,
    "patch.linewidth": 0.5, "hatch.linewidth": 0.5,
    "savefig.bbox": "standard", "savefig.dpi": PRINT_DPI,
    # laid out at the PNG's resolution: the layout's drawing is the PNG (:func:`lay_out`)
    "figure.dpi": PRINT_DPI,
    "svg.hashsalt": "reeval",
    # every text literal: a run, group or measure named "$_$" or "$x^2$" is drawn as it is
    # named (mathtext would fail on the first and draw the second as math); the few texts
    # reeval writes as math turn it on for themselves (:func:`with_math`)
    "text.parse_math": False,
}

#: savefig metadata per format: no creation date, so a figure saved twice is byte-identical
#: (PNG carries none; matplotlib's version stays, like the rendering it describes)
FIGURE_METADATA = {"png": {}, "pdf": {"CreationDate": None}, "svg": {"Date": None}}


def pyplot():
    """matplotlib.pyplot on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def rc_params() -> dict:
    """:data:`STYLE` and the colour cycle of :data:`PALETTE` (a cycler, which needs matplotlib)."""
    from cycler import cycler

    return {**STYLE, "axes.prop_cycle": cycler(color=list(PALETTE))}


@contextmanager
def figure_style():
    """Draw (and save) inside the reeval style: ``with figure_style(): ...``, or
    ``@figure_style()`` above a function that draws. Text sizes are read when a text is
    made, so the whole drawing goes inside."""
    import matplotlib

    pyplot()
    with matplotlib.rc_context(rc_params()):
        yield


def new_figure(width="column", height: float | None = None, nrows: int = 1, ncols: int = 1, **subplots):
    """``(fig, axes)`` of ``plt.subplots`` sized for print: ``width`` is ``"column"``
    (:data:`COLUMN`), ``"page"`` (:data:`PAGE`) or inches up to a page; ``height``
    defaults to 2.5 in for one row and 2.1 in more per further row. Constrained layout
    keeps labels inside the figure. Raises ValueError for a width over a page."""
    w = {"column": COLUMN, "page": PAGE}.get(width, width)
    if not 0 < float(w) <= PAGE:
        raise ValueError(f"a figure is at most {PAGE} in wide (a page), got {width!r}")
    h = height if height is not None else 2.5 + 2.1 * (nrows - 1)
    return pyplot().subplots(nrows, ncols, figsize=(float(w), h), layout="constrained", **subplots)


def track_styles(tracks) -> dict:
    """``{track: (colour, linestyle)}`` telling up to :data:`MANY_LINES` lines apart: the
    eight colours of :data:`PALETTE`, then the same colours dashed, then dotted."""
    styles = ("-", "--", ":")
    return {t: (PALETTE[k % len(PALETTE)], styles[(k // len(PALETTE)) % len(styles)])
            for k, t in enumerate(tracks)}


def note(ax, text: str, loc: str = "upper right") -> None:
    """``text`` written inside the axes at ``loc`` (upper/lower, left/right/center), at the
    smallest size (:data:`MIN_TEXT_PT`), on a white box so lines do not cross it."""
    v, h = loc.split()
    x = {"left": 0.03, "center": 0.5, "right": 0.97}[h]
    y = {"upper": 0.97, "lower": 0.03, "center": 0.5}[v]
    ax.text(x, y, text, transform=ax.transAxes, ha=h, va={"upper": "top", "lower": "bottom", "center": "center"}[v],
            fontsize=MIN_TEXT_PT, bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none", "alpha": 0.85})


def coinciding(series: dict, rtol: float = 1e-9) -> list:
    """Groups of labels whose series are drawn on top of each other: ``series`` maps a
    label to ``(x, y)``; two series coincide when their x are equal and their y equal
    within ``rtol`` (NaN equal to NaN). Returns the groups in the order of ``series``,
    each a list of labels (one label: a series no other hides)."""
    groups: list = []
    for label, (x, y) in series.items():
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        for g in groups:
            gx, gy = g[1]
            if gx.shape == x.shape and np.array_equal(gx, x, equal_nan=True) and np.allclose(gy, y, rtol=rtol, atol=0, equal_nan=True):
                g[0].append(label)
                break
        else:
            groups.append(([label], (x, y)))
    return [labels for labels, _ in groups]


def coinciding_label(labels: list, chars: int = 32) -> str:
    """One legend entry for series that coincide: ``A = B`` (the lines are on top of each
    other), broken after an ``=`` where a line would pass ``chars`` characters."""
    lines = [labels[0]]
    for label in labels[1:]:
        if len(lines[-1]) + 3 + len(label) > chars:
            lines[-1] += " ="
            lines.append(label)
        else:
            lines[-1] += f" = {label}"
    return "\n".join(lines)


#: how :func:`across_tracks` draws the range of the tracks: thin dotted bounds
RANGE_STYLE, RANGE_WIDTH = ":", 0.9


def across_tracks(ax, frame, x: str, y: str, color, linestyle: str = "-", label: str = "",
                  marker: str | None = None) -> int:
    """The distribution over tracks of ``frame[y]`` at each ``frame[x]`` (one row per track
    and x): the median as a line (``label``), the middle half of the tracks (25th-75th
    percentile) as a band, the range (min-max) as two thin dotted lines in the same colour
    (lines, not a second band: where two series' ranges overlap a fill would blend their
    colours into a third one, and the lines keep each series' own). Returns the number of
    tracks. NaN values are left out at their x."""
    g = frame.dropna(subset=[y]).groupby(x)[y]
    if not len(g):
        return 0
    q = g.quantile([0.0, 0.25, 0.5, 0.75, 1.0]).unstack()
    xs = q.index.to_numpy(dtype=float)
    for bound in (0.0, 1.0):
        ax.plot(xs, q[bound], color=color, linestyle=RANGE_STYLE, linewidth=RANGE_WIDTH)
    ax.fill_between(xs, q[0.25], q[0.75], color=color, alpha=0.3, linewidth=0)
    ax.plot(xs, q[0.5], color=color, linestyle=linestyle, marker=marker, label=label)
    return int(frame["track"].nunique()) if "track" in frame else int(g.count().max())


def band_legend_handles(color="#555555") -> list:
    """Legend handles that say what :func:`across_tracks` draws: median, 25-75%, min-max."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    return [Line2D([], [], color=color, label="median of the tracks"),
            Patch(color=color, alpha=0.3, linewidth=0, label="middle half (25\u201375%)"),
            Line2D([], [], color=color, linestyle=RANGE_STYLE, linewidth=RANGE_WIDTH, label="range (min\u2013max)")]


def with_math(*texts) -> None:
    """Draw the ``$...$`` of each given matplotlib Text as math (mathtext): only for texts
    reeval writes itself, never one holding a name from the data (:data:`STYLE` draws every
    text literally, ``text.parse_math`` off). A title or label takes ``parse_math=True``
    directly; this is for texts made by others (a legend's)."""
    for text in texts:
        text.set_parse_math(True)


def has_scripts(text: str) -> bool:
    """Whether ``text`` has math (``$...$``) with a sub- or superscript (``_``, ``^`` or a
    prime), which mathtext draws at :data:`SCRIPT_SHRINK` of the text's size."""
    return any(c in part for part in text.split("$")[1::2] for c in "_^'")


def smallest_size(text) -> float:
    """The smallest glyph size of a matplotlib Text in points: its font size, times
    :data:`SCRIPT_SHRINK` when it is drawn as math (:func:`with_math`) and its math has
    scripts (a literal ``$x_1$`` is drawn at its font size)."""
    size = text.get_fontsize()
    return size * SCRIPT_SHRINK if text.get_parse_math() and has_scripts(text.get_text()) else size


def enlarge_math(fig) -> None:
    """Give every text of ``fig`` whose math has sub- or superscripts the size at which its
    scripts are :data:`MIN_TEXT_PT` (10 pt): ``$\\Delta RR_i$`` stays readable in print."""
    from matplotlib.text import Text

    for t in fig.findobj(Text):
        if t.get_parse_math() and has_scripts(t.get_text()) and smallest_size(t) < MIN_TEXT_PT:
            t.set_fontsize(MIN_TEXT_PT / SCRIPT_SHRINK)


def wrapped(text: str, width_in: float = COLUMN, size_pt: float = 8) -> str:
    """``text`` with each line wrapped at the characters that fit ``width_in`` inches at
    ``size_pt`` (about 0.58 of the size a character, DejaVu Sans)."""
    chars = max(10, int((width_in - 0.2) * 72 / (0.58 * size_pt)))
    return "\n".join(fill(line, chars) for line in text.split("\n"))


class FigureError(ValueError):
    """A figure the saver refuses: ``path`` (the first file it was to write) and ``reason``."""

    def __init__(self, path, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = path, reason


def small_texts(fig) -> list:
    """``(text, smallest glyph in pt)`` of every visible, non-empty text of ``fig`` with a
    glyph under :data:`MIN_TEXT_PT` (:func:`smallest_size`)."""
    from matplotlib.text import Text

    return [(t.get_text(), smallest_size(t)) for t in fig.findobj(Text)
            if t.get_visible() and t.get_text().strip() and smallest_size(t) < MIN_TEXT_PT - 1e-9]


def _formats(paths) -> list:
    """``(path, format)`` of each path by its suffix; FigureError for a format not saved."""
    formats = []
    for path in paths:
        fmt = Path(path).suffix.lstrip(".").lower()
        if fmt not in FIGURE_METADATA:
            raise FigureError(path, f"a figure is saved as {sorted(FIGURE_METADATA)}, not {fmt!r}")
        formats.append((path, fmt))
    return formats


def _write(fig, formats, dpi: int) -> None:
    """Write ``fig`` as last laid out by :func:`lay_out` (nothing changed since; no layout
    again) to each ``(path, format)``, atomically, its fonts embedded without the tables no
    PDF reads (:func:`lean_font_subsets`). The PNG at the figure's own dpi is the picture
    its canvas holds, written as it is, not drawn again (the bytes matplotlib's ``savefig``
    writes); at another dpi, drawn by ``savefig``."""
    import matplotlib
    import matplotlib.image

    # laid out once before: each format draws at those positions, with no layout engine
    # (with one, savefig draws the figure once more before drawing it; and after a save it
    # restores a figure's lack of one from figure.constrained_layout.use, off here)
    with matplotlib.rc_context({**rc_params(), "figure.autolayout": False, "figure.constrained_layout.use": False}), \
            lean_font_subsets():
        picture = fig.canvas.buffer_rgba() if fig.dpi == dpi else None
        fig.set_layout_engine(None)
        for path, fmt in formats:
            if fmt == "png" and picture is not None:  # what savefig would draw again: written as drawn
                atomic_write(path, lambda tmp: matplotlib.image.imsave(
                    tmp, picture, format="png", origin="upper", dpi=dpi, metadata=FIGURE_METADATA["png"]))
            else:
                atomic_write(path, lambda tmp, fmt=fmt: fig.savefig(
                    tmp, format=fmt, dpi=dpi, metadata=FIGURE_METADATA[fmt]))


def save_figure(fig, *paths, dpi: int = PRINT_DPI) -> None:
    """Save ``fig`` to each path, the format following the suffix (png, pdf, svg), then close it.

    Every figure is saved the same way: at its own size (no tight bounding box), ``dpi``
    (:data:`PRINT_DPI`) for the raster, so a PNG is its printed width x ``dpi`` pixels wide, TrueType fonts, texts with math scripts enlarged (:func:`enlarge_math`),
    titles wrapped to their width (:func:`fit_titles`), fewer ticks where tick labels touch
    (:func:`thin_ticks`), laid out again with the ticks it got fixed when the layout reaches
    past an edge (:func:`freeze_ticks`: the layout
    then makes room for every tick label drawn),
    laid out once for every format, no timestamp (:data:`FIGURE_METADATA`), SVG ids salted
    by a constant; each file atomically. Raises :class:`FigureError` (a ValueError), before
    writing anything, for a figure wider than :data:`PAGE`, with a text under
    :data:`MIN_TEXT_PT` or a drawing reaching beyond the figure's edge; the message names
    the elements that do (:func:`overflow_message`).
    """
    try:
        formats = _formats(paths)
        width = fig.get_figwidth()
        if width > PAGE + 1e-9:
            raise FigureError(paths[0], f"the figure is {width:g} in wide, more than a page ({PAGE} in)")
        enlarge_math(fig)
        fit_titles(fig)
        if thin_ticks(fig):
            fit_titles(fig)  # laid out again with fewer ticks where their labels touched
        cut = None  # what fits as laid out is written as laid out
        if overflow(fig) > OVERFLOW_TOLERANCE:
            freeze_ticks(fig)
            fit_titles(fig)  # laid out again, now with the ticks that are drawn
            cut = overflow_message(fig, OVERFLOW_TOLERANCE)
        small = small_texts(fig)
        if small:
            raise FigureError(paths[0], f"text under {MIN_TEXT_PT:g} pt: {small[:3]}")
        if cut:
            raise FigureError(paths[0], cut)
        # the canvas holds the last layout's picture: the checks since change nothing drawn
        _write(fig, formats, dpi)
    finally:
        pyplot().close(fig)


def _stem_paths(path_stem) -> tuple:
    return Path(f"{path_stem}.png"), Path(f"{path_stem}.pdf")


def save_figure_pair(fig, path_stem) -> None:
    """:func:`save_figure` to ``<path_stem>.png`` and ``<path_stem>.pdf`` (every report
    figure is written as that pair); ``path_stem`` has no suffix (a dot in it stays). A
    figure the saver refuses (:class:`FigureError`) is written as :func:`failure_figure`
    and said on :data:`FIGURE_LOG` (:func:`tell_failure`): a report figure never ends the
    step that draws it (the test suite sets :data:`STRICT`, which raises instead)."""
    try:
        save_figure(fig, *_stem_paths(path_stem))
    except FigureError as exc:
        if os.environ.get(STRICT) == "1":
            raise
        tell_failure(path_stem, exc.reason)


#: the logger that says a figure was not drawn; the rule scripts' frame (scripts/_log.py)
#: also prints its records on the console
FIGURE_LOG = "reeval.figures"
#: a test's switch, unset in any real run: "1" makes :func:`save_figure_pair` and
#: :func:`drawn_or_told` raise the figure's error instead of writing the sentence, so that
#: a test of a figure fails on a figure that could not be drawn (tests/conftest.py sets it)
STRICT = "REEVAL_TEST_STRICT_FIGURES"


def tell_failure(path_stem, reason: str) -> None:
    """Say that the figure ``<path_stem>`` was not drawn and why: a warning on
    :data:`FIGURE_LOG` and the figure's files written as :func:`failure_figure`."""
    import logging

    logging.getLogger(FIGURE_LOG).warning(
        "warning: figure %s.png not drawn: %s; the report shows this sentence in its place", path_stem, reason)
    failure_figure(path_stem, reason)


def failure_figure(path_stem, reason: str) -> None:
    """Write ``<path_stem>.png`` and ``.pdf`` as a column-wide figure that says, in words, that
    the figure could not be drawn and why (``reason``, wrapped): what a reader of the report
    sees where the figure would be. Drawn without the saver's checks, so it is always written."""
    chars = int((COLUMN - 0.2) * 72 / (0.58 * MIN_TEXT_PT))
    text = textwrap.fill(f"This figure could not be drawn: {reason}. Its data are in the tables beside it.",
                         chars)  # a long word (a path) broken too: the sentence stays on the figure
    with figure_style():
        fig, ax = new_figure("column", height=0.3 + 0.14 * (text.count("\n") + 1))
        ax.set_axis_off()
        ax.text(0.0, 1.0, text, transform=ax.transAxes, ha="left", va="top", fontsize=MIN_TEXT_PT)
        try:
            lay_out(fig)
            _write(fig, _formats(_stem_paths(path_stem)), PRINT_DPI)
        finally:
            pyplot().close(fig)


@contextmanager
def drawn_or_told(path_stem):
    """Run the drawing of the figure ``<path_stem>`` (PNG + PDF) so that its failure never
    ends the step: any exception in the body (a refused layout, a bug in a drawing) is said
    by :func:`tell_failure` (the traceback at debug level on :data:`FIGURE_LOG`). A figure
    is a view of tables the step has written before; the report goes on with the sentence
    in the figure's place. Under :data:`STRICT` (tests) the exception propagates."""
    import logging

    try:
        yield
    except Exception as exc:  # noqa: BLE001 (whatever the drawing raised: a figure never costs the report)
        if os.environ.get(STRICT) == "1":
            raise
        logging.getLogger(FIGURE_LOG).debug("the figure's error", exc_info=True)
        tell_failure(path_stem, exc.reason if isinstance(exc, FigureError) else f"{type(exc).__name__}: {exc}")
