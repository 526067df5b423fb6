"""The heavy hooks: SessionStart (settle, restore, inject context), Stop and
PreCompact (flush the event log into log.md and commit), SessionEnd (hand the commit
to a detached process, since Claude Code gives SessionEnd hooks ~1.5 s in total).

PreCompact output never reaches the model (measured), so the "update your session
file now" request is delivered by the SessionStart that follows with source=compact.
"""

from __future__ import annotations

import os
import time

from ... import memory, paths
from ...memory.context import toolsets as sessions
from ...memory import eventlog
from ...memory.context import handoff, pointer_refresh, startup
from ...memory.share import fetched
from ...memory.lifecycle import facts, instinct_block, pins
from ...memory.record import fact_stores
from ...plumbing import detached, events, session_head, signing, store
from ...pure import briefing, toolsets
from . import gate, toolset
from .protocol import Where, record_error, record_note, reply, session_of

def handle(event: str, where: Where, payload: dict[str, object]) -> str:
    sid = session_of(payload)
    if event == "SessionStart":
        return session_start(where, payload, sid)
    if event == "Stop":
        _log(where, sid, "stop")
        _note_toolset(where, sid, payload)
        _read_transcript(where, sid, payload)
        try:
            checkpoint(where, f"enf: stop {sid[:8]}")
        finally:  # the next session's handoff, whatever became of the commit
            _write_handoff(where, sid)
        spawn_background_index(memory.Context.open(where.top))
    elif event == "PreCompact":
        trigger = payload.get("trigger")
        _log(where, sid, "compact", trigger=trigger if isinstance(trigger, str) else "")
        _note_toolset(where, sid, payload)
        checkpoint(where, f"enf: pre-compact {sid[:8]}")
    elif event == "SessionEnd":
        reason = payload.get("reason")
        _log(where, sid, "session-end", reason=reason if isinstance(reason, str) else "")
        facts.drop_session_facts(where.state, gate.id8(sid))  # session facts end with their session
        spawn_background_commit(where.top)
    return ""


def _note_toolset(where: Where, sid: str, payload: dict[str, object]) -> None:
    """The session file's `toolset:` names the profile in force when it is not the default
    (or the file already names one): a switch before the file existed, a project default,
    a header the assistant rewrote. Never breaks the checkpoint."""
    try:
        own = gate.matching_file(where.root, sid) if sid and not gate.opted_out(where.root, sid) else None
        if own is None:
            return
        profile = sessions.active(toolset.places(where), sid, payload.get("permission_mode")).profile
        if profile.name != toolsets.DEFAULT or session_head.value(own, "toolset") is not None:
            session_head.set_value(own, "toolset", profile.name)
    except Exception as exc:  # noqa: BLE001 - the notes are committed whatever the header says
        record_error(where.state, "toolset frontmatter", exc)


def _toolset_block(where: Where, sid: str) -> str:
    """The profile this session works in, in one line (and what is wrong in toolsets files)."""
    try:
        return "## Toolset\n" + sessions.status_line(sessions.active(toolset.places(where), sid))
    except Exception as exc:  # noqa: BLE001 - the session starts whatever the profiles say
        record_error(where.state, "SessionStart toolset", exc)
        return ""


def _pins_block(ctx: memory.Context, now: int) -> str:
    """Pinned sessions for the context; releases temporary pins no longer asked about (a
    commit, announced in the block). A broken pin file leaves the rest of the context standing."""
    try:
        return pins.session_start_block(ctx, now)
    except Exception as exc:  # noqa: BLE001 - the session starts whatever the pins say
        record_error(str(store.state_dir(ctx.repo)), "SessionStart pins", exc)
        return ""


def _facts_block(ctx: memory.Context, sid: str, now: int) -> str:
    """Remembered facts for the context (pruning the expired ones, and saying so); a
    broken fact store leaves the rest of the context standing."""
    try:
        block, _pruned = facts.session_start_block(ctx, gate.id8(sid), now, fact_stores.user_dir(os.environ))
    except Exception as exc:  # noqa: BLE001 - the session starts whatever the facts say
        record_error(str(store.state_dir(ctx.repo)), "SessionStart facts", exc)
        return ""
    return block


def _instincts_block(ctx: memory.Context) -> str:
    """Learned instincts for the context; a broken instinct file leaves the rest standing."""
    try:
        return instinct_block.session_start_block(ctx)
    except Exception as exc:  # noqa: BLE001 - the session starts whatever the instincts say
        record_error(str(store.state_dir(ctx.repo)), "SessionStart instincts", exc)
        return ""


def _learn_instincts(ctx: memory.Context, where: Where) -> None:
    """Turn failures a later call fixed into instincts (their own commit); never breaks the checkpoint."""
    from ...memory.lifecycle import instincts  # the derivation: Stop and PreCompact only

    try:
        instincts.learn(ctx)
    except Exception as exc:  # noqa: BLE001 - the session's notes are committed whatever learning does
        record_error(where.state, "instincts", exc)


def _handoff_block(ctx: memory.Context, sid: str, now: int) -> str:
    """The last Stop's snapshot of this work tree (none of the starting session's own, on a
    resume or after a compaction); a broken one leaves the rest standing."""
    try:
        return handoff.session_start_block(ctx, now, gate.id8(sid))
    except Exception as exc:  # noqa: BLE001 - the session starts whatever the handoff says
        record_error(str(store.state_dir(ctx.repo)), "SessionStart handoff", exc)
        return ""


def _write_handoff(where: Where, sid: str) -> None:
    """Stop's snapshot for the next session in this work tree (none for a session that
    opted out of tracking); its failure is logged and never breaks Stop."""
    try:
        if sid and gate.opted_out(where.root, sid):
            return
        own = gate.matching_file(where.root, sid) if sid else None
        handoff.write(store.open_repo(where.top), gate.id8(sid), own, int(time.time()), os.environ)
    except Exception as exc:  # noqa: BLE001 - Stop goes on without a handoff
        record_error(where.state, "Stop handoff", exc)


