"""How the saver writes a figure (reeval.report.figures.save_figure): laid out once, by
drawing it on its canvas at the PNG's resolution; that picture written as the PNG; the PDF
drawn at the same positions."""

import pytest


def _gridspec_figure():
    """A figure placed by its gridspec, without a layout engine (as figure 7 is drawn)."""
    from reeval.report.figures import pyplot

    fig = pyplot().figure(figsize=(3.3, 2.5), layout="none")
    grid = fig.add_gridspec(1, 2, left=0.14, right=0.97, bottom=0.18, top=0.86, wspace=0.35)
    for k in range(2):
        ax = fig.add_subplot(grid[k])
        ax.plot([0, 1, 2], [k, 2, 1])
        ax.set_title(f"panel {k + 1}")
    return fig


def _constrained_figure():
    from reeval.report.figures import new_figure

    fig, ax = new_figure("column")
    ax.plot([1, 2, 3], [3, 1, 2], label="a run")
    ax.set_xlabel(r"recall level $i$ of $\Delta RR_i$", parse_math=True)
    ax.set_title("a track")
    ax.legend()
    return fig


@pytest.mark.parametrize("make", [_constrained_figure, _gridspec_figure], ids=["constrained", "gridspec"])
def test_the_png_and_the_pdf_are_drawn_at_the_positions_of_the_one_layout(tmp_path, monkeypatch, make):
    """Each draw of the saver (the layout's, whose picture is the PNG, then the PDF's) puts
    the axes where the layout did: no layout engine runs again while the files are written
    (matplotlib restores the figure's engine after a save, from the style's
    ``figure.constrained_layout.use`` when it had none: a gridspec figure's PDF was laid
    out by constrained layout, unlike its PNG), and no format is drawn twice."""
    from matplotlib.figure import Figure

    from reeval.report.figures import figure_style, save_figure

    draws = []
    draw = Figure.draw

    def recording(self, renderer):
        draw(self, renderer)
        draws.append((type(renderer).__name__, tuple(tuple(ax.get_position().bounds) for ax in self.axes)))

    monkeypatch.setattr(Figure, "draw", recording)
    with figure_style():
        save_figure(make(), tmp_path / "f.png", tmp_path / "f.pdf")
    assert [renderer for renderer, _ in draws] == ["RendererAgg", "MixedModeRenderer"], draws
    assert len({positions for _, positions in draws}) == 1, draws


def test_the_png_written_from_the_layouts_picture_is_what_savefig_writes(tmp_path):
    import reeval.report.figures as figures

    with figures.figure_style():
        figures.save_figure(_constrained_figure(), tmp_path / "picture.png")
        fig = _constrained_figure()  # the same figure, saved by matplotlib (its layout redone at 300 dpi)
        figures.enlarge_math(fig)
        fig.savefig(tmp_path / "savefig.png", format="png", dpi=figures.PRINT_DPI,
                    metadata=figures.FIGURE_METADATA["png"])
        figures.pyplot().close(fig)
    assert (tmp_path / "picture.png").read_bytes() == (tmp_path / "savefig.png").read_bytes()


def test_a_figure_made_without_pyplot_is_saved_as_a_pyplot_one(tmp_path):
    """A ``matplotlib.figure.Figure`` made directly (a canvas that draws nothing) is given
    an Agg canvas to be laid out on: the same files as the same figure made by pyplot."""
    from matplotlib.figure import Figure

    from reeval.report.figures import COLUMN, figure_style, new_figure, save_figure

    with figure_style():
        bare = Figure(figsize=(COLUMN, 2.5), layout="constrained")
        made = new_figure("column")[0]
        for fig, name in ((bare, "bare"), (made, "pyplot")):
            ax = fig.axes[0] if fig.axes else fig.add_subplot()
            ax.plot([1, 2, 3], [3, 1, 2], label="a run")
            ax.set_title("a track")
            ax.legend()
            save_figure(fig, tmp_path / f"{name}.png", tmp_path / f"{name}.pdf")
    for suffix in ("png", "pdf"):
        assert (tmp_path / f"bare.{suffix}").read_bytes() == (tmp_path / f"pyplot.{suffix}").read_bytes()
