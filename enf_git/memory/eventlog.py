"""Flushing the raw hook events (`raw/<session>.jsonl`, local only) into `log.md`,
the append-only record on the branch, at each commit point."""

from __future__ import annotations

import os
from pathlib import Path

from .. import paths
from ..plumbing import events, locks

SPOOL_LOCK_WAIT = 10.0  # seconds; a flush is a few small appends


def flush(root: str, state: str) -> int:
    """Append not-yet-flushed events of every local session to log.md; returns lines added."""
    spool = os.path.join(state, paths.SPOOL_DIR)
    raw_dir = os.path.join(root, paths.RAW_DIR)
    if not os.path.isdir(raw_dir):
        return 0
    os.makedirs(spool, exist_ok=True)
    added: list[str] = []
    with locks.file_lock(Path(spool) / ".lock", SPOOL_LOCK_WAIT) as taken:
        if not taken:
            return 0  # another flush is running; its lines are the same ones
        offsets: dict[str, int] = {}
        for name in sorted(os.listdir(raw_dir)):
            if not name.endswith(".jsonl"):
                continue
            found, offset = events.unflushed(root, spool, name)
            if not _opted_out(root, name):  # "don't track this session": none of it reaches the branch
                added += [line for line in (events.log_line(r) for r in found) if line]
            offsets[name] = offset
        if added:
            with open(os.path.join(root, paths.LOG), "a", encoding="utf-8") as f:
                f.write("".join(f"{line}\n" for line in sorted(added)))
        for name, offset in offsets.items():
            events.save_offset(spool, name, offset)
    return len(added)



def _opted_out(root: str, raw_name: str) -> bool:
    """Whether the session of raw/<raw_name> opted out (`.opt-out/<id8>`): its first prompt
    is logged before the assistant can write the marker, so the flush checks again."""
    return events.opted_out(root, raw_name[: -len(".jsonl")])
