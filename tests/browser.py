"""A real browser for the tests: headless Chromium from Debian's ``chromium`` package,
driven by Selenium through Debian's ``chromium-driver``; nothing is downloaded.

A page is opened with ``browser.open(uri)``: a load that hangs (seen once in CI: a local
report whose load never answered within Selenium's 120-second read timeout) ends after
``PAGE_LOAD_SECONDS`` and is tried once more in a fresh browser; a second hang fails the test.

``make test`` installs both packages (as root, with apt-get) before pytest runs. Where
they cannot be installed (not root, no apt-get) the tests that need a browser skip,
saying so; under CI (``CI`` set) they fail instead, since CI installs them.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
#: flags that work in a container as root, with no network and no profile of the user's
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1280,1600")
#: how long chromedriver waits for a page before it answers with a timeout (under the
#: Selenium client's own 120-second read timeout, so the driver answers rather than the socket)
PAGE_LOAD_SECONDS = 60


def missing() -> str | None:
    """Why no browser can be driven here, or None."""
    import importlib.util

    if importlib.util.find_spec("selenium") is None:
        return "selenium is not installed (pip install -e '.[test]')"
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not path.exists():
            return f"{path} is missing: install Debian's {package} (make test does, as root)"
    return None


def start_chromium(page_load_seconds: float = PAGE_LOAD_SECONDS):
    """A Selenium driver of headless Chromium with a fresh profile, and that profile's folder;
    a page load that takes over ``page_load_seconds`` ends in selenium's TimeoutException."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager: never download a browser or driver
    profile = tempfile.mkdtemp(prefix="reeval-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(page_load_seconds)
    return driver, profile


class Browser:
    """The driver's methods and attributes, with ``open`` to load a page (one retry in a
    fresh browser when the load hangs) and ``set_window_size`` kept for that retry."""

    def __init__(self, page_load_seconds: float = PAGE_LOAD_SECONDS):
        self.page_load_seconds = page_load_seconds
        self.driver, self.profile = start_chromium(page_load_seconds)
        self.window = None

    def __getattr__(self, name):
        return getattr(self.driver, name)

    def set_window_size(self, width, height):
        self.window = (width, height)
        self.driver.set_window_size(width, height)

    def open(self, uri: str) -> None:
        """Load ``uri``; a load that times out is retried once in a fresh browser."""
        from selenium.common.exceptions import TimeoutException
        from urllib3.exceptions import ReadTimeoutError

        try:
            self.driver.get(uri)
            return
        except (TimeoutException, ReadTimeoutError) as hung:
            print(f"tests/browser.py: loading {uri} hung ({type(hung).__name__}); once more in a fresh browser")
        self.quit()
        self.driver, self.profile = start_chromium(self.page_load_seconds)
        if self.window:
            self.driver.set_window_size(*self.window)
        self.driver.get(uri)

    def quit(self) -> None:
        try:
            self.driver.quit()
        except Exception as failed:  # a hung driver may not answer its quit; its process is gone anyway
            print(f"tests/browser.py: quitting Chromium: {type(failed).__name__}")
        shutil.rmtree(self.profile, ignore_errors=True)


def require_browser() -> None:
    """Skip the test when no browser can be driven here; under CI (which installs one), fail."""
    why = missing()
    if why:
        if os.environ.get("CI"):
            pytest.fail(f"CI must install the browser: {why}")
        pytest.skip(why)


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium (a ``Browser``) with a fresh profile, quit at the end."""
    require_browser()
    driven = Browser()
    try:
        yield driven
    finally:
        driven.quit()
