"""The figure style and saver (reeval.report.figures), and every cross-track figure at many
tracks, read back from their PDFs as a venue's PDF check reads them (tests/pdffigures.py)."""

import numpy as np
import pandas as pd
import pytest

from pdffigures import camera_ready_problems, figure_facts


def test_a_styled_figure_embeds_truetype_fonts_at_its_own_size(tmp_path):
    from reeval.report.figures import COLUMN, figure_style, new_figure, save_figure

    with figure_style():
        fig, ax = new_figure("column")
        ax.plot([1, 2, 3], [3, 1, 2], label="a run")
        ax.set_xlabel(r"recall level $i$ of $\Delta RR_i$")
        ax.legend()
        save_figure(fig, tmp_path / "f.pdf")
    facts = figure_facts(tmp_path / "f.pdf")
    assert facts["width_in"] == pytest.approx(COLUMN, abs=0.01)  # no tight box shrinking it
    assert facts["fonts"] and not {k for k, v in facts["fonts"].items() if v == "/Type3"}, facts["fonts"]
    assert min(size for _, size in facts["texts"]) >= 7 - 0.01  # the subscript i included
    assert camera_ready_problems(tmp_path / "f.pdf") == []


@pytest.mark.parametrize("width", ["column", "page", 5.0])
def test_a_png_is_printed_width_times_300_pixels_wide_and_says_300_dpi(tmp_path, width):
    from PIL import Image

    from reeval.report.figures import PRINT_DPI, figure_style, new_figure, save_figure

    with figure_style():
        fig, ax = new_figure(width)
        ax.plot([1, 2, 3], [3, 1, 2])
        inches = fig.get_figwidth()
        save_figure(fig, tmp_path / "f.png", tmp_path / "f.pdf")
    with Image.open(tmp_path / "f.png") as png:
        assert PRINT_DPI == 300 and png.width == round(inches * 300)   # 990 px for a column, 2,100 for a page
        assert png.info["dpi"] == pytest.approx((300, 300), abs=0.01)  # a print layout places it at its size
    assert figure_facts(tmp_path / "f.pdf")["width_in"] == pytest.approx(inches, abs=0.01)   # the PDF stays


def test_the_sentence_in_place_of_a_figure_is_at_print_resolution_too(tmp_path):
    from PIL import Image

    from reeval.report.figures import COLUMN, failure_figure

    failure_figure(tmp_path / "f", "no runs")
    with Image.open(tmp_path / "f.png") as png:
        assert png.width == round(COLUMN * 300)


def test_the_saver_embeds_truetype_fonts_even_for_a_figure_drawn_without_the_style(tmp_path):
    from reeval.report.figures import pyplot, save_figure

    fig, ax = pyplot().subplots(figsize=(4, 3))
    ax.plot([0, 1], [1, 0])
    save_figure(fig, tmp_path / "plain.pdf")
    assert "/Type3" not in figure_facts(tmp_path / "plain.pdf")["fonts"].values()


@pytest.mark.parametrize("problem, message", [
    ("wide", "more than a page"), ("small", "under 7 pt"), ("cut", "past the edge\" reaches .* beyond the right edge"),
])
def test_the_saver_refuses_a_figure_that_is_not_camera_ready(tmp_path, problem, message):
    from reeval.report.figures import figure_style, new_figure, pyplot, save_figure

    with figure_style():
        if problem == "wide":
            fig, ax = pyplot().subplots(figsize=(8, 3))
        else:
            fig, ax = new_figure("column")
        if problem == "small":
            ax.set_title("legend text", fontsize=6)
        if problem == "cut":  # a note on the figure, which the layout does not move
            fig.text(0.9, 0.5, "a note past the edge")
        with pytest.raises(ValueError, match=message):
            save_figure(fig, tmp_path / "bad.pdf")
    assert not (tmp_path / "bad.pdf").exists()
    with pytest.raises(ValueError, match="at most 7"):
        new_figure(7.5)


