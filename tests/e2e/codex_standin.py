"""A scripted stand-in for the OpenAI Responses API, for driving the real Codex CLI offline.

Stdlib only (http.server + threading), like standin.py for Claude Code. It listens on an
ephemeral 127.0.0.1 port, answers ``POST …/responses`` with an SSE stream and records every
request body, so tests can assert on what "the model" was sent. Codex is pointed at it as a
model provider (``-c model_providers.standin.base_url=http://127.0.0.1:PORT/v1``,
``wire_api = "responses"``); see docs/codex.md, "Running the real client offline".

Measured on Codex CLI 0.171 (docs/codex.md):
- the client sends ``POST /v1/responses`` with ``stream: true``; ``input`` is the whole
  conversation (``message`` items with ``input_text`` parts, ``function_call`` /
  ``function_call_output`` and ``custom_tool_call`` / ``custom_tool_call_output`` items);
- hook context (SessionStart, UserPromptSubmit ``additionalContext``) arrives as a
  ``developer``- or ``user``-role message item in ``input``; a PreToolUse denial arrives as
  the ``output`` of the call's ``function_call_output`` item;
- the answer is SSE: ``response.created``, one ``response.output_item.done`` per item
  (``message`` with ``output_text``, ``function_call`` with JSON ``arguments``, or
  ``custom_tool_call`` with free-form ``input`` for apply_patch), then ``response.completed``.

Every POST to ``/responses`` consumes a script turn; an empty script answers ``fallback_text``.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Text:
    """A final assistant turn: one message item."""

    text: str


@dataclass(frozen=True)
class Call:
    """A turn calling one function tool (``exec_command``, ``shell``, an MCP tool …) with
    JSON arguments."""

    name: str
    arguments: dict[str, Any]
    id: str = field(default_factory=lambda: f"call_{uuid.uuid4().hex[:20]}")


@dataclass(frozen=True)
class Custom:
    """A turn calling a free-form (custom) tool: ``apply_patch`` takes the patch as text."""

    name: str
    input: str
    id: str = field(default_factory=lambda: f"call_{uuid.uuid4().hex[:20]}")


Reply = Text | Call | Custom
Turn = Reply | Callable[[dict[str, Any]], Reply]


@dataclass
class Request:
    """One recorded POST: its path, headers and parsed body."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    reply: Reply | None = None

    @property
    def items(self) -> list[dict[str, Any]]:
        value = self.body.get("input")
        return [i for i in value if isinstance(i, dict)] if isinstance(value, list) else []

    def text(self) -> str:
        """Every string in the instructions and the input items, joined; for substring asserts."""
        parts: list[str] = []
        _collect_strings(self.body.get("instructions"), parts)
        _collect_strings(self.items, parts)
        return "\n".join(parts)

    def outputs(self) -> dict[str, str]:
        """Each tool call's output the client sent back, by call id."""
        found: dict[str, str] = {}
        for item in self.items:
            if item.get("type") in ("function_call_output", "custom_tool_call_output"):
                parts: list[str] = []
                _collect_strings(item.get("output"), parts)
                found[str(item.get("call_id"))] = "\n".join(parts)
        return found

    def tool_names(self) -> list[str]:
        """The tools offered to the model in this request."""
        names: list[str] = []
        for tool in self.body.get("tools") or []:
            if isinstance(tool, dict):
                names.append(str(tool.get("name") or tool.get("type")))
        return names


def _collect_strings(node: Any, out: list[str]) -> None:
    if isinstance(node, str):
        out.append(node)
    elif isinstance(node, list):
        for item in node:
            _collect_strings(item, out)
    elif isinstance(node, dict):
        for key, value in node.items():
            if key not in ("id", "call_id", "type", "encrypted_content"):
                _collect_strings(value, out)


class CodexStandIn:
    """Scripted Responses API server; a context manager, like standin.StandIn."""

    def __init__(self, script: Iterable[Turn] = (), *, fallback_text: str = "OK.") -> None:
        self._script: list[Turn] = list(script)
        self._fallback_text = fallback_text
        self._lock = threading.Lock()
        self.requests: list[Request] = []
        self.other_requests: list[tuple[str, str]] = []
        self._server: ThreadingHTTPServer | None = None

    def add(self, *turns: Turn) -> None:
        with self._lock:
            self._script.extend(turns)

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._script)

    @property
    def main_requests(self) -> list[Request]:
        with self._lock:
            return list(self.requests)

    def outputs(self) -> dict[str, str]:
        """Every call's output across the run, by call id (the last request holds them all)."""
        found: dict[str, str] = {}
        for req in self.main_requests:
            found.update(req.outputs())
        return found

    def _answer(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> Reply:
        with self._lock:
            turn: Turn = self._script.pop(0) if self._script else Text(self._fallback_text)
            record = Request(path=path, headers=headers, body=body)
            self.requests.append(record)
        reply = turn(body) if callable(turn) else turn
        record.reply = reply
        return reply

    @property
    def url(self) -> str:
        """The provider's base_url (Codex appends /responses)."""
        if self._server is None:
            raise RuntimeError("stand-in not started")
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> CodexStandIn:
        owner = self

        class Handler(_Handler):
            standin = owner

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> CodexStandIn:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _Handler(BaseHTTPRequestHandler):
    standin: CodexStandIn
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, data: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # e.g. /v1/models: an empty list keeps the client on its own defaults
        self.standin.other_requests.append(("GET", self.path))
        if self.path.split("?", 1)[0].endswith("/models"):
            self._send(200, b'{"object": "list", "data": [], "models": []}', "application/json")
        else:
            self._send(404, b"{}", "application/json")

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if not self.path.split("?", 1)[0].endswith("/responses"):
            self.standin.other_requests.append(("POST", self.path))
            self._send(404, b"{}", "application/json")
            return
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._send(400, b'{"error": {"message": "bad json"}}', "application/json")
            return
        reply = self.standin._answer(self.path, dict(self.headers), body)
        self._send(200, _sse(reply, str(body.get("model") or "standin")), "text/event-stream")


def _item(reply: Reply) -> dict[str, Any]:
    if isinstance(reply, Text):
        return {"type": "message", "role": "assistant", "id": f"msg_{uuid.uuid4().hex[:20]}", "status": "completed",
                "content": [{"type": "output_text", "text": reply.text, "annotations": []}]}
    if isinstance(reply, Call):
        return {"type": "function_call", "id": f"fc_{uuid.uuid4().hex[:20]}", "status": "completed",
                "call_id": reply.id, "name": reply.name, "arguments": json.dumps(reply.arguments)}
    return {"type": "custom_tool_call", "id": f"ctc_{uuid.uuid4().hex[:20]}", "status": "completed",
            "call_id": reply.id, "name": reply.name, "input": reply.input}


def _sse(reply: Reply, model: str) -> bytes:
    rid = f"resp_{uuid.uuid4().hex[:20]}"
    item = _item(reply)
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"id": rid, "model": model, "status": "in_progress", "output": []}},
        {"type": "response.output_item.added", "output_index": 0, "item": {**item, "status": "in_progress"}},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed",
         "response": {"id": rid, "model": model, "status": "completed", "output": [item], "usage": usage}},
    ]
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()
