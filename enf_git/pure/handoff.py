"""The session handoff (seed 002): what a stopping session leaves for the next one in
the same work tree, and the SessionStart block that shows it.

A *snapshot* is taken at Stop: the work tree's branch and modified files (`git status
--porcelain=v2 --branch`), the commits of the two hours before, the stopping session's
open items and the tail of the project's scratchpad. It is stored as JSON in the work
tree's git dir (per machine, per worktree, never committed) and rendered at SessionStart,
labelled with its age, if it is under MAX_AGE old and within MAX_CHARS.

Pure: git's output, file text and a clock in; values and text out. Reading git and
files, redaction and the settings are memory/handoff.py's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from .model import Session

SCHEMA = 1
MAX_AGE = 48 * 3600  # seconds: an older handoff is stale, and stale context is worse than none
# Seconds a handoff may seem written in the future (two machines' clocks, an NTP step).
# Beyond that the writer's clock was wrong: its age is unknown, and it would read
# "just now" for ever rather than ever going stale.
MAX_SKEW = 5 * 60
RECENT_COMMITS = 2 * 3600  # seconds before the stop whose commits are listed
MAX_FILES = 20  # modified files kept in a snapshot (the rest are counted)
MAX_COMMITS = 10
MAX_ITEMS = 10
MAX_SCRATCH_LINES = 15
MAX_SCRATCH_CHARS = 800
MAX_LINE = 200  # characters of any one line shown
MAX_CHARS = 2000  # the whole block: a third of SessionStart's context is the most any block may take
TITLE = "## Last session handoff"
OPEN = "- [ ]"


class Status(NamedTuple):  # NamedTuples, not dataclasses: Stop pays their creation at import
    """What `git status --porcelain=v2 --branch` said."""

    branch: str  # "" when HEAD is detached
    head: str  # the commit HEAD names, "" before the first commit
    upstream: str = ""  # "origin/main [ahead 1, behind 2]", "" when none
    files: tuple[str, ...] = ()  # the first MAX_FILES, as `XY path` (porcelain v1's shape)
    total: int = 0  # every modified or untracked path


class Snapshot(NamedTuple):
    written: int  # epoch seconds of the Stop
    session: str  # the stopping session's id (first 8 characters)
    session_file: str  # its file, relative to the work tree ("" when it has none)
    status: Status | None  # None: git status could not be read (see notes)
    commits: tuple[str, ...] = ()  # "abc1234 subject", newest first, the first MAX_COMMITS
    commits_total: int = 0
    items: tuple[str, ...] = ()  # the session's open items and next steps, "- [ ] ..."
    scratchpad: str = ""  # its path, relative to the work tree ("" when there is none)
    scratch_tail: str = ""
    notes: tuple[str, ...] = ()  # what could not be read, and why (a git call timed out)


# --- reading git's output ------------------------------------------------------------------

def parse_status(out: str, limit: int = MAX_FILES) -> Status:
    """`git status --porcelain=v2 --branch` output (not -z: paths come quoted as git quotes them)."""
    head = branch = upstream = ab = ""
    files: list[str] = []
    total = 0
    for line in out.splitlines():
        if line.startswith("# "):
            key, _, value = line[2:].partition(" ")
            if key == "branch.oid":
                head = "" if value == "(initial)" else value
            elif key == "branch.head":
                branch = "" if value == "(detached)" else value
            elif key == "branch.upstream":
                upstream = value
            elif key == "branch.ab":
                ab = value
            continue
        entry = _entry(line)
        if entry:
            total += 1
            if len(files) < limit:
                files.append(entry)
    return Status(branch, head, _upstream(upstream, ab), tuple(files), total)


# Fields before the path in each porcelain v2 entry kind (git-status(1), "Porcelain Format Version 2").
_FIELDS = {"1": 8, "2": 9, "u": 10}


def _entry(line: str) -> str:
    """One v2 entry as `XY path` (`R  old -> new` for a rename), or "" for anything else."""
    kind = line[:1]
    if kind in ("?", "!") and line[1:2] == " ":
        return f"{kind * 2} {line[2:]}"
    if kind not in _FIELDS:
        return ""
    parts = line.split(" ", _FIELDS[kind])
    if len(parts) <= _FIELDS[kind]:
        return ""
    xy = parts[1].replace(".", " ")
    path = parts[-1]
    if kind == "2":
        new, _, old = path.partition("\t")
        path = f"{old} -> {new}"
    return f"{xy} {path}"


def _upstream(name: str, ab: str) -> str:
    if not name:
        return ""
    ahead, _, behind = ab.partition(" ")
    counts = [f"{word} {n.lstrip('+-')}" for word, n in (("ahead", ahead), ("behind", behind))
              if n.lstrip("+-") not in ("", "0")]
    return f"{name} [{', '.join(counts)}]" if counts else name


def parse_log(out: str, limit: int = MAX_COMMITS) -> tuple[tuple[str, ...], int]:
    """`git log --format=%h%x09%s` output: the first `limit` as "abc1234 subject", and how many."""
    lines = [line.replace("\t", " ", 1) for line in out.splitlines() if line.strip()]
    return tuple(lines[:limit]), len(lines)


# --- reading the session file and the scratchpad ----------------------------------------------

def open_items(session: Session, limit: int = MAX_ITEMS) -> tuple[str, ...]:
    """The unchecked `- [ ]` lines of the session's Open Items and Next Steps (what briefing shows)."""
    found = [ln.strip() for name in ("Open Items", "Next Steps")
             for ln in session.sections.get(name, "").splitlines() if ln.strip().startswith(OPEN)]
    return tuple(found[:limit])


