"""The documentation site builds with ``mkdocs build --strict``, and every Python example of
the API page runs, in order, as a notebook would run it: on the real TREC-COVID round 1
when ../shared/data holds it, and on the built-in synthetic track."""

import contextlib
import io
import re
import subprocess
import sys
import warnings

import pytest

from conftest import ROOT, SHARED_DATA

API_PAGE = ROOT / "docs" / "api.md"


def python_blocks(page) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```$", page.read_text(), flags=re.S | re.M)


def test_the_site_builds_strictly(tmp_path):
    pytest.importorskip("mkdocs", reason="the docs extra (pip install -e '.[docs]') builds the site")
    pytest.importorskip("mkdocstrings", reason="the docs extra (pip install -e '.[docs]') builds the site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(ROOT / "mkdocs.yml"),
                           "-d", str(tmp_path / "site")], capture_output=True, text=True, cwd=ROOT,
                          env={"NO_MKDOCS_2_WARNING": "1", "PATH": "", "HOME": str(tmp_path),
                               "PYTHONPATH": str(ROOT / "src")})
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "site" / "api" / "index.html").is_file()
    assert "reeval.api.scoring.evaluate" in (tmp_path / "site" / "api" / "index.html").read_text()


@pytest.mark.parametrize("data", ["synthetic", "real"])
def test_every_python_example_of_the_api_page_runs(tmp_path, monkeypatch, data):
    if data == "real":
        if not (SHARED_DATA / "trec-covid-round1").is_dir():
            pytest.skip(f"TREC-COVID round 1 not found under {SHARED_DATA}: the examples ran on the synthetic track")
        (tmp_path / "shared").mkdir()
        (tmp_path / "shared" / "data").symlink_to(SHARED_DATA)
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    blocks = python_blocks(API_PAGE)
    assert len(blocks) >= 8
    namespace: dict = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for block in blocks:
            exec(compile(block, f"{API_PAGE}:block", "exec"), namespace)
    printed = out.getvalue()
    assert ("143 runs" if data == "real" else "8 runs") in printed
    assert "expected a number in score" in printed and "duplicate line" in printed
