"""The fonts a figure's PDF embeds: TrueType subsets without the tables no PDF reads
(:func:`lean_font_subsets`, used by :func:`reeval.report.figures.save_figure` around each
save), from fonts read ahead once where figures are saved by forked workers
(:func:`read_fonts_ahead`). fontTools (a matplotlib dependency) is imported by the functions
that need it.
"""

from __future__ import annotations

from contextlib import contextmanager

#: font tables a PDF's embedded TrueType font never uses: OpenType layout (substitution,
#: positioning, glyph classes, math layout) and kerning. The PDF places every glyph itself, so a viewer
#: reads only the outlines, metrics and character map; reading these tables to subset them
#: was two thirds of a figure's font embedding (DejaVu Sans: 0.15 s a font, 0.045 s without)
UNUSED_FONT_TABLES = ("GSUB", "GPOS", "GDEF", "MATH", "kern", "morx", "JSTF")

#: the tables a subset reads whole (outlines, metrics, glyph names, character map): what
#: :func:`read_fonts_ahead` decodes, about half of a subset's time (DejaVu Sans: 20 of 40 ms)
READ_AHEAD_TABLES = ("head", "hhea", "maxp", "loca", "glyf", "hmtx", "cmap", "post")

#: the font files a subset has loaded in this process: ``(path, face, recalc_bounds,
#: recalc_timestamp)`` (what fontTools' ``load_font`` reads them with)
_USED: set = set()
#: fonts read ahead by :func:`read_fonts_ahead`, by the key of :data:`_USED`; each is taken
#: by the first subset of its font (a subset changes the font it is given)
_AHEAD: dict = {}


def _key(font_file, options) -> tuple:
    return str(font_file), options.font_number, options.recalc_bounds, options.recalc_timestamp


@contextmanager
def lean_font_subsets():
    """Inside, the fonts matplotlib embeds in a PDF or PostScript file (subset by fontTools'
    ``subset.load_font`` and ``Subsetter``) leave out :data:`UNUSED_FONT_TABLES`: the
    same glyphs, outlines and metrics, in less time and fewer bytes. A font read ahead
    (:func:`read_fonts_ahead`) is used, once, in place of reading its file again: the same bytes."""
    from fontTools import subset

    load = subset.load_font

    def lean_load(font_file, options, *args, **kwargs):
        options.drop_tables = [*options.drop_tables, *UNUSED_FONT_TABLES]
        if args or kwargs:  # not how matplotlib loads a font: as asked
            return load(font_file, options, *args, **kwargs)
        key = _key(font_file, options)
        _USED.add(key)
        font = _AHEAD.pop(key, None)
        return font if font is not None else load(font_file, options)

    subset.load_font = lean_load
    try:
        yield
    finally:
        subset.load_font = load


def read_fonts_ahead() -> int:
    """Read every font file a subset has loaded in this process (:data:`_USED`) and decode
    its :data:`READ_AHEAD_TABLES`, for the next subset of it to take: called before
    forking workers that each save one figure (:func:`reeval.report.figures.saving_in_workers`),
    each of which then finds its fonts read. Each font is read from the file's bytes in
    memory, never through an open file, which forked processes would share. Returns the
    number of fonts read."""
    import io
    from pathlib import Path

    from fontTools import subset

    count = 0
    for key in sorted(_USED - set(_AHEAD)):
        path, face, recalc_bounds, recalc_timestamp = key
        options = subset.Options(font_number=face, recalc_bounds=recalc_bounds, recalc_timestamp=recalc_timestamp)
        font = subset.load_font(io.BytesIO(Path(path).read_bytes()), options)
        for tag in READ_AHEAD_TABLES:
            if tag in font:
                font[tag]  # noqa: B018 (decoded now, once, for every worker)
        _AHEAD[key] = font
        count += 1
    return count
