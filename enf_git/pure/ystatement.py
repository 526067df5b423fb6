"""Decision and reversal lines: Y-statements and REVERSED lines, as records.

Inside a session's `## Decisions` section each Y-statement line is a *decision*
(`- [HH:MM] Y: In the context of …, facing …, decided … over …, to achieve …,
accepting …. Confidence: high`); each `REVERSED` line in `## Reversals` is a
*reversal* naming the decision it reverses. Decision ids are derived, not stored: a
hash of the file stem, the time stamp and the decided clause. A line off the format
is kept where it can be and reported as (line, reason); never rewritten.

No regex here backtracks on a long run of spaces: each is matched on stripped text,
its trailer taken off from the right first, and lines past MAX_LINE are not read.
"""

from __future__ import annotations

import re

from . import fm
from .frozen import Record
from .ids import stable_id as stable_id  # re-exported: records name their ids with it

CONFIDENCES = ("high", "medium", "low")


MAX_LINE = 4000  # characters of a decision or reversal line that are read


# `[^\n]+` and a strip in Python, not `(.+?)\s*$`: that is quadratic on a run of spaces.
SECTION = re.compile(r"^## +([^\n]+)", re.MULTILINE)


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


class Decision(Record):
    FIELDS = ("id", "source", "date", "time", "context", "facing", "decided", "over", "achieve", "accepting",
              "confidence", "session_id", "text")

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

    def __init__(self, id: str, source: str, date: str, time: str, context: str, facing: str, decided: str, over: str,
                 achieve: str, accepting: str, confidence: str, session_id: str, text: str) -> None:
        vars(self).update(id=id, source=source, date=date, time=time, context=context, facing=facing, decided=decided,
                          over=over, achieve=achieve, accepting=accepting, confidence=confidence, session_id=session_id,
                          text=text)

    @property
    def topic(self) -> str:
        area = self.context.strip() or "General"
        return area[0].upper() + area[1:]


class Reversal(Record):
    FIELDS = ("id", "source", "date", "time", "ref", "old", "new", "reason", "session_id")

    id: str
    source: str
    date: str
    time: str
    ref: str
    old: str
    new: str
    reason: str
    session_id: str

    def __init__(self, id: str, source: str, date: str, time: str, ref: str, old: str, new: str, reason: str,
                 session_id: str) -> None:
        vars(self).update(id=id, source=source, date=date, time=time, ref=ref, old=old, new=new, reason=reason,
                          session_id=session_id)


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


class Scan:
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
            heading = SECTION.match(raw)
            if heading is not None:
                section = heading_name(heading.group(1))
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


def heading_name(raw: str) -> str:
    # What `^## +(.+?)\s*$` captured: the rest of the line without trailing blanks, one
    # character at least.
    return raw.rstrip() or raw[:1]
