"""Frontmatter: split a markdown file into its YAML header and body.

Session files carry a small, flat header (`key: scalar` and `tags: [a, b]`). Full
YAML costs ~30 ms of import per process, which matters on commit and hook paths,
so a strict stdlib parser handles exactly that subset and hands anything else
(nesting, anchors, block scalars, escapes, booleans) to python-frontmatter/PyYAML.
Either way the result is normalized to plain str/int/list[str] values, so the
two paths cannot disagree about types.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*):(?:\s+(.*?))?\s*$")
_PLAIN = re.compile(r"^[A-Za-z0-9_./+@()-][^#]*$")
_INT = re.compile(r"^-?[0-9]+$")
_AMBIGUOUS = {"true", "false", "yes", "no", "on", "off", "null", "~", "y", "n"}


@dataclass(frozen=True)
class Parsed:
    meta: dict[str, Any]
    body: str
    body_line: int  # 1-based line number where the body starts, for error messages


class FrontmatterError(ValueError):
    def __init__(self, line: int, reason: str) -> None:
        super().__init__(reason)
        self.line = line
        self.reason = reason


def split(text: str) -> tuple[list[str], str, int] | None:
    """The header lines, the body and the body's first line; None without a header."""
    if not text.startswith("---"):
        return None
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return None
    for i in range(1, len(lines)):
        if lines[i].rstrip() in ("---", "..."):
            return lines[1:i], "\n".join(lines[i + 1 :]), i + 2
    raise FrontmatterError(1, "frontmatter opened with '---' but never closed")


def parse(text: str) -> Parsed:
    """Parse a record; raises FrontmatterError (with a line number) on bad input."""
    parts = split(text)
    if parts is None:
        return Parsed({}, text, 1)
    header, body, body_line = parts
    meta = _fast(header)
    if meta is None:
        meta = _full(header)
    return Parsed({k: normalize(v) for k, v in meta.items()}, body, body_line)


def _fast(lines: list[str]) -> dict[str, Any] | None:
    out: dict[str, Any] = {}
    for line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _KEY.match(line)
        if m is None or m.group(1) in out:
            return None
        value = _scalar_or_list(m.group(2) or "")
        if value is _FALLBACK:
            return None
        out[m.group(1)] = value
    return out


_FALLBACK = object()


def _scalar_or_list(raw: str) -> Any:
    if raw == "":
        return None
    if raw.startswith("[") and raw.endswith("]"):
        inner = raw[1:-1].strip()
        if not inner:
            return []
        items = [_scalar(p.strip()) for p in inner.split(",")]
        return _FALLBACK if any(i is _FALLBACK or i is None for i in items) else items
    return _scalar(raw)


def _scalar(raw: str) -> Any:
    if len(raw) >= 2 and raw[0] == raw[-1] == '"':
        inner = raw[1:-1]
        return _FALLBACK if ("\\" in inner or '"' in inner) else inner
    if len(raw) >= 2 and raw[0] == raw[-1] == "'":
        inner = raw[1:-1]
        return _FALLBACK if "'" in inner.replace("''", "") else inner.replace("''", "'")
    if not raw or not _PLAIN.match(raw) or ": " in raw or raw.endswith(":") or "," in raw:
        return _FALLBACK if raw else None
    if raw.lower() in _AMBIGUOUS:
        return _FALLBACK
    if _INT.match(raw):
        return int(raw)
    return raw


def _full(lines: list[str]) -> dict[str, Any]:
    import yaml  # deferred: see module docstring
    from frontmatter.default_handlers import YAMLHandler

    try:
        data = YAMLHandler().load("\n".join(lines))
    except yaml.YAMLError as exc:
        # context_mark points at the construct that was left open (where a person looks).
        mark = getattr(exc, "context_mark", None) or getattr(exc, "problem_mark", None)
        line = (mark.line + 2) if mark is not None else 1
        reason = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise FrontmatterError(line, f"invalid YAML frontmatter: {reason}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise FrontmatterError(2, "frontmatter must be a mapping of key: value lines")
    return {str(k): v for k, v in data.items()}


def normalize(value: Any) -> Any:
    """Dates to ISO strings, nested lists kept, everything else as YAML gave it."""
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, list):
        return [normalize(v) for v in value]
    return value


def dump(meta: dict[str, Any], body: str) -> str:
    """Canonical serialization: given key order, one line per key, deterministic bytes."""
    lines = ["---"]
    for key, value in meta.items():
        lines.append(f"{key}: {_emit(value)}")
    lines.append("---")
    return "\n".join(lines) + "\n" + body


def _emit(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_emit(str(v)) for v in value) + "]"
    text = str(value)
    if _scalar(text) == text and not _INT.match(text):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

