"""The documentation site builds with ``mkdocs build --strict``, and every Python example of
the API page runs, in order, as a notebook would run it: on the real TREC-COVID round 1
when ../shared/data holds it, and on the built-in synthetic track."""

import re
import subprocess
import sys

import pytest

from conftest import ROOT
from docs_examples import run_examples

API_PAGE = ROOT / "docs" / "api.md"


def test_the_site_builds_strictly(tmp_path):
    pytest.importorskip("mkdocs", reason="the docs extra (pip install -e '.[docs]') builds the site")
    pytest.importorskip("mkdocstrings", reason="the docs extra (pip install -e '.[docs]') builds the site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"),
                           "-d", str(tmp_path / "site")], capture_output=True, text=True, cwd=ROOT,
                          env={"NO_MKDOCS_2_WARNING": "1", "PATH": "", "HOME": str(tmp_path),
                               "PYTHONPATH": str(ROOT / "src")})
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if re.match(r"(\x1b\[\d+m)*(WARNING|ERROR)\b", line)]
    assert not warnings, "\n".join(warnings)  # not hidden by -q: every warning fails the test
    assert (tmp_path / "site" / "api" / "index.html").is_file()
    assert "reeval.api.scoring.evaluate" in (tmp_path / "site" / "api" / "index.html").read_text()


@pytest.mark.parametrize("data", ["synthetic", "real"])
def test_every_python_example_of_the_api_page_runs(tmp_path, monkeypatch, data):
    printed = run_examples(API_PAGE, tmp_path, monkeypatch, data, "trec-covid-round1")
    assert ("143 runs" if data == "real" else "8 runs") in printed
    assert "expected a number in score" in printed and "duplicate line" in printed
