"""Records: what the memory branch holds, parsed from the markdown the assistant writes.

A *session* is `sessions/YYYY-MM-DD-<slug>.md`: a flat YAML header (session_id, date,
start_time, tags, status, summary, schema) and `## ` sections (seed 000). Inside the
`## Decisions` section each Y-statement line is a *decision*; each `REVERSED` line in
`## Reversals` is a *reversal*. Standalone decisions (imported from a hand edit of
`decisions.md`) live one per file in `decisions/`, so two people adding decisions at
once never touch the same file.

Decision ids are derived, not stored: a hash of the file stem, the time stamp and the
decided clause, so they survive edits elsewhere in the file and a resumed session's
new session_id. Parsing never modifies a file; problems are returned as RecordError.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from .. import paths
from . import fm
from ..errors import RecordError, SchemaTooNew

SCHEMA = 1
SESSIONS_DIR = paths.SESSIONS_DIR
DECISIONS_DIR = paths.DECISIONS_DIR
STATUSES = ("active", "completed")
_SECTION = re.compile(r"^## +(.+?)\s*$", re.MULTILINE)
# ASCII digits and \Z: `\d` takes any script's digits and `$` accepts a trailing newline.
_DECISION_ID = re.compile(r"^d[0-9a-f]{7}\Z")
_STEM = re.compile(r"^([0-9]{4}-[0-9]{2}-[0-9]{2})-([a-z0-9]+(?:-[a-z0-9]+)*)\Z")
_Y_LINE = re.compile(r"^\s*-\s*\[(?P<stamp>[^\]]+)\]\s*Y:\s*(?P<body>.+?)\s*$")
_Y_BODY = re.compile(
    r"^(?:In (?:the )?context of (?P<context>.+?),\s*)?"
    r"(?:facing (?P<facing>.+?),\s*)?"
    r"decided (?P<decided>.+?)"
    r"(?:\s+over (?P<over>.+?))?"
    r"(?:,\s*to achieve (?P<achieve>.+?))?"
    r"(?:,\s*accepting (?P<accepting>.+?))?"
    r"\s*\.?\s*(?:Confidence:\s*(?P<confidence>[A-Za-z]+)\.?)?"
    r"\s*(?:Session:\s*(?P<session>[\w-]+)\.?)?"
    r"(?:\s*\((?P<rid>d[0-9a-f]{7})\))?\s*$",
    re.IGNORECASE,
)
_REVERSAL = re.compile(
    r"^\s*-\s*\[(?P<stamp>[^\]]+)\]\s*REVERSED\s+(?P<ref>.+?):\s*"
    r"Changed from (?P<old>.+?) to (?P<new>.+?)(?:\s+because (?P<reason>.+?))?\s*$",
    re.IGNORECASE,
)
# The fallback for Y-lines off the canonical shape: rare, and ~2.5 ms to compile, so
# compiled on first use (re caches it) rather than on every import (every commit).
_Y_LOOSE = (r"^(?P<decided>.+?)\s*\.?\s*(?:Confidence:\s*(?P<confidence>[A-Za-z]+)\.?)?"
            r"\s*(?:Session:\s*(?P<session>[\w-]+)\.?)?(?:\s*\((?P<rid>d[0-9a-f]{7})\))?\s*$")


def _y_loose_match(body: str) -> re.Match[str] | None:
    return re.match(_Y_LOOSE, body, re.IGNORECASE)  # compiled once, then from re's cache


@dataclass(frozen=True)
class Decision:
    id: str
    source: str  # path of the file it was parsed from
    date: str
    time: str
    context: str
    facing: str
    decided: str
    over: str
    achieve: str
    accepting: str
    confidence: str
    session_id: str
    text: str  # the Y-statement as written, without the bullet and stamp

    @property
    def topic(self) -> str:
        area = self.context.strip() or "General"
        return area[0].upper() + area[1:]


@dataclass(frozen=True)
class Reversal:
    id: str
    source: str
    date: str
    time: str
    ref: str
    old: str
    new: str
    reason: str
    session_id: str


@dataclass(frozen=True)
class Session:
    path: str
    stem: str
    session_id: str
    date: str
    start_time: str
    tags: tuple[str, ...]
    status: str
    summary: str
    sections: dict[str, str] = field(hash=False)
    decisions: tuple[Decision, ...] = ()
    reversals: tuple[Reversal, ...] = ()

    @property
    def interrupted(self) -> bool:
        return self.status == "active" and not self.summary


def stable_id(prefix: str, *parts: str) -> str:
    try:  # CPython's built-in SHA-1: hashlib would load OpenSSL first (~2 ms a process)
        from _sha1 import sha1  # type: ignore[import-not-found]
    except ImportError:  # other interpreters
        from hashlib import sha1

    digest = sha1("\x1f".join(parts).encode("utf-8")).hexdigest()
    return f"{prefix}{digest[:7]}"


def parse_session(path: str, data: bytes) -> Session:
    """A session file as a record; RecordError (file, line, reason) if malformed."""
    text = _decode(path, data)
    try:
        parsed = fm.parse(text)
    except fm.FrontmatterError as exc:
        raise RecordError(path, exc.line, exc.reason) from exc
    meta = parsed.meta
    _check_schema(path, text, meta)
    stem = path.rsplit("/", 1)[-1].removesuffix(".md")
    date = _text(text, meta, "date") or stem[:10]
    session_id = _text(text, meta, "session_id")
    if not session_id:
        if parsed.body_line == 1:
            raise RecordError(path, 1, "no frontmatter: start the file with a --- header holding session_id")
        raise RecordError(path, 2, "frontmatter has no session_id")
    status = _text(text, meta, "status") or "active"
    if status not in STATUSES:
        raise RecordError(path, _line_of(text, "status:"), f"status must be active or completed, not {status!r}")
    sections = split_sections(parsed.body)
    # The warm tier (seed 000) rewrites `## Decisions` as `## Decisions Taken`: same records.
    decided = "\n".join(sections[name] for name in ("Decisions", "Decisions Taken") if name in sections)
    return Session(
        path=path,
        stem=stem,
        session_id=session_id[:8],
        date=date,
        start_time=_text(text, meta, "start_time"),
        tags=_tags(path, text, meta.get("tags")),
        status=status,
        summary=_text(text, meta, "summary").strip(),
        sections=sections,
        decisions=tuple(parse_decisions(path, decided, date, session_id[:8], stem)),
        reversals=tuple(parse_reversals(path, sections.get("Reversals", ""), date, session_id[:8], stem)),
    )


def _text(text: str, meta: dict[str, object], key: str) -> str:
    """A field that is text by meaning, as written. YAML 1.1 types some bare values the
    assistant means as text (`start_time: 14:30` is 870, `session_id: 01234567` is
    octal 342391, `summary: yes` is True); read those back from the header line."""
    value = meta.get(key)
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    parts = fm.split(text)
    for line in parts[0] if parts else ():
        if line.startswith(f"{key}:"):
            raw = re.sub(r"\s+#.*$", "", line[len(key) + 1 :]).strip()
            if raw:
                return raw
    return str(value)


def parse_decision_file(path: str, data: bytes) -> list[Decision]:
    """A standalone decision record (`decisions/*.md`): Y-statement lines in its body."""
    text = _decode(path, data)
    try:
        parsed = fm.parse(text)
    except fm.FrontmatterError as exc:
        raise RecordError(path, exc.line, exc.reason) from exc
    _check_schema(path, text, parsed.meta)
    stem = path.rsplit("/", 1)[-1].removesuffix(".md")
    date = _text(text, parsed.meta, "date") or stem[:10]
    session_id = _text(text, parsed.meta, "session_id")
    found = parse_decisions(path, parsed.body, date, session_id, stem)
    filed_as = _text(text, parsed.meta, "decision_id")
    if filed_as and len(found) == 1 and _DECISION_ID.match(filed_as):
        # Imported from a hand edit of decisions.md: it keeps the id it was filed under.
        found = [replace(found[0], id=filed_as)]
    return found


def parse_decisions(source: str, text: str, date: str, session_id: str, stem: str) -> list[Decision]:
    out = []
    for line in text.splitlines():
        decision = parse_y_statement(line, source=source, date=date, session_id=session_id, stem=stem)
        if decision is not None:
            out.append(decision)
    return out


def parse_y_statement(line: str, *, source: str, date: str, session_id: str, stem: str) -> Decision | None:
    """One `- [HH:MM] Y: In the context of …` line (or `[YYYY-MM-DD]` in decisions.md)."""
    m = _Y_LINE.match(line)
    if m is None or line.lstrip().startswith("- ~~"):
        return None
    body = m.group("body")
    # A Y-line that is not in the canonical shape ("we decided …", "Use Postgres.") is
    # still a decision the assistant recorded: keep it whole rather than lose it.
    y = _Y_BODY.match(body) or _y_loose_match(body)
    if y is None:
        return None
    date_, time_ = _stamp(m.group("stamp"), date)
    g = {k: (y.groupdict().get(k) or "").strip() for k in _Y_BODY.groupindex}
    decided = g["decided"].rstrip(".")
    return Decision(
        id=stable_id("d", stem, time_ or date_, decided.lower()),
        source=source,
        date=date_,
        time=time_,
        context=g["context"],
        facing=g["facing"],
        decided=decided,
        over=g["over"],
        achieve=g["achieve"],
        accepting=g["accepting"],
        confidence=g["confidence"].lower(),
        session_id=g["session"] or session_id,
        text=_TRAILER.sub("", body).strip(),
    )


_TRAILER = re.compile(r"\s*(?:Session:\s*[\w-]+\.?)?\s*(?:\(d[0-9a-f]{7}\))?\s*$")


def _stamp(stamp: str, default_date: str) -> tuple[str, str]:
    """`[HH:MM]`, `[YYYY-MM-DD]` or `[YYYY-MM-DD HH:MM]` as (date, time)."""
    m = re.match(r"^\s*(\d{4}-\d{2}-\d{2})?\s*(\d{1,2}:\d{2})?\s*$", stamp)
    if m is None:
        return default_date, stamp.strip()
    return m.group(1) or default_date, m.group(2) or ""


def parse_reversals(source: str, text: str, date: str, session_id: str, stem: str) -> list[Reversal]:
    out = []
    for line in text.splitlines():
        m = _REVERSAL.match(line)
        if m is None:
            continue
        g = {k: (v or "").strip() for k, v in m.groupdict().items()}
        ref = g["ref"].strip("[]\"'` ")
        date_, time_ = _stamp(g["stamp"], date)  # `[HH:MM]` or `[YYYY-MM-DD HH:MM]`, as decisions
        out.append(
            Reversal(
                id=stable_id("r", stem, g["stamp"], ref.lower()),
                source=source,
                date=date_,
                time=time_,
                ref=ref,
                old=g["old"].strip("[]").rstrip("."),
                new=g["new"].strip("[]").rstrip("."),  # "to GraphQL." must still find "GraphQL"
                reason=g["reason"].rstrip("."),
                session_id=session_id,
            )
        )
    return out


def split_sections(body: str) -> dict[str, str]:
    """`## Heading` -> text under it (until the next `## `), in file order."""
    sections: dict[str, str] = {}
    matches = list(_SECTION.finditer(body))
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(body)
        text = body[m.end() : end].strip("\n")
        # A resumed session can repeat a heading: keep both parts, never the last only.
        name = m.group(1)
        sections[name] = f"{sections[name]}\n{text}" if name in sections else text
    return sections


def is_session_path(path: str) -> bool:
    return path.startswith(f"{SESSIONS_DIR}/") and path.endswith(".md") and path.count("/") == 1


def is_decision_path(path: str) -> bool:
    return path.startswith(f"{DECISIONS_DIR}/") and path.endswith(".md") and path.count("/") == 1


def check_stem(stem: str) -> str | None:
    """Why a session file name breaks the seed's rules, or None if it is fine."""
    m = _STEM.match(stem)
    if m is None:
        return "name must be YYYY-MM-DD-<slug> with [a-z0-9-] only"
    slug = m.group(2)
    if len(slug) > 45:  # 40 for the slug + "-xxxx" collision suffix
        return f"slug is {len(slug)} chars; keep it to 40"
    return None


