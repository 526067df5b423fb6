"""Pins (seed 001's permanent and temporary-priority tiers): the record, when a
temporary pin is released, which sessions are too trivial to pin, and the
SessionStart block. Pure: records, text and stamps in.

A pin is one file per pinned session, `pins/<session stem>.md` on the claude-memory
branch (one file each, so two teammates pinning at once never touch one file):

    ---
    schema: 1
    session: 2026-04-12-auth-flow
    kind: temporary
    author: Alice
    date: 2026-04-13 10:30
    last_asked: 2026-04-14 09:05
    ---
    Pinned by git enf pin --temporary; git enf unpin 2026-04-12-auth-flow releases it.

- permanent ("remember this"): kept until unpinned or forgotten; never compressed;
  always offered at SessionStart; it holds no hot slot (pure/tiers.py).
- temporary ("do you remember this"): the same while it is being asked about; released
  when the `after` newest sessions (enf.pinRelease, default 10) are all newer than
  its last ask and none of them names it.

Stamps are local "YYYY-MM-DD HH:MM", the form session files carry (date + start_time),
so they compare as text with a session's `date start_time`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from ..errors import RecordError
from . import fm
from .frozen import Record, replace
from .model import Session

SCHEMA = 1
PINS_DIR = "pins"
PERMANENT, TEMPORARY = "permanent", "temporary"
KINDS = (PERMANENT, TEMPORARY)
RELEASE_DEFAULT = 10  # enf.pinRelease: sessions without an ask before a temporary pin goes
TRIVIAL_CHARS = 400  # a body shorter than this, with no decision and no open item, is a one-off
MIN_ID_MENTION = 6  # a session id shorter than this is too likely to occur by chance in text
_STAMP = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}(?: [0-9]{2}:[0-9]{2})?\Z")


class Pin(Record):
    FIELDS = ("session", "kind", "author", "date", "last_asked")

    session: str  # the pinned session's file stem
    kind: str  # permanent | temporary
    author: str
    date: str  # stamp: when it was pinned
    last_asked: str  # stamp: the last time it was asked about (pinned, recalled, shown)

    def __init__(self, session: str, kind: str, author: str, date: str, last_asked: str) -> None:
        vars(self).update(session=session, kind=kind, author=author, date=date, last_asked=last_asked)

    @property
    def path(self) -> str:
        return pin_path(self.session)

    @property
    def session_path(self) -> str:
        return f"sessions/{self.session}.md"

    def asked(self, stamp: str) -> Pin:
        """This pin asked about at `stamp` (never moved back in time)."""
        return replace(self, last_asked=max(self.last_asked, stamp))

    def as_dict(self) -> dict[str, str]:
        return {"session": self.session, "path": self.session_path, "kind": self.kind, "author": self.author,
                "date": self.date, "last_asked": self.last_asked}


def pin_path(stem: str) -> str:
    return f"{PINS_DIR}/{stem}.md"


def is_pin_path(path: str) -> bool:
    return path.startswith(f"{PINS_DIR}/") and path.endswith(".md") and path.count("/") == 1


def new_pin(stem: str, kind: str, author: str, stamp: str) -> Pin:
    if kind not in KINDS:
        raise ValueError(f"no pin kind {kind!r}: one of {', '.join(KINDS)}")
    return Pin(stem, kind, author, stamp, stamp)


def pin_bytes(pin: Pin) -> bytes:
    """The file of a pin: canonical, so the same pin always gives the same blob."""
    meta = {"schema": SCHEMA, "session": pin.session, "kind": pin.kind, "author": pin.author, "date": pin.date,
            "last_asked": pin.last_asked}
    how = "git enf pin --temporary" if pin.kind == TEMPORARY else "git enf pin"
    return fm.dump(meta, f"Pinned by {how}; git enf unpin {pin.session} releases it.\n").encode("utf-8")


def parse_pin(path: str, data: bytes) -> Pin:
    """A pin file; RecordError (with the line) if it cannot be one. The session named
    is the file's own name: a header naming another session is an error, not a second pin."""
    parsed = fm.parse_record(path, data, SCHEMA)
    meta = parsed.meta
    stem = path.rsplit("/", 1)[-1].removesuffix(".md")
    session = str(meta.get("session") or stem)
    if session != stem:
        raise RecordError(path, 0, f"it names session {session!r} but is the pin of {stem!r}: "
                                   f"rename the file to pins/{session}.md or fix its session line")
    kind = str(meta.get("kind") or PERMANENT)
    if kind not in KINDS:
        raise RecordError(path, 0, f"kind must be permanent or temporary, not {kind!r}")
    date = str(meta.get("date") or "")
    if not _STAMP.match(date):
        raise RecordError(path, 0, f"date {date!r} is not YYYY-MM-DD HH:MM: add a line `date: YYYY-MM-DD HH:MM`")
    asked = str(meta.get("last_asked") or date)
    if not _STAMP.match(asked):
        raise RecordError(path, 0, f"last_asked {asked!r} is not YYYY-MM-DD HH:MM")
    return Pin(stem, kind, str(meta.get("author") or ""), date, max(asked, date))


