"""A real git server over smart HTTP on loopback: git's own `git http-backend` behind a
small threaded HTTP server that asks for Basic credentials (any user and password pass),
so a URL with `user:token@` in it is what a hosting service's would be."""

from __future__ import annotations

import base64
import http.server
import os
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def _backend() -> str:
    exec_path = subprocess.run(["git", "--exec-path"], capture_output=True, text=True, check=True).stdout.strip()
    return os.path.join(exec_path, "git-http-backend")


class _Handler(http.server.BaseHTTPRequestHandler):
    root: Path
    backend: str
    users: list[str]

    def do_GET(self) -> None:  # noqa: N802 - http.server's names
        self._serve()

    def do_POST(self) -> None:  # noqa: N802
        self._serve()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass

    def _serve(self) -> None:
        user = self._user()
        if user is None:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="team"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.users.append(user)
        path, _, query = self.path.partition("?")
        env = {"PATH": os.environ.get("PATH", ""), "GIT_PROJECT_ROOT": str(self.root), "GIT_HTTP_EXPORT_ALL": "1",
               "REQUEST_METHOD": self.command, "PATH_INFO": path, "QUERY_STRING": query, "REMOTE_USER": user,
               "REMOTE_ADDR": "127.0.0.1", "CONTENT_TYPE": self.headers.get("Content-Type", ""),
               "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
               "GIT_PROTOCOL": self.headers.get("Git-Protocol", "")}
        body = self._body()
        env["CONTENT_LENGTH"] = str(len(body))
        out = subprocess.run([self.backend], input=body, capture_output=True, env=env, check=False).stdout
        head, _, payload = out.partition(b"\r\n\r\n")
        status, headers = 200, []
        for line in head.decode("latin-1").split("\r\n"):
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.split()[0])
            elif name:
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _user(self) -> str | None:
        auth = self.headers.get("Authorization", "")
        if not auth.startswith("Basic "):
            return None
        return base64.b64decode(auth[6:]).decode("utf-8", "replace").partition(":")[0]

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":  # git's large pushes
            chunks = []
            while (size := int(self.rfile.readline().split(b";")[0], 16)) > 0:
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            self.rfile.readline()
            return b"".join(chunks)
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))


@contextmanager
def serving(root: Path) -> Iterator[tuple[str, list[str]]]:
    """Serve the bare repositories under `root`: (base URL, the users who were let in)."""
    users: list[str] = []
    handler = type("Handler", (_Handler,), {"root": root, "backend": _backend(), "users": users})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", users
    finally:
        server.shutdown()
        server.server_close()