def test_a_title_too_long_for_its_width_is_wrapped(tmp_path):
    from reeval.report.figures import figure_style, new_figure, overflow, save_figure

    with figure_style():
        fig, ax = new_figure("column")
        title = ax.set_title("trec17-blog-baseline-opinion: a title far too long for a column-wide figure")
        save_figure(fig, tmp_path / "t.pdf")
        assert "\n" in title.get_text() and overflow(fig) == 0
    assert camera_ready_problems(tmp_path / "t.pdf") == []


def test_math_with_subscripts_is_enlarged_so_that_its_scripts_print_at_7_pt():
    from reeval.report.figures import SCRIPT_SHRINK, enlarge_math, figure_style, has_scripts, new_figure, pyplot

    assert has_scripts(r"$\Delta RR_i$") and has_scripts("P($p'$)") and not has_scripts("P_20 and $x$")
    with figure_style():
        fig, ax = new_figure("column")
        label = ax.set_xlabel(r"$\Delta RR_{i+j}$", parse_math=True)
        plain = ax.set_ylabel("P_20 (no math)")
        name = ax.set_title("$x_1$")  # a name from the data: drawn literally, at its own size
        enlarge_math(fig)
        assert label.get_fontsize() * SCRIPT_SHRINK == pytest.approx(7) and plain.get_fontsize() == 8
        assert not name.get_parse_math() and name.get_fontsize() == 8
        pyplot().close(fig)


def test_coinciding_series_are_grouped_and_distinct_ones_are_not():
    from reeval.report.figures import coinciding, coinciding_label

    x = [0, 0.5, 1]
    groups = coinciding({"P": (x, [1, 0.9, np.nan]), "P norm": (x, [1, 0.9 + 1e-13, np.nan]),
                         "AP": (x, [1, 0.8, 0.7]), "AP norm": ([0, 0.5], [1, 0.8])})
    assert groups == [["P", "P norm"], ["AP"], ["AP norm"]]
    assert coinciding_label(["P", "P norm"]) == "P = P norm"
    assert coinciding_label(["P rareness", "AP rareness", "P rareness norm"]) == "P rareness = AP rareness =\nP rareness norm"


def test_integer_ticks_and_distribution_bands(tmp_path):
    from reeval.report.figures import across_tracks, figure_style, integer_ticks, new_figure, pyplot

    with figure_style():
        fig, ax = new_figure("column")
        ax.bar([0, 1, 2], [1, 3, 2])
        integer_ticks(ax.yaxis)
        fig.draw_without_rendering()
        assert all(float(t).is_integer() for t in ax.get_yticks())
        frame = pd.DataFrame({"track": list("aabbcc"), "x": [1, 2] * 3, "y": [0.1, 0.2, 0.3, 0.4, 0.5, np.nan]})
        assert across_tracks(ax, frame, "x", "y", "C0", label="median") == 3
        median = ax.get_lines()[-1]
        assert list(median.get_ydata()) == pytest.approx([0.3, 0.3])  # x=2: the median of 0.2 and 0.4
        pyplot().close(fig)


def many_tracks(results, n: int, step: str, names) -> dict:
    """{track: folder} of ``n`` tracks made of the default run's per-track tables of ``step``
    (copies renamed, so the cross-track figures meet many tracks)."""
    base = sorted((results / "tracks").iterdir())
    out = {}
    for k in range(n):
        src = base[k % len(base)] / step
        dst = results.parent / f"many-{step}" / f"track{k:02d}"
        dst.mkdir(parents=True, exist_ok=True)
        for name in names:
            df = pd.read_parquet(src / f"{name}.parquet")
            df["track"] = f"track{k:02d}"
            df.to_parquet(dst / f"{name}.parquet")
        out[f"track{k:02d}"] = dst
    return out