def session_stamp(date: str, start_time: str) -> str:
    """A session's place in time as a stamp ("YYYY-MM-DD HH:MM"; the day alone without a start time)."""
    hm = start_time.strip()[:5]
    return f"{date[:10]} {hm}" if re.match(r"^[0-9]{2}:[0-9]{2}\Z", hm) else date[:10]


def mentions(text: str, stem: str, session_id: str) -> bool:
    """`text` names the session: its file stem, or its session id (when long enough to mean it)."""
    if stem in text:
        return True
    return len(session_id) >= MIN_ID_MENTION and re.search(rf"\b{re.escape(session_id)}", text) is not None


class Later:
    """A session newer than a pin's last ask, as the release rule reads it."""

    def __init__(self, stem: str, stamp: str, names_it: Callable[[], bool]) -> None:
        self.stem, self.stamp = stem, stamp
        self.names_it = names_it  # read lazily: most pins are decided by the newest few sessions


def since_asked(pin: Pin, newest_first: Iterable[Later], after: int = RELEASE_DEFAULT) -> int:
    """How many of the newest sessions are newer than the pin's last ask and do not name
    it, counted from the newest and stopping at the first that names it (an ask) or at
    `after` (released). The pinned session itself never counts."""
    n = 0
    for s in newest_first:
        if s.stamp <= pin.last_asked or n >= after:
            break
        if s.stem == pin.session:
            continue
        if s.names_it():
            break
        n += 1
    return n


def released(pin: Pin, newest_first: Iterable[Later], after: int = RELEASE_DEFAULT) -> bool:
    """A temporary pin whose last `after` sessions all came after its last ask, none naming it."""
    return pin.kind == TEMPORARY and after > 0 and since_asked(pin, newest_first, after) >= after


def trivial(session: Session) -> str:
    """Why `session` is a one-off not worth pinning ("" when it is worth it): no decision,
    no open item, and a body of fewer than TRIVIAL_CHARS characters."""
    if session.decisions or open_items(session):
        return ""
    size = sum(len(text.strip()) for text in session.sections.values())
    if size >= TRIVIAL_CHARS:
        return ""
    return (f"{session.stem} looks like a one-off: no decisions, no open items and {size} characters of notes "
            f"(pins are for sessions worth remembering)")


def open_items(session: Session) -> list[str]:
    return [ln.strip() for name in ("Open Items", "Next Steps") for ln in session.sections.get(name, "").splitlines()
            if ln.strip().startswith("- [ ]")]


# --- SessionStart ---------------------------------------------------------------------------

class Shown:
    """A pin as the SessionStart block shows it: where to read it, and its summary."""

    def __init__(self, pin: Pin, pointer: str, summary: str) -> None:
        self.pin, self.pointer, self.summary = pin, pointer, summary


def ordered(pins: Iterable[Pin]) -> list[Pin]:
    """Permanent first, then temporary; newest pin first within each."""
    return sorted(pins, key=lambda p: (p.kind != PERMANENT, _neg(p.date), p.session))


def _neg(stamp: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in stamp)


def block(shown: Sequence[Shown], released_now: Sequence[str], room: int, after: int = RELEASE_DEFAULT) -> str:
    """The pins' block of the SessionStart context, within `room` characters ("" when
    there is nothing to say). What does not fit is counted and named: `git enf pins`."""
    lines: list[str] = []
    if shown:
        permanent = sum(1 for s in shown if s.pin.kind == PERMANENT)
        lines.append(f"## Pinned sessions ({permanent} permanent, {len(shown) - permanent} temporary)")
        lines.append("Sessions the user asked to remember: read the file when the topic comes up.")
    if released_now:
        names = ", ".join(released_now[:5]) + (f" and {len(released_now) - 5} more" if len(released_now) > 5 else "")
        lines.append(f"Released this start (not asked about in the last {after} sessions, back to their normal "
                     f"tier): {names}")
    size = sum(len(ln) + 1 for ln in lines)
    for i, s in enumerate(shown):
        line = _line(s, after)
        if size + len(line) + 1 > room - 60:
            lines.append(f"- … {len(shown) - i} more: git enf pins")
            break
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines)


def _line(s: Shown, after: int) -> str:
    summary = s.summary or "(no summary yet)"
    if len(summary) > 160:
        summary = summary[:157].rstrip() + "…"
    if s.pin.kind == PERMANENT:
        return f"- {s.pointer}: {summary} (permanent)"
    return (f"- {s.pointer}: {summary} (temporary priority, last asked {s.pin.last_asked}; released after "
            f"{after} sessions without it)")
