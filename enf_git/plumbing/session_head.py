"""A session file found by its header, and one key of a header read or set as text:
the per-call hooks (the session gate) and a toolset switch touch a header without
loading YAML or the record model.

A session's own file is `sessions/<today or yesterday>-SLUG.md` whose frontmatter
`session_id` equals the session id's first 8 characters; never a symlink.

Only a flat `key: value` line directly in the header is read or replaced; a header
that is not there (no `---` first line, or no closing one within HEAD_BYTES) is left
alone. The rest of the file is written back byte for byte.
"""


import os
import time

from .. import paths

HEAD_BYTES = 4096  # frontmatter lives at the top; never read a whole large file for it


def header_lines(head: str) -> list[str] | None:
    """The lines between the opening and closing `---`, or None when there is no header."""
    lines = head.replace("\r\n", "\n").split("\n")
    if not lines or lines[0].strip() != "---":
        return None
    for i, line in enumerate(lines[1:], 1):
        if line.strip() in ("---", "..."):
            return lines[1:i]
    return None


def value(path: str, key: str) -> str | None:
    """The text of `key: value` in a file's header (quotes and a trailing comment stripped)."""
    try:
        with open(path, "rb") as f:
            head = f.read(HEAD_BYTES).decode("utf-8", "replace")
    except OSError:
        return None
    for line in header_lines(head) or []:
        name, sep, rest = line.partition(":")
        if sep and name.strip() == key and not line[:1].isspace():
            return rest.split(" #", 1)[0].strip().strip("\"'")
    return None


def set_value(path: str, key: str, new: str) -> bool:
    """Set `key: new` in the file's header (replacing the line, or adding one before the
    closing `---`); whether the file changed. `new` must be a plain one-line scalar."""
    if not new or any(c in new for c in "\n\r:#'\"[]{},&*!|>%@`"):
        raise ValueError(f"{new!r} is not a plain value")
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return False
    newline = b"\r\n" if data.startswith(b"---\r\n") else b"\n"
    lines = data.split(newline)
    if not lines or lines[0].strip() != b"---" or len(data) > 64 * 1024 * 1024:
        return False
    end = next((i for i, ln in enumerate(lines[1:], 1) if ln.strip() in (b"---", b"...")), None)
    if end is None:
        return False
    wanted = f"{key}: {new}".encode()
    for i in range(1, end):
        if lines[i].split(b":", 1)[0] == key.encode() and b":" in lines[i]:
            if lines[i] == wanted:
                return False
            lines[i] = wanted
            break
    else:
        lines.insert(end, wanted)
    from . import atomic  # not with the module: the per-call hooks never write a session file

    atomic.write(path, newline.join(lines))
    return True


def id8(session_id: str) -> str:
    return "".join(c for c in session_id if c.isalnum() or c in "-_")[:8]


def days(now: float | None = None) -> tuple[str, str]:
    """(today, yesterday) as YYYY-MM-DD in local time."""
    now = time.time() if now is None else now
    return time.strftime("%Y-%m-%d", time.localtime(now)), time.strftime("%Y-%m-%d", time.localtime(now - 86400))


def frontmatter_id(path: str) -> str | None:
    """The `session_id` value in a file's frontmatter, or None if there is none."""
    try:
        with open(path, "rb") as f:
            head = f.read(HEAD_BYTES).decode("utf-8", "replace")
    except OSError:
        return None
    lines = head.replace("\r\n", "\n").split("\n")
    if not lines or lines[0].strip() != "---":
        return None
    for line in lines[1:]:
        if line.strip() in ("---", "..."):
            return None
        key, sep, value = line.partition(":")
        if sep and key.strip() == "session_id":
            value = value.split(" #", 1)[0].strip().strip("\"'")
            return value[:8] or None
    return None


def matching_file(root: str, session_id: str, now: float | None = None, hint: str | None = None) -> str | None:
    """The session file that satisfies the gate for `session_id`, if any."""
    want = id8(session_id)
    if not want:
        return None
    sessions = os.path.join(root, paths.SESSIONS_DIR)
    allowed = days(now)
    if hint and _qualifies(hint, sessions, allowed, want):
        return hint
    try:
        names = sorted(os.listdir(sessions), reverse=True)
    except OSError:
        return None
    for name in names:
        path = os.path.join(sessions, name)
        if name.endswith(".md") and _qualifies(path, sessions, allowed, want):
            return path
    return None


def _qualifies(path: str, sessions: str, allowed: tuple[str, str], want: str) -> bool:
    """Whether `path` is this session's own file: directly in sessions/, dated today or
    yesterday, not a symlink, its frontmatter naming `want`. The same test for the cached
    hint as for a file found by listing, so a hint is never trusted more than the listing."""
    return (os.path.dirname(path) == sessions and os.path.basename(path)[:10] in allowed
            and not os.path.islink(path) and frontmatter_id(path) == want)
