"""Instincts on the branch: learned from this machine's hook event logs at each
checkpoint, listed, forgotten, offered at SessionStart, merged as a union.

The rules are pure (pure/fixes.py derives fixes from events, pure/instincts.py keeps
the records). Learning reads each `raw/<session>.jsonl` that grew since the last time
(`.git/enf/spool/<file>.instincts` remembers how far, and where its oldest failure not
fixed yet starts: the next read starts there, so a log without one costs only its new
lines), derives the fixes whose working call is new, and commits the instinct files they add or corroborate, alone
(`instincts/<id>.md`), built from the tip of the moment and moved by compare-and-swap
(store_write.commit), never touching HEAD, the index or the user's work tree. A fix is learned
once: the offset moves past it whether or not the lesson was new, so an instinct dropped
at the cap or forgotten is not brought back by the events it came from. The log of a
session that opted out of tracking (`.opt-out/<id8>`) is never read. The cap is applied
whenever the branch holds more live instincts than it (a merge of two clones' can bring
100): by the next learning commit, even one that learns nothing new. A file learning
cannot read (malformed, or a newer enf-git's) is left exactly as it is.

`git config enf.instincts false` turns learning and the SessionStart block off (the
records stay on the branch).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ... import fastjson, paths
from ...errors import EnfError
from ...plumbing import atomic, events, locks, store, store_write
from ...pure import fixes, instincts as pi
from .instinct_block import Loaded, enabled, load  # noqa: F401 - re-exported: callers name load here
from ..record.working_set import materialize
from ..workspace import Context, require_branch

if TYPE_CHECKING:  # the merge rule protocol, for the rule this module adds
    from ..record.merge_rules import Plan, Sides

OFFSET_SUFFIX = ".instincts"
LOCK_NAME = ".instincts.lock"
LOCK_WAIT = 5.0  # seconds; another learner holding it does the same work
MAX_SCAN = 256 << 10  # bytes of an event log a fix is looked for in: ~2,000 tool calls after the failure


class UnknownInstinct(EnfError):
    """`forget` named no instinct: a usage error at the CLI (exit 2)."""


def author(ctx: Context) -> str:
    """Who learned it: the identity its commit carries (GIT_AUTHOR_*, else user.name, user.email)."""
    sig = store_write.signature(ctx.repo, env=ctx.ident)
    return f"{sig.name} <{sig.email}>"


InstinctChange = Callable[[Loaded], dict[str, bytes | None]]


def _commit(ctx: Context, change: InstinctChange, message: str, now: int | None) -> store_write.CommitResult | None:
    """Commit `change(instincts at the tip)`; None if it changed nothing. `change` runs again
    on every retry against the tip of that moment, so a teammate's instinct is never lost,
    and a file that tip holds but cannot be read is never written over or deleted."""
    require_branch(ctx)

    def build(tip: store.Commit | None) -> dict[str, bytes | None]:
        loaded = load(ctx.repo, tip)
        return {path: data for path, data in change(loaded).items() if path not in loaded.unreadable}

    with ctx.lock():
        result = store_write.commit(ctx.repo, build, message, when=now, env=ctx.ident)
        if result is not None:
            from .. import flags

            flags.note(ctx.repo, result.blobs)
            materialize(ctx)  # the working copy's instincts/ follows the branch
    return result


# --- learning ------------------------------------------------------------------------------

class Learning:  # a plain class: see workspace.Settings
    def __init__(self, learned: pi.Learned, commit: str | None) -> None:
        self.learned = learned
        self.commit = commit


def learn(ctx: Context, now: int | None = None) -> Learning | None:
    """Learn the fixes in this working copy's event logs since the last time, as one
    commit; None when learning is off, another learner holds the lock, or nothing is new."""
    if not enabled(ctx.repo) or store.tip(ctx.repo) is None:
        return None
    raw = ctx.root / paths.RAW_DIR
    spool = store.state_dir(ctx.repo) / paths.SPOOL_DIR
    if not raw.is_dir():
        return None
    spool.mkdir(parents=True, exist_ok=True)
    with locks.file_lock(spool / LOCK_NAME, LOCK_WAIT) as taken:
        if not taken:
            return None
        found, states = _new_fixes(raw, spool, str(ctx.top), str(ctx.root))
        done = _learn_fixes(ctx, found, now) if found or _maybe_over_cap(ctx) else None
        for name, (read, start) in states.items():  # after the commit: a failed one is retried next time
            atomic.write(spool / (name + OFFSET_SUFFIX), f"{read} {start}".encode("ascii"))
    return done


def _maybe_over_cap(ctx: Context) -> bool:
    """More instinct files than the cap at the tip (a merge of two clones' can do it), so
    the live ones may be too: learning then applies the cap though nothing is new. Counting
    the folder's entries costs no parse, at every checkpoint."""
    tip = store.tip(ctx.repo)
    entries = store.folder_entries(ctx.repo, tip.tree if tip is not None else None, pi.INSTINCTS_DIR)
    return sum(1 for name, _oid, _kind in entries if name.endswith(".md")) > pi.CAP


def _new_fixes(raw: Path, spool: Path, top: str, root: str) -> tuple[list[fixes.Fix], dict[str, tuple[int, int]]]:
    """The fixes whose working call was logged since each log was last read, and each log's
    new state: (how far it was read, where the next read starts: its oldest failure not
    fixed yet, since nothing before that can be part of a fix). The log of a session that
    opted out (`.opt-out/<id8>` in the working copy `root`) is not read at all."""
    found: list[fixes.Fix] = []
    states: dict[str, tuple[int, int]] = {}
    for name in sorted(os.listdir(raw)):
        if not name.endswith(".jsonl") or events.opted_out(root, name[: -len(".jsonl")]):
            continue
        try:
            size = (raw / name).stat().st_size
        except OSError:
            continue
        read, start = _state(spool / (name + OFFSET_SUFFIX))
        if read > size:
            read = start = 0  # the log was started again (its working copy was restored): read it afresh
        if size == read:
            continue
        begin = max(start, size - MAX_SCAN)  # a failure older than that is not waited for any longer
        rows, whole = _rows(raw / name, begin, size, partial=begin != start)
        calls = [call for call, _at, _end in rows]
        new_from = next((n for n, (_c, _at, line_end) in enumerate(rows) if line_end > read), len(rows))
        got, pending = fixes.scan(calls, top=top, new_from=new_from)
        found += got
        states[name] = (whole, rows[pending][1] if pending is not None else whole)
    return found, states


def _state(path: Path) -> tuple[int, int]:
    """(how far a log was read, where its next read starts); (0, 0) for a log never read."""
    try:
        parts = [int(p) for p in path.read_text(encoding="ascii").split()]
    except (OSError, ValueError):
        return 0, 0
    read = parts[0] if parts else 0
    return read, min(parts[1], read) if len(parts) > 1 else 0


def _rows(path: Path, begin: int, size: int, partial: bool) -> tuple[list[tuple[fixes.Call, int, int]], int]:
    """(each tool call logged in [begin, size) with the offsets its line starts and ends at,
    the offset after the last whole line). `partial`: `begin` may fall inside a line, which
    is skipped. A stretch without a failure is not parsed: nothing in it can be a fix."""
    try:
        with open(path, "rb") as f:
            f.seek(begin)
            data = f.read(size - begin)
    except OSError:
        return [], begin
    whole = data.rfind(b"\n") + 1  # a line still being written waits for next time
    if b'"tool-failure"' not in data[:whole]:
        return [], begin + whole
    out: list[tuple[fixes.Call, int, int]] = []
    at = begin
    for n, line in enumerate(data[:whole].splitlines(keepends=True)):
        at += len(line)
        if (partial and n == 0) or b'"tool' not in line:
            continue
        try:
            record = fastjson.loads(line.decode("utf-8", "replace"))
        except ValueError:
            continue
        call = fixes.call_of(record) if isinstance(record, dict) else None
        if call is not None:
            out.append((call, at - len(line), at))
    return out, begin + whole


def _learn_fixes(ctx: Context, found: list[fixes.Fix], now: int | None) -> Learning | None:
    who = author(ctx)
    loaded = load(ctx.repo, store.tip(ctx.repo))
    probe = pi.learn(loaded.instincts, found, who, blocked=loaded.blocked)
    if probe.empty:
        return None  # the common case: lessons already counted for these sessions

    def change(current: Loaded) -> dict[str, bytes | None]:
        return pi.learn(current.instincts, found, who, blocked=current.blocked).changes()

    result = _commit(ctx, change, learn_message(probe), now)
    return Learning(probe, result.oid if result else None)


def learn_message(learned: pi.Learned) -> str:
    """`enf: instincts: learned 1, corroborated 1, dropped 1`, then one line per instinct."""
    counts = [f"{what} {len(ids)}" for what, ids in (("learned", learned.new), ("corroborated", learned.corroborated),
                                                     ("dropped", learned.dropped)) if ids]
    lines = [f"+ {i}: {learned.written[i].rule}" for i in learned.new]
    lines += [f"= {i} ({len(learned.written[i].sessions)} sessions): {learned.written[i].rule}"
              for i in learned.corroborated]
    if learned.dropped:
        lines += [f"Dropped at the cap of {pi.CAP} live instincts, least corroborated first (history keeps them):"]
        lines += [f"- {i.id} ({len(i.sessions)} sessions): {i.rule}" for i in learned.dropped]
    return f"enf: instincts: {', '.join(counts)}\n\n" + "\n".join(lines) + "\n"


# --- listing and forgetting ------------------------------------------------------------------

class Listing:  # a plain class: see workspace.Settings
    def __init__(self, instincts: list[pi.Instinct], problems: list[str], on: bool, forgotten: int = 0) -> None:
        self.instincts = instincts  # most corroborated first; forgotten ones last
        self.problems = problems
        self.enabled = on
        self.forgotten = forgotten  # how many the branch holds as forgotten (listed or not)


def list_instincts(ctx: Context, include_forgotten: bool = False) -> Listing:
    tip = require_branch(ctx)
    loaded = load(ctx.repo, tip)
    found = pi.ranked(i for i in loaded.instincts.values() if i.live)
    gone = sorted((i for i in loaded.instincts.values() if not i.live), key=lambda i: i.id)
    if include_forgotten:
        found += gone
    return Listing(found, loaded.problems, enabled(ctx.repo), len(gone))


class Forgot:  # a plain class: see workspace.Settings
    def __init__(self, instinct: pi.Instinct, commit: str | None, already: bool) -> None:
        self.instinct = instinct
        self.commit = commit
        self.already = already  # it was forgotten before: nothing committed


def forget(ctx: Context, ident: str, now: int | None = None) -> Forgot:
    """Forget the instinct ID (or a unique prefix of it): it leaves the context and is not
    learned again. The file stays as a tombstone; its history stays in git."""
    tip = require_branch(ctx)
    found = find(load(ctx.repo, tip), ident)
    if found.forgotten:
        return Forgot(found, None, True)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() if now is None else now))

    def change(current: Loaded) -> dict[str, bytes | None]:
        there = current.instincts.get(found.id)
        if there is None or there.forgotten:
            return {}
        return {there.path: pi.instinct_bytes(replace(there, forgotten=stamp))}

    result = _commit(ctx, change, f"enf: instincts: forget {found.id}\n\n{found.rule}\n", now)
    return Forgot(found, result.oid if result else None, False)


