"""Serve one page, read-only, on 127.0.0.1: `git enf dashboard --serve`.

Bytes in, HTTP out, and nothing else: GET (and HEAD) of `/` or `/index.html` answer the
page; any other path is 404 and any other method 405, so the server can only ever show
what it was given. It binds the loopback address alone, never a wildcard: memory is
private to whoever can reach this machine's loopback, not its network.
"""

from __future__ import annotations

import http.server
from collections.abc import Callable

HOST = "127.0.0.1"
PATHS = ("/", "/index.html")
_HEADERS = (
    ("Content-Type", "text/html; charset=utf-8"),
    ("Cache-Control", "no-store"),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
)


def server(page: bytes, port: int = 0) -> http.server.ThreadingHTTPServer:
    """A server for `page` on 127.0.0.1:`port` (0: a free one); `serve_forever()` runs it."""
    handler = _handler(page)
    return http.server.ThreadingHTTPServer((HOST, port), handler)


def _handler(page: bytes) -> Callable[..., http.server.BaseHTTPRequestHandler]:
    class Page(http.server.BaseHTTPRequestHandler):
        server_version = "enf-git"
        sys_version = ""

        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            self._answer(with_body=True)

        def do_HEAD(self) -> None:  # noqa: N802
            self._answer(with_body=False)

        def _answer(self, with_body: bool) -> None:
            if self.path.split("?", 1)[0] not in PATHS:
                self.send_error(404, "only the dashboard is served here: /")
                return
            self.send_response(200)
            for key, value in _HEADERS:
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            if with_body:
                self.wfile.write(page)

        def _refuse(self) -> None:
            self.send_error(405, "read-only: only GET is served")

        do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_TRACE = do_CONNECT = _refuse

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
            pass  # a request log on the terminal would bury the one line that says where to look

    return Page
