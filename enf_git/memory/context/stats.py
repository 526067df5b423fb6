"""Gathering what `git enf stats` computes from: records, the branch's history, local logs.

One walk of the branch's commits gives both the first author of every record (as `git
enf log` names them) and the compress commits (`compress(<tier>): <name>` with "N -> M
bytes" in their body). A session's text facts (friction, errors, cited ids) need its
section text, which the records cache drops; they are cached beside the record under
its blob id (`STATS_KEY`), so a second run reads no blob. This machine's event logs
(`.claude-sessions/raw/`) and transcript totals (`.git/enf/transcripts/`, refreshed
first) add what the branch does not hold; `enf.stats.share` puts transcript totals on
the branch as `stats/<id8>.json`. The figures themselves are pure (pure/stats.py).
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ... import fastjson, paths
from ...plumbing import store
from ...pure import model, stats_text
from ...pure import stats as ps
from ...pure.usage import Usage
from .. import records
from ..lifecycle import instinct_block, pins
from ..record import fact_stores, queries
from ..workspace import Context, require_branch
from . import transcripts

STATS_KEY = "stats"  # a session's entry in records.json: [STATS_VERSION, BodyFacts.as_json()]
STATS_VERSION = 1  # bump when stats_text reads the same bytes differently
_COMPRESS = re.compile(r"^compress\((\w+)\): ")
_SIZES = re.compile(r"^([0-9][0-9,]*) -> ([0-9][0-9,]*) bytes", re.MULTILINE)
MAX_EVENT_BYTES = 64 << 20  # of one raw log read: a runaway log costs its tail, not the command


def gather(ctx: Context, filters: queries.Filters, now: int) -> dict[str, Any]:
    """The envelope's payload (docs/stats.md), for the sessions `filters` keeps."""
    tip = require_branch(ctx)
    cache = ctx.cache()
    recs = queries.load(ctx.repo, tip, cache)
    authors, compressions = history(ctx.repo, tip)
    kept = queries.filter_sessions(recs.all_sessions(), filters, authors)
    bodies = _bodies(ctx.repo, tip, cache, {s.path for s in kept})
    cache.save()
    rows = [_row(s, authors, bodies.get(s.path)) for s in kept]
    state = str(store.state_dir(ctx.repo))
    transcripts.refresh(state)
    payload = ps.report(ps.Inputs(
        rows=rows, kept_paths=frozenset(s.path for s in kept) | _decision_files(recs, filters, authors),
        tags_of={s.path: s.tags for s in recs.sessions.values()}, ledger=queries.build_ledger(recs),
        compressions=[c for c in compressions if _in_range(c.date, filters)],
        pins=_pin_counts(ctx.repo, tip), facts=_facts(ctx.repo, tip, now), instincts=_instincts(ctx.repo, tip),
        events=_events(str(ctx.root), _keep_id(rows, filters), filters),
        transcripts=_transcripts(ctx.repo, tip, state, _keep_id(rows, filters), filters),
        opted_out=_opted_out(str(ctx.root), filters),
        malformed=sum(1 for p in recs.problems if model.is_session_path(p))))
    return {"tip": str(tip.id), "filters": _filters_json(filters), **payload}


def history(repo: store.Repo, tip: store.Commit) -> tuple[dict[str, str], list[ps.Compression]]:
    """(record path -> first author, compress commits oldest first), from git's log: the
    compress commits found by their messages, every other commit's changes by
    queries.first_authors (loading each commit's month folders in process took minutes
    on a history of 100,000 commits)."""
    from ...plumbing import gitlog_changes

    found: list[ps.Compression] = []
    skipped: set[str] = set()
    for oid, when, message in gitlog_changes.messages(str(repo.path), str(tip.id), "^compress("):
        m = _COMPRESS.match(message)
        sizes = _SIZES.search(message) if m else None
        if m and sizes:
            day = dt.datetime.fromtimestamp(when, dt.timezone.utc).date().isoformat()
            found.append(ps.Compression(day, m.group(1), _num(sizes.group(1)), _num(sizes.group(2))))
            skipped.add(oid)  # a compression adds no record: its author is not the record's
    return queries.first_authors(repo, tip, frozenset(skipped)), found


def _num(text: str) -> int:
    return int(text.replace(",", ""))


def _bodies(repo: store.Repo, tip: store.Commit, cache: records.Cache, wanted: set[str]) -> dict[str, stats_text.BodyFacts]:
    out = {}
    for name, oid, kind in store.folder_entries(repo, tip.tree, model.SESSIONS_DIR):
        path = f"{model.SESSIONS_DIR}/{name}"
        if path in wanted and kind == "blob":
            out[path] = body_of(cache, path, oid, _reader(repo, oid))
    return out


def _reader(repo: store.Repo, oid: str) -> Callable[[], bytes]:
    return lambda: store.blob_data(repo, oid)


