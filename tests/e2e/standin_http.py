"""What the scripted model stand-ins share (standin.py for Claude Code's Messages API,
codex_standin.py for the Responses API, gemini_standin.py for Gemini's): a threaded HTTP
server on an ephemeral 127.0.0.1 port, a script of turns consumed under a lock, and the
handler's plumbing. Stdlib only. Each stand-in keeps its own wire format and its own
rule for which requests consume a turn."""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar

S = TypeVar("S", bound="Served")


class Handler(BaseHTTPRequestHandler):
    """A stand-in's request handler: `standin` is the server's owner (set by Served.start)."""

    standin: Any
    protocol_version = "HTTP/1.1"  # keep-alive, as the clients' HTTP stacks expect

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep pytest output clean

    def _send(self, status: int, data: bytes, kind: str | None = None) -> None:
        self.send_response(status)
        if kind is not None:
            self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class Served:
    """A scripted server: subclasses set `handler` and answer from `_script` under `_lock`.
    A context manager, or call start()/stop()."""

    handler: type[Handler] = Handler

    def __init__(self, script: Iterable[Any] = ()) -> None:
        self._script: list[Any] = list(script)
        self._lock = threading.Lock()
        self.requests: list[Any] = []
        self.other_requests: list[tuple[str, str]] = []  # (method, path) of calls outside the script
        self._server: ThreadingHTTPServer | None = None

    def add(self, *turns: Any) -> None:
        """Append turns to the script (e.g. between two client runs)."""
        with self._lock:
            self._script.extend(turns)

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._script)

    def _play(self, record: Any, body: dict[str, Any], fallback: Any, scripted: bool = True) -> Any:
        """Keep `record` and answer the request: the script's next turn, or `fallback` when the
        script has run out or the request consumes no turn (not `scripted`). A dynamic turn
        is called outside the lock, so it may inspect the stand-in."""
        with self._lock:
            turn = self._script.pop(0) if scripted and self._script else fallback
            self.requests.append(record)
        return turn(body) if callable(turn) else turn

    @property
    def root(self) -> str:
        """`http://127.0.0.1:PORT`, where the server listens."""
        if self._server is None:
            raise RuntimeError("stand-in not started")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self: S) -> S:
        owner = self

        class Bound(self.handler):  # type: ignore[name-defined,misc]
            standin = owner

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Bound)
        self._server.daemon_threads = True
        # Short poll interval: shutdown() waits up to one interval.
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self: S) -> S:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def collect_strings(node: Any, out: list[str], skip: Collection[str]) -> None:
    """Every string in a JSON value into `out`, but under the keys in `skip` (opaque fields
    that only add noise to substring asserts)."""
    if isinstance(node, str):
        out.append(node)
    elif isinstance(node, list):
        for item in node:
            collect_strings(item, out, skip)
    elif isinstance(node, dict):
        for key, value in node.items():
            if key not in skip:
                collect_strings(value, out, skip)
