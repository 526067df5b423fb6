"""A scripted stand-in for the Anthropic Messages API, for driving the real Claude Code
client offline.

Stdlib only (standin_http.py's server). It listens on an ephemeral 127.0.0.1 port, answers
``POST /v1/messages`` (any query string; the client sends ``?beta=true``) with an SSE stream,
and records every request body so tests can assert on what "the model" was sent.

Scripted turns are consumed only by *main* requests, i.e. turns of the conversation itself.
Other calls the client may make (compaction summaries, side queries on a small model) get a
plain text answer and never advance the script; see :func:`is_main_request`.

Where hook output shows up in a request body (measured on Claude Code 2.1.332):
- SessionStart / UserPromptSubmit ``additionalContext`` arrives in the ``role: "system"``
  entry inside ``messages`` (messages[1], the environment block; not in the top-level
  ``system`` blocks), as "SessionStart hook additional context: <text>" (at its start) and
  "UserPromptSubmit hook additional context: <text>" (near its end). :meth:`Request.text`
  flattens everything so tests can simply search for a marker string.
- a PreToolUse ``deny`` reason arrives as a ``tool_result`` block (``is_error: true``) in the
  next ``role: "user"`` message.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from standin_http import Handler, Served, collect_strings

# Opaque fields that only add noise to substring searches.
SKIP = ("signature", "cache_control", "id", "tool_use_id", "type")


@dataclass(frozen=True)
class Text:
    """A final assistant turn: one text block, ``stop_reason: end_turn``."""

    text: str


@dataclass(frozen=True)
class ToolUse:
    """An assistant turn calling one tool: ``stop_reason: tool_use``.

    ``text`` is an optional text block sent before the tool_use block.
    """

    name: str
    input: dict[str, Any]
    text: str | None = None
    id: str = field(default_factory=lambda: f"toolu_{uuid.uuid4().hex[:24]}")


Reply = Text | ToolUse
# A turn may be decided at request time from the parsed request body.
Turn = Reply | Callable[[dict[str, Any]], Reply]


@dataclass
class Request:
    """One recorded POST: the path (with query), headers, parsed JSON body, and whether it
    was classified as a main conversation turn."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    main: bool
    reply: Reply | None = None

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages") or [])

    def text(self) -> str:
        """Every string in the system blocks and messages, joined; for substring asserts."""
        parts: list[str] = []
        collect_strings(self.body.get("system"), parts, SKIP)
        collect_strings(self.body.get("messages"), parts, SKIP)
        return "\n".join(parts)

    def tool_results(self) -> list[dict[str, Any]]:
        """All ``tool_result`` blocks in this request's messages."""
        return [
            block
            for msg in self.messages
            if isinstance(msg.get("content"), list)
            for block in msg["content"]
            if isinstance(block, dict) and block.get("type") == "tool_result"
        ]

    def last_user_text(self) -> str:
        """The text of the last ``role: user`` message (prompt or tool results)."""
        for msg in reversed(self.messages):
            if msg.get("role") == "user":
                parts: list[str] = []
                collect_strings(msg.get("content"), parts, SKIP)
                return "\n".join(parts)
        return ""


def is_compaction_request(body: dict[str, Any]) -> bool:
    """The summary request sent by ``/compact`` (and auto-compaction).

    Measured on 2.1.332: same model, system, tools and history as a main turn (it shares the
    prompt cache), but the last user message ends with a text block asking for "a detailed
    summary of the conversation" as "<analysis>" + "<summary>" blocks. The answer must
    contain ``<summary>...</summary>``, else the client retries the request once with a
    stricter prompt.
    """
    last = _last_user_str(body)
    return "<summary>" in last and "summary of the conversation" in last


def is_main_request(body: dict[str, Any]) -> bool:
    """Whether a request is a turn of the main conversation (and so consumes a script turn).

    Measured on 2.1.332 in ``-p`` mode: the only non-main request is the compaction summary
    (recognised by its prompt, since it carries the same tools as a main turn). No title,
    topic or Bash-prefix side queries were seen, with or without
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC. As a guard for other client versions, a
    request without ``tools`` (what such small-model side queries look like) is also treated
    as a side request.
    """
    return bool(body.get("tools")) and not is_compaction_request(body)