def tail(text: str, lines: int = MAX_SCRATCH_LINES, chars: int = MAX_SCRATCH_CHARS) -> str:
    """The last `lines` non-blank lines of `text`, at most `chars` characters (whole lines)."""
    kept: list[str] = []
    size = 0
    for line in reversed([ln.rstrip() for ln in text.splitlines() if ln.strip()]):
        line = _short(line)
        if len(kept) == lines or size + len(line) + 1 > chars:
            break
        kept.append(line)
        size += len(line) + 1
    return "\n".join(reversed(kept))


# --- storing -------------------------------------------------------------------------------

def to_record(snap: Snapshot) -> dict[str, object]:
    """The snapshot as JSON values (what the file holds)."""
    record: dict[str, object] = {k: list(v) if isinstance(v, tuple) else v
                                 for k, v in snap._asdict().items() if k != "status"}
    status = snap.status
    record["status"] = None if status is None else {**status._asdict(), "files": list(status.files)}
    record["schema"] = SCHEMA
    return record


def from_record(value: object) -> Snapshot | None:
    """A snapshot from what the file held; None for anything this version cannot read
    (another schema, a hand edit, a torn file): a handoff is a hint, never worth an error."""
    if not isinstance(value, Mapping) or value.get("schema") != SCHEMA:
        return None
    try:
        status = value.get("status")
        return Snapshot(
            written=_int(value["written"]), session=_str(value["session"]), session_file=_str(value["session_file"]),
            status=_status(status) if status is not None else None,
            commits=_strs(value.get("commits", [])), commits_total=_int(value.get("commits_total", 0)),
            items=_strs(value.get("items", [])), scratchpad=_str(value.get("scratchpad", "")),
            scratch_tail=_str(value.get("scratch_tail", "")), notes=_strs(value.get("notes", [])))
    except (KeyError, TypeError, ValueError):
        return None


def _status(value: object) -> Status:
    if not isinstance(value, Mapping):
        raise TypeError("status")
    return Status(_str(value["branch"]), _str(value["head"]), _str(value.get("upstream", "")),
                  _strs(value.get("files", [])), _int(value.get("total", 0)))


