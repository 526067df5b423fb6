"""What `git enf sync` prints (text lines, the --json payload): no click here, so the
console script's fast path for a plain sync (entry.py) prints exactly what the command does."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..memory.share.sync import Synced


def payload(done: Synced) -> dict[str, object]:
    plan = done.plan
    return {
        "remote": done.remote, "ok": done.ok, "dry_run": plan is not None, "rounds": done.rounds,
        "fetched": done.fetched.outcome.value if done.fetched else None,
        "merged": [m.outcome for m in done.merges],
        "conflicts": [{"path": n.path, "copy": n.saved, "in_place": "yours" if n.ours_in_place else "theirs",
                       "yours_by": n.ours_by, "theirs_by": n.theirs_by}
                      for m in done.merges for n in m.notes if n.saved is not None],
        "kept": [{"path": n.path, "deleted": "yours" if n.deleted_here else "theirs",
                  "yours_by": n.ours_by, "theirs_by": n.theirs_by}
                 for m in done.merges for n in m.notes if n.saved is None],
        "notes": [line for m in done.merges for line in m.lines()],  # what the text output says of them
        "pushed": done.pushed.outcome.value if done.pushed else None,
        "plan": None if plan is None else {"commit": done.would_commit, "fetch": plan.fetch, "push": plan.push,
                                           "ahead": plan.ahead, "behind": plan.behind,
                                           "remote": plan.remote.state.value},
        "messages": done.messages,
        "committed": _commit_lines(done),  # what sync's commit of the working copy said, as in the text
    }


def lines(done: Synced) -> list[str]:
    if done.plan is not None:
        return _plan_lines(done)
    lines = _commit_lines(done)
    for m in done.merges:
        if m.outcome == "fast-forward":
            lines.append(f"fast-forwarded claude-memory to {done.remote}'s ({m.tip[:12]})")
        elif m.outcome == "merged":
            lines.append(f"merged {done.remote}'s memory into claude-memory ({m.tip[:12]})")
        lines += m.lines()
    return lines + done.messages


def _commit_lines(done: Synced) -> list[str]:
    """What sync's own commit of the working copy has to say: its warnings, and the files
    it left in the working copy, kept apart or kept over a deletion (a file with a conflict
    marker waits there with this message). Not its summary line: sync's own lines say what
    moved."""
    if done.local is None:
        return []
    from ..memory.report import report_lines

    return [line for to_stderr, line in report_lines(done.local) if to_stderr]


def _plan_lines(done: Synced) -> list[str]:
    """--dry-run: the working copy's changes (committed first), then what would move."""
    p, first = done.plan, done.would_commit
    assert p is not None
    known = p.ahead is not None and p.behind is not None
    push = p.push
    if first:  # the commit sync makes first goes too, unless the remote cannot take memory
        push = "the commit above" if push == "nothing" else f"{push}, with the commit above"
    head = []
    if first:
        shown = ", ".join(first[:5]) + (f" and {len(first) - 5} more" if len(first) > 5 else "")
        head.append(f"would commit first: {len(first)} file{'s' if len(first) != 1 else ''} ({shown})")
    return head + [f"{done.remote}: claude-memory {p.remote.state.value}; would fetch: {p.fetch}; would push: {push}"
                   + (f" ({p.ahead} ahead, {p.behind} behind, before that commit)" if known and first else
                      f" ({p.ahead} ahead, {p.behind} behind)" if known else "")]
