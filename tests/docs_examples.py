"""Running a documentation page's Python examples in order, as a notebook would run them
(tests/api/test_api_docs.py, tests/stats/test_statistics_docs.py)."""

import contextlib
import io
import re
import warnings

import pytest

from conftest import SHARED_DATA


def python_blocks(page) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```$", page.read_text(), flags=re.S | re.M)


def run_examples(page, tmp_path, monkeypatch, data: str, track: str) -> str:
    """Run every ```python block of ``page`` in one namespace, in a fresh folder
    ``project`` beside a ``shared/data`` link to the real tracks (``data="real"``; skips
    when ``track`` is absent) or none (``"synthetic"``); returns what they printed."""
    if data == "real":
        if not (SHARED_DATA / track).is_dir():
            pytest.skip(f"{track} not found under {SHARED_DATA}: the examples ran on the synthetic track")
        (tmp_path / "shared").mkdir()
        (tmp_path / "shared" / "data").symlink_to(SHARED_DATA)
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    blocks = python_blocks(page)
    assert len(blocks) >= 8
    namespace: dict = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for block in blocks:
            exec(compile(block, f"{page}:block", "exec"), namespace)
    return out.getvalue()
