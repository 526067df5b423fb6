"""A scripted stand-in for the Gemini API (generateContent), for driving the real Gemini
CLI offline. Stdlib only, like codex_standin.py.

Measured on Gemini CLI 0.61 (docs/gemini.md), pointed here with GOOGLE_GEMINI_BASE_URL
and `security.auth.selectedType: "gemini-api-key"` in its settings:
- the main turns are ``POST /v1beta/models/MODEL:streamGenerateContent?alt=sse`` whose
  ``contents`` is the whole conversation (``user``/``model`` turns of ``parts``: ``text``,
  ``functionCall`` {name, args, id}, ``functionResponse`` {name, response, id});
- hook context arrives as text parts wrapped in ``<hook_context>``; a BeforeTool denial as
  the ``functionResponse``'s ``response.error`` "Tool execution blocked: <reason>";
- side requests (``:generateContent`` without streaming: routing, next-speaker checks)
  get an empty JSON object and consume no script turn.
The answer is one SSE ``data:`` chunk with a ``candidates[0].content``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class Call:
    """A turn calling one tool (``run_shell_command``, ``write_file``, ``mcp_enf_recall`` …)."""

    name: str
    args: dict[str, Any]


Reply = Text | Call
Turn = Reply | Callable[[dict[str, Any]], Reply]


@dataclass
class Request:
    path: str
    body: dict[str, Any]

    def text(self) -> str:
        """Every string in the system instruction and the contents, joined."""
        return json.dumps([self.body.get("systemInstruction"), self.body.get("contents")], ensure_ascii=False)

    def responses(self) -> list[str]:
        """Each functionResponse the client sent back, as JSON text, in order."""
        found = []
        for turn in self.body.get("contents") or []:
            for part in turn.get("parts") or [] if isinstance(turn, dict) else []:
                if isinstance(part, dict) and "functionResponse" in part:
                    found.append(json.dumps(part["functionResponse"].get("response"), ensure_ascii=False))
        return found


class GeminiStandIn:
    def __init__(self, script: Iterable[Turn] = ()) -> None:
        self._script: list[Turn] = list(script)
        self._lock = threading.Lock()
        self.requests: list[Request] = []
        self._server: ThreadingHTTPServer | None = None

    def add(self, *turns: Turn) -> None:
        with self._lock:
            self._script.extend(turns)

    def answer(self, path: str, body: dict[str, Any]) -> Reply:
        with self._lock:
            turn: Turn = self._script.pop(0) if self._script else Text("OK.")
            self.requests.append(Request(path, body))
        return turn(body) if callable(turn) else turn

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("stand-in not started")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> GeminiStandIn:
        owner = self

        class Handler(_Handler):
            standin = owner

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


class _Handler(BaseHTTPRequestHandler):
    standin: GeminiStandIn
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, data: bytes, kind: str, status: int = 200) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._send(b"{}", "application/json", 404)

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.loads(raw or b"{}")
        if ":streamGenerateContent" not in self.path:
            parts: list[dict[str, Any]] = [{"text": "{}"}]
            if ":countTokens" in self.path:
                self._send(b'{"totalTokens": 10}', "application/json")
                return
        else:
            reply = self.standin.answer(self.path, body)
            parts = [{"text": reply.text}] if isinstance(reply, Text) else [
                {"functionCall": {"name": reply.name, "args": reply.args}}]
        chunk = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
                 "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}}
        if "alt=sse" in self.path:
            self._send(f"data: {json.dumps(chunk)}\r\n\r\n".encode(), "text/event-stream")
        else:
            self._send(json.dumps(chunk).encode(), "application/json")
