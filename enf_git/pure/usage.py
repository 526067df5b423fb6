"""Token usage of one session, from an assistant's transcript: numbers only.

A transcript is read in chunks of whole lines (at each Stop, then by `git enf stats`,
from where the last read ended), so `Usage` is a running total that a reader folds
new lines into and that is saved as JSON between reads. What a reader must do is the
`TranscriptReader` protocol; `ClaudeCode` reads Claude Code's JSONL: one object per
line, an assistant message's `usage` (input, output, cache creation, cache read tokens)
repeated on each line of that message (one per content block, grouped by
`message.id`), `type: "user"` lines for prompts (not `isMeta`, not `isCompactSummary`,
no `tool_result`, no slash command's `<local-command-stdout>`), and `type: "system", subtype: "compact_boundary"` for each
compaction. Unknown types and torn or garbage lines are skipped. Another assistant's
format is another class beside it.

Nothing of the text is kept: not a prompt, not a path, not a tool input.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

WINDOW = 200_000  # tokens of context a Claude model has unless it runs with 1M
WINDOW_1M = 1_000_000
RECENT = 16  # message ids remembered to count each message once
FIELDS = ("input", "output", "cache_creation", "cache_read")
_API = {"input_tokens": "input", "output_tokens": "output", "cache_creation_input_tokens": "cache_creation",
        "cache_read_input_tokens": "cache_read"}


class Usage:
    """One session's totals; plain JSON-able fields (saved under .git/enf/transcripts/)."""

    def __init__(self) -> None:
        self.models: dict[str, dict[str, int]] = {}  # model -> tokens by FIELDS
        self.prompts = 0
        self.assistant_messages = 0
        self.compactions = 0
        self.peak_context = 0  # the largest prompt one message was sent with
        self.first_ts = ""  # ISO 8601 stamps of the first and last lines that had one
        self.last_ts = ""
        self.one_m = False  # the model ran with a 1M-token window
        # The last few messages folded, id -> [model, counts]: a message's usage repeats on
        # each of its lines, and another message's lines can come between them.
        self.last_seen: dict[str, list[Any]] = {}
        self.last_model = ""

    def totals(self) -> dict[str, int]:
        out = dict.fromkeys(FIELDS, 0)
        for counts in self.models.values():
            for key in FIELDS:
                out[key] += counts.get(key, 0)
        return out

    def window(self) -> int:
        return WINDOW_1M if self.one_m or self.peak_context > WINDOW else WINDOW

    def as_json(self) -> dict[str, Any]:
        return dict(vars(self))

    @classmethod
    def from_json(cls, raw: object) -> Usage:
        """A saved Usage; anything unreadable in it reads as nothing counted yet."""
        out = cls()
        if not isinstance(raw, dict):
            return out
        for key, default in vars(cls()).items():
            value = raw.get(key, default)
            if type(value) is type(default):
                setattr(out, key, value)
        out.models = {str(m): {k: int(v) for k, v in c.items() if k in FIELDS and isinstance(v, int)}
                      for m, c in out.models.items() if isinstance(c, dict)}
        return out


class TranscriptReader(Protocol):
    """What `stats` needs of an assistant's transcript format."""

    name: str

    def fold(self, usage: Usage, lines: list[bytes]) -> None:
        """Add whole lines of a transcript to `usage`; never raises on a line it cannot read."""


class ClaudeCode:
    """Claude Code's transcript JSONL (docs/claude-code.md)."""

    name = "claude-code"
    # Lines worth decoding: the others (request blobs, attachments) can be megabytes.
    _WANTED = (b'"usage"', b'"type":"user"', b'"type": "user"', b"compact_boundary")

    def fold(self, usage: Usage, lines: list[bytes]) -> None:
        for raw in lines:
            if not any(w in raw for w in self._WANTED):
                continue
            try:
                obj = json.loads(raw)
            except (ValueError, RecursionError):
                continue  # a torn or garbage line
            if isinstance(obj, dict):
                self._line(usage, obj)

    def _line(self, usage: Usage, obj: dict[str, Any]) -> None:
        stamp = obj.get("timestamp")
        if isinstance(stamp, str) and stamp:
            usage.first_ts = usage.first_ts or stamp
            usage.last_ts = max(usage.last_ts, stamp)
        kind = obj.get("type")
        if kind == "assistant":
            _assistant(usage, obj.get("message"))
        elif kind == "user" and _is_prompt(obj):
            usage.prompts += 1
        elif kind == "system" and obj.get("subtype") == "compact_boundary":
            usage.compactions += 1


def _is_prompt(obj: dict[str, Any]) -> bool:
    if obj.get("isMeta") or obj.get("isCompactSummary"):
        return False
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        return not any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
    # A slash command's output comes back as a user line too: the person typed none of it.
    return isinstance(content, str) and not content.startswith("<local-command-")


def _assistant(usage: Usage, message: object) -> None:
    """Fold one assistant line; the lines of one message carry its usage again, so the
    message's last usage replaces what its earlier lines counted."""
    if not isinstance(message, dict) or not isinstance(message.get("usage"), dict):
        return
    counts = {name: _int(message["usage"].get(key)) for key, name in _API.items()}
    model = _text(message.get("model")) or "unknown"
    mid = _text(message.get("id"))
    if not mid and not any(counts.values()):
        return  # no id, no tokens: nothing to count, and no message to count once
    before = usage.last_seen.pop(mid, None) if mid else None
    if isinstance(before, list) and len(before) == 2 and isinstance(before[1], dict):
        _add(usage, str(before[0]), before[1], -1)
    else:
        usage.assistant_messages += 1
    _add(usage, model, counts, 1)
    if mid:
        usage.last_seen[mid] = [model, counts]
        while len(usage.last_seen) > RECENT:
            del usage.last_seen[next(iter(usage.last_seen))]
    usage.last_model = model
    usage.peak_context = max(usage.peak_context, counts["input"] + counts["cache_creation"] + counts["cache_read"])
    usage.one_m = usage.one_m or "[1m]" in model


def _add(usage: Usage, model: str, counts: dict[str, int], sign: int) -> None:
    if not any(counts.values()):
        return
    into = usage.models.setdefault(model, dict.fromkeys(FIELDS, 0))
    for key, value in counts.items():
        into[key] = into.get(key, 0) + sign * value


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


READERS: dict[str, TranscriptReader] = {ClaudeCode.name: ClaudeCode()}