def _last_user_str(body: dict[str, Any]) -> str:
    for msg in reversed(body.get("messages") or []):
        if msg.get("role") == "user":
            parts: list[str] = []
            collect_strings(msg.get("content"), parts, SKIP)
            return "\n".join(parts)
    return ""


COMPACT_SUMMARY = (
    "<analysis>Scripted stand-in session.</analysis>\n"
    "<summary>The user and the assistant ran a scripted test session.</summary>"
)


class StandIn(Served):
    """Scripted Messages API server. Use as a context manager or call start()/stop().

    Example::

        with StandIn([ToolUse("Bash", {"command": "echo hi"}), Text("done")]) as api:
            run_claude(..., base_url=api.url)
            api.main_requests[1].tool_results()  # the Bash result the model was sent
    """

    requests: list[Request]

    def __init__(
        self,
        script: Iterable[Turn] = (),
        *,
        fallback_text: str = "OK.",
        side_text: str = COMPACT_SUMMARY,
        is_main: Callable[[dict[str, Any]], bool] = is_main_request,
    ) -> None:
        super().__init__(script)
        self._fallback_text = fallback_text
        self._side_text = side_text
        self._is_main = is_main
        self.handler = _Handler

    # -- script -------------------------------------------------------------------------

    @property
    def main_requests(self) -> list[Request]:
        with self._lock:
            return [r for r in self.requests if r.main]

    @property
    def side_requests(self) -> list[Request]:
        with self._lock:
            return [r for r in self.requests if not r.main]

    def _answer(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> Reply:
        main = self._is_main(body)
        record = Request(path=path, headers=headers, body=body, main=main)
        reply: Reply = self._play(record, body, Text(self._fallback_text if main else self._side_text), main)
        record.reply = reply
        return reply

    @property
    def url(self) -> str:
        return self.root


class _Handler(Handler):
    standin: StandIn

    def do_HEAD(self) -> None:  # warm-up probe: the client sends HEAD /api/hello
        self.standin.other_requests.append(("HEAD", self.path))
        self._send(200, b"")

    def do_GET(self) -> None:
        self.standin.other_requests.append(("GET", self.path))
        self._send(404, b"")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if not self.path.split("?", 1)[0].endswith("/v1/messages"):
            # e.g. /v1/messages/count_tokens: answer something harmless.
            self.standin.other_requests.append(("POST", self.path))
            self._json(200, {"input_tokens": 1})
            return
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._json(400, {"type": "error", "error": {"type": "invalid_request_error"}})
            return
        reply = self.standin._answer(self.path, dict(self.headers), body)
        model = str(body.get("model") or "claude-standin")
        if body.get("stream", False):
            self._send(200, _sse(reply, model), "text/event-stream")
        else:
            self._json(200, _message(reply, model))

    def _json(self, status: int, obj: Any) -> None:
        self._send(status, json.dumps(obj).encode(), "application/json")


def _blocks(reply: Reply) -> list[dict[str, Any]]:
    if isinstance(reply, Text):
        return [{"type": "text", "text": reply.text}]
    blocks: list[dict[str, Any]] = []
    if reply.text:
        blocks.append({"type": "text", "text": reply.text})
    blocks.append({"type": "tool_use", "id": reply.id, "name": reply.name, "input": reply.input})
    return blocks


def _stop_reason(reply: Reply) -> str:
    return "tool_use" if isinstance(reply, ToolUse) else "end_turn"


def _usage(output_tokens: int) -> dict[str, int]:
    return {
        "input_tokens": 10,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


def _message(reply: Reply, model: str) -> dict[str, Any]:
    """Non-streaming response shape (the client streams; kept for completeness)."""
    return {
        "id": f"msg_{uuid.uuid4().hex[:24]}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": _blocks(reply),
        "stop_reason": _stop_reason(reply),
        "stop_sequence": None,
        "usage": _usage(5),
    }


def _sse(reply: Reply, model: str) -> bytes:
    events: list[tuple[str, dict[str, Any]]] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    **_message(reply, model),
                    "content": [],
                    "stop_reason": None,
                    "usage": _usage(1),
                },
            },
        )
    ]
    for index, block in enumerate(_blocks(reply)):
        start: dict[str, Any]
        delta: dict[str, Any]
        if block["type"] == "text":
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            # input starts empty and is streamed as JSON text, as the real API does.
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events += [
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": start},
            ),
            (
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": delta},
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": index}),
        ]
    events += [
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": _stop_reason(reply), "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()