def _int(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError("not an integer")
    return value


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError("not a string")
    return value


def _strs(value: object) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise TypeError("not a list")
    return tuple(_str(v) for v in value)


# --- the SessionStart block ----------------------------------------------------------------

def age_label(seconds: int) -> str:
    """`3h ago`, `12 min ago`, `just now`: how long ago the handoff was written."""
    seconds = max(seconds, 0)  # a clock a little behind the writer's: just written
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{seconds // 60} min ago"
    return f"{seconds // 3600}h ago"


def block(snap: Snapshot | None, now: int, max_chars: int = MAX_CHARS, current: str = "") -> str:
    """The handoff for SessionStart's context, or "" when there is none, it is over MAX_AGE
    old, dated more than MAX_SKEW in the future, or it is the starting session's own
    (`current`, its first 8 characters: a resume or a compaction of the session that
    stopped, which knows what it left). Lists are cut (with "and N more") until the block
    fits in `max_chars`."""
    if snap is None or not fresh(snap, now) or (current and snap.session == current):
        return ""
    caps = [MAX_FILES, MAX_COMMITS, MAX_ITEMS, MAX_SCRATCH_LINES]
    text = _render(snap, now, caps)
    while len(text) > max_chars and any(caps):
        i = max(range(len(caps)), key=lambda k: caps[k])  # the longest list gives way first
        caps[i] //= 2
        text = _render(snap, now, caps)
    return text if len(text) <= max_chars else text[: max_chars - 2].rsplit("\n", 1)[0] + "\n…"


def fresh(snap: Snapshot, now: int) -> bool:
    """Written at most MAX_AGE ago, and not more than MAX_SKEW ahead of `now`."""
    return -MAX_SKEW <= now - snap.written <= MAX_AGE


def _render(snap: Snapshot, now: int, caps: Sequence[int]) -> str:
    files, commits, items, scratch = caps
    lines = [f"{TITLE} ({age_label(now - snap.written)})", _intro(snap)]
    st = snap.status
    if st is not None and st.total:
        lines += ["Modified files (git status --porcelain):", *_listed(st.files, st.total, files, "    ")]
    elif st is not None:
        lines.append("The work tree was clean.")
    if snap.commits_total:
        lines += ["Commits in the 2 hours before it stopped:",
                  *_listed(snap.commits, snap.commits_total, commits, "- ")]
    if snap.items:
        lines += ["Its open items:", *_listed(snap.items, len(snap.items), items, "")]
    if snap.scratch_tail and scratch:
        shown = snap.scratch_tail.splitlines()[-scratch:]
        lines += [f"Scratchpad ({snap.scratchpad}), last lines:", *(f"> {_short(ln)}" for ln in shown)]
    lines += [f"({note})" for note in snap.notes]
    return "\n".join(lines)


def _intro(snap: Snapshot) -> str:
    st = snap.status
    if st is None:
        where = ""
    elif st.branch:
        upstream = f" (tracking {st.upstream})" if st.upstream else ""
        where = f" on branch {st.branch}{upstream}" + ("" if st.head else ", before its first commit")
    else:
        where = f" with HEAD detached at {st.head[:12]}" if st.head else " with HEAD detached"
    own = f" ({snap.session_file})" if snap.session_file else ""
    return (f"Session {snap.session or '(unknown)'}{own} stopped in this work tree{where}. This is what it "
            f"left; the work tree may have changed since: check before relying on it.")


def _listed(lines: Sequence[str], total: int, cap: int, prefix: str) -> list[str]:
    out = [f"{prefix}{_short(ln)}" for ln in lines[:cap]]
    if total > len(out):
        out.append(f"{prefix}… and {total - len(out)} more")
    return out


def _short(line: str) -> str:
    return line if len(line) <= MAX_LINE else line[: MAX_LINE - 1] + "…"
