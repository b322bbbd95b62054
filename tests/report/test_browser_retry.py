"""The test browser's page load (tests/browser.py): a load that hangs ends in a timeout and is
tried once more in a fresh browser; a page that hangs every time fails, naming the timeout."""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import browser as browsers

PAGE = b"<!doctype html><title>answered</title><p id=p>second try</p>"


@pytest.fixture
def server():
    """A server on 127.0.0.1 whose first ``hangs`` requests of the page are read and never
    answered (``seen`` counts them; the browser's other requests, its favicon, get a 404)."""
    held = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):  # noqa: N802
            if self.path != "/page.html":
                self.send_error(404)
                return
            with lock:
                self.server.seen += 1
                hang = self.server.seen <= self.server.hangs
            if hang:
                held.wait()  # until the test ends; the browser gives up first
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(PAGE)))
            self.end_headers()
            self.wfile.write(PAGE)

    lock = threading.Lock()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    httpd.seen, httpd.hangs = 0, 1
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd
    finally:
        held.set()
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def quick_browser():
    browsers.require_browser()
    driven = browsers.Browser(page_load_seconds=3)
    try:
        yield driven
    finally:
        driven.quit()


def test_a_load_that_hangs_once_is_retried_in_a_fresh_browser(server, quick_browser):
    first = quick_browser.driver
    quick_browser.set_window_size(1000, 700)
    quick_browser.open(f"http://127.0.0.1:{server.server_address[1]}/page.html")
    assert quick_browser.find_element("id", "p").text == "second try"
    assert quick_browser.driver is not first and server.seen == 2
    assert quick_browser.get_window_size() == {"width": 1000, "height": 700}  # kept for the retry


def test_a_load_that_hangs_twice_fails_with_the_timeout(server, quick_browser):
    from selenium.common.exceptions import TimeoutException

    server.hangs = 2
    with pytest.raises(TimeoutException):
        quick_browser.open(f"http://127.0.0.1:{server.server_address[1]}/page.html")
    assert server.seen == 2
