"""Records: what the memory branch holds, parsed from the markdown the assistant writes.

A *session* is `sessions/YYYY-MM-DD-<slug>.md`: a flat YAML header (session_id, date,
start_time, tags, status, summary, schema) and `## ` sections (the Elephants Never Forget format). Inside the
`## Decisions` section each Y-statement line is a *decision*; each `REVERSED` line in
`## Reversals` is a *reversal*. Standalone decisions (imported from a hand edit of
`decisions.md`) live one per file in `decisions/`, so two people adding decisions at
once never touch the same file.

Decision ids are derived, not stored: a hash of the file stem, the time stamp and the
decided clause, so they survive edits elsewhere in the file and a resumed session's
new session_id. Parsing never modifies a file. A file that cannot be a record (its
header, its fields) raises RecordError naming every such problem with its line; a
session that parses but holds decision or reversal lines off the format keeps those
as `Session.problems` (warnings: the session stays in the views).

Any bytes may arrive (a teammate's push), so parsing is bounded: files past
MAX_RECORD_BYTES and lines past MAX_LINE are not read, the header is bounded in fm,
and no regex here backtracks on a long run of spaces (each one is matched on
stripped text, its trailer taken off from the right first).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from .. import paths
from . import fm, slug
from ..errors import RecordError, SchemaTooNew

SCHEMA = 1
SESSIONS_DIR = paths.SESSIONS_DIR
DECISIONS_DIR = paths.DECISIONS_DIR
STATUSES = ("active", "completed")
CONFIDENCES = ("high", "medium", "low")
MAX_RECORD_BYTES = 8 << 20  # a session of notes is tens of KiB; past this it is not read
MAX_LINE = 4000  # characters of a decision or reversal line that are read
MAX_TAGS = 100
_TEXT_FIELDS = ("session_id", "date", "start_time", "status", "summary")
# `[^\n]+` and a strip in Python, not `(.+?)\s*$`: that is quadratic on a run of spaces.
_SECTION = re.compile(r"^## +([^\n]+)", re.MULTILINE)
# ASCII digits and \Z: `\d` takes any script's digits and `$` accepts a trailing newline.
_DECISION_ID = re.compile(r"^d[0-9a-f]{7}\Z")
_DATE = re.compile(r"^([0-9]{4})-([0-9]{2})-([0-9]{2})(?:[Tt ][0-9][0-9:.+Zz -]*)?\Z")
_Y_LINE = re.compile(r"^\s*-\s*\[(?P<stamp>[^\]]+)\]\s*Y:(?P<body>.*)$")
# The clauses of a Y-statement whose trailer (Confidence, Session, id) is already off.
_Y_HEAD = re.compile(
    r"^(?:In (?:the )?context of (?P<context>.+?),\s*)?"
    r"(?:facing (?P<facing>.+?),\s*)?"
    r"decided (?P<decided>.+?)"
    r"(?:(?<!\s)\s+over (?P<over>.+?))?"  # only from a run's start: linear on long runs of spaces
    r"(?:,\s*to achieve (?P<achieve>.+?))?"
    r"(?:,\s*accepting (?P<accepting>.+?))?$",
    re.IGNORECASE,
)
_CLAUSES = ("context", "facing", "decided", "over", "achieve", "accepting")
# The trailer, taken off from the right: `(d1234567)`, then `Session: x.`, then `Confidence: w.`.
_RID_TAIL = re.compile(r"\((?:d[0-9a-f]{7})\)\Z", re.IGNORECASE)
_SESSION_TAIL = re.compile(r"Session:\s*(?P<v>[\w-]+)\.?\Z", re.IGNORECASE)
_CONFIDENCE_TAIL = re.compile(r"Confidence:\s*(?P<v>[A-Za-z]+)\.?\Z", re.IGNORECASE)
# The text shown keeps Confidence; it drops a case-exact Session and id.
_TEXT_RID_TAIL = re.compile(r"\((?:d[0-9a-f]{7})\)\Z")
_TEXT_SESSION_TAIL = re.compile(r"Session:\s*[\w-]+\.?\Z")
_CONFIDENCE_ANY = re.compile(r"Confidence:\s*([^.()]*)", re.IGNORECASE)
# A statement cut off mid-clause ends on a connective or a comma.
_CUT_SHORT = re.compile(r"(?:\b(?:over|decided|facing|of|to|achieve|accepting|and|because|the)|[,;:(-])\Z",
                        re.IGNORECASE)
_REVERSAL = re.compile(
    r"^-\s*\[(?P<stamp>[^\]]+)\]\s*REVERSED\s+(?P<ref>.+?):\s*"
    r"Changed from (?P<old>.+?) to (?P<new>.+?)(?:(?<!\s)\s+because (?P<reason>.+?))?$",
    re.IGNORECASE,
)
_STAMP = re.compile(r"^(\d{4}-\d{2}-\d{2})?\s*(\d{1,2}:\d{2})?$")
_MISSING_STAMP = re.compile(r"^[-*]\s*(?:\[\s*\]\s*)?(?:Y:|REVERSED\b)", re.IGNORECASE)
_REVERSAL_FORMAT = "write - [HH:MM] REVERSED <decision id>: Changed from <old> to <new> because <reason>"
_Y_FORMAT = "write - [HH:MM] Y: In the context of …, facing …, decided … over …, to achieve …, accepting …"


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
    # (line, reason) of each decision or reversal line off the format: reported, not fatal.
    problems: tuple[tuple[int, str], ...] = ()

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
    """A session file as a record; RecordError naming every problem if it is malformed."""
    text = _decode(path, data)
    fatal: list[tuple[int, str]] = []
    meta, body, body_line = _header(text, fatal)
    _check_schema(path, text, meta, fatal)
    stem = path.rsplit("/", 1)[-1].removesuffix(".md")
    fields = _fields(text, meta, fatal, header_ok=not fatal, has_header=body_line > 1)
    tags = _tags(text, meta.get("tags"), fatal)
    date, session_id = fields["date"] or stem[:10], fields["session_id"][:8]
    scan = _Scan(path, date, session_id, stem)
    scan.body(body, body_line)
    if fatal:
        raise RecordError(path, 0, "", tuple(sorted(fatal + scan.problems, key=lambda p: p[0])))
    return Session(
        path=path,
        stem=stem,
        session_id=session_id,
        date=date,
        start_time=fields["start_time"],
        tags=tags,
        status=fields["status"] or "active",
        summary=fields["summary"].strip(),
        sections=split_sections(body),
        # Elephants Never Forget's warm tier rewrites `## Decisions` as `## Decisions Taken`: same records.
        decisions=tuple(scan.decisions["Decisions"] + scan.decisions["Decisions Taken"]),
        reversals=tuple(scan.reversals),
        problems=tuple(scan.problems),
    )


def _header(text: str, fatal: list[tuple[int, str]]) -> tuple[dict[str, object], str, int]:
    """(meta, body, body's first line); a header that does not parse is a problem, and its
    body is still read so every problem of the file is reported at once."""
    try:
        parsed = fm.parse(text)
        return parsed.meta, parsed.body, parsed.body_line
    except fm.FrontmatterError as exc:
        fatal.append((exc.line, exc.reason))
    try:
        parts = fm.split(text)
    except fm.FrontmatterError:
        return {}, "", 1  # never closed: there is no body to read
    return ({}, parts[1], parts[2]) if parts else ({}, text, 1)


def _fields(text: str, meta: dict[str, object], fatal: list[tuple[int, str]], *,
            header_ok: bool, has_header: bool) -> dict[str, str]:
    """The header's text fields, as written; each one that is a list or a mapping, an
    impossible date, a missing session_id or an unknown status is a problem."""
    out = {}
    for key in _TEXT_FIELDS:
        value = meta.get(key)
        if isinstance(value, (list, dict, set)):
            kind = "a list" if isinstance(value, (list, set)) else "a mapping"
            fatal.append((_line_of(text, f"{key}:"), f"{key} must be text, not {kind}"))
            out[key] = ""
        else:
            out[key] = _text(text, meta, key)
    if not header_ok:
        return out  # the header did not parse: its fields would only repeat that
    if not out["session_id"] and not isinstance(meta.get("session_id"), (list, dict, set)):
        fatal.append((2, "frontmatter has no session_id") if has_header else
                     (1, "no frontmatter: start the file with a --- header holding session_id"))
    elif any(c.isspace() or not c.isprintable() for c in out["session_id"]):
        fatal.append((_line_of(text, "session_id:"), f"session_id must be one word, not {out['session_id']!r}"))
    if out["date"] and not _is_date(out["date"]):
        fatal.append((_line_of(text, "date:"), f"date must be a real day as YYYY-MM-DD, not {out['date']!r}"))
    if out["status"] and out["status"] not in STATUSES:
        fatal.append((_line_of(text, "status:"), f"status must be active or completed, not {out['status']!r}"))
    return out


def _is_date(value: str) -> bool:
    m = _DATE.match(value)
    return m is not None and fm._is_real_date(value[:10])


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
            raw = _drop_comment(line[len(key) + 1 :]).strip()
            if raw:
                return raw
    return str(value)


def _drop_comment(raw: str) -> str:
    """`raw` without a ` # comment`, found without a regex (`\\s+#` backtracks on spaces)."""
    i = next((i for i in range(1, len(raw)) if raw[i] == "#" and raw[i - 1].isspace()), -1)
    if i < 0:
        return raw
    while i > 0 and raw[i - 1].isspace():
        i -= 1
    return raw[:i]


def parse_decision_file(path: str, data: bytes) -> list[Decision]:
    """A standalone decision record (`decisions/*.md`): Y-statement lines in its body."""
    text = _decode(path, data)
    fatal: list[tuple[int, str]] = []
    meta, body, _ = _header(text, fatal)
    _check_schema(path, text, meta, fatal)
    if fatal:
        raise RecordError(path, 0, "", tuple(fatal))
    stem = path.rsplit("/", 1)[-1].removesuffix(".md")
    date = _text(text, meta, "date") or stem[:10]
    found = parse_decisions(path, body, date, _text(text, meta, "session_id"), stem)
    filed_as = _text(text, meta, "decision_id")
    if filed_as and len(found) == 1 and _DECISION_ID.match(filed_as):
        # Imported from a hand edit of decisions.md: it keeps the id it was filed under.
        found = [replace(found[0], id=filed_as)]
    return found


def parse_decisions(source: str, text: str, date: str, session_id: str, stem: str) -> list[Decision]:
    out = []
    for line in text.splitlines():
        if len(line) <= MAX_LINE:
            decision = parse_y_statement(line, source=source, date=date, session_id=session_id, stem=stem)
            if decision is not None:
                out.append(decision)
    return out


def parse_y_statement(line: str, *, source: str, date: str, session_id: str, stem: str) -> Decision | None:
    """One `- [HH:MM] Y: In the context of …` line (or `[YYYY-MM-DD]` in decisions.md)."""
    m = _Y_LINE.match(line)
    body = m.group("body").strip() if m is not None else ""
    if m is None or not body or line.lstrip().startswith("- ~~"):
        return None
    date_, time_ = _stamp(m.group("stamp"), date)
    head, confidence, session = _trailer(body)
    # A Y-line that is not in the canonical shape ("we decided …", "Use Postgres.") is
    # still a decision the assistant recorded: keep it whole rather than lose it.
    y = _Y_HEAD.match(head) if "decided " in head.lower() else None
    g = {k: (y.group(k) or "").strip() for k in _CLAUSES} if y else dict.fromkeys(_CLAUSES, "") | {"decided": head}
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
        confidence=confidence.lower(),
        session_id=session or session_id,
        text=_take_tail(_take_tail(body, _TEXT_RID_TAIL)[0], _TEXT_SESSION_TAIL)[0],
    )


def _trailer(body: str) -> tuple[str, str, str]:
    """(clauses, confidence, session) of a stripped Y-statement body: the trailer
    `[.] [Confidence: w[.]] [Session: s[.]] [(d1234567)]` taken off from the right."""
    no_rid, _ = _take_tail(body, _RID_TAIL)
    no_session, session = _take_tail(no_rid, _SESSION_TAIL)
    no_confidence, confidence = _take_tail(no_session, _CONFIDENCE_TAIL)
    head = no_confidence.removesuffix(".").rstrip()
    # The decided clause is never empty: a body that is all trailer keeps its first
    # part as the decision (`Confidence: high (d1234567)` decided "Confidence: high").
    if head or no_confidence:
        return head or no_confidence, confidence, session
    if no_session:
        return no_session, "", session
    return no_rid or body, "", ""


def _take_tail(text: str, tail: re.Pattern[str]) -> tuple[str, str]:
    m = tail.search(text)
    if m is None:
        return text, ""
    return text[: m.start()].rstrip(), (m.groupdict().get("v") or "")


def _stamp(stamp: str, default_date: str) -> tuple[str, str]:
    """`[HH:MM]`, `[YYYY-MM-DD]` or `[YYYY-MM-DD HH:MM]` as (date, time)."""
    m = _STAMP.match(stamp.strip())
    if m is None:
        return default_date, stamp.strip()
    return m.group(1) or default_date, m.group(2) or ""


def stamp_problem(stamp: str) -> str | None:
    """Why a `[…]` time stamp names no moment (25:99, 2026-02-30, a word), or None."""
    m = _STAMP.match(stamp.strip())
    if m is None or not (m.group(1) or m.group(2)):
        return f"time stamp [{stamp.strip()}] is not [HH:MM] or [YYYY-MM-DD HH:MM]"
    if m.group(1) and not (m.group(1).isascii() and fm._is_real_date(m.group(1))):
        return f"time stamp [{stamp.strip()}] names no real day"
    if m.group(2):
        hours, minutes = m.group(2).split(":")
        if not (m.group(2).isascii() and int(hours) <= 23 and int(minutes) <= 59):
            return f"time stamp [{stamp.strip()}] is no time of day"
    return None


def parse_reversals(source: str, text: str, date: str, session_id: str, stem: str) -> list[Reversal]:
    out = []
    for line in text.splitlines():
        reversal = _reversal(line, source, date, session_id, stem)
        if reversal is not None:
            out.append(reversal)
    return out


def _reversal(line: str, source: str, date: str, session_id: str, stem: str) -> Reversal | None:
    m = _REVERSAL.match(line.strip()) if len(line) <= MAX_LINE else None
    if m is None:
        return None
    g = {k: (v or "").strip() for k, v in m.groupdict().items()}
    ref = g["ref"].strip("[]\"'` ")
    date_, time_ = _stamp(g["stamp"], date)  # `[HH:MM]` or `[YYYY-MM-DD HH:MM]`, as decisions
    return Reversal(
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


class _Scan:
    """One pass over a session's body: its decisions and reversals, and each decision or
    reversal line off the format as (line number, reason)."""

    def __init__(self, path: str, date: str, session_id: str, stem: str) -> None:
        self.path, self.date, self.session_id, self.stem = path, date, session_id, stem
        self.decisions: dict[str, list[Decision]] = {"Decisions": [], "Decisions Taken": []}
        self.reversals: list[Reversal] = []
        self.problems: list[tuple[int, str]] = []

    def body(self, body: str, first_line: int) -> None:
        section = ""
        for n, raw in enumerate(body.split("\n"), first_line):
            heading = _SECTION.match(raw)
            if heading is not None:
                section = _heading_name(heading.group(1))
                continue
            if section not in self.decisions and section != "Reversals":
                continue
            # The same sub-lines a section's text.splitlines() gives (\f, \x1c… split too).
            for line in raw.splitlines():
                self._line(n, line, section)

    def _line(self, n: int, line: str, section: str) -> None:
        if not line.startswith(("- ", "* ", "-[")) or line.startswith("- ~~"):
            return  # prose, sub-bullets and struck-through lines are not records
        if len(line) > MAX_LINE:
            self.problems.append((n, f"line is {len(line)} characters; lines over {MAX_LINE} are not read"))
            return
        if section == "Reversals":
            self._reversal_line(n, line)
        else:
            self._decision_line(n, line, section)

    def _decision_line(self, n: int, line: str, section: str) -> None:
        decision = parse_y_statement(line, source=self.path, date=self.date, session_id=self.session_id, stem=self.stem)
        if decision is None:
            self.problems.append((n, _no_decision_reason(line)))
            return
        self.decisions[section].append(decision)
        m = _Y_LINE.match(line)
        assert m is not None  # parse_y_statement matched it
        reason = stamp_problem(m.group("stamp")) or y_statement_problem(m.group("body").strip())
        if reason:
            self.problems.append((n, reason))

    def _reversal_line(self, n: int, line: str) -> None:
        if "reversed" not in line.lower():
            return
        reversal = _reversal(line, self.path, self.date, self.session_id, self.stem)
        if reversal is None:
            why = "has no [HH:MM] time stamp" if _MISSING_STAMP.match(line) else "is not a reversal"
            self.problems.append((n, f"REVERSED line {why}: {_REVERSAL_FORMAT}"))
            return
        self.reversals.append(reversal)
        m = _REVERSAL.match(line.strip())
        reason = stamp_problem(m.group("stamp")) if m else None
        if reason:
            self.problems.append((n, reason))


def _no_decision_reason(line: str) -> str:
    if _MISSING_STAMP.match(line):
        return f"decision line has no [HH:MM] time stamp, so it is not read as a decision: {_Y_FORMAT}"
    if _Y_LINE.match(line):
        return f"decision line has nothing after 'Y:': {_Y_FORMAT}"
    return f"decision line is not a Y-statement: {_Y_FORMAT}"


def y_statement_problem(body: str) -> str | None:
    """Why a Y-statement body is off the format (cut short, no `decided … over …`, an
    unknown confidence), or None. Such a decision is still kept, as written."""
    head, _, _ = _trailer(body)
    cut = _CUT_SHORT.search(head)
    if cut is not None:
        return f"Y-statement is cut short (it ends with {cut.group().strip() or head[-1:]!r}): finish the sentence"
    y = _Y_HEAD.match(head) if "decided " in head.lower() else None
    if y is None or not y.group("over"):
        return "decision line is not a Y-statement (no 'decided … over …'): name what was chosen over what"
    stated = _CONFIDENCE_ANY.search(body)
    if stated is not None and stated.group(1).strip().lower() not in CONFIDENCES:
        return f"confidence must be high, medium or low, not {stated.group(1).strip()!r}"
    return None


def _heading_name(raw: str) -> str:
    # What `^## +(.+?)\s*$` captured: the rest of the line without trailing blanks, one
    # character at least.
    return raw.rstrip() or raw[:1]


def split_sections(body: str) -> dict[str, str]:
    """`## Heading` -> text under it (until the next `## `), in file order."""
    sections: dict[str, str] = {}
    matches = list(_SECTION.finditer(body))
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(body)
        text = body[_after_heading(body, m.end()) : end].strip("\n")
        # A resumed session can repeat a heading: keep both parts, never the last only.
        name = _heading_name(m.group(1))
        sections[name] = f"{sections[name]}\n{text}" if name in sections else text
    return sections


def _after_heading(body: str, eol: int) -> int:
    """Where a section's text starts: past the blank run after its heading, up to that
    run's last line end (what the old pattern's trailing `\\s*$` consumed)."""
    blank = len(body) - eol - len(body[eol:].lstrip()) if eol < len(body) and body[eol].isspace() else 0
    if eol + blank == len(body):
        return len(body)
    return eol + max(body[eol : eol + blank].rfind("\n"), 0)


def is_session_path(path: str) -> bool:
    return path.startswith(f"{SESSIONS_DIR}/") and path.endswith(".md") and path.count("/") == 1


def is_decision_path(path: str) -> bool:
    return path.startswith(f"{DECISIONS_DIR}/") and path.endswith(".md") and path.count("/") == 1


def check_stem(stem: str) -> str | None:
    """Why a session file name breaks Elephants Never Forget's naming rules, or None."""
    return slug.name_problem(stem)


