"""A real HTTP server on 127.0.0.1 serving files in the archive's layout, with faults.

``FaultServer(root)`` serves ``root/<path>``. ``server.faults[path]`` is a list of faults
used one per request (then the file is served normally):

- an int: answer with that HTTP status (e.g. 500, 503, 401);
- ``"truncate"``: full Content-Length, half the body, clean close;
- ``"drop"``: half the body, then a connection reset (RST) mid-body;
- ``"stall"``: half the body, then no data until the client gives up (closes the
  connection) or the server stops: the client's read timeout fires in every interleaving,
  whenever it is scheduled;
- ``"hang"``: the request is read and nothing is answered, held as ``"stall"``;
- ``"corrupt"``: a body of the same length whose bytes after the first 10 differ (a
  compressed file keeps its magic number and gzip header, its stream is broken; the md5
  differs);
- ``"short"``: the first half of the file served as the whole file (its Content-Length):
  only the content can tell.

``ranges`` turns Range support (206 answers) on or off; ``auth`` = (user, password)
makes every path under ``auth_prefix`` answer 401 unless the request carries those Basic
credentials.
``requests`` records (path, Range header, User-Agent, has Authorization) per request, in
the order the server took them (and their faults), which a client that gave up on an
answer does not wait for: :meth:`FaultServer.wait_for_requests` does. ``max_active`` is
the most requests served at once.
"""

from __future__ import annotations

import base64
import socket
import struct
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class FaultServer:
    def __init__(self, root: Path, ranges: bool = True):
        self.root = Path(root)
        self.ranges = ranges
        self.faults: dict[str, list] = {}
        self.auth: tuple[str, str] | None = None
        self.auth_prefix = "/"
        self.requests: list[tuple] = []
        self.active = 0
        self.max_active = 0
        self._lock = threading.Lock()
        self._recorded = threading.Condition(self._lock)
        self._held: set = set()  # connections of "stall" / "hang" answers, until the client closes
        self._stopping = False
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):  # noqa: N802
                with server._lock:
                    server.active += 1
                    server.max_active = max(server.max_active, server.active)
                    server.requests.append((self.path, self.headers.get("Range"),
                                            self.headers.get("User-Agent"),
                                            self.headers.get("Authorization") is not None))
                    fault = server.faults.get(self.path, []).pop(0) if server.faults.get(self.path) else None
                    server._recorded.notify_all()
                try:
                    self.serve(fault)
                finally:
                    with server._lock:
                        server.active -= 1

            def send_status(self, code):
                self.send_response(code)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def hold(self):
                """Send nothing more until the client closes the connection (or the server stops)."""
                self.close_connection = True
                with server._lock:
                    if server._stopping:
                        return
                    server._held.add(self.connection)
                try:
                    while self.connection.recv(1 << 16):
                        pass
                except OSError:
                    pass
                finally:
                    with server._lock:
                        server._held.discard(self.connection)

            def serve(self, fault):
                if fault == "hang":
                    return self.hold()
                if server.auth is not None and self.path.startswith(server.auth_prefix):
                    want = "Basic " + base64.b64encode(":".join(server.auth).encode()).decode()
                    if self.headers.get("Authorization") != want:
                        return self.send_status(401)
                if isinstance(fault, int):
                    return self.send_status(fault)
                path = server.root / self.path.lstrip("/")
                if not path.is_file():
                    return self.send_status(404)
                body = path.read_bytes()
                if fault == "corrupt":
                    body = body[:10] + bytes(b ^ 0x55 for b in body[10:])
                elif fault == "short":
                    body = body[: len(body) // 2]
                start = 0
                rng = self.headers.get("Range")
                if server.ranges and rng and rng.startswith("bytes=") and rng.endswith("-"):
                    start = int(rng[6:-1])
                    if start >= len(body):
                        return self.send_status(416)
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
                else:
                    self.send_response(200)
                    if server.ranges:
                        self.send_header("Accept-Ranges", "bytes")
                part = body[start:]
                self.send_header("Content-Length", str(len(part)))
                self.send_header("Content-Type", "application/octet-stream")
                self.end_headers()
                if fault in ("truncate", "drop", "stall"):
                    self.wfile.write(part[: len(part) // 2])
                    self.wfile.flush()
                    if fault == "stall":
                        return self.hold()
                    if fault == "drop":
                        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR) if fault == "truncate" else None
                    return
                self.wfile.write(part)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def wait_for_requests(self, n: int) -> None:
        """Block until ``n`` requests are recorded (their faults taken). Only for requests
        the client has sent: a request whose answer it gave up on (a timeout) may still be
        waiting for a server thread."""
        with self._recorded:
            self._recorded.wait_for(lambda: len(self.requests) >= n)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        with self._lock:
            self._stopping = True
            for conn in self._held:
                try:
                    conn.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        self.httpd.shutdown()
        self.httpd.server_close()
