"""A real browser for the tests: headless Chromium from Debian's ``chromium`` package,
driven by Selenium through Debian's ``chromium-driver``; nothing is downloaded.

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
         "--window-size=1280,1600")


def missing() -> str | None:
    """Why no browser can be driven here, or None."""
    import importlib.util

    if importlib.util.find_spec("selenium") is None:
        return "selenium is not installed (pip install -e '.[test]')"
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not path.exists():
            return f"{path} is missing: install Debian's {package} (make test does, as root)"
    return None


@pytest.fixture(scope="module")
def browser():
    """A Selenium driver of headless Chromium with a fresh profile, quit at the end."""
    why = missing()
    if why:
        if os.environ.get("CI"):
            pytest.fail(f"CI must install the browser: {why}")
        pytest.skip(why)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager: never download a browser or driver
    profile = tempfile.mkdtemp(prefix="reeval-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
