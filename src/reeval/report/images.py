"""The report's images: each figure embedded at the size the report shows it, compressed.

A figure's PNG is written at print resolution (:data:`reeval.report.figures.PRINT_DPI`,
300 pixels per printed inch: 990 x 750 pixels for a column-wide figure). The report shows
it :data:`DISPLAY_PX_PER_IN` CSS pixels per printed inch wide (a column-wide figure 495
px, a page-wide one 1,050 px: 7 pt text reads about 15 px high), and embeds a copy made
for that size (:func:`display_png`): ``density`` image pixels per CSS pixel (2 for a
sharp figure on a HiDPI screen, 1 for a screen's own pixels), never more pixels than the
PNG has, reduced to a palette of :data:`COLOURS` colours (:data:`PER_TRACK_COLOURS` for a
per-track figure) without dithering. A figure is
line art on white: the palette keeps it as drawn (its lines, text and shades are far
fewer than 256 colours after anti-aliasing) at about a third of the bytes of the RGBA
PNG. The printed width is read from the PNG's own resolution (its ``pHYs`` chunk, which
matplotlib writes); a PNG without one is taken as :data:`PRINT_DPI` pixels per inch.

Pure functions of a file's bytes; Pillow (a matplotlib dependency) is imported by them.
"""

from __future__ import annotations

import base64
import io
from pathlib import Path

from reeval.report.figures import PRINT_DPI

#: CSS pixels per printed inch at which the report shows a figure
DISPLAY_PX_PER_IN = 150
#: colours of an embedded image's palette: a cross-track figure's (shown sharp, twice the
#: pixels), and a per-track figure's (shown at the screen's own pixels in a folded block; 64
#: colours keep its lines, text and shades legible at about four fifths of the bytes, so that
#: a report of 12 tracks, every figure embedded, stays under 10 MB)
COLOURS, PER_TRACK_COLOURS = 256, 64


def printed_inches(image) -> float:
    """The printed width in inches of a Pillow image: its width over its resolution (the
    PNG's ``dpi``), :data:`PRINT_DPI` when it states none (or a resolution under 1)."""
    dpi = (image.info.get("dpi") or (PRINT_DPI,))[0]
    return image.width / (dpi if dpi and dpi >= 1 else PRINT_DPI)


def display_width(path) -> int:
    """The CSS width, in pixels, at which the report shows the PNG ``path``: its printed
    width x :data:`DISPLAY_PX_PER_IN`, at least 1."""
    from PIL import Image

    with Image.open(path) as image:
        return max(1, round(printed_inches(image) * DISPLAY_PX_PER_IN))


def on_white(image):
    """``image`` as RGB, any transparency laid on white (the report's background)."""
    from PIL import Image

    rgba = image.convert("RGBA")
    white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
    return Image.alpha_composite(white, rgba).convert("RGB")


def display_png(path, density: int = 2, colours: int = COLOURS) -> tuple[bytes, int]:
    """``(png bytes, CSS width)`` of the PNG ``path`` made for the report: resized to its
    :func:`display_width` x ``density`` pixels wide (Lanczos; never enlarged: a PNG with
    fewer pixels keeps them), its height in proportion, as a palette PNG of at most
    ``colours`` colours (median cut, no dithering), compressed as tightly as PNG goes."""
    from PIL import Image

    css = display_width(path)
    with Image.open(path) as source:
        image = on_white(source)
    width = min(image.width, css * density)
    if width != image.width:
        height = max(1, round(image.height * width / image.width))
        image = image.resize((width, height), Image.Resampling.LANCZOS)
    palette = image.quantize(colours, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    out = io.BytesIO()
    palette.save(out, "PNG", optimize=True)
    return out.getvalue(), css


def png_data_uri(data: bytes) -> str:
    """PNG bytes as a ``data:image/png;base64,...`` URI."""
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def embedded_png(path: Path, density: int = 2, colours: int = COLOURS) -> tuple[str, int | None]:
    """``(data URI, CSS width)`` of the PNG ``path`` as the report embeds it (:func:`display_png`);
    a file Pillow cannot read as an image is embedded as it is, its width None (the browser's)."""
    try:
        data, css = display_png(path, density, colours)
    except OSError:  # PIL.UnidentifiedImageError and a truncated file are OSErrors
        return png_data_uri(Path(path).read_bytes()), None
    return png_data_uri(data), css
