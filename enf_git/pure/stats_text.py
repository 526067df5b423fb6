"""What `git enf stats` reads in a session's text: friction lines by kind, error lines by
the key that tells one error from another, and the decision ids the file cites.

Elephants Never Forget writes friction as `- [HH:MM] User redirected approach: …` or
`- [HH:MM] Abandoned approach: …` under `## Friction Events`, and errors as
`- [HH:MM] Error: \\`exact message\\`. Fix: …` under `## Errors & Fixes`. The same error in two
sessions rarely has the same bytes (a line number, a temp path, a pid differs), so an
error's key is its code when it has one (`E0425`, `TS2345`, `ENOENT`, `HTTP 404`,
`ModuleNotFoundError`), else its message with numbers, hex ids, quoted names and paths
masked. Pure: text in, facts out; the result is cached per blob (memory/context/stats.py).
"""

from __future__ import annotations

import re
from typing import NamedTuple

FRICTION_SECTION = "Friction Events"
ERROR_SECTIONS = ("Errors & Fixes", "Errors and Fixes", "Errors")
KINDS = ("redirected", "abandoned", "other")
TEXT_CHARS = 200  # of an error line kept for the report
MAX_LINES = 500  # per section: a pathological file costs bounded time

_BULLET = re.compile(r"^\s*[-*]\s+(?:\[[^\]]{0,40}\]\s*)?(?P<text>\S.*)$")
_REDIRECT = re.compile(r"redirect|switched to|changed course|correct(?:ed|ion)|pushed back|instead", re.IGNORECASE)
_ABANDON = re.compile(r"abandon|gave up|dropped|dead end|reverted|backed out|rolled back", re.IGNORECASE)
_QUOTED = re.compile(r"`([^`]{1,1000})`")
_ERROR_HEAD = re.compile(r"^(?:error|err|failure|failed)\s*:\s*", re.IGNORECASE)
_FIX_TAIL = re.compile(r"\.?\s+(?:fix|fixed|resolution|resolved)\s*:.*$", re.IGNORECASE)
# Codes that name an error whatever surrounds them, most specific first.
_CODES = (
    re.compile(r"\b(?:HTTP|status)\s*([1-5][0-9]{2})\b", re.IGNORECASE),  # HTTP 404
    re.compile(r"\b(E[A-Z]{3,12})\b"),  # POSIX errno names: ENOENT, EACCES, ECONNREFUSED
    re.compile(r"\b([A-Z]{1,4}[0-9]{3,5})\b"),  # compiler codes: E0425, TS2345, CS0103, SC2086
    re.compile(r"\b([A-Z][A-Za-z]+(?:Error|Exception))\b"),  # ModuleNotFoundError, NullPointerException
)
_DECISION_ID = re.compile(r"\bd[0-9a-f]{7}\b")
_MASKS = (
    (re.compile(r"(?:[A-Za-z]:)?(?:[\w.-]*/)+[\w.-]+"), "<path>"),
    (re.compile(r"'[^']*'|\"[^\"]*\""), "<name>"),
    (re.compile(r"\b0x[0-9a-fA-F]+\b|\b[0-9a-f]{7,40}\b"), "<hex>"),
    (re.compile(r"[0-9]+"), "#"),
)


class BodyFacts(NamedTuple):
    friction: tuple[str, ...]  # the kind of each friction line, in file order
    errors: tuple[tuple[str, str], ...]  # (key, text as written) of each error line
    cited: tuple[str, ...]  # decision ids the file names (sorted, distinct)

    def as_json(self) -> list[object]:
        return [list(self.friction), [list(e) for e in self.errors], list(self.cited)]


def from_json(raw: object) -> BodyFacts | None:
    """BodyFacts from `as_json`'s list; None when it is not that shape (an old cache)."""
    if not isinstance(raw, list) or len(raw) != 3 or not all(isinstance(x, list) for x in raw):
        return None
    try:
        errors = tuple((str(k), str(t)) for k, t in raw[1])
    except (TypeError, ValueError):
        return None
    return BodyFacts(tuple(str(k) for k in raw[0]), errors, tuple(str(c) for c in raw[2]))


def body_facts(sections: dict[str, str], text: str) -> BodyFacts:
    """The facts of one session: `sections` as model.split_sections gives them, `text` the whole file."""
    friction = tuple(friction_kind(line) for line in _bullets(sections.get(FRICTION_SECTION, "")))
    errors = tuple(error_key(line) for name in ERROR_SECTIONS for line in _bullets(sections.get(name, ""))
                   if not line.lower().startswith("fix"))
    return BodyFacts(friction, errors, tuple(sorted(set(_DECISION_ID.findall(text)))))


def _bullets(section: str) -> list[str]:
    out = []
    for line in section.splitlines()[:MAX_LINES]:
        m = _BULLET.match(line[:4000])
        if m:
            out.append(m.group("text").strip())
    return out


def friction_kind(line: str) -> str:
    """`abandoned` before `redirected`: "abandoned X, switched to Y" is an abandonment."""
    if _ABANDON.search(line):
        return "abandoned"
    if _REDIRECT.search(line):
        return "redirected"
    return "other"


def error_key(line: str) -> tuple[str, str]:
    """(key, text): the code the line names, else its message masked; text is the line, cut."""
    message = _message(line)
    for pattern in _CODES:
        m = pattern.search(message)
        if m:
            code = m.group(1)
            return (f"HTTP {code}" if pattern is _CODES[0] else code), _cut(line)
    return mask(message), _cut(line)


def _message(line: str) -> str:
    """The error itself: the first backquoted span, else the line without `Error:` and its fix."""
    quoted = _QUOTED.search(line)
    if quoted:
        return quoted.group(1).strip()
    return _FIX_TAIL.sub("", _ERROR_HEAD.sub("", line)).strip()


def mask(message: str) -> str:
    """The message with what differs between two runs of one error replaced, lower-cased."""
    for pattern, repl in _MASKS:
        message = pattern.sub(repl, message)
    return " ".join(message.lower().split())[:TEXT_CHARS]


def _cut(line: str) -> str:
    return line if len(line) <= TEXT_CHARS else line[: TEXT_CHARS - 1] + "…"
