"""The dashboard's data: the `git enf stats --json` envelope, made compact for the page.

The page filters in the browser (author, tag, time range), so it carries one row per
session, not only the totals. At 100,000 sessions even one JSON number a field would be
over the 2 MB budget, so a session is a few characters:

- the rows are columns (one per field), in the envelope's order (newest first);
- authors and tags are indexes into one list of names, dates are day numbers from the
  first session, and the stems, which the page never shows, go;
- a row's tags are one index into `tagsets`, the distinct sets, the commonest first;
- each number column, the rows', the transcripts' and the SessionStarts' alike, is a
  dashboard_codec string (base-64 digits, as differences where that is shorter, runs
  written once), which the page's script turns back into numbers once, as it loads.

What refers to a session elsewhere in the envelope (a recurring error's sessions, a
reversal, a transcript's or a SessionStart's figures) refers to its row's index instead,
-1 when no row is known. Nothing is rounded or merged: every filter counts what `git enf
stats` counts with the same option.

Everything else of the envelope that the page shows is carried as it is (docs/stats.md
names every field); the page never trusts any of it to be markup (dashboard.py).
"""

from __future__ import annotations

import datetime as dt
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from .dashboard_codec import SAFE, column

MODEL = 2  # the shape the page's script reads; bump with it


def compact(stats: Mapping[str, Any]) -> dict[str, Any]:
    """The page's model of one stats envelope (docs/dashboard.md)."""
    sessions = _obj(stats.get("sessions"))
    rows = [_obj(r) for r in _list(sessions.get("rows"))]
    day0 = _first_day(rows)
    authors = _names(r.get("author") for r in rows)
    tags = _names(t for r in rows for t in _list(r.get("tags")))
    by_stem = {str(r.get("stem", "")): i for i, r in enumerate(rows)}
    by_id8 = {str(r["session"])[:8]: i for i, r in enumerate(rows) if r.get("session")}
    decisions = _obj(stats.get("decisions"))
    memory = _obj(stats.get("memory"))
    transcripts = _obj(stats.get("transcripts"))
    return {
        "model": MODEL, "generated": stats.get("generated"), "tip": stats.get("tip"),
        "filters": stats.get("filters"), "day0": day0.isoformat(), "authors": authors, "tags": tags,
        "rows": _row_columns(rows, day0, authors, tags),
        "joined": bool(by_id8),  # transcripts and starts can follow author and tag filters
        "reversals": _reversals(decisions, day0, tags, by_stem),
        "by_topic": _list(decisions.get("by_topic")),
        "decisions": {k: decisions.get(k) for k in ("open_disagreements", "unresolved_reversals")},
        "friction_kinds": _obj(_obj(stats.get("friction")).get("by_kind")),
        "recurring": _recurring(_obj(stats.get("errors")), by_stem),
        "context": _context(_obj(memory.get("context")), day0, by_id8),
        "usage": _usage(transcripts, day0, by_id8),
        "cost": {k: _obj(transcripts.get("cost")).get(k) for k in ("prices_as_of", "disclaimer")},
        "memory": {"pointers": memory.get("pointers"), "compression": memory.get("compression"),
                   "pins": memory.get("pins"), "facts": memory.get("facts")},
        "instincts": _obj(stats.get("instincts")),
        "opted_out": sessions.get("opted_out"), "malformed": sessions.get("malformed"),
    }


def _row_columns(rows: Sequence[Mapping[str, Any]], day0: dt.date, authors: list[str],
                 tags: list[str]) -> dict[str, Any]:
    """A column per field; a row's tags are an index into `tagsets`, the commonest first."""
    author_at = {name: i for i, name in enumerate(authors)}
    tag_at = {name: i for i, name in enumerate(tags)}
    # a tag list's order never shows (the page asks "has this tag?" and counts per tag)
    sets = [tuple(sorted(tag_at[t] for t in map(str, _list(r.get("tags"))) if t in tag_at)) for r in rows]
    counts = Counter(sets)
    tagsets = sorted(counts, key=lambda k: -counts[k])  # stable: ties keep first-seen order
    set_at = {k: i for i, k in enumerate(tagsets)}
    return {
        "day": column([_day(r.get("date"), day0) for r in rows]),
        "author": column([author_at.get(str(r.get("author") or ""), -1) for r in rows]),
        "tagset": column([set_at[k] for k in sets]), "tagsets": [list(k) for k in tagsets],
        "done": column([_DONE.get(str(r.get("status")), 2) for r in rows]),
        "dec": column([_int(r.get("decisions")) for r in rows]),
        "rev": column([_int(r.get("reversals")) for r in rows]),
        "fri": column([_int(r.get("friction")) for r in rows]),
        "err": column([_int(r.get("errors")) for r in rows]),
    }