def _check_schema(path: str, text: str, meta: dict[str, object]) -> None:
    schema = meta.get("schema", SCHEMA)
    if not isinstance(schema, int) or isinstance(schema, bool):  # `schema: yes` is True, an int to Python
        raise RecordError(path, _line_of(text, "schema:"), f"schema must be a whole number, not {schema!r}")
    if schema > SCHEMA:
        raise SchemaTooNew(
            f"{path} has schema {schema}; this enf-git understands up to {SCHEMA}",
            hint="upgrade enf-git: pip install -U enf-git",
        )


def _tags(path: str, text: str, raw: object) -> tuple[str, ...]:
    if raw is None:
        return ()
    if isinstance(raw, str):
        raw = [t for t in re.split(r"[,\s]+", raw) if t]
    if not isinstance(raw, list):
        raise RecordError(path, _line_of(text, "tags:"), "tags must be a list like [search, api]")
    return tuple(str(t).strip().lower() for t in raw if str(t).strip())


def _decode(path: str, data: bytes) -> str:
    try:
        return data.decode("utf-8").removeprefix("\ufeff").replace("\r\n", "\n")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise RecordError(path, line, "file is not valid UTF-8") from exc


def _line_of(text: str, needle: str) -> int:
    for i, line in enumerate(text.splitlines(), 1):
        if line.startswith(needle):
            return i
    return 1
