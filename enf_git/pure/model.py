"""Records: what the memory branch holds, parsed from the markdown the assistant writes.

A *session* is `sessions/YYYY-MM-DD-<slug>.md`: a flat YAML header (session_id, date,
start_time, tags, status, summary, schema) and `## ` sections, in the Elephants Never
Forget format. Inside the `## Decisions` section each Y-statement line is a *decision*; each `REVERSED` line in
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
and no regex here or in ystatement.py (decision and reversal lines) backtracks on a
long run of spaces.
"""

from __future__ import annotations

import re

from .. import paths
from . import fm, slug
from .frozen import Record, replace
# Re-exported: records are read as model.Decision, model.stable_id, …
from .ystatement import (
    CONFIDENCES as CONFIDENCES,
    MAX_LINE as MAX_LINE,
    Decision as Decision,
    Reversal as Reversal,
    parse_decisions as parse_decisions,
    parse_reversals as parse_reversals,
    parse_y_statement as parse_y_statement,
    stable_id as stable_id,
    stamp_problem as stamp_problem,
    y_statement_problem as y_statement_problem,
)
from .ystatement import SECTION, Scan, heading_name
from ..errors import RecordError, SchemaTooNew

SCHEMA = 1
SESSIONS_DIR = paths.SESSIONS_DIR
DECISIONS_DIR = paths.DECISIONS_DIR
STATUSES = ("active", "completed")
MAX_RECORD_BYTES = 8 << 20  # a session of notes is tens of KiB; past this it is not read
MAX_TAGS = 100
_TEXT_FIELDS = ("session_id", "date", "start_time", "status", "summary")
# ASCII digits and \Z: `\d` takes any script's digits and `$` accepts a trailing newline.
_DECISION_ID = re.compile(r"^d[0-9a-f]{7}\Z")
_DATE = re.compile(r"^([0-9]{4})-([0-9]{2})-([0-9]{2})(?:[Tt ][0-9][0-9:.+Zz -]*)?\Z")


class Session(Record):
    FIELDS = ("path", "stem", "session_id", "date", "start_time", "tags", "status", "summary", "sections", "decisions",
              "reversals", "problems")
    UNHASHED = frozenset(("sections",))

    path: str
    stem: str
    session_id: str
    date: str
    start_time: str
    tags: tuple[str, ...]
    status: str
    summary: str
    sections: dict[str, str]
    decisions: tuple[Decision, ...]
    reversals: tuple[Reversal, ...]
    # (line, reason) of each decision or reversal line off the format: reported, not fatal.
    problems: tuple[tuple[int, str], ...]

    def __init__(self, path: str, stem: str, session_id: str, date: str, start_time: str, tags: tuple[str, ...],
                 status: str, summary: str, sections: dict[str, str], decisions: tuple[Decision, ...] = (),
                 reversals: tuple[Reversal, ...] = (), problems: tuple[tuple[int, str], ...] = ()) -> None:
        vars(self).update(path=path, stem=stem, session_id=session_id, date=date, start_time=start_time, tags=tags,
                          status=status, summary=summary, sections=sections, decisions=decisions, reversals=reversals,
                          problems=problems)

    @property
    def interrupted(self) -> bool:
        return self.status == "active" and not self.summary


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
    scan = Scan(path, date, session_id, stem)
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


def split_sections(body: str) -> dict[str, str]:
    """`## Heading` -> text under it (until the next `## `), in file order."""
    sections: dict[str, str] = {}
    matches = list(SECTION.finditer(body))
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(body)
        text = body[_after_heading(body, m.end()) : end].strip("\n")
        # A resumed session can repeat a heading: keep both parts, never the last only.
        name = heading_name(m.group(1))
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