_DONE = {"completed": 1, "active": 0}  # anything else: 2, neither


def _reversals(decisions: Mapping[str, Any], day0: dt.date, tags: list[str],
               by_stem: Mapping[str, int]) -> list[list[Any]]:
    """[decided day, reversed day, days, topic, tag indexes, row, decision, replacement,
    reason]: the row is the session the reversed decision was made in when the envelope
    says (`source`), else the session the reversal was written in."""
    tag_at = {name: i for i, name in enumerate(tags)}
    out = []
    for r in (_obj(x) for x in _list(decisions.get("reversals"))):
        row = by_stem.get(str(r.get("source") or r.get("session") or ""), -1)
        out.append([_day(r.get("decided_on"), day0), _day(r.get("reversed_on"), day0), _int(r.get("days")),
                    str(r.get("topic") or ""), [tag_at[t] for t in map(str, _list(r.get("tags"))) if t in tag_at],
                    row, str(r.get("decision") or ""), str(r.get("replacement") or ""), str(r.get("reason") or "")])
    return out


def _recurring(errors: Mapping[str, Any], by_stem: Mapping[str, int]) -> list[list[Any]]:
    """[key, text, rows]: the rows (oldest first, a column) the error was seen in."""
    out = []
    for e in (_obj(x) for x in _list(errors.get("recurring"))):
        rows: list[int | None] = [by_stem[s] for s in map(str, _list(e.get("sessions"))) if s in by_stem]
        out.append([str(e.get("key") or ""), str(e.get("text") or ""), column(rows)])
    return out


def _context(context: Mapping[str, Any], day0: dt.date, by_id8: Mapping[str, int]) -> dict[str, Any]:
    per = [_obj(p) for p in _list(context.get("per_session"))]
    return {"day": column([_day(p.get("date"), day0) for p in per]),
            "tokens": column([_int(p.get("tokens")) for p in per]),
            "row": column([by_id8.get(str(p.get("session", ""))[:8], -1) for p in per])}


def _usage(transcripts: Mapping[str, Any], day0: dt.date, by_id8: Mapping[str, int]) -> dict[str, Any]:
    per = [_obj(p) for p in _list(transcripts.get("per_session"))]
    return {"day": column([_day(p.get("date"), day0) for p in per]),
            "id": _ids([str(p.get("session", ""))[:8] for p in per]),
            "in": column([_int(p.get("input")) for p in per]), "out": column([_int(p.get("output")) for p in per]),
            "cw": column([_int(p.get("cache_creation")) for p in per]),
            "cr": column([_int(p.get("cache_read")) for p in per]),
            "cost": _costs([p.get("cost_usd") for p in per]),
            "row": column([by_id8.get(str(p.get("session", ""))[:8], -1) for p in per])}


def _ids(ids: list[str]) -> dict[str, Any] | list[str]:
    """Claude Code's session ids are hex: eight hex digits are a number (a column under
    {"hex"}), other ids stay strings."""
    if ids and all(len(i) == 8 and all(c in _HEX for c in i) for i in ids):
        return {"hex": column([int(i, 16) for i in ids])}
    return ids


_HEX = frozenset("0123456789abcdef")


def _costs(costs: list[Any]) -> dict[str, Any] | list[float | None]:
    """Dollars to the millionth (prices.cost rounds to six places) as whole millionths
    (a column under {"micro"}) when n / 1e6 gives back each one exactly, as the page's
    script divides; else the numbers themselves."""
    kept = [float(c) if isinstance(c, (int, float)) and not isinstance(c, bool) and math.isfinite(c) else None
            for c in costs]
    micro = [None if c is None else round(c * _MICRO) for c in kept]
    if all(c is None or (m is not None and abs(m) < SAFE and m / _MICRO == c) for c, m in zip(kept, micro)):
        return {"micro": column(micro)}
    return kept


_MICRO = 1_000_000


def _first_day(rows: Sequence[Mapping[str, Any]]) -> dt.date:
    days = [d for d in (_date(r.get("date")) for r in rows) if d is not None]
    return min(days) if days else dt.date(1970, 1, 1)


def _day(value: Any, day0: dt.date) -> int | None:
    day = _date(value)
    return None if day is None else (day - day0).days


def _date(value: Any) -> dt.date | None:
    try:
        return dt.date.fromisoformat(str(value)[:10])
    except ValueError:
        return None


def _names(values: Any) -> list[str]:
    return sorted({str(v) for v in values if v})


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _obj(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> Sequence[Any]:
    return value if isinstance(value, list) else []
