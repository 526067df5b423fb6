"""Compression tiers (Elephants Never Forget's progressive summarization): which tier a
session is due for, and the compressor itself. Pure: records, bytes and a date in.

Tiers, by the session's place among the newest and its frontmatter date on the as-of day:

- hot: the current sessions (the one starting, and every one in progress: status
  active or an `.active/` marker) and the newest `hot` others keep full detail; when
  one of them has more than `fold_after` Interactions, the older ones *fold* into
  `## Summary of Earlier Work` (tier `fold`: one line per interaction);
- warm: older than that, up to `cold_days` old: the anchored summary (WARM_HEADINGS);
- cold: older still: the summary, decisions, reversals, Errors & Fixes, unresolved
  open items and every reference (COLD_HEADINGS).

Sessions in progress, pinned and conflicted sessions are never compressed. What must
never be compressed survives every tier verbatim: Y-statement and REVERSED lines (they
stay records, with the same ids, so decisions.md does not change), unresolved open
items, every line of Errors & Fixes, the header (session id, date, summary, tags), and
every file path, error code, exact error text, date and id the body names
(`references`): whatever the tier drops is listed under `## References`. `guard`
checks all of that on every output; a compression that would lose any of it is refused.

The output is a function of the input bytes, the tier and VERSION alone, so two
clones compressing the same file write the same bytes, and compressing again changes
nothing. Tiers compose: cold(warm(x)) == cold(x) and warm(fold(x)) == warm(x), so
clones that compressed in different steps still agree. The header gains
`compressed_from` (the blob id of the full text, kept through later tiers),
`compressor` (VERSION) and `tier`.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from typing import NamedTuple, Protocol

from ..errors import EnfError
from . import fm
from .model import Session, parse_session
from .ystatement import SECTION, heading_name

VERSION = "2"  # bump whenever the same input would compress to other bytes (2: cold keeps Errors & Fixes)
TIERS = ("fold", "warm", "cold")
RANK = {"": 0, "fold": 1, "warm": 2, "cold": 3}
HOT_DEFAULT = 3
COLD_DAYS_DEFAULT = 30
FOLD_AFTER_DEFAULT = 20
WARM_HEADINGS = ("Intent", "Changes Made", "Decisions Taken", "Reversals", "Errors & Fixes", "Next Steps")
COLD_HEADINGS = ("Summary", "Decisions Taken", "Reversals", "Next Steps")  # and Errors & Fixes, when it has any
ERRORS = "Errors & Fixes"  # every tier keeps it whole: its error texts are exact by definition
FOLD_HEADING = "Summary of Earlier Work"
REFERENCES = "References"
ACTIVE_MARKERS = ".claude-sessions/.active"  # optional markers of sessions in progress, by session-id prefix
_OWN_KEYS = ("compressed_from:", "compressor:", "tier:")
_NONE = "None."  # an empty section: prose, so no parser takes it for a record


class CompressionRefused(EnfError):
    """The compressed text would lose something that must survive, or not parse."""


class Policy(NamedTuple):
    hot: int = HOT_DEFAULT  # enf.hotSessions
    cold_days: int = COLD_DAYS_DEFAULT  # enf.coldDays
    fold_after: int = FOLD_AFTER_DEFAULT  # enf.foldAfter


class Dated(Protocol):
    """What ranking reads of a session (a model.Session has it all)."""

    @property
    def path(self) -> str: ...
    @property
    def stem(self) -> str: ...
    @property
    def session_id(self) -> str: ...
    @property
    def date(self) -> str: ...
    @property
    def start_time(self) -> str: ...
    @property
    def status(self) -> str: ...


class Verdict(NamedTuple):
    """Where one session stands: `tier` is "hot", "warm" or "cold" ("" when `never` says why not)."""

    tier: str
    never: str = ""


# --- which tier -------------------------------------------------------------------

def assign(sessions: Iterable[Dated], as_of: dt.date, policy: Policy = Policy(),
           pins: frozenset[str] = frozenset(), current: str | None = None,
           conflicted: frozenset[str] = frozenset(), active: frozenset[str] = frozenset()) -> dict[str, Verdict]:
    """Path -> the tier each session is due for on `as_of` (by its place and its date).

    `current` is this session's id or file stem; `pins` holds stems (or paths) never
    to compress, which take no hot slot; `conflicted` the paths with a conflict copy still on the branch;
    `active` the names of the working copy's `.active/` markers (session-id prefixes).
    """
    ordered = sorted(sessions, key=lambda s: (s.date, s.start_time, s.stem), reverse=True)
    hot = hot_paths(ordered, policy.hot, pins, current, active)
    return {s.path: verdict(s, as_of, policy, s.path in hot, pins, conflicted, active) for s in ordered}


def hot_paths(newest_first: Iterable[Dated], hot: int, pins: frozenset[str] = frozenset(),
              current: str | None = None, active: frozenset[str] = frozenset()) -> set[str]:
    """The paths `assign` calls hot: the current sessions and the newest `hot` others
    (`newest_first` sorted by date, start_time, stem, newest first). A session in
    progress (`is_active`: status active, or its `.active/` marker) is a current one,
    whoever runs the ranking: SessionStart knows its own session, `git enf compress`
    from a shell knows none, and both must keep the same last `hot` whole. A pinned
    session is kept whole anyway: it releases its hot slot (seed 001), so the hot tier
    holds `hot` sessions besides the pinned ones. Stops reading once the slots are
    filled and the named current session (if any) is found, so a caller may pass a lazy
    iterator: an active session past that point is never compressed all the same."""
    out: set[str] = set()
    hot_left, current_left = hot, current is not None
    for s in newest_first:
        if hot_left <= 0 and not current_left:
            break
        named = current is not None and current in (s.stem, s.session_id, s.path)
        current_left = current_left and not named
        is_current = named or is_active(s, active)
        if is_current or hot_left > 0:
            hot_left -= 0 if is_current or s.stem in pins or s.path in pins else 1
            out.add(s.path)
    return out


def is_active(s: Dated, active: frozenset[str] = frozenset()) -> str:
    """Why `s` is a session in progress ("" when it is not): its frontmatter says
    `status: active`, or `.claude-sessions/.active/<its session-id prefix>` exists."""
    if s.status == "active":
        return "active (status: active)"
    if active and s.session_id and s.session_id[:8] in active:
        return (f"active (its marker {ACTIVE_MARKERS}/{s.session_id[:8]} exists; "
                "delete the marker once that session has ended)")
    return ""


def verdict(s: Dated, as_of: dt.date, policy: Policy, hot: bool, pins: frozenset[str] = frozenset(),
            conflicted: frozenset[str] = frozenset(), active: frozenset[str] = frozenset()) -> Verdict:
    """Where one session stands, given whether it is hot (`hot_paths`)."""
    never = never_compressed(s, pins, conflicted, active)
    if hot:
        return Verdict("hot", never)
    age = _age(s.date, as_of)
    if age is None:
        return Verdict("", never or f"its date {s.date!r} is no YYYY-MM-DD day")
    return Verdict("cold" if age > policy.cold_days else "warm", never)


def never_compressed(s: Dated, pins: frozenset[str], conflicted: frozenset[str],
                     active: frozenset[str] = frozenset()) -> str:
    """Why `s` must never be compressed ("" when it may be)."""
    why = is_active(s, active)
    if why:
        return why
    if s.stem in pins or s.path in pins:
        return "pinned"
    if s.path in conflicted:
        return "it has an unresolved conflict copy under conflicts/"
    return ""


def marker_names(names: Iterable[str]) -> frozenset[str]:
    """The session-id prefixes that `.active/` file names stand for (the first 8
    characters, as the gate matches ids; a full id works too; dot files are not markers)."""
    return frozenset(n[:8] for n in names if n and not n.startswith("."))


def _age(date: str, as_of: dt.date) -> int | None:
    try:
        return (as_of - dt.date.fromisoformat(date[:10])).days
    except ValueError:
        return None


def tier_of(data: bytes) -> str:
    """The tier a file was compressed to ("" for full text), from its header."""
    return _header_value(data, "tier:") if data.startswith(b"---") else ""


def compressed_from(data: bytes) -> str:
    """The blob id of the full text a compressed file came from ("" when it is full text)."""
    return _header_value(data, "compressed_from:") if data.startswith(b"---") else ""


def header_value(data: bytes, key: str) -> str:
    """The value of one frontmatter field (`key` with its colon), "" when it has none."""
    if not data.startswith(b"---"):
        return ""
    return _header_value(data, key)


_HEADER_LINES = 63  # the header is looked for in the 63 lines after the opening ---


def _header_value(data: bytes, key: str) -> str:
    """The value of the first line among the header's that starts with `key`. Found
    with one search of the bytes, then checked (no closing line before it, within the
    first lines): a ranking asks this of every session blob it has not seen, and
    decoding each file's first 64 lines cost ~20 us a file. `_header_value_slow` is
    the definition it is tested against."""
    at = data.find(b"\n" + key.encode())
    if at < 0:
        return ""
    head = data[:at]
    if head.count(b"\n") >= _HEADER_LINES:
        return ""
    maybe_closed = b"\n---" in head or b"\n..." in head  # a closing line starts so: else none to look for
    if maybe_closed and any(line.rstrip() in ("---", "...") for line in head.decode("utf-8", "replace").split("\n")[1:]):
        return ""  # the header closed before it
    end = data.find(b"\n", at + 1)
    line = data[at + 1: end if end >= 0 else len(data)].decode("utf-8", "replace").rstrip("\r")
    return line[len(key):].strip().strip("\"'")


def _header_value_slow(data: bytes, key: str) -> str:
    for raw in data.split(b"\n", _HEADER_LINES + 1)[1:_HEADER_LINES + 1]:
        line = raw.decode("utf-8", "replace").rstrip("\r")
        if line.rstrip() in ("---", "..."):
            break
        if line.startswith(key):
            return line[len(key):].strip().strip("\"'")
    return ""


def interactions(text: str) -> int:
    """How many `### ` entries the Interactions section holds."""
    return sum(1 for ln in _section_chunks(text).get("Interactions", "").split("\n") if ln.startswith("### "))


FACTS_VERSION = "1"  # bump whenever `facts_of` would give other facts for the same bytes


def facts_of(data: bytes) -> tuple[str, int]:
    """(tier, Interactions count) of a session file: what ranking reads besides its
    frontmatter. The count decides only whether a full-text hot session folds
    (`due_tier`), so a compressed file's is not counted (0): at 10,000 mostly cold
    sessions, counting them was a third of the first ranking."""
    tier = tier_of(data)
    return tier, 0 if tier else interactions(data.decode("utf-8", "replace"))


# --- the compressor -----------------------------------------------------------------

def blob_id(data: bytes) -> str:
    """The id git gives `data` as a blob (SHA-1: the repositories we open)."""
    import hashlib

    return hashlib.sha1(b"blob %d\x00" % len(data) + data).hexdigest()


def compress(path: str, data: bytes, tier: str, fold_after: int = FOLD_AFTER_DEFAULT) -> bytes:
    """`data` compressed to `tier` (fold, warm or cold), checked by `guard`.

    Unchanged when it is at that tier or a later one already. CompressionRefused when
    the file does not parse or the result would lose what must survive.
    """
    if tier not in TIERS:
        raise ValueError(f"no tier {tier!r}: one of {', '.join(TIERS)}")
    if RANK.get(tier_of(data), 0) >= RANK[tier]:
        return data
    before = _parse(path, data, "the file")
    text = data.decode("utf-8")
    parts = fm.split(text)
    assert parts is not None  # parse_session found a header (session_id is required)
    header, body, _ = parts
    source = compressed_from(data) or blob_id(data)
    keep = [ln for ln in header if not ln.startswith(_OWN_KEYS)]
    head = "\n".join(["---", *keep, f'compressed_from: "{source}"', f"compressor: {VERSION}", f"tier: {tier}", "---"])
    if tier == "fold":
        new_body = _fold(body, fold_after)
    else:
        new_body = _anchored(body, before, cold=tier == "cold")
    out = f"{head}\n{_with_references(body, new_body)}".encode()
    guard(path, data, out, tier)
    return out


def _parse(path: str, data: bytes, what: str) -> Session:
    try:
        return parse_session(path, data)
    except EnfError as exc:
        raise CompressionRefused(f"{path}: {what} does not parse, so it is not compressed: {exc.message}",
                                 hint="fix the file by hand (git enf doctor names the problem)") from exc


def _anchored(body: str, s: Session, cold: bool) -> str:
    """The warm anchored summary, or the cold summary."""
    sec = _section_chunks(body)
    intent = sec.get("Intent", "").strip("\n") or s.summary or _NONE
    decisions = _join(sec.get("Decisions", ""), sec.get("Decisions Taken", ""))
    nexts = _join(*(_unresolved(sec.get(name, "")) for name in ("Open Items", "Next Steps")))
    if cold:
        parts = [("Summary", s.summary or intent)]
    else:
        parts = [("Intent", intent), ("Changes Made", _join(sec.get("Files Touched", ""), sec.get("Changes Made", "")))]
    parts += [("Decisions Taken", decisions), ("Reversals", sec.get("Reversals", ""))]
    errors = sec.get(ERRORS, "")
    if not cold or errors.strip("\n") not in ("", _NONE):  # cold(warm(x)) == cold(x): "None." is no error
        parts.append((ERRORS, errors))
    parts.append(("Next Steps", nexts))
    return "\n".join(f"## {name}\n{text.strip(chr(10)) or _NONE}\n" for name, text in parts)


def _join(*texts: str) -> str:
    return "\n".join(t.strip("\n") for t in texts if t.strip())


def _unresolved(text: str) -> str:
    """The items of an open-items list not checked off (`- [x]`), with their sub-lines."""
    out: list[str] = []
    keep = False
    for line in text.split("\n"):
        if line.startswith(("- ", "* ", "-[")) or (line and not line[0].isspace()):
            keep = not _CHECKED.match(line)
        if keep and line.strip():
            out.append(line)
    return "\n".join(out)


_CHECKED = re.compile(r"^[-*]\s*\[[xX]\]")


def _fold(body: str, fold_after: int) -> str:
    """Interactions past the newest `fold_after` become one line each in Summary of Earlier Work."""
    chunks = _raw_chunks(body)
    names = [heading_name(h) if h is not None else None for h, _ in chunks]
    if "Interactions" not in names:
        return body
    i = names.index("Interactions")
    lead, entries = _entries(chunks[i][1])
    if len(entries) <= fold_after:
        return body
    folded, kept = entries[:-fold_after], entries[-fold_after:]
    earlier = [t.strip("\n") for h, t in chunks if h is not None and heading_name(h) == FOLD_HEADING]
    lines = [*filter(None, earlier), *(f"- {e.split(chr(10), 1)[0].removeprefix('###').strip()}" for e in folded)]
    out: list[str] = []
    for (head, text), name in zip(chunks, names):
        if name == FOLD_HEADING:
            continue  # written again, in front of Interactions, with the new lines
        if name == "Interactions":
            out.append(f"## {FOLD_HEADING}\n" + "\n".join(lines) + "\n\n")
            text = lead + "".join(kept)
        out.append(text if head is None else f"## {head}{text}")
    return "".join(out)


def _entries(text: str) -> tuple[str, list[str]]:
    """(text before the first `### `, each `### ` entry with what follows it)."""
    starts = [m.start() for m in re.finditer(r"^### ", text, re.MULTILINE)]
    if not starts:
        return text, []
    ends = [*starts[1:], len(text)]
    return text[: starts[0]], [text[a:b] for a, b in zip(starts, ends)]


def _raw_chunks(body: str) -> list[tuple[str | None, str]]:
    """The body as (heading text after `## `, the rest of its line and section) pieces,
    the text before the first heading first (heading None); joined back, the body."""
    matches = list(SECTION.finditer(body))
    out: list[tuple[str | None, str]] = [(None, body[: matches[0].start()] if matches else body)]
    for k, m in enumerate(matches):
        end = matches[k + 1].start() if k + 1 < len(matches) else len(body)
        out.append((m.group(1), body[m.end(): end]))
    return out


def _section_chunks(text: str) -> dict[str, str]:
    """`## Heading` -> its text (repeated headings joined), from a body or a whole file."""
    out: dict[str, str] = {}
    for head, rest in _raw_chunks(text)[1:]:
        assert head is not None
        name = heading_name(head)
        out[name] = f"{out[name]}\n{rest}" if name in out else rest
    return out


# --- what must survive ----------------------------------------------------------------

_TOKEN = re.compile(r"[\w.~/@+-]+")
_EXTENSIONS = frozenset(
    "py pyi ts tsx js jsx mjs cjs json md rst txt toml yaml yml ini cfg conf sh bash zsh ps1 bat go rs rb java kt "
    "kts scala c h cc cpp hpp cs swift m mm php pl lua sql html htm css scss sass less vue svelte xml csv tsv lock "
    "env dockerfile gradle proto graphql gql tf hcl nix ex exs erl hs ml clj dart r jl zig ipynb log pem crt "
    "patch diff".split())
# Error codes: the seed's "exact file paths and error codes" are never compressed. Each
# pattern finds a code standing alone too (between backticks, as References lists it),
# so the guard finds again in the output whatever it found in the input.
_HTTP_REASONS = sorted((
    "Continue", "Switching Protocols", "OK", "Created", "Accepted", "Non-Authoritative Information", "No Content",
    "Reset Content", "Partial Content", "Multiple Choices", "Moved Permanently", "Found", "See Other",
    "Not Modified", "Temporary Redirect", "Permanent Redirect", "Bad Request", "Unauthorized", "Payment Required",
    "Forbidden", "Not Found", "Method Not Allowed", "Not Acceptable", "Proxy Authentication Required",
    "Request Timeout", "Conflict", "Gone", "Length Required", "Precondition Failed", "Payload Too Large",
    "Content Too Large", "Request Entity Too Large", "URI Too Long", "Unsupported Media Type",
    "Range Not Satisfiable", "Expectation Failed", "I'm a teapot", "Misdirected Request", "Unprocessable Entity",
    "Unprocessable Content", "Locked", "Failed Dependency", "Too Early", "Upgrade Required",
    "Precondition Required", "Too Many Requests", "Request Header Fields Too Large",
    "Unavailable For Legal Reasons", "Internal Server Error", "Not Implemented", "Bad Gateway",
    "Service Unavailable", "Gateway Timeout", "HTTP Version Not Supported", "Variant Also Negotiates",
    "Insufficient Storage", "Loop Detected", "Not Extended", "Network Authentication Required"),
    key=lambda r: (-len(r), r))  # the longest first: "Request Header Fields Too Large" before "Request"
_EXCEPTION_SUFFIXES = ("Error", "Exception", "Exit", "Interrupt", "Iteration", "Warning", "Violation", "Timeout",
                       "Failure", "Fault", "Panic", "Rejection", "Exceeded")
# Each pattern starts with the character it needs (the lookbehinds come after it), so
# that the regex engine skips ahead to it: scanning every position cost compressing
# the bench corpus three times more.
_END = r"(?!\w|-[A-Z0-9_])"  # a code ends at a hyphen only when a lower-case word follows ("ENOENT-style")
# The code patterns, the exception and the error-words patterns are compiled on first
# use (`re` keeps them compiled after that), not at import: SessionStart imports this
# module on every start, and compiling them was ~4 ms of it, for the few starts that compress.
_CODES = tuple(p for p in (
    # An upper-case word (hyphen-joined parts allowed) with a digit or an underscore in it:
    # E0308, TS2345, CS0246, ORA-00942, ERR_ZQ_4421, MODULE_NOT_FOUND, SQLITE_BUSY, HV000,
    # or E-prefixed (errno and Node: EIO, EACCES, ECONNREFUSED, EZQFAIL).
    r"[A-Z](?<!\w[A-Z])(?<![A-Z0-9_]-[A-Z])(?:(?=[A-Z0-9_-]*[0-9_])[A-Z0-9_]*(?:-[A-Z0-9_]+)*|(?<=E)[A-Z0-9_]{2,})"
    + _END,
    r"0(?<!\w0)[xX][0-9A-Fa-f]+\b",  # hex offsets and addresses, any length: 0x1f, 0x7ffd5e8c
    r"[Ee](?<!\w[Ee])rrno[ =:]*[0-9]+\b",  # Python's [Errno 28], errno=13
    r"S(?<!\wS)(?<![A-Z0-9_]-S)IG[A-Z0-9]{2,}" + _END,  # SIGSEGV, SIGKILL
    # HTTP statuses with their text (404 Not Found), and HTTP 502, HTTP/1.1 503 without it.
    r"[1-5](?<![\w.][1-5])[0-9]{2}[ -](?i:" + "|".join(re.escape(r) for r in _HTTP_REASONS) + r")(?!\w)",
    r"H(?<!\wH)TTP(?:/[0-9.]+)? [1-5][0-9]{2}\b",
    # SQLSTATEs: named as such (SQLSTATE 23505, SQLSTATE[23000]), in psql's verbose form
    # (ERROR:  42P01: ...), or alone when letters make them no number (42P01, 0A000).
    r"S(?<!\wS)QLSTATE(?:\[[0-9A-Z]{5}\]|[ :=]*[0-9A-Z]{5}" + _END + ")",
    r"E(?<!\wE)RROR: +[0-9][0-9A-Z]{4}" + _END,
    r"[0-9](?<!\w[0-9])(?<![A-Z0-9_]-[0-9])(?=[0-9A-Z]{0,3}[A-Z])[0-9A-Z]{4}" + _END,
))
# Exception and error class names (KeyboardInterrupt, Go's ErrNoRows), then the module
# before one, if any (java.lang.NullPointerException, psycopg2.errors.UniqueViolation).
_EXCEPTION = (r"[A-Z](?<!\w[A-Z])(?:[A-Za-z0-9]*(?:" + "|".join(_EXCEPTION_SUFFIXES)
              + r")|(?<=E)rr[A-Z][A-Za-z0-9]*)\b")
_MODULE = re.compile(r"(?<![\w.])(?:[A-Za-z_]\w*\.)+\Z")
# An exact error text: an inline code span of more than one word that names a code or
# reads as an error ("`panic: runtime error: index out of range [5] with length 3`").
# One word alone is a path, a code or a name, which the other kinds cover.
_SPAN = re.compile(r"`([^`\n]+)`")
_ERROR_WORDS = (
    r"(?i)\b(?:errors?|errno|exceptions?|traceback|panic(?:ked)?|fatal|fail(?:ed|ure|s)?|refused|denied|timed out|"
    r"timeout|not found|no such|cannot|can't|could not|unable to|invalid|unexpected|undefined|segmentation fault|"
    r"abort(?:ed)?|killed|violat\w*|does not exist|not allowed|unauthori[sz]ed|forbidden|overflow|deadlock\w*)\b")
_DATE = re.compile(r"\b[0-9]{4}-[0-9]{2}-[0-9]{2}\b")
_HEX_ID = re.compile(r"\b(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b")


KINDS = ("paths", "codes", "errors", "dates", "ids")


def references(text: str) -> dict[str, set[str]]:
    """Every file path, error code, exact error text, date and id `text` names, by
    kind (KINDS): what no tier drops."""
    out: dict[str, set[str]] = {"paths": set(), "codes": codes(text), "errors": error_texts(text),
                                "dates": set(_DATE.findall(text)), "ids": set(_HEX_ID.findall(text))}
    for raw in _TOKEN.findall(text):
        if "/" in raw or "." in raw:  # most words have neither: skip them cheaply
            token = raw.rstrip(".-").lstrip("-")
            if _is_path(token):
                out["paths"].add(token)
    return out


def codes(text: str) -> set[str]:
    """Every error code `text` names (`_CODES`, `_EXCEPTION`), verbatim."""
    out: set[str] = set()
    for pattern in _CODES:
        out.update(re.findall(pattern, text))
    for m in re.finditer(_EXCEPTION, text):
        start = m.start()
        if start and text[start - 1] == ".":  # a module name before it: part of the name
            module = _MODULE.search(text, max(0, start - 200), start)
            if module is None:
                continue  # "..Error", "1.Error": no name
            start = module.start()
        out.add(text[start: m.end()])
    return out


def error_texts(text: str) -> set[str]:
    """The inline code spans of `text` that are exact error texts (`_SPAN`), verbatim.
    A span that is one code (`404 Not Found`, `SQLSTATE 23505`) is a code: References
    lists it so, and the next tier must read it back as the same kind."""
    out = set()
    for span in _SPAN.findall(text):
        if " " in span.strip():
            named = codes(span)
            if span not in named and (named or re.search(_ERROR_WORDS, span)):
                out.add(span)
    return out


def _is_path(token: str) -> bool:
    if "/" in token:
        return any(c.isalnum() for c in token)
    stem, dot, ext = token.rpartition(".")
    return bool(dot) and ext.lower() in _EXTENSIONS and any(c.isalpha() for c in stem)


def _with_references(before: str, body: str) -> str:
    """`body`, plus a References section naming whatever `before` named that it lost."""
    had, has = references(before), references(body)
    lost = {kind: had[kind] - has[kind] for kind in KINDS}
    if lost["errors"]:  # the codes, paths and dates inside a listed error text are kept with it
        inside = references("\n".join(f"`{t}`" for t in lost["errors"]))
        lost = {kind: t if kind == "errors" else t - inside[kind] for kind, t in lost.items()}
    lines = []
    for kind in KINDS:
        if kind == "errors" and lost[kind]:  # one a line: an error text may hold commas
            lines += ["- errors:", *(f"  - `{t}`" for t in sorted(lost[kind]))]
        elif lost[kind]:
            lines.append(f"- {kind}: " + ", ".join(f"`{t}`" for t in sorted(lost[kind])))
    if not lines:
        return body
    return f"{body.rstrip(chr(10))}\n\n## {REFERENCES}\n" + "\n".join(lines) + "\n"


def guard(path: str, before: bytes, after: bytes, tier: str) -> None:
    """Refuse (CompressionRefused) an output that does not parse, lacks a required heading,
    or loses a header field, a decision, a reversal link, an open item, a line of Errors &
    Fixes or a reference (a path, an error code, an exact error text, a date, an id)."""
    old, new = _parse(path, before, "the file"), _parse(path, after, f"its {tier} compression")
    lost: list[str] = []
    required = {"warm": WARM_HEADINGS, "cold": COLD_HEADINGS}.get(tier, tuple(old.sections))
    lost += [f"the heading ## {h}" for h in required if h not in new.sections]
    lost += [f"the {k} field" for k in ("session_id", "date", "summary", "status", "tags", "start_time")
             if getattr(old, k) != getattr(new, k)]
    kept = {d.id: d for d in new.decisions}
    lost += [f"decision {d.id}" for d in old.decisions if kept.get(d.id) != d]
    links = {(r.id, r.ref) for r in new.reversals}
    lost += [f"the reversal of {r.ref}" for r in old.reversals if (r.id, r.ref) not in links]
    items = set(_items(new))
    lost += [f"the open item {i!r}" for i in _items(old) if i not in items]
    kept_errors = set(_error_lines(new))
    lost += [f"the error line {e!r}" for e in _error_lines(old) if e not in kept_errors]
    had, has = references(_body(before)), references(_body(after))
    lost += [f"{kind[:-1]} {t!r}" if kind == "errors" else f"{kind[:-1]} {t}"
             for kind in KINDS for t in sorted(had[kind] - has[kind])]
    if lost:
        raise CompressionRefused(f"{path}: compressing it to {tier} would lose {', '.join(lost[:5])}"
                                 + (f" and {len(lost) - 5} more" if len(lost) > 5 else "") + "; left as it is",
                                 hint="please report this file: the compressor must keep all of it")


def _items(s: Session) -> list[str]:
    """The unresolved open items of a session, each as its first line."""
    text = _join(*(_unresolved(s.sections.get(name, "")) for name in ("Open Items", "Next Steps")))
    return [ln.strip() for ln in text.split("\n") if ln.startswith(("- ", "* ", "-["))]


def _error_lines(s: Session) -> list[str]:
    """Every line of the Errors & Fixes section, as written (blank lines and "None." aside)."""
    return [ln.rstrip() for ln in s.sections.get(ERRORS, "").split("\n") if ln.strip() not in ("", _NONE)]


def _body(data: bytes) -> str:
    parts = fm.split(data.decode("utf-8", "replace"))
    return parts[1] if parts else data.decode("utf-8", "replace")


def due_tier(verdict: Verdict, have: str, n_interactions: int, policy: Policy = Policy()) -> str:
    """The tier to compress to now ("" for none), given the file's tier and Interactions."""
    if verdict.never or not verdict.tier:
        return ""
    if verdict.tier == "hot":
        return "fold" if not have and n_interactions > policy.fold_after else ""
    return verdict.tier if RANK[verdict.tier] > RANK.get(have, 0) else ""


def summary_of(ranked: Mapping[str, Verdict]) -> dict[str, int]:
    """How many sessions each tier holds (for dry runs and reports)."""
    out: dict[str, int] = {}
    for v in ranked.values():
        key = v.tier if not v.never else "never"
        out[key] = out.get(key, 0) + 1
    return out
