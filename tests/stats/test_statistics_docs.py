"""Every Python example of docs/statistics.md runs, in order, as a notebook would run it:
on the TREC 2019 DL passage track when ../shared/data holds it, and on the built-in
synthetic track."""

import pytest

from conftest import ROOT
from docs_examples import run_examples


@pytest.mark.parametrize("data", ["synthetic", "real"])
def test_every_python_example_of_the_statistics_page_runs(tmp_path, monkeypatch, data):
    printed = run_examples(ROOT / "docs" / "statistics.md", tmp_path, monkeypatch, data, "trec2019-dl-passage")
    assert ("37 runs" if data == "real" else "8 runs") in printed
    assert "\\toprule" in printed and "Markers: the runs each run beats at p < 0.05" in printed
    assert (tmp_path / "project" / "recall_precision.png").stat().st_size > 0