def test_cross_track_figures_at_82_tracks_are_distributions_and_camera_ready(small_study, tmp_path):
    """Above FEW_TRACKS tracks the cross-track figures draw the distribution over tracks,
    stay camera-ready, and summary.md names every track in its table."""
    from reeval.analyses.lexiprecision import report as lr
    from reeval.analyses.rareness import report as rp
    from reeval.workflow.config_check import section_with_defaults

    lexi = many_tracks(small_study, 82, "lexiprecision", lr.SUMMARY_TABLES)
    lr.summarize_lexiprecision(lexi, tmp_path / "lexiprecision", {}, section_with_defaults("lexiprecision"))
    rare = many_tracks(small_study, 82, "rareness", (*rp.ANALYSES, "by_topic"))  # the tables the rule reads
    rp.summarize_rareness(rare, tmp_path / "rareness", rp.with_parsed_alphas(section_with_defaults("rareness")))
    pdfs = sorted(tmp_path.rglob("*.pdf"))
    assert len(pdfs) == 7
    assert [p for pdf in pdfs for p in camera_ready_problems(pdf)] == []
    for study in ("lexiprecision", "rareness"):
        text = (tmp_path / study / "summary.md").read_text()
        assert "82 tracks" in text and all(f"| track{k:02d} |" in text for k in range(82)), study
    assert "median of the tracks" in " ".join(t for t, _ in figure_facts(tmp_path / "lexiprecision" / "fig5_ties_by_level.pdf")["texts"])


@pytest.fixture(scope="module")
def small_study(tmp_path_factory):
    """The per-track lexiprecision and rareness tables of three small synthetic tracks,
    computed by the package functions (no Snakemake), without their figures."""
    from reeval.analyses.lexiprecision.report import track_lexiprecision
    from reeval.analyses.rareness.report import track_rareness, with_parsed_alphas
    from reeval.io.ingest import ingest_track, write_track
    from reeval.synth.tracks import spec_from_config, write_track as write_synthetic
    from reeval.workflow.config_check import section_with_defaults
    from reeval.workflow.tracks import resolve_runs

    root = tmp_path_factory.mktemp("study")
    rare = with_parsed_alphas(section_with_defaults("rareness", {"trials": 20}))
    for k, name in enumerate(("syn-graded", "syn-shallow", "syn-mixed")):
        raw = root / "raw" / name
        write_synthetic(raw, spec_from_config(name), seed=k)
        d = root / "tracks" / name
        write_track(ingest_track(name, str(raw / "qrels.txt"), resolve_runs(str(raw / "runs"))), d)
        track_lexiprecision(name, d, d / "lexiprecision", 1, section_with_defaults("lexiprecision"), figures=False)
        track_rareness(name, d, d / "rareness", rare, figures=False)
        assert not list(d.rglob("*.png")) and not list(d.rglob("*.pdf"))
    return root


def test_wrapping_never_splits_math_or_a_word():
    from reeval.report.figures import fill, wrapped

    text = r"trec2019-dl-passage: Pearson $r$ among $\Delta RR_i$ ($m \geq 8$) over pairs"
    for chars in (8, 12, 20, 40):
        for line in fill(text, chars).split("\n"):
            assert line.count("$") % 2 == 0, (chars, line)    # every line's math closes on it
    assert "$\\Delta RR_i$" in fill(text, 8) and "$m \\geq 8$" in fill(text, 8)
    assert "trec2019-dl-passage:" in fill(text, 8).split("\n")  # a long word stays whole
    assert "deepest\u00a0run:\u00a0100)" in wrapped("12 docs/topic (deepest\u00a0run:\u00a0100)", 1.0)


