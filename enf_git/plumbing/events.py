"""Mechanical event log: one redacted JSON line per hook event, per session.

Lines go to `.claude-sessions/raw/<session-id>.jsonl` (local-only: never committed,
the `raw/` folder of Elephants Never Forget). At each commit point the lines not yet flushed are
condensed into `log.md`, the append-only chronological record on the branch; a
per-session offset in `.git/enf/spool/` remembers how far that got. Stdlib only:
the per-call hooks append here.
"""

import os
import time

from .. import fastjson, paths
from ..redact import redact

SUMMARY_CHARS = 200
ERROR_CHARS = 500
ERROR_HEAD = 200  # of a longer error, its start; the rest of ERROR_CHARS is its end (a traceback's last line)
# Events that make it into log.md; tool calls stay in raw/ (thousands a day would drown it).
LOGGED = ("session-start", "prompt", "tool-failure", "gate-deny", "stop", "compact", "session-end")


def safe_name(session_id: str) -> str:
    name = "".join(c for c in session_id if c.isalnum() or c in "-_")[:64]
    return name or "unknown"


def opted_out(root: str, session_id: str) -> bool:
    """Whether `.claude-sessions/.opt-out/<id8>` says this session is not to be tracked."""
    want = "".join(c for c in session_id if c.isalnum() or c in "-_")[:8]
    return bool(want) and os.path.isfile(os.path.join(root, paths.OPT_OUT_DIR, want))


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def tool_summary(tool_name: str, tool_input: object) -> str:
    """A short, redacted description of a tool call: its command, path or pattern."""
    if not isinstance(tool_input, dict):
        return ""
    for key in ("command", "file_path", "notebook_path", "pattern", "url", "query", "path", "description"):
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return _short(value, SUMMARY_CHARS)
    return ""


def _short(text: str, limit: int) -> str:
    text = redact(" ".join(text.split()))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _error(text: str) -> str:
    """A tool's error for the log: redacted, lines kept (instincts read the telling one) with
    their spacing collapsed; a long one keeps its head and its end, where tracebacks and
    test runners say what went wrong. log.md shows it on one line all the same."""
    text = "\n".join(line for line in (" ".join(ln.split()) for ln in redact(text).splitlines()) if line)
    if len(text) <= ERROR_CHARS:
        return text
    return text[:ERROR_HEAD].rstrip() + "\n…\n" + text[len(text) - (ERROR_CHARS - ERROR_HEAD - 3):].lstrip()


def append(root: str, session_id: str, kind: str, **fields: object) -> None:
    """Append one event line; strings are redacted and trimmed before they touch disk."""
    record: dict[str, object] = {"ts": now_iso(), "session": session_id[:8], "event": kind}
    for key, value in fields.items():
        if isinstance(value, str):
            limit = ERROR_CHARS if key == "prompt" else SUMMARY_CHARS
            value = _error(value) if key == "error" else _short(value, limit)
        record[key] = value
    folder = os.path.join(root, paths.RAW_DIR)
    os.makedirs(folder, exist_ok=True)
    line = fastjson.dumps(record) + "\n"
    # O_APPEND writes of one short line are atomic enough for parallel hooks.
    fd = os.open(os.path.join(folder, safe_name(session_id) + ".jsonl"), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        # "replace": a lone surrogate (JSON allows "\ud800") has no UTF-8 form, and one
        # bad character must not cost the hook its reply.
        os.write(fd, line.encode("utf-8", "replace"))
    finally:
        os.close(fd)


def log_line(record: dict[str, object]) -> str | None:
    """The log.md line for one event record, or None if it stays in raw/ only."""
    kind = record.get("event")
    if kind not in LOGGED:
        return None
    head = f"- {record.get('ts', '')} [{record.get('session', '')}] {kind}"
    detail = {
        "session-start": lambda r: f"source: {r.get('source', '')}",
        "prompt": lambda r: f"\"{r.get('prompt', '')}\"",
        "tool-failure": lambda r: f"{r.get('tool', '')}: {r.get('summary', '')} → {r.get('error', '')}",
        "gate-deny": lambda r: f"{r.get('tool', '')}: {r.get('summary', '')}",
        "stop": lambda r: f"{r.get('tools', 0)} tool call(s) this turn",
        "compact": lambda r: f"trigger: {r.get('trigger', '')}",
        "session-end": lambda r: f"reason: {r.get('reason', '')}",
    }[str(kind)](record)
    return f"{head}: {' '.join(detail.split())}"


def unflushed(root: str, spool: str, session_file: str) -> tuple[list[dict[str, object]], int]:
    """Event records after the flushed offset, and the new offset (torn lines skipped)."""
    path = os.path.join(root, paths.RAW_DIR, session_file)
    offset = _offset(spool, session_file)
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            data = f.read()
    except OSError:
        return [], offset
    end = data.rfind(b"\n") + 1  # a line still being written stays for next time
    records = []
    for raw in data[:end].splitlines():
        try:
            record = fastjson.loads(raw.decode("utf-8", "replace"))
        except ValueError:
            continue
        if isinstance(record, dict):
            records.append(record)
    return records, offset + end


def _offset(spool: str, session_file: str) -> int:
    try:
        with open(os.path.join(spool, session_file + ".offset"), encoding="utf-8") as f:
            return int(f.read().strip() or 0)
    except (OSError, ValueError):
        return 0


def save_offset(spool: str, session_file: str, offset: int) -> None:
    from . import atomic  # only at commit points: each module the per-call hooks load costs ~50 us

    os.makedirs(spool, exist_ok=True)
    atomic.write(os.path.join(spool, session_file + ".offset"), str(offset).encode("ascii"))
