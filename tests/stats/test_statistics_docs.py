"""Every Python example of docs/statistics.md runs, in order, as a notebook would run it:
on the TREC 2019 DL passage track when ../shared/data holds it, and on the built-in
synthetic track."""

import contextlib
import io
import re
import warnings

import pytest

from conftest import ROOT, SHARED_DATA

PAGE = ROOT / "docs" / "statistics.md"


def python_blocks(page) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```$", page.read_text(), flags=re.S | re.M)


@pytest.mark.parametrize("data", ["synthetic", "real"])
def test_every_python_example_of_the_statistics_page_runs(tmp_path, monkeypatch, data):
    if data == "real":
        if not (SHARED_DATA / "trec2019-dl-passage").is_dir():
            pytest.skip(f"TREC 2019 DL passages not found under {SHARED_DATA}: the examples ran on the synthetic track")
        (tmp_path / "shared").mkdir()
        (tmp_path / "shared" / "data").symlink_to(SHARED_DATA)
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    blocks = python_blocks(PAGE)
    assert len(blocks) >= 8
    namespace: dict = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for block in blocks:
            exec(compile(block, f"{PAGE}:block", "exec"), namespace)
    printed = out.getvalue()
    assert ("37 runs" if data == "real" else "8 runs") in printed
    assert "\\toprule" in printed and "Markers: the runs each run beats at p < 0.05" in printed
    assert (project / "recall_precision.png").stat().st_size > 0