def test_lexiprecision_figures_3_5_6_keep_one_line_per_track_up_to_18(small_study, tmp_path, monkeypatch):
    """The paper draws its 18 benchmarks as 18 lines: up to MANY_LINES tracks figures 3, 5
    and 6 draw one line per track (a page wide, the legend beside, beyond FEW_TRACKS),
    then the distribution; each camera-ready."""
    from reeval.analyses.lexiprecision import figures as lf
    from reeval.analyses.lexiprecision import report as lr
    from reeval.archive.inclusion import NO_TRACK_FIGURE_NOTE
    from reeval.io.tables import read_stacked
    from reeval.report.figures import MANY_LINES, PAGE, save_figure_pair

    seen = {}

    def keep(fig, stem):
        seen[stem.name] = (fig.get_figwidth(), {ln.get_label() for ax in fig.axes for ln in ax.get_lines()})
        save_figure_pair(fig, stem)

    monkeypatch.setattr(lf, "save_figure_pair", keep)
    for n in (MANY_LINES, MANY_LINES + 1):
        dirs = many_tracks(small_study, n, "lexiprecision", lr.SUMMARY_TABLES)
        tables = {name: read_stacked([d / f"{name}.parquet" for d in dirs.values()], lr.TABLE_COLUMNS[name])
                  for name in lr.SUMMARY_TABLES}
        out = tmp_path / str(n)
        out.mkdir()
        lf.cross_track_figures(tables, out, NO_TRACK_FIGURE_NOTE)
        for name in ("fig3_ties_by_p1", "fig5_ties_by_level", "fig6_i_star_ecdf"):
            width, labels = seen[name]
            drawn = {t for t in dirs if t in labels}
            if n <= MANY_LINES:
                assert width == PAGE and drawn == set(dirs), name
            else:
                assert drawn == set() and width < PAGE, name
            assert camera_ready_problems(out / f"{name}.pdf") == []


def test_per_track_figures_7_and_8_in_the_papers_form_are_camera_ready(small_study, tmp_path):
    from reeval.analyses.lexiprecision.report import TRACK_TABLES
    from reeval.analyses.lexiprecision import figures as lf

    d = small_study / "tracks" / "syn-graded" / "lexiprecision"
    tables = {name: pd.read_parquet(d / f"{name}.parquet") for name in TRACK_TABLES}
    lf.track_figures("syn-graded", tables, tmp_path, np.random.default_rng(0).normal(size=(50, 8)))
    for name in ("fig7_locality", "fig8_agreement"):
        assert camera_ready_problems(tmp_path / f"{name}.pdf") == []
    texts = " ".join(t for t, _ in figure_facts(tmp_path / "fig8_agreement.pdf")["texts"])
    assert "labels removed" in texts and "queries removed" in texts and "sgnLP" in texts
    assert "$" not in " ".join(t for t, _ in figure_facts(tmp_path / "fig7_locality.pdf")["texts"])
    # the points of figure 7's 28 panels: one raster image in the PDF, not one a panel (each
    # made matplotlib render a page-sized image: two thirds of the figure's time)
    from pypdf import PdfReader

    page = PdfReader(tmp_path / "fig7_locality.pdf").pages[0]
    images = [x for x in page["/Resources"]["/XObject"].values() if x.get_object()["/Subtype"] == "/Image"]
    assert len(images) == 1


def test_figure_8_letters_its_four_panels_and_figure_9_tells_rr_from_lexiprecision(small_study, tmp_path,
                                                                                     monkeypatch):
    """Issue 39 item 7: figure 8's two top panels were both "(a)"; figure 9 drew RR and
    lexiprecision in one colour and named one dashed line "rrLP, sgnLP" (their ties are the
    same: sgnLP is rrLP's sign), which read as a line missing. Now (a)-(d), and RR solid
    green, rrLP dashed red (the paper's), labelled as one line for both."""
    from matplotlib.colors import to_hex

    from reeval.analyses.lexiprecision import figures as lf
    from reeval.analyses.lexiprecision.report import TRACK_TABLES

    seen = {}
    monkeypatch.setattr(lf, "save_figure_pair", lambda fig, stem: seen.setdefault(stem.name, fig))
    d = small_study / "tracks" / "syn-graded" / "lexiprecision"
    tables = {name: pd.read_parquet(d / f"{name}.parquet") for name in TRACK_TABLES}
    lf.track_figures("syn-graded", tables, tmp_path)
    titles = [ax.get_title()[:4] for ax in seen["fig8_agreement"].axes]
    assert titles == ["(a) ", "(b) ", "(c) ", "(d) "]
    lines = {ln.get_label(): (ln.get_linestyle(), to_hex(ln.get_color())) for ln in seen["fig9_label_removal"].axes[0].get_lines()}
    assert lines == {"RR": ("-", "#009e73"), "rrLP = sgnLP (the same ties)": ("--", "#d55e00")}


