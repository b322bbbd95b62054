"""The documentation site builds with ``mkdocs build --strict``, and every Python example of
the API page runs, in order, as a notebook would run it: on the real TREC-COVID round 1
when ../shared/data holds it, and on the built-in synthetic track."""

import re
import subprocess
import sys

import pytest

import browser as browsers
from conftest import ROOT
from docs_examples import run_examples

API_PAGE = ROOT / "docs" / "api.md"
browser = browsers.browser  # the headless Chromium fixture (tests/browser.py)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """(the built site's folder, mkdocs build --strict's result), built once per module."""
    pytest.importorskip("mkdocs", reason="the docs extra (pip install -e '.[docs]') builds the site")
    pytest.importorskip("mkdocstrings", reason="the docs extra (pip install -e '.[docs]') builds the site")
    tmp_path = tmp_path_factory.mktemp("docs")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"),
                           "-d", str(tmp_path / "site")], capture_output=True, text=True, cwd=ROOT,
                          env={"NO_MKDOCS_2_WARNING": "1", "PATH": "", "HOME": str(tmp_path),
                               "PYTHONPATH": str(ROOT / "src")})
    return tmp_path / "site", done


def test_the_site_builds_strictly(site):
    folder, done = site
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if re.match(r"(\x1b\[\d+m)*(WARNING|ERROR)\b", line)]
    assert not warnings, "\n".join(warnings)  # not hidden by -q: every warning fails the test
    assert (folder / "api" / "index.html").is_file()
    assert "reeval.api.scoring.evaluate" in (folder / "api" / "index.html").read_text()


def test_the_measures_table_fits_the_page_at_1280_px(site, browser):
    """Issue 39 item 8: the measures table's last column was cut off on screen (6 columns,
    730 px in Material's 720 px text column at a 1280 px window: it scrolled sideways)."""
    folder, done = site
    assert done.returncode == 0, done.stderr
    browser.set_window_size(1280, 1000)
    browser.open((folder / "measures" / "index.html").as_uri())
    table, shown = browser.execute_script(
        "const t = document.querySelector('article table');"
        "const w = t.closest('.md-typeset__scrollwrap') || t.parentElement;"
        "return [t.scrollWidth, w.clientWidth];")
    assert table <= shown


def test_the_site_s_search_finds_the_pages_that_name_a_word_when_served(site, browser):
    """The built site served over HTTP as ``make docs`` serves it: its search box finds the
    pages that name a word, and no page asks the web for anything (fonts included)."""
    import functools
    import http.server
    import threading

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    folder, done = site
    assert done.returncode == 0, done.stderr
    assert not [page.name for page in folder.rglob("*.html") if "fonts.googleapis" in page.read_text()]
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        browser.open(f"http://127.0.0.1:{server.server_port}/index.html")
        browser.find_element(By.TAG_NAME, "body").send_keys("/")  # Material's key that opens the search
        box = WebDriverWait(browser, 30).until(lambda b: next(
            (e for e in b.find_elements(By.CSS_SELECTOR, "input.md-search__input") if e.is_displayed()), None))
        box.send_keys("reusability")
        found = WebDriverWait(browser, 30).until(lambda b: b.find_elements(By.CSS_SELECTOR, ".md-search-result__item a"))
        assert any(link.get_attribute("href").endswith("/studies/") for link in found)
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("data", ["synthetic", "real"])
def test_every_python_example_of_the_api_page_runs(tmp_path, monkeypatch, data):
    printed = run_examples(API_PAGE, tmp_path, monkeypatch, data, "trec-covid-round1")
    assert ("143 runs" if data == "real" else "8 runs") in printed
    assert "expected a number in score" in printed and "duplicate line" in printed


def test_where_to_go_next_names_every_command():
    """Issue 39 item 8: docs/index.md's "Where to go next" left out `reeval reusability`."""
    from reeval.cli.app import COMMANDS

    index = (ROOT / "docs" / "index.md").read_text()
    section = index.split("## Where to go next", 1)[1].split("\n## ", 1)[0]
    assert [name for name in COMMANDS if not re.search(f"`(reeval )?{name}`", section)] == []


def test_the_strict_site_build_refuses_a_link_to_a_missing_anchor():
    """The generated measures page links each family to its heading and index.md links to
    sections of other pages: MkDocs checks those anchors only when told (``validation:
    anchors: warn``, a warning that ``--strict`` makes an error)."""
    import yaml

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    assert config["validation"]["anchors"] == "warn"
