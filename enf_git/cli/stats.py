"""`git enf stats`: analytics from memory and its history (docs/stats.md).

memory/context/stats.py gathers, pure/stats.py computes; this module prints: a few short tables
for a person, or the versioned `--json` envelope for the dashboard and the skill.
"""

from __future__ import annotations

import time
from typing import Any

import click

from .base import CONTEXT, JSON_OPTION, emit, parse_date, reading
from .text import envelope, plural

TOP = 5  # rows of each ranked list the terminal shows; --json has them all


@click.command(context_settings=CONTEXT)
@click.option("--since", help="Only sessions on or after this date (YYYY-MM-DD, or 7d, 2w, 3m).")
@click.option("--until", help="Only sessions on or before this date.")
@click.option("--author", help="Only sessions first committed by an author matching this text.")
@click.option("--tag", "tags", multiple=True, help="Only sessions with this tag (repeatable).")
@JSON_OPTION
def stats(since: str | None, until: str | None, author: str | None, tags: tuple[str, ...], as_json: bool) -> None:
    """Analytics: sessions, decisions and reversals, friction, errors, memory's cost and effect, tokens."""
    from ..memory.record import queries
    from ..memory.context import stats as gather

    since, until = parse_date(since, "--since"), parse_date(until, "--until")
    ctx = reading()
    now = int(time.time())
    filters = queries.Filters(since=since, until=until, tags=tags, author=author)
    found = gather.gather(ctx, filters, now)
    generated = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now))
    if as_json:
        click.echo(envelope("stats", generated=generated, **found))
        return
    emit(ctx, "\n".join(lines(found)), pageable=True)


def lines(s: dict[str, Any]) -> list[str]:
    """The terminal report: one short block per part of the envelope."""
    out: list[str] = []
    for block in (_sessions(s), _decisions(s["decisions"]), _friction(s), _memory(s["memory"]),
                  _transcripts(s["transcripts"])):
        if block:
            out += [*block, ""]
    while out and not out[-1]:
        out.pop()
    return out


def _sessions(s: dict[str, Any]) -> list[str]:
    ss = s["sessions"]
    span = f" ({s['range']['first']} .. {s['range']['last']})" if s["range"]["first"] else ""
    out = [f"Sessions: {ss['total']:,}{span}",
           f"  {ss['completed']:,} completed, {ss['active']:,} active ({ss['interrupted']:,} interrupted), "
           f"{ss['opted_out']:,} opted out on this machine"]
    if ss["malformed"]:
        out.append(f"  {plural(ss['malformed'], 'malformed session file')} left out: git enf doctor")
    weeks = ss["by_week"][-4:]
    if weeks:
        out.append("  per week: " + ", ".join(f"{w['week']} {w['total']}" for w in weeks))
    out += _ranked("  by author", [(a["author"], a["sessions"]) for a in ss["by_author"]])
    out += _ranked("  by tag", [(t["tag"], t["sessions"]) for t in ss["by_tag"]])
    return out


def _decisions(d: dict[str, Any]) -> list[str]:
    rate = _pct(d["reversal_rate"])
    median = d["days_to_reversal"]["median"]
    out = [f"Decisions: {d['made']:,} made, {d['reversed']:,} reversed ({rate}), {d['standing']:,} standing",
           f"  median {_num(median)} days to a reversal; {d['reversed_within_7_days']:,} reversed within 7 days",
           f"  {d['open_disagreements']:,} open disagreements, {d['unresolved_reversals']:,} unresolved reversals"]
    risky = [(t["tag"], t) for t in d["by_tag"] if t["reversed"]]
    if risky:
        out.append("  reversal rate by tag:")
        out += [f"    {name:<20} {_pct(t['rate']):>5}  ({t['reversed']} of {t['made']})" for name, t in risky[:TOP]]
    return out


def _friction(s: dict[str, Any]) -> list[str]:
    f, e, i = s["friction"], s["errors"], s["instincts"]
    kinds = ", ".join(f"{k} {n}" for k, n in f["by_kind"].items())
    out = [f"Friction: {f['total']:,} events ({kinds}) in {plural(f['sessions_with_friction'], 'session')}",
           f"Errors: {e['total']:,} logged, {len(e['recurring']):,} recurring"]
    for r in e["recurring"][:TOP]:
        out.append(f"  {r['count']} sessions  {r['key']}  (last {r['last_seen']}: {', '.join(r['sessions'][-3:])})")
    out.append(f"Instincts: {i['live']:,} live")
    out += [f"  {x['sessions']} sessions, {x['authors']} authors  {x['rule']}" for x in i["by_corroboration"][:3]]
    return out


def _memory(m: dict[str, Any]) -> list[str]:
    c, p, z = m["context"], m["pointers"], m["compression"]
    out = ["Memory:",
           f"  SessionStart context: median {_num(c['median_tokens'])} tokens, max {_num(c['max_tokens'])} "
           f"({plural(c['sessions'], 'start')} measured here)",
           f"  pointers: {p['injected']:,} injected over {p['prompts']:,} prompts ({_num(p['per_prompt'])} per prompt), "
           f"{p['followed']:,} followed ({_pct(p['followed_rate'])})",
           f"  compression saved {z['saved']:,} bytes"
           + "".join(f"; {t['tier']} {t['sessions']:,} sessions {t['saved']:,}" for t in z["by_tier"]),
           f"  pins: {m['pins']['permanent']} permanent, {m['pins']['temporary']} temporary; "
           f"facts: {m['facts']['total']} ({m['facts']['expired']} expired)"]
    return out


def _transcripts(t: dict[str, Any]) -> list[str]:
    if not t["sessions"]:
        return ["Tokens: no transcript read yet (Stop reads each session's; this machine's only, "
                "unless enf.stats.share is true)"]
    tok, cost = t["tokens"], t["cost"]
    usd = f"${cost['usd']:,.2f}" if cost["usd"] is not None else "unknown"
    return [f"Tokens ({plural(t['sessions'], 'session')}): input {tok['input']:,}, output {tok['output']:,}, "
            f"cache write {tok['cache_creation']:,}, cache read {tok['cache_read']:,}",
            f"  cache hit rate {_pct(t['cache_hit_rate'])}; {t['compactions']:,} compactions; context pressure "
            f"median {_pct(t['context_pressure']['median'])}, max {_pct(t['context_pressure']['max'])}",
            f"  estimated cost {usd} ({cost['priced_sessions']} priced, {cost['unpriced_sessions']} unknown model); "
            f"prices as of {cost['prices_as_of']}, an estimate only"]


def _ranked(title: str, pairs: list[tuple[str, int]]) -> list[str]:
    if not pairs:
        return []
    more = f", … {len(pairs) - TOP} more" if len(pairs) > TOP else ""
    return [f"{title}: " + ", ".join(f"{name} {n:,}" for name, n in pairs[:TOP]) + more]


def _pct(rate: float | None) -> str:
    return "-" if rate is None else f"{rate * 100:.0f}%"


def _num(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.1f}"


COMMANDS = (stats,)