def edge_tick_panels():
    """Four panels from 0.98 to 1.01 under long titles, as the cross-track reusability figure
    of the full simulated study (every track's tau between 0.99 and 1, issue 41 item 4): at
    the width constrained layout measures, ticks every 0.02; at the final, wider one every
    0.01, with "1.01" on the right edge of the right-most panel."""
    from reeval.report.figures import new_figure

    fig, axes = new_figure("page", height=2.1, nrows=1, ncols=4, squeeze=False)
    for ax in axes.ravel():
        ax.plot([0.98, 1.01], [0.98, 1.01])
        ax.set_xlim(0.98, 1.01)
        ax.set_ylim(0.98, 1.01)
        ax.set_title("AP_rareness@100\nagainst map_cut_100")
        ax.set_ylabel("τ of AP_rareness@100")
    fig.suptitle("Kendall's τ, full qrels against leave one group out")
    return fig


def test_a_tick_label_that_appears_on_the_edge_after_the_layout_is_made_room_for(tmp_path):
    from reeval.report.figures import figure_style, freeze_ticks, overflow, overflow_message, pyplot, save_figure

    with figure_style():
        fig = edge_tick_panels()
        fig.draw_without_rendering()  # one layout, as the saver did before
        assert overflow_message(fig) == ('the x tick label "1.01" of panel 4 of 4 ("AP_rareness@100") reaches '
                                         f"{overflow(fig):.2f} in beyond the right edge")
        freeze_ticks(fig)
        fig.draw_without_rendering()  # laid out again with the ticks it draws
        assert overflow(fig) == 0 and overflow_message(fig) is None
        assert [t.get_text() for t in fig.axes[-1].get_xticklabels()] == ["0.98", "0.99", "1.00", "1.01"]
        pyplot().close(fig)
        save_figure(edge_tick_panels(), tmp_path / "edge.pdf")
    assert camera_ready_problems(tmp_path / "edge.pdf") == []


def test_a_layout_check_that_fails_names_what_reaches_beyond_the_edge(tmp_path):
    from reeval.report.figures import FigureError, figure_style, new_figure, save_figure

    with figure_style():
        fig, ax = new_figure("column")
        ax.set_title("a panel")
        fig.text(0.9, 0.5, "a note past the edge")
        with pytest.raises(FigureError) as caught:
            save_figure(fig, tmp_path / "cut.png")
    assert caught.value.path == tmp_path / "cut.png"
    assert caught.value.reason.startswith('the text "a note past the edge" reaches 0.')
    assert caught.value.reason.endswith(" in beyond the right edge") and "title" not in caught.value.reason


