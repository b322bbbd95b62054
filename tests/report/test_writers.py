"""The shared writers of report outputs: a table as a Parquet + CSV pair, a figure as PNG + PDF."""

import pandas as pd
import pyarrow.parquet as pq
import pytest


def test_write_table_pair_writes_parquet_and_csv_of_the_same_table(tmp_path):
    from reeval.io.tables import write_table, write_table_pair

    df = pd.DataFrame({"track": ["a", "b"], "runs": [3, 4]})
    table = write_table_pair(df, tmp_path / "out", "tracks")
    assert pq.read_table(tmp_path / "out" / "tracks.parquet").equals(table)
    assert pd.read_csv(tmp_path / "out" / "tracks.csv").equals(df)
    write_table(df, tmp_path / "direct.parquet", tmp_path / "direct.csv")
    for ext in ("parquet", "csv"):  # the same bytes as the writer called with both paths
        assert (tmp_path / f"direct.{ext}").read_bytes() == (tmp_path / "out" / f"tracks.{ext}").read_bytes()
    with pytest.raises(ValueError, match="columns"):
        write_table_pair(df, tmp_path, "x", columns=("track",))


def test_save_figure_pair_writes_png_and_pdf_beside_the_stem(tmp_path):
    from reeval.report.figures import pyplot, save_figure_pair

    plt = pyplot()
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    save_figure_pair(fig, tmp_path / "fig2_aslg1-10.v2")   # a dot in the stem stays
    assert (tmp_path / "fig2_aslg1-10.v2.png").read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "fig2_aslg1-10.v2.pdf").read_bytes()[:4] == b"%PDF"
    assert not plt.fignum_exists(fig.number)
