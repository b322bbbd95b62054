"""The report's copies of the figures (reeval.report.images): the size shown, HiDPI or 1x,
a palette that keeps the figure as drawn, and the report's choice of density per figure."""

import base64
import io
import re

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from reeval.report.images import DISPLAY_PX_PER_IN, display_png, display_width


def drawn_figure(path, width="column"):
    """A real figure written by the saver: lines, a legend, text, a shaded band."""
    from reeval.report.figures import figure_style, new_figure, save_figure

    with figure_style():
        fig, ax = new_figure(width)
        x = np.linspace(0, 1, 50)
        ax.fill_between(x, x ** 2, x, alpha=0.3, label="band")
        ax.plot(x, x ** 2, label="a run")
        ax.plot(x, np.sqrt(x), "--", label="another run")
        ax.set_xlabel("recall")
        ax.legend()
        save_figure(fig, path)
    return path


def decoded(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data))


@pytest.mark.parametrize("width, css", [("column", 495), ("page", 1050)])
def test_a_figure_is_shown_150_css_pixels_per_printed_inch_with_twice_the_pixels_for_hidpi(tmp_path, width, css):
    png = drawn_figure(tmp_path / "f.png", width)
    assert DISPLAY_PX_PER_IN == 150 and display_width(png) == css
    sharp, shown = display_png(png, density=2)
    assert shown == css and decoded(sharp).width == 2 * css      # 300 px per inch: the print PNG's own pixels
    plain, shown = display_png(png, density=1)
    assert shown == css and decoded(plain).width == css
    assert decoded(plain).height == round(Image.open(png).height / 2)


def test_the_copy_is_a_palette_png_that_keeps_the_figure_as_drawn_in_a_third_of_the_bytes(tmp_path):
    png = drawn_figure(tmp_path / "f.png")
    data, _ = display_png(png, density=2)
    copy = decoded(data)
    assert copy.mode == "P" and len(data) < png.stat().st_size / 2
    original = np.asarray(Image.open(png).convert("RGB"), dtype=int)
    shown = np.asarray(copy.convert("RGB"), dtype=int)
    assert shown.shape == original.shape
    assert np.abs(shown - original).mean() < 0.5          # under half a level of 255 on average
    assert (np.abs(shown - original).max(axis=2) > 16).mean() < 0.001   # visibly different: under 0.1% of pixels


def test_a_per_track_copy_in_64_colours_keeps_the_figure_legible_in_fewer_bytes(tmp_path):
    from reeval.report.images import PER_TRACK_COLOURS

    png = drawn_figure(tmp_path / "f.png")
    full, _ = display_png(png, density=1)
    data, _ = display_png(png, density=1, colours=PER_TRACK_COLOURS)
    copy = decoded(data)
    assert copy.mode == "P" and len(copy.getcolors()) <= PER_TRACK_COLOURS and len(data) < len(full)
    original = np.asarray(decoded(full).convert("RGB"), dtype=int)
    shown = np.asarray(copy.convert("RGB"), dtype=int)
    assert np.abs(shown - original).mean() < 1.0                         # under a level of 255 on average
    assert (np.abs(shown - original).max(axis=2) > 16).mean() < 0.03     # visibly different: under 3% of pixels


def test_a_png_without_a_resolution_is_taken_at_300_dpi_and_transparency_lies_on_white(tmp_path):
    Image.new("RGBA", (600, 30), (0, 0, 0, 0)).save(tmp_path / "clear.png")   # no pHYs chunk
    data, css = display_png(tmp_path / "clear.png", density=1)
    assert css == 300 and decoded(data).convert("RGB").getpixel((5, 5)) == (255, 255, 255)


def test_a_small_png_is_never_enlarged(tmp_path):
    Image.new("RGB", (40, 20), "red").save(tmp_path / "small.png", dpi=(10, 10))   # 4 in printed: 600 css px
    data, css = display_png(tmp_path / "small.png", density=2)
    assert css == 600 and decoded(data).size == (40, 20)


def test_a_file_that_is_not_an_image_is_embedded_as_it_is_without_a_width(tmp_path):
    from reeval.report.images import embedded_png

    (tmp_path / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n truncated")
    assert embedded_png(tmp_path / "broken.png") == (
        "data:image/png;base64," + base64.b64encode(b"\x89PNG\r\n\x1a\n truncated").decode(), None)


def test_the_report_embeds_cross_track_figures_for_hidpi_and_per_track_ones_at_1x(tmp_path):
    from reeval.report.html import report_html

    res = tmp_path / "results"
    for folder in ("summary", "study", "tracks/t1/study"):
        (res / folder).mkdir(parents=True)
    pd.DataFrame({"track": ["t1"], "included": [True], "reason": ["included"], "runs_included": [3]}).to_csv(
        res / "summary" / "inclusion.csv", index=False)
    cross = drawn_figure(res / "study" / "fig1_p20.png", "page")
    mine = drawn_figure(res / "tracks" / "t1" / "study" / "fig5_document_asl.png")
    wide = drawn_figure(res / "tracks" / "t1" / "study" / "fig7 wide.png", "page")
    (res / "study" / "summary.md").write_text("# The study\n\n![best P@20](fig1_p20.png)\n")
    html = report_html(res, [cross, mine, wide], res / "summary" / "inclusion.csv")
    tags = re.findall(r'<a href="([^"]+)"><img alt="([^"]*)" width="(\d+)" src="data:image/png;base64,([^"]+)">', html)
    widths = {href: (int(css), decoded(base64.b64decode(data)).width) for href, _, css, data in tags}
    # every figure embedded, a page-wide per-track one too (the file alone shows it), at 1x,
    # the per-track ones in a palette of PER_TRACK_COLOURS
    from reeval.report.images import PER_TRACK_COLOURS
    colours = {href: len(decoded(base64.b64decode(data)).getcolors(256) or ()) for href, _, _, data in tags}
    assert all(n <= PER_TRACK_COLOURS for href, n in colours.items() if href.startswith("tracks/"))
    assert widths == {"study/fig1_p20.png": (1050, 2100), "tracks/t1/study/fig5_document_asl.png": (495, 495),
                      "tracks/t1/study/fig7%20wide.png": (1050, 1050)}
    assert ("study/fig1_p20.png", "best P@20") in {(href, alt) for href, alt, *_ in tags}   # the markdown's alt
    assert 'src="tracks/' not in html and "loading=" not in html