def test_a_figure_that_cannot_be_drawn_is_replaced_by_a_sentence_saying_why(tmp_path, caplog, monkeypatch):
    from reeval.report.figures import (FIGURE_LOG, STRICT, FigureError, drawn_or_told, figure_style, new_figure,
                                       save_figure_pair)

    with figure_style():
        fig, ax = new_figure("column")
        fig.text(0.9, 0.5, "a note past the edge")
        with pytest.raises(FigureError):  # the test suite's switch: a figure problem fails the test
            save_figure_pair(fig, tmp_path / "note")
        monkeypatch.delenv(STRICT)
        fig, ax = new_figure("column")
        fig.text(0.9, 0.5, "a note past the edge")
        save_figure_pair(fig, tmp_path / "note")  # the report's saver: the sentence in the figure's place
    assert "Thisfigurecouldnotbedrawn:thetext\"anotepastthe" in "".join(
        t for t, _ in figure_facts(tmp_path / "note.pdf")["texts"]).replace(" ", "")
    with caplog.at_level("WARNING", logger=FIGURE_LOG):
        with drawn_or_told(tmp_path / "scores"):
            raise FigureError(tmp_path / "scores.png", 'the x tick label "0.050" reaches 0.05 in beyond the right edge')
    assert f"figure {tmp_path / 'scores'}.png not drawn: the x tick label" in caplog.text
    text = "".join(t for t, _ in figure_facts(tmp_path / "scores.pdf")["texts"]).replace(" ", "")  # "fi gure"
    assert "Thisfigurecouldnotbedrawn:thextickla" in text and (tmp_path / "scores.png").is_file()
    assert camera_ready_problems(tmp_path / "scores.pdf") == []
    with drawn_or_told(tmp_path / "bug"):
        raise KeyError("P_100")  # a bug in a drawing costs the figure only, said the same way
    assert "KeyError:'P_100'" in "".join(t for t, _ in figure_facts(tmp_path / "bug.pdf")["texts"]).replace(" ", "")


def test_tick_labels_that_touch_on_a_narrow_panel_are_thinned(tmp_path):
    """A panel 1 in wide from 0.0725 to 0.1375 (P_rareness@100 of the CAsT 2021 track beside
    a legend) got "0.075", "0.100", "0.125" touching; the saver thins them to two."""
    from reeval.report.figures import crowded, figure_style, new_figure, thin_ticks

    with figure_style():
        fig, ax = new_figure(1.0, 1.5)
        ax.set_xlim(0.0725, 0.1375)
        ax.set_ylabel("without its group")
        fig.draw_without_rendering()
        assert [t.label1.get_text() for t in ax.xaxis._update_ticks()] == ["0.075", "0.100", "0.125"]
        assert crowded(ax.xaxis) and not crowded(ax.yaxis)
        assert thin_ticks(fig)
        fig.draw_without_rendering()
        assert [t.label1.get_text() for t in ax.xaxis._update_ticks()] == ["0.08", "0.12"]
        assert not crowded(ax.xaxis) and not thin_ticks(fig)


def test_a_pdfs_embedded_fonts_keep_their_glyphs_and_leave_out_the_layout_tables(tmp_path):
    """The TrueType font a figure's PDF embeds (subset by fontTools) holds outlines, metrics
    and character map but none of UNUSED_FONT_TABLES (OpenType layout, kerning: no PDF
    viewer reads them; subsetting them was two thirds of the embedding's time), and the
    subsetter is left as it was found."""
    import io

    from fontTools import subset
    from fontTools.ttLib import TTFont
    from pypdf import PdfReader

    from reeval.report.figures import UNUSED_FONT_TABLES, figure_style, new_figure, save_figure

    load = subset.load_font
    with figure_style():
        fig, ax = new_figure("column")
        ax.plot([0, 1], [0, 1], label="AV To")  # kerned pairs in DejaVu Sans
        ax.legend()
        ax.set_title("Kendall's τ against α")
        save_figure(fig, tmp_path / "f.pdf")
    assert subset.load_font is load
    fonts = []
    for page in PdfReader(tmp_path / "f.pdf").pages:
        for font in page["/Resources"]["/Font"].values():
            for part in [font.get_object(), *font.get_object().get("/DescendantFonts", [])]:  # Type0: a CID font
                descriptor = part.get_object().get("/FontDescriptor")
                if descriptor and "/FontFile2" in descriptor.get_object():
                    fonts.append(TTFont(io.BytesIO(descriptor.get_object()["/FontFile2"].get_data())))
    assert fonts
    for font in fonts:
        assert {"glyf", "loca", "hmtx", "cmap"} <= set(font.keys())
        assert not set(UNUSED_FONT_TABLES) & set(font.keys()), sorted(font.keys())
        assert len(font.getGlyphOrder()) > 10
