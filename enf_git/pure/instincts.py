"""Instincts (seed 002): one-line rules learned from failures a later call fixed, shared
with the team on the claude-memory branch. Pure: records, fixes and stamps in.

An instinct is one file per lesson, `instincts/<id>.md`, the id a hash of the lesson's
normalized key (pure/fixes.py), so two clones learning different lessons never touch
one file and the same lesson learned twice is one record:

    ---
    schema: 1
    id: i1a2b3c4d
    tool: Bash
    program: pytest
    sessions: [a1b2c3d4, e5f6a7b8]
    authors: [Alice <alice@example.com>, Bob <bob@example.com>]
    first_seen: "2026-04-13T14:30:00Z"
    last_seen: "2026-04-14T09:02:11Z"
    ---
    Bash `pytest`: `pytest tests` failed (exit 4: ERROR: file or directory not found: tests); `python -m pytest tests` worked

Its corroboration is how many sessions (then authors) hit it. Two versions of one
instinct merge as a union (`union`): sessions and authors joined, the earliest first
seen and latest last seen, the rule text of the first sighting; the result is the same
in either direction. Forgetting keeps the file as a tombstone (`forgotten:` a stamp),
so the same lesson is not learned again and a teammate's copy merges into the
forgotten one instead of bringing it back. At most CAP live instincts are kept: past
it the least corroborated go (their files deleted, so history keeps them).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from .. import paths
from ..errors import RecordError
from . import fm
from .fixes import RULE_CHARS, Fix, cut

SCHEMA = 1
INSTINCTS_DIR = paths.INSTINCTS_DIR
CAP = 50  # live instincts kept: the least corroborated go first
MAX_SESSIONS = 200  # kept per instinct (the smallest ids): corroboration reads "200+" past it
MAX_AUTHORS = 50
_ID = re.compile(r"^i[0-9a-f]{8}\Z")


@dataclass(frozen=True)
class Instinct:
    id: str
    tool: str
    program: str
    rule: str
    sessions: tuple[str, ...]  # sorted, distinct
    authors: tuple[str, ...]  # sorted, distinct: "Name <email>"
    first_seen: str  # ISO-8601 UTC stamps, as the event log writes them
    last_seen: str
    forgotten: str = ""  # stamp of `git enf instincts forget` ("" while it is live)

    @property
    def path(self) -> str:
        return instinct_path(self.id)

    @property
    def live(self) -> bool:
        return not self.forgotten

    def corroboration(self) -> tuple[int, int]:
        return len(self.sessions), len(self.authors)

    def as_dict(self) -> dict[str, object]:
        return {"id": self.id, "rule": self.rule, "tool": self.tool, "program": self.program,
                "sessions": list(self.sessions), "authors": list(self.authors), "first_seen": self.first_seen,
                "last_seen": self.last_seen, "forgotten": self.forgotten or None}


def instinct_path(instinct_id: str) -> str:
    return f"{INSTINCTS_DIR}/{instinct_id}.md"


def is_instinct_path(path: str) -> bool:
    return paths.is_instinct_path(path)


def instinct_bytes(i: Instinct) -> bytes:
    """The file of an instinct: canonical, so the same instinct always gives the same blob."""
    meta: dict[str, object] = {"schema": SCHEMA, "id": i.id, "tool": i.tool, "program": i.program,
                               "sessions": list(i.sessions), "authors": list(i.authors),
                               "first_seen": i.first_seen, "last_seen": i.last_seen}
    if i.forgotten:
        meta["forgotten"] = i.forgotten
    return fm.dump(meta, i.rule + "\n").encode("utf-8")


def parse_instinct(path: str, data: bytes) -> Instinct:
    """An instinct file; RecordError if it cannot be one (its id is its file's name)."""
    parsed = fm.parse_record(path, data, SCHEMA)
    meta = parsed.meta
    stem = path.rsplit("/", 1)[-1].removesuffix(".md")
    if not _ID.match(stem) or str(meta.get("id") or stem) != stem:
        raise RecordError(path, 0, f"an instinct file is named by its id (i + 8 hex digits), and says so in its "
                                   f"id line; {stem!r} with id {meta.get('id')!r} is not one")
    rule = cut(" ".join(parsed.body.split()), RULE_CHARS)  # a hand-made long one must not crowd out the rest
    if not rule:
        raise RecordError(path, parsed.body_line, "no rule: the body is the one-line rule")
    first = str(meta.get("first_seen") or "")
    return Instinct(stem, str(meta.get("tool") or ""), str(meta.get("program") or ""), rule,
                    _names(meta.get("sessions"), MAX_SESSIONS), _names(meta.get("authors"), MAX_AUTHORS),
                    first, str(meta.get("last_seen") or first), str(meta.get("forgotten") or ""))


def _names(value: object, limit: int) -> tuple[str, ...]:
    items = value if isinstance(value, list) else [value] if value else []
    return tuple(sorted({str(v).strip() for v in items if str(v).strip()})[:limit])


# --- learning, merging, the cap ----------------------------------------------------------------

def new_instinct(fix: Fix, author: str) -> Instinct:
    return Instinct(fix.id, fix.tool, fix.program, fix.rule, (fix.session,) if fix.session else (),
                    (author,) if author else (), fix.ts, fix.ts)


def union(a: Instinct, b: Instinct) -> Instinct:
    """Two versions of one instinct as one: the same whichever comes first. The rule (and
    tool, program) of the earlier sighting; forgotten if either side forgot it."""
    first = min((a.first_seen or "~", a.rule, a), (b.first_seen or "~", b.rule, b), key=lambda t: t[:2])[2]
    forgotten = min((s for s in (a.forgotten, b.forgotten) if s), default="")
    return replace(first, sessions=_joined(a.sessions, b.sessions, MAX_SESSIONS),
                   authors=_joined(a.authors, b.authors, MAX_AUTHORS),
                   first_seen=min(a.first_seen or "~", b.first_seen or "~").strip("~"),
                   last_seen=max(a.last_seen, b.last_seen), forgotten=forgotten)


def _joined(a: Iterable[str], b: Iterable[str], limit: int) -> tuple[str, ...]:
    return tuple(sorted({*a, *b})[:limit])


class Learned:  # a plain class: see memory/workspace.Settings
    """What learning some fixes changes: the instincts to write, and to delete (the cap)."""

    def __init__(self) -> None:
        self.written: dict[str, Instinct] = {}  # id -> its new version
        self.new: list[str] = []  # ids learned for the first time
        self.corroborated: list[str] = []  # ids a new session or author hit again
        self.dropped: list[Instinct] = []  # over the cap, least corroborated first

    @property
    def empty(self) -> bool:
        return not self.written and not self.dropped

    def changes(self) -> dict[str, bytes | None]:
        out: dict[str, bytes | None] = {i.path: instinct_bytes(i) for i in self.written.values()}
        out.update({i.path: None for i in self.dropped})
        return out


def learn(current: Mapping[str, Instinct], fixes: Iterable[Fix], author: str, cap: int = CAP,
          blocked: Collection[str] = ()) -> Learned:
    """The changes that add `fixes` (learned by `author`) to the `current` instincts: new
    ones, corroborations (a session or author not yet counted), then the cap, applied to
    every live instinct (after a merge brought two clones' 50 each, too). A forgotten
    instinct stays forgotten, a fix already counted changes nothing, and an id in
    `blocked` (its file is there but cannot be read: a newer enf-git wrote it) is never
    written over."""
    out = Learned()
    for fix in fixes:
        if fix.id in blocked:
            continue
        have = out.written.get(fix.id) or current.get(fix.id)
        seen = new_instinct(fix, author)
        if have is None:
            out.written[fix.id] = seen
            out.new.append(fix.id)
            continue
        if have.forgotten:
            continue
        merged = union(have, seen)
        if merged.sessions != have.sessions or merged.authors != have.authors:
            out.written[fix.id] = merged
            if fix.id not in out.new and fix.id not in out.corroborated:
                out.corroborated.append(fix.id)
    live = {i.id: i for i in current.values() if i.live} | {k: v for k, v in out.written.items() if v.live}
    out.dropped = over_cap(live.values(), cap)
    for gone in out.dropped:
        out.written.pop(gone.id, None)
    out.new = [i for i in out.new if i in out.written]
    out.corroborated = [i for i in out.corroborated if i in out.written]
    return out


def ranked(instincts: Iterable[Instinct]) -> list[Instinct]:
    """Most corroborated first (sessions, then authors), then the most recently seen."""
    by_recent = sorted(instincts, key=lambda i: (i.last_seen, i.id), reverse=True)
    return sorted(by_recent, key=lambda i: i.corroboration(), reverse=True)


def over_cap(live: Iterable[Instinct], cap: int = CAP) -> list[Instinct]:
    """The live instincts past the `cap` most corroborated, least corroborated first."""
    order = ranked(live)
    return list(reversed(order[cap:]))


# --- SessionStart ---------------------------------------------------------------------------------

def line(i: Instinct, by: str = "") -> str:
    """`by`: "Alice, 2026-12-01" when someone else last changed the instinct's file."""
    sessions, authors = i.corroboration()
    seen = f"{sessions}{'+' if sessions >= MAX_SESSIONS else ''} session{'s' if sessions != 1 else ''}"
    if authors > 1:
        seen += f", {authors} people"
    return f"- {i.rule} ({i.id}; {seen})" + (f" — {by}" if by else "")


def block(instincts: Sequence[Instinct], room: int, by: Mapping[str, str] | None = None) -> str:
    """The SessionStart block, most corroborated first, within `room` characters ("" when
    there is no live instinct). A line that does not fit is skipped and counted (`git enf
    instincts`), and the lines after it still get their chance."""
    shown = ranked(i for i in instincts if i.live)
    if not shown:
        return ""
    lines = [f"## Learned instincts ({len(shown)})",
             "Tool calls that failed in earlier sessions, and what worked instead (learned from the hook log; "
             "`git enf instincts forget ID` drops a wrong one):"]
    size = sum(len(ln) + 1 for ln in lines)
    left_out = 0
    for i in shown:
        text = line(i, (by or {}).get(instinct_path(i.id), ""))
        if size + len(text) + 1 > room - 40:  # room kept for the count line
            left_out += 1  # one that does not fit; a shorter one after it may
            continue
        lines.append(text)
        size += len(text) + 1
    if left_out:
        lines.append(f"- … {left_out} more: git enf instincts")
    return "\n".join(lines) if len(lines) > 2 else ""
