"""`git enf stats`: figures from records, the branch's history and local logs. Pure.

The memory layer (memory/context/stats.py) gathers what this module needs into plain values:
one `Row` per session that passed the filters (its record fields and the facts of its
text, stats_text.BodyFacts), the decision ledger, the compress commits, pins, facts,
instincts, this machine's event records and the transcript totals. Each function here
computes one part of the `--json` envelope that docs/stats.md describes, field by field;
`report` puts them together. Same inputs, same output: lists are sorted stably.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from statistics import median
from typing import Any, NamedTuple

from . import prices, stats_bands
from .ledger import Ledger
from .stats_text import KINDS, BodyFacts
from .usage import Usage

WITHIN_DAYS = 7  # "reversed within a week": the decision was probably premature


class Row(NamedTuple):
    """One session as the figures need it."""

    stem: str
    path: str
    session_id: str
    date: str  # YYYY-MM-DD
    author: str  # "Name <email>" of the commit that added it; "" unknown
    tags: tuple[str, ...]
    status: str
    interrupted: bool
    decisions: int
    reversals: int
    body: BodyFacts


class Compression(NamedTuple):
    date: str  # of the commit
    tier: str
    before: int  # bytes
    after: int


class Inputs(NamedTuple):
    rows: Sequence[Row]  # filtered, any order
    kept_paths: frozenset[str]  # record paths (sessions and decision files) that passed the filters
    tags_of: Mapping[str, tuple[str, ...]]  # every session path -> its tags
    ledger: Ledger
    compressions: Sequence[Compression] = ()
    pins: Mapping[str, int] = {}  # kind -> count
    facts: Sequence[tuple[str, bool]] = ()  # (category, expired)
    instincts: Sequence[tuple[str, str, int, int]] = ()  # (id, rule, sessions, authors), live only
    events: Mapping[str, Sequence[Mapping[str, Any]]] = {}  # id8 -> its event records, in order
    transcripts: Mapping[str, tuple[str, Usage, bool]] = {}  # id8 -> (date, usage, shared)
    opted_out: int = 0
    malformed: int = 0


def report(inp: Inputs) -> dict[str, Any]:
    """Every section of the envelope but the header (docs/stats.md)."""
    dates = sorted(r.date for r in inp.rows)
    cited = {r.session_id: set(r.body.cited) for r in inp.rows}
    out: dict[str, Any] = {
        "range": {"first": dates[0] if dates else None, "last": dates[-1] if dates else None},
        "sessions": sessions(inp.rows, inp.opted_out, inp.malformed),
        "decisions": decisions(inp.ledger, inp.kept_paths, inp.tags_of),
        "friction": friction(inp.rows),
        "errors": errors(inp.rows),
        "instincts": instincts(inp.instincts),
        "memory": {
            "context": context(inp.events),
            "pointers": pointer_figures(inp.events, cited),
            "compression": compression(inp.compressions),
            "pins": {"permanent": inp.pins.get("permanent", 0), "temporary": inp.pins.get("temporary", 0)},
            "facts": facts(inp.facts),
        },
        "transcripts": transcripts(inp.transcripts),
    }
    out["bands"] = stats_bands.bands(out)
    return out


# --- sessions ---------------------------------------------------------------------------

def week_of(date: str) -> tuple[str, str]:
    """("2026-W15", its Monday) for a YYYY-MM-DD date."""
    day = dt.date.fromisoformat(date[:10])
    year, week, weekday = day.isocalendar()
    return f"{year}-W{week:02d}", (day - dt.timedelta(days=weekday - 1)).isoformat()


def sessions(rows: Sequence[Row], opted_out: int = 0, malformed: int = 0) -> dict[str, Any]:
    status = Counter(r.status for r in rows)
    return {
        "total": len(rows), "active": status["active"], "completed": status["completed"],
        "interrupted": sum(r.interrupted for r in rows), "opted_out": opted_out, "malformed": malformed,
        "by_week": _by_week(rows),
        "by_author": [{"author": a, "sessions": n} for a, n in _ranked(Counter(r.author for r in rows if r.author))],
        "by_tag": [{"tag": t, "sessions": n} for t, n in _ranked(Counter(t for r in rows for t in r.tags))],
        "rows": [_row(r) for r in sorted(rows, key=lambda r: (r.date, r.stem), reverse=True)],
    }


def _by_week(rows: Sequence[Row]) -> list[dict[str, Any]]:
    weeks: dict[tuple[str, str], list[Row]] = defaultdict(list)
    for r in rows:
        weeks[week_of(r.date)].append(r)
    out = []
    for (week, start), members in sorted(weeks.items()):
        out.append({"week": week, "start": start, "total": len(members),
                    "by_author": dict(sorted(Counter(r.author for r in members if r.author).items())),
                    "by_tag": dict(sorted(Counter(t for r in members for t in r.tags).items()))})
    return out


def _row(r: Row) -> dict[str, Any]:
    return {"stem": r.stem, "session": r.session_id[:8], "date": r.date, "author": r.author, "tags": list(r.tags), "status": r.status,
            "decisions": r.decisions, "reversals": r.reversals, "friction": len(r.body.friction),
            "errors": len(r.body.errors)}


def _ranked(counts: Counter[str]) -> list[tuple[str, int]]:
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


# --- decisions --------------------------------------------------------------------------

def decisions(ledger: Ledger, kept: frozenset[str], tags_of: Mapping[str, tuple[str, ...]]) -> dict[str, Any]:
    """Made and reversed among the decisions whose file passed the filters."""
    made: list[tuple[str, str, bool]] = []  # (topic, source, reversed)
    timeline: list[dict[str, Any]] = []
    for chain in ledger.chains:
        replaced_by = [chain.current, *chain.superseded]
        if chain.current.source in kept:
            made.append((chain.current.topic, chain.current.source, False))
        for i, (old, rev) in enumerate(zip(chain.superseded, chain.reversals)):
            if old.source not in kept:
                continue
            made.append((old.topic, old.source, True))
            timeline.append({"decision": old.id, "decided_on": old.date[:10], "replacement": replaced_by[i].id,
                             "reversed_on": rev.date[:10], "days": _days(old.date, rev.date), "topic": old.topic,
                             "tags": list(tags_of.get(old.source, ())), "reason": rev.reason,
                             "session": _stem(rev.source), "source": _stem(old.source)})
    made += chain_tail_extras(ledger, kept)
    days = [t["days"] for t in timeline]
    reversed_n = sum(1 for m in made if m[2])
    return {
        "made": len(made), "reversed": reversed_n, "standing": len(made) - reversed_n,
        "reversal_rate": _rate(reversed_n, len(made)),
        "by_tag": _rates("tag", ((t, rev) for _topic, src, rev in made for t in tags_of.get(src, ()))),
        "by_topic": _rates("topic", ((topic, rev) for topic, _src, rev in made)),
        "days_to_reversal": {"median": _median(days), "count": len(days)},
        "reversed_within_7_days": sum(1 for d in days if d <= WITHIN_DAYS),
        "open_disagreements": sum(1 for d in ledger.open_disagreements if d.decision.source in kept),
        "unresolved_reversals": sum(1 for r in ledger.unresolved if r.source in kept),
        "reversals": sorted(timeline, key=lambda t: (t["reversed_on"], t["decision"])),
    }


def chain_tail_extras(ledger: Ledger, kept: frozenset[str]) -> list[tuple[str, str, bool]]:
    """Superseded decisions a chain holds past its reversals (a chain folded from a
    disagreement can hold more decisions than reversals): made and reversed all the same."""
    out = []
    for chain in ledger.chains:
        for old in chain.superseded[len(chain.reversals):]:
            if old.source in kept:
                out.append((old.topic, old.source, True))
    return out


def _rates(label: str, pairs: Iterable[tuple[str, bool]]) -> list[dict[str, Any]]:
    made: Counter[str] = Counter()
    rev: Counter[str] = Counter()
    for key, reversed_ in pairs:
        made[key] += 1
        rev[key] += reversed_
    return [{label: k, "made": n, "reversed": rev[k], "rate": _rate(rev[k], n)} for k, n in _ranked(made)]


def _days(start: str, end: str) -> int:
    try:
        return max((dt.date.fromisoformat(end[:10]) - dt.date.fromisoformat(start[:10])).days, 0)
    except ValueError:
        return 0


def _stem(path: str) -> str:
    return path.rsplit("/", 1)[-1].removesuffix(".md")


# --- friction, errors, instincts --------------------------------------------------------

def friction(rows: Sequence[Row]) -> dict[str, Any]:
    kinds = Counter(k for r in rows for k in r.body.friction)
    return {"total": sum(kinds.values()), "by_kind": {k: kinds[k] for k in KINDS},
            "sessions_with_friction": sum(1 for r in rows if r.body.friction)}


def errors(rows: Sequence[Row]) -> dict[str, Any]:
    seen: dict[str, list[Row]] = defaultdict(list)
    text: dict[str, str] = {}
    for r in sorted(rows, key=lambda r: (r.date, r.stem)):
        for key, line in r.body.errors:
            text.setdefault(key, line)
            if not seen[key] or seen[key][-1] is not r:
                seen[key].append(r)
    again = sorted(((k, rs) for k, rs in seen.items() if len(rs) >= 2), key=lambda kv: (-len(kv[1]), kv[0]))
    recurring = [{"key": k, "text": text[k], "count": len(rs), "sessions": [r.stem for r in rs],
                  "first_seen": rs[0].date, "last_seen": rs[-1].date} for k, rs in again]
    return {"total": sum(len(r.body.errors) for r in rows), "recurring": recurring}


def instincts(found: Sequence[tuple[str, str, int, int]]) -> dict[str, Any]:
    ranked = sorted(found, key=lambda i: (-i[2], -i[3], i[0]))
    return {"live": len(found),
            "by_corroboration": [{"id": i, "rule": rule, "sessions": s, "authors": a} for i, rule, s, a in ranked]}


# --- memory's footprint and effect ------------------------------------------------------

def context(events: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, Any]:
    """SessionStart context sizes, from the `context` events SessionStart logs."""
    per = []
    for sid, records in events.items():
        for e in records:
            if e.get("event") == "context" and isinstance(e.get("tokens"), int):
                per.append({"session": sid, "date": str(e.get("ts", ""))[:10], "source": str(e.get("source", "")),
                            "tokens": e["tokens"], "chars": e.get("chars") if isinstance(e.get("chars"), int) else 0})
    per.sort(key=lambda p: (p["date"], p["session"]))
    tokens = [p["tokens"] for p in per]
    return {"sessions": len(per), "median_tokens": _median(tokens), "max_tokens": max(tokens) if tokens else None,
            "total_tokens": sum(tokens), "per_session": per}


def pointer_figures(events: Mapping[str, Sequence[Mapping[str, Any]]],
                    cited: Mapping[str, set[str]]) -> dict[str, Any]:
    """Pointers injected before prompts, and how many the assistant then used: a later tool
    call of that session named the record (its id, or its file's name), or the session's
    file cites the decision id."""
    prompts = with_pointers = injected = followed = 0
    for sid, records in events.items():
        for i, e in enumerate(records):
            kind = e.get("event")
            if kind == "prompt":
                prompts += 1
            if kind != "pointers" or not isinstance(e.get("refs"), list):
                continue
            refs = [str(r) for r in e["refs"]]
            names = [str(p) for p in e.get("paths", [])] if isinstance(e.get("paths"), list) else []
            with_pointers += 1
            injected += len(refs)
            later = " ".join(str(x.get("summary", "")) for x in records[i + 1:] if x.get("event") in ("tool", "tool-failure"))
            for n, ref in enumerate(refs):
                name = _stem(names[n]) if n < len(names) else ref
                followed += bool(ref and ref in later or name and name in later or ref in cited.get(sid, ()))
    return {"prompts": prompts, "prompts_with_pointers": with_pointers, "injected": injected,
            "per_prompt": _ratio(injected, prompts), "followed": followed, "followed_rate": _rate(followed, injected)}


def compression(found: Sequence[Compression]) -> dict[str, Any]:
    tiers: dict[str, list[Compression]] = defaultdict(list)
    for c in found:
        tiers[c.tier].append(c)
    by_tier = [{"tier": t, "sessions": len(cs), "bytes_before": sum(c.before for c in cs),
                "bytes_after": sum(c.after for c in cs), "saved": sum(c.before - c.after for c in cs)}
               for t, cs in sorted(tiers.items(), key=lambda kv: _TIER_ORDER.get(kv[0], 9))]
    return {"by_tier": by_tier, "saved": sum(t["saved"] for t in by_tier)}


_TIER_ORDER = {"warm": 0, "cold": 1, "fold": 2}


def facts(found: Sequence[tuple[str, bool]]) -> dict[str, Any]:
    return {"total": len(found), "expired": sum(1 for _c, e in found if e),
            "by_category": dict(sorted(Counter(c for c, _e in found).items()))}


# --- transcripts ------------------------------------------------------------------------

def transcripts(found: Mapping[str, tuple[str, Usage, bool]]) -> dict[str, Any]:
    per = [_usage_row(sid, date, u, shared) for sid, (date, u, shared) in found.items()]
    per.sort(key=lambda p: (p["date"], p["session"]))
    tokens = {k: sum(p[k] for p in per) for k in ("input", "output", "cache_creation", "cache_read")}
    priced = [p["cost_usd"] for p in per if p["cost_usd"] is not None]
    return {
        "sessions": len(per), "tokens": tokens, "cache_hit_rate": _hit_rate(tokens),
        "compactions": sum(p["compactions"] for p in per),
        "context_pressure": {"median": _median([p["context_pressure"] for p in per if p["context_pressure"] is not None]),
                             "max": max((p["context_pressure"] for p in per if p["context_pressure"] is not None),
                                        default=None)},
        "pacing": {"prompts": sum(p["prompts"] for p in per),
                   "assistant_messages": sum(p["assistant_messages"] for p in per),
                   "median_minutes": _median([p["minutes"] for p in per if p["minutes"] is not None]),
                   "median_prompts": _median([p["prompts"] for p in per])},
        "cost": {"usd": round(sum(priced), 4) if priced else None, "priced_sessions": len(priced),
                 "unpriced_sessions": len(per) - len(priced), "per_session_median": _median(priced, 6),
                 "prices_as_of": prices.AS_OF, "disclaimer": prices.DISCLAIMER},
        "per_session": per,
    }


def _usage_row(sid: str, date: str, u: Usage, shared: bool) -> dict[str, Any]:
    tokens = u.totals()
    return {"session": sid, "date": date, "models": sorted(m for m, c in u.models.items() if any(c.values())),
            **tokens, "cache_hit_rate": _hit_rate(tokens), "compactions": u.compactions,
            "peak_context": u.peak_context,
            "context_pressure": round(u.peak_context / u.window(), 4) if u.peak_context else None,
            "prompts": u.prompts, "assistant_messages": u.assistant_messages, "minutes": minutes(u),
            "cost_usd": prices.cost(u.models) if u.models else None, "shared": shared}


def minutes(u: Usage) -> float | None:
    try:
        start = dt.datetime.fromisoformat(u.first_ts.replace("Z", "+00:00"))
        end = dt.datetime.fromisoformat(u.last_ts.replace("Z", "+00:00"))
    except ValueError:
        return None
    return round((end - start).total_seconds() / 60, 2)


def _hit_rate(tokens: Mapping[str, int]) -> float | None:
    return _rate(tokens["cache_read"], tokens["input"] + tokens["cache_creation"] + tokens["cache_read"])


# --- small helpers ----------------------------------------------------------------------

def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _median(values: Sequence[float], places: int = 4) -> float | None:
    return round(float(median(values)), places) if values else None
