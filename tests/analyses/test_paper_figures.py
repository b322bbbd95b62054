"""The figures drawn in the papers' form say what they show and hide nothing: figure 6's
ECDF is over the pairs not tied, ASL figure 6's ties note covers no bar label, the note of
lexiprecision figure 9 on one track does not sit on a curve."""

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402

from reeval.analyses.asl import figures as af  # noqa: E402
from reeval.analyses.lexiprecision import figures as lf  # noqa: E402


def _capture(monkeypatch, module):
    """Figures ``module`` saves, kept open (drawn) instead of written."""
    kept = []

    def keep(fig, path_stem):
        fig.canvas.draw()
        kept.append(fig)
    monkeypatch.setattr(module, "save_figure_pair", keep)
    return kept


def _overlap(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def test_asl_figure_6_ties_note_covers_no_bar_label(monkeypatch, tmp_path):
    kept = _capture(monkeypatch, af)
    note = "4 ties (difference 0)\ncounted in \u201c(-10, 0)\u201d"
    af.bar_histogram([f"b{k}" for k in range(8)], [1, 2, 3, 4, 5, 6, 7, 30], "t: best minus median run",
                     "ASL difference", "relevant documents", tmp_path / "f", note=note, subtitle="best by ASL: r")
    fig = kept[0]
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    labels = [t.get_window_extent(renderer) for t in ax.texts if t.get_text().isdigit()]
    assert len(labels) == 8
    said = [t for t in [ax.title, *ax.texts, *fig.texts] if "4 ties" in t.get_text()]
    assert len(said) == 1
    box = said[0].get_window_extent(renderer)
    assert not any(_overlap(box, label) for label in labels)
    assert not any(_overlap(box, bar.get_window_extent(renderer)) for bar in ax.patches)


def test_lexiprecision_figure_6_ecdf_is_over_the_pairs_not_tied():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    lf.plot_fig6(ax, pd.DataFrame({"i_star": [1, 2, 5], "ecdf": [0.5, 0.8, 1.0]}), "t")
    assert ax.get_ylabel() == "share of the pairs not tied (ECDF)"
    plt.close(fig)


def test_lexiprecision_figure_9_note_on_one_track_sits_on_no_curve(monkeypatch, tmp_path):
    kept = _capture(monkeypatch, lf)
    x = [0.0, 0.25, 0.5, 0.75, 0.9]
    df = pd.DataFrame({"track": "t", "fraction_removed": x, "RR_ties_mean": [20, 30, 45, 60, 80],
                       "LP_ties_mean": [0.0, 0.2, 0.8, 2.0, 5.0]})
    lf.fig9_across_tracks(df, ["t"], {"t": "#000000"}, tmp_path / "f9", "no track")
    fig = kept[0]
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    notes = [t for t in ax.texts if "distribution" in t.get_text()]
    for t in notes:   # a note inside the axes must keep clear of every curve's points
        box = t.get_window_extent(renderer)
        for line in ax.lines:
            points = ax.transData.transform(line.get_xydata())
            inside = ((points[:, 0] >= box.x0) & (points[:, 0] <= box.x1)
                      & (points[:, 1] >= box.y0) & (points[:, 1] <= box.y1))
            assert not inside.any()
    assert "no distribution across tracks" in ax.get_title() + "".join(t.get_text() for t in ax.texts)