def _check_schema(path: str, text: str, meta: dict[str, object], fatal: list[tuple[int, str]]) -> None:
    schema = meta.get("schema", SCHEMA)
    if not isinstance(schema, int) or isinstance(schema, bool):  # `schema: yes` is True, an int to Python
        fatal.append((_line_of(text, "schema:"), f"schema must be a whole number, not {_short(schema)}"))
    elif schema > SCHEMA:
        raise SchemaTooNew(
            f"{path} has schema {schema}; this enf-git understands up to {SCHEMA}",
            hint="upgrade enf-git: pip install -U enf-git",
        )


def _tags(text: str, raw: object, fatal: list[tuple[int, str]]) -> tuple[str, ...]:
    if raw is None:
        return ()
    if isinstance(raw, str):
        raw = [t for t in re.split(r"[,\s]+", raw) if t]
    line = _line_of(text, "tags:")
    if not isinstance(raw, list):
        fatal.append((line, "tags must be a list like [search, api]"))
        return ()
    nested = [i for i, t in enumerate(raw, 1) if isinstance(t, (list, dict, set))]
    if nested:
        fatal.append((line, f"tags must be a flat list like [search, api]; item {nested[0]} is a collection"))
        return ()
    if len(raw) > MAX_TAGS:
        fatal.append((line, f"tags holds {len(raw)} tags; at most {MAX_TAGS}"))
        return ()
    return tuple(str(t).strip().lower() for t in raw if str(t).strip())


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def _decode(path: str, data: bytes) -> str:
    if len(data) > MAX_RECORD_BYTES:
        raise RecordError(path, 0, f"file is {len(data) >> 20} MiB; records over {MAX_RECORD_BYTES >> 20} MiB are not read")
    try:
        return data.decode("utf-8").removeprefix("\ufeff").replace("\r\n", "\n")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise RecordError(path, line, "file is not valid UTF-8") from exc


def _line_of(text: str, needle: str) -> int:
    for i, line in enumerate(text.split("\n"), 1):
        if line.startswith(needle):
            return i
    return 1