def body_of(cache: records.Cache, path: str, oid: str, data_of: Callable[[], bytes]) -> stats_text.BodyFacts:
    """A session blob's text facts, from its records.json entry or read once and kept there."""
    entry = cache.entries.get(f"{oid}:{path}")
    kept = entry.get(STATS_KEY) if isinstance(entry, dict) else None
    if isinstance(kept, list) and len(kept) == 2 and kept[0] == STATS_VERSION:
        found = stats_text.from_json(kept[1])
        if found is not None:
            return found
    text = data_of()[: model.MAX_RECORD_BYTES].decode("utf-8", "replace").replace("\r\n", "\n")
    facts = stats_text.body_facts(model.split_sections(text), text)
    if isinstance(entry, dict):
        entry[STATS_KEY] = [STATS_VERSION, facts.as_json()]
        cache.dirty = True
    return facts


def _row(s: model.Session, authors: Mapping[str, str], body: stats_text.BodyFacts | None) -> ps.Row:
    return ps.Row(stem=s.stem, path=s.path, session_id=s.session_id, date=s.date[:10], author=authors.get(s.path, ""),
                  tags=s.tags, status=s.status, interrupted=s.interrupted, decisions=len(s.decisions),
                  reversals=len(s.reversals), body=body or stats_text.BodyFacts((), (), ()))


def _decision_files(recs: records.Records, f: queries.Filters, authors: Mapping[str, str]) -> frozenset[str]:
    """Decision files that pass the filters: they have no tag, so a --tag filter leaves them out."""
    if f.tags:
        return frozenset()
    out = set()
    for path, found in recs.decisions.items():
        date = found[0].date[:10] if found else ""
        if _in_range(date, f) and not (f.author and f.author.lower() not in authors.get(path, "").lower()):
            out.add(path)
    return frozenset(out)


def _in_range(date: str, f: queries.Filters) -> bool:
    return not (f.since and date < f.since or f.until and date > f.until)


def _keep_id(rows: Iterable[ps.Row], f: queries.Filters) -> Callable[[str], bool]:
    """Which local sessions (by id8) the figures keep: with --author or --tag, only those of
    the kept session files; otherwise every one (a session that wrote no file counts too)."""
    if not (f.author or f.tags):
        return lambda _id8: True
    ids = {r.session_id[:8] for r in rows}
    return ids.__contains__


def _events(root: str, keep: Callable[[str], bool], f: queries.Filters) -> dict[str, list[dict[str, Any]]]:
    folder = os.path.join(root, paths.RAW_DIR)
    out: dict[str, list[dict[str, Any]]] = {}
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else ():
        if name.endswith(".jsonl") and keep(name[:8]):
            found = [e for e in _read_events(os.path.join(folder, name)) if _in_range(str(e.get("ts", ""))[:10], f)]
            if found:
                out[name[:8]] = found
    return out


def _read_events(path: str) -> list[dict[str, Any]]:
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_EVENT_BYTES)
    except OSError:
        return []
    out = []
    for line in data.splitlines():
        try:
            record = fastjson.loads(line.decode("utf-8", "replace"))
        except ValueError:
            continue  # a torn line
        if isinstance(record, dict):
            out.append(record)
    return out


def _transcripts(repo: store.Repo, tip: store.Commit, state: str, keep: Callable[[str], bool],
                 f: queries.Filters) -> dict[str, tuple[str, Usage, bool]]:
    """This machine's totals, then the branch's for sessions this machine never read."""
    out = {sid: (date, u, False) for sid, (date, u) in transcripts.local(state).items()}
    for sid, (date, u) in transcripts.shared(repo, tip).items():
        out.setdefault(sid, (date, u, True))
    return {sid: v for sid, v in out.items() if keep(sid) and _in_range(v[0], f)}


def _pin_counts(repo: store.Repo, tip: store.Commit) -> dict[str, int]:
    counts: dict[str, int] = {}
    for pin in pins.load(repo, tip).pins.values():
        counts[pin.kind] = counts.get(pin.kind, 0) + 1
    return counts


def _facts(repo: store.Repo, tip: store.Commit, now: int) -> list[tuple[str, bool]]:
    today = dt.datetime.fromtimestamp(now, dt.timezone.utc).date().isoformat()
    return [(f.category, f.expired(today)) for f in fact_stores.project_facts(repo, tip, {}).facts]


def _instincts(repo: store.Repo, tip: store.Commit) -> list[tuple[str, str, int, int]]:
    return [(i.id, i.rule, *i.corroboration()) for i in instinct_block.load(repo, tip).instincts.values() if i.live]


def _opted_out(root: str, f: queries.Filters) -> int:
    """Opt-out markers made in the date range: a count, nothing else is known of them."""
    folder = os.path.join(root, paths.OPT_OUT_DIR)
    n = 0
    for entry in os.scandir(folder) if os.path.isdir(folder) else ():
        if entry.is_file():
            day = dt.datetime.fromtimestamp(entry.stat().st_mtime, dt.timezone.utc).date().isoformat()
            n += _in_range(day, f)
    return n


def _filters_json(f: queries.Filters) -> dict[str, Any]:
    return {"since": f.since, "until": f.until, "author": f.author, "tags": list(f.tags)}
