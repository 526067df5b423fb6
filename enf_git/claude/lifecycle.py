"""The heavy hooks: SessionStart (materialize + inject context), Stop and PreCompact
(flush the event log into log.md and commit), SessionEnd (hand the commit to a
detached process, since Claude Code gives SessionEnd hooks ~1.5 s in total).

PreCompact output never reaches the model (measured), so the "update your session
file now" request is delivered by the SessionStart that follows with source=compact.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from ..pure import briefing as context, model, render

from ..plumbing import events, store

from . import gate

from ..memory import ops as memory, records
from ..errors import EnfError
from ..hook import LAUNCH, Where, reply, session_of


def handle(event: str, where: Where, payload: dict[str, object]) -> str:
    sid = session_of(payload)
    if event == "SessionStart":
        return session_start(where, payload, sid)
    if not os.path.isdir(where.root):
        return ""
    if event == "Stop":
        events.append(where.root, sid, "stop")
        checkpoint(where, f"enf: stop {sid[:8]}")
    elif event == "PreCompact":
        trigger = payload.get("trigger")
        events.append(where.root, sid, "compact", trigger=trigger if isinstance(trigger, str) else "")
        checkpoint(where, f"enf: pre-compact {sid[:8]}")
    elif event == "SessionEnd":
        reason = payload.get("reason")
        events.append(where.root, sid, "session-end", reason=reason if isinstance(reason, str) else "")
        spawn_background_commit(where.top)
    return ""


def session_start(where: Where, payload: dict[str, object], sid: str) -> str:
    ctx = memory.Context.open(where.top)
    if not _autoinit_allowed(ctx):
        return ""
    memory.init(ctx)  # idempotent: branch, exclude entry, folders, materialize
    source = payload.get("source") if isinstance(payload.get("source"), str) else "startup"
    if sid:
        events.append(where.root, sid, "session-start", source=str(source))
    # Whatever an earlier session left uncommitted (it crashed, or SessionEnd ran out of
    # time) is committed first, so the context below and teammates both see it.
    flush_events(where)
    memory.commit(ctx, f"enf: session start {sid[:8]}")
    tip = memory.require_branch(ctx)
    recs = records.load(ctx.repo, tip.tree, ctx.cache())
    sessions = _with_sections(ctx, render.newest_first(recs.all_sessions()))
    ledger = render.build_ledger(recs.all_sessions(), recs.extra_decisions())
    today, yesterday = gate.days()
    own = gate.matching_file(where.root, sid) if sid else None
    situation = context.Situation(
        project=memory.project_of(ctx.repo, tip.tree, {}), session_id=gate.id8(sid), today=today,
        yesterday=yesterday, source=str(source),
        own_file=os.path.relpath(own, where.top) if own else None, opted_out=bool(sid) and gate.opted_out(where.root, sid))
    text = context.build(situation, sessions, ledger)
    return reply("SessionStart", additionalContext=text)


def _autoinit_allowed(ctx: memory.Context) -> bool:
    try:
        return str(ctx.repo.config["enf.autoinit"]).lower() not in ("false", "no", "off", "0")
    except KeyError:
        return True


def _with_sections(ctx: memory.Context, sessions: list[model.Session]) -> list[model.Session]:
    """The cache drops section text; re-read the few sessions whose open items we show."""
    out = []
    for i, s in enumerate(sessions):
        if i < context.DETAILED + 1:
            try:
                s = model.parse_session(s.path, (ctx.root / s.path).read_bytes())
            except (OSError, EnfError):
                pass
        out.append(s)
    return out


def checkpoint(where: Where, message: str) -> memory.Report | None:
    """Flush event logs into log.md, then commit the working copy."""
    ctx = memory.Context.open(where.top)
    if store.tip(ctx.repo) is None:
        return None
    flush_events(where)
    return memory.commit(ctx, message)


def flush_events(where: Where) -> int:
    """Append not-yet-flushed events of every local session to log.md; returns lines added."""
    spool = os.path.join(where.state, "spool")
    raw_dir = os.path.join(where.root, "raw")
    added: list[str] = []
    with _lock(spool):
        offsets: dict[str, int] = {}
        for name in sorted(os.listdir(raw_dir)) if os.path.isdir(raw_dir) else []:
            if not name.endswith(".jsonl"):
                continue
            records, offset = events.unflushed(where.root, spool, name)
            added += [line for line in (events.log_line(r) for r in records) if line]
            offsets[name] = offset
        if added:
            log = os.path.join(where.root, memory.LOG)
            with open(log, "a", encoding="utf-8") as f:
                f.write("".join(f"{line}\n" for line in sorted(added)))
        for name, offset in offsets.items():
            events.save_offset(spool, name, offset)
    return len(added)


@contextmanager
def _lock(folder: str) -> Iterator[None]:
    os.makedirs(folder, exist_ok=True)
    try:
        import fcntl
    except ImportError:
        yield
        return
    fd = os.open(os.path.join(folder, ".lock"), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def spawn_background_commit(top: str) -> None:
    """Commit after the hook returns: SessionEnd's budget is too short to wait for git."""
    subprocess.Popen(
        [sys.executable, "-c", LAUNCH, "background-commit", top],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True, close_fds=True,
    )


def background_commit(top: str) -> None:
    found = store.open_repo(top)
    where = Where(top, str(store.common_dir(found)))
    if os.path.isdir(where.root):
        checkpoint(where, "enf: session end")