def find(loaded: Loaded, ident: str) -> pi.Instinct:
    """The instinct `ident` names: its id, or a unique prefix of one. One whose file cannot
    be read is named as such (with that file's own error), not as unknown."""
    key = ident.strip().lower()
    instincts = loaded.instincts
    if key in instincts:
        return instincts[key]
    hits = [i for k, i in sorted(instincts.items()) if key and k.startswith(key)]
    if len(hits) == 1:
        return hits[0]
    if hits:
        raise UnknownInstinct(f"{ident!r} matches {len(hits)} instincts: {', '.join(i.id for i in hits[:5])}",
                              hint="give more of the id (git enf instincts lists them)")
    unreadable = [exc for path, exc in sorted(loaded.unreadable.items())
                  if key and path.rsplit("/", 1)[-1].startswith(key)]
    if unreadable:
        raise EnfError(f"cannot forget {ident!r}: {unreadable[0].message}; the file is left as it is",
                       hint=unreadable[0].hint)
    raise UnknownInstinct(f"no instinct has the id {ident!r}", hint="git enf instincts lists them, with their ids")


# --- SessionStart and sharing ------------------------------------------------------------------

def is_instinct(path: str) -> bool:
    """Where `union_rule` applies (sync_merge's RULES matcher)."""
    return pi.is_instinct_path(path)


def union_rule(sides: Sides, plan: Plan) -> None:
    """sync_merge's rule for instincts: two versions of one instinct merge as their union
    (sessions, authors, first and last seen; forgotten if either forgot it). A deletion
    (the cap) against an edit, or a file that does not parse, is the default three-way."""
    from ..record.merge_rules import three_way

    if sides.ours is None or sides.theirs is None:
        three_way(sides, plan)
        return
    try:
        ours = pi.parse_instinct(sides.path, sides.read(sides.ours))
        theirs = pi.parse_instinct(sides.path, sides.read(sides.theirs))
    except EnfError:
        three_way(sides, plan)
        return
    merged = pi.instinct_bytes(pi.union(ours, theirs))
    if store.hash_bytes(merged) != sides.ours:
        plan.changes[sides.path] = merged