def _log(where: Where, sid: str, kind: str, **fields: str) -> None:
    # Only into a working copy that exists: a vanished one is restored by the commit,
    # and its raw/ folder must not be recreated first (it would look like one).
    if os.path.isdir(where.root):
        events.append(where.root, sid, kind, **fields)


HOOK_CHANGES = 300  # changed paths a start reads of history for its authors (~0.1 s at 100,000 commits); the rest is the refresh's


def session_start(where: Where, payload: dict[str, object], sid: str) -> str:
    from ...memory.record import authors

    authors.bound_walks(HOOK_CHANGES)  # a fresh clone's whole history is the background refresh's
    ctx = memory.Context.open(where.top)
    if store.tip(ctx.repo) is None and not ctx.settings.autoinit:
        return ""
    source = payload.get("source") if isinstance(payload.get("source"), str) else "startup"
    eventlog.flush(str(ctx.root), where.state)
    now = int(time.time())
    prepared = startup.prepare(ctx, f"enf: session start {sid[:8]}", now=now, current=gate.id8(sid) or None)
    if sid:
        events.append(where.root, sid, "session-start", source=str(source))
    today, yesterday = gate.days()
    own = gate.matching_file(where.root, sid) if sid else None
    situation = briefing.Situation(
        project="", session_id=gate.id8(sid), today=today, yesterday=yesterday, source=str(source),
        own_file=os.path.relpath(own, where.top) if own else None, opted_out=bool(sid) and gate.opted_out(where.root, sid))
    # In order of what is cut first when together they outgrow their share of the
    # context (briefing.BLOCK_SHARE): the last ones.
    blocks = (_toolset_block(where, sid), _signing_block(ctx), _facts_block(ctx, sid, now), _handoff_block(ctx, sid, now), _pins_block(ctx, now),
              _instincts_block(ctx), prepared.compression_notice())
    text = startup.context_text(ctx, situation, blocks)
    if sid:
        _log_context_size(where, sid, str(source), text)
    fetched.start_background_fetch(ctx, os.environ)  # detached: what it brings is merged by the next session or git hook
    spawn_background_index(ctx)
    return reply("SessionStart", additionalContext=text)


def _log_context_size(where: Where, sid: str, source: str, text: str) -> None:
    """The context's size as its own footer states it, for `git enf stats` (memory's cost)."""
    found = briefing.stated_size(text)
    if found is not None:
        events.append(where.root, sid, "context", source=source, chars=found[0], tokens=found[1])


def _read_transcript(where: Where, sid: str, payload: dict[str, object]) -> None:
    """Fold what the transcript gained into this session's token totals (numbers only, in
    .git/enf/transcripts/); with enf.stats.share, into stats/<id8>.json for the branch too.
    Never breaks Stop: a transcript it cannot read costs its figures only."""
    from ...memory.context import transcripts

    path = payload.get("transcript_path")
    id8 = gate.id8(sid)
    if not isinstance(path, str) or not id8 or gate.opted_out(where.root, sid):
        return
    try:
        today = time.strftime("%Y-%m-%d", time.gmtime())
        totals = transcripts.update(where.state, id8, path, today)
        if totals is not None and _sharing_stats(where):
            transcripts.write_shared(where.root, id8, totals, today)
    except Exception as exc:  # noqa: BLE001 - Stop commits whatever the transcript holds
        record_error(where.state, "Stop transcript", exc)


def _sharing_stats(where: Where) -> bool:
    from ...memory.context import transcripts

    raw = store.config_value(store.open_repo(where.top), transcripts.SHARE_KEY) or ""
    return raw.strip().lower() in ("true", "yes", "on", "1")


def _signing_block(ctx: memory.Context) -> str:
    """Once, after a hook's commit failed at git's signing step: the person should know their
    memory is waiting in the working copy, and how to see why."""
    said = signing.tell_once(str(store.state_dir(ctx.repo)))
    if said is None:
        return ""
    return (f"## Memory not committed\n- {said} (commit.gpgSign is on): tell the user their notes wait in "
            f"{paths.WC_DIR}/ until a signed commit succeeds; `git enf commit` in a terminal shows why")


def checkpoint(where: Where, message: str) -> memory.Report | None:
    """Flush event logs into log.md, then commit the working copy (which restores a
    vanished one instead of deleting it). A failure at git's signing step keeps the files
    where they are, is logged once, and told at the next SessionStart."""
    ctx = memory.Context.open(where.top)
    if store.tip(ctx.repo) is None:
        return None
    _learn_instincts(ctx, where)
    eventlog.flush(str(ctx.root), where.state)
    try:
        return memory.commit(ctx, message, now=int(time.time()))
    except signing.SigningError as exc:
        if signing.note_failure(where.state, exc):
            record_note(where.state, message, f"memory not committed: {exc.message} (hint: {exc.hint})")
        return None


def spawn_background_commit(top: str) -> None:
    """Commit after the hook returns: SessionEnd's budget is too short to wait for git."""
    detached.start("background-commit", top)


def spawn_background_index(ctx: memory.Context) -> bool:
    """Refresh the recall index and the brain-first pointers file after the hook returns."""
    return pointer_refresh.start(ctx)


def background_index(top: str) -> None:
    pointer_refresh.run(top)


def background_fetch(top: str) -> None:
    fetched.background_fetch(top)


def background_commit(top: str) -> None:
    found = store.open_repo(top)
    checkpoint(Where(top, str(store.common_dir(found))), "enf: session end")
