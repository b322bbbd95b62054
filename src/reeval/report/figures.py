"""Saving figures: one saver for every figure (PNG, PDF, SVG), byte-reproducible;
:func:`save_figure_pair` writes the usual ``<stem>.png`` + ``<stem>.pdf`` pair with it.

PDF and SVG are saved without a creation date and SVG ids are salted by a constant, so
the same figure saved twice gives the same bytes; each file is written atomically
(:func:`reeval.io.atomic.atomic_write`).
"""

from __future__ import annotations

from pathlib import Path

from reeval.io.atomic import atomic_write

#: savefig metadata per format: no creation date, so a figure saved twice is byte-identical
#: (PNG carries none; matplotlib's version stays, like the rendering it describes)
FIGURE_METADATA = {"png": {}, "pdf": {"CreationDate": None}, "svg": {"Date": None}}


def pyplot():
    """matplotlib.pyplot on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, *paths, dpi: int = 150) -> None:
    """Save ``fig`` to each path, the format following the suffix (png, pdf, svg), then close it.

    Every figure is saved the same way: ``dpi`` for the raster, the bounding box
    tightened to the drawing, no timestamp (:data:`FIGURE_METADATA`), SVG ids salted by a
    constant; each file atomically.
    """
    import matplotlib

    formats = []
    for path in paths:
        fmt = Path(path).suffix.lstrip(".").lower()
        if fmt not in FIGURE_METADATA:
            raise ValueError(f"{path}: a figure is saved as {sorted(FIGURE_METADATA)}, not {fmt!r}")
        formats.append((path, fmt))
    try:
        with matplotlib.rc_context({"svg.hashsalt": "reeval"}):
            for path, fmt in formats:
                atomic_write(path, lambda tmp, fmt=fmt: fig.savefig(
                    tmp, format=fmt, dpi=dpi, bbox_inches="tight", metadata=FIGURE_METADATA[fmt]))
    finally:
        pyplot().close(fig)


def save_figure_pair(fig, path_stem) -> None:
    """:func:`save_figure` to ``<path_stem>.png`` and ``<path_stem>.pdf`` (every report
    figure is written as that pair); ``path_stem`` has no suffix (a dot in it stays)."""
    save_figure(fig, Path(f"{path_stem}.png"), Path(f"{path_stem}.pdf"))
