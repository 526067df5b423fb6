"""`git enf sync [REMOTE]`: fetch, merge and push memory with its remote."""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING

import click

from .base import CONTEXT, JSON_OPTION, workspace
from .text import envelope

if TYPE_CHECKING:  # the sync machinery is imported only when the command runs
    from ..memory.sync import Synced


@click.command(context_settings=CONTEXT)
@click.argument("remote", required=False)
@click.option("--dry-run", is_flag=True, help="Show what would be fetched and pushed; change nothing.")
@click.option("--allow", "allow_secrets", is_flag=True,
              help="Push even though git enf scan found secret-shaped text (after you reviewed it).")
@JSON_OPTION
def sync(remote: str | None, dry_run: bool, allow_secrets: bool, as_json: bool) -> None:
    """Share memory with its remote (enf.remote, or REMOTE): fetch, merge, push; never forced."""
    from ..memory import sync as sync_mod

    progress = sys.stderr if sys.stderr.isatty() and not as_json else None
    done = sync_mod.sync(workspace(), remote, dry_run=dry_run, now=int(time.time()), progress=progress,
                         allow_secrets=allow_secrets)
    if as_json:
        click.echo(envelope("sync", **_payload(done)))
    else:
        for line in _lines(done):
            click.echo(line)
    if not done.ok:
        sys.exit(1)


def _payload(done: Synced) -> dict[str, object]:
    plan = done.plan
    return {
        "remote": done.remote, "ok": done.ok, "dry_run": plan is not None, "rounds": done.rounds,
        "fetched": done.fetched.outcome.value if done.fetched else None,
        "merged": [m.outcome for m in done.merges],
        "conflicts": [{"path": p, "copy": c} for m in done.merges for p, c in m.conflicts],
        "pushed": done.pushed.outcome.value if done.pushed else None,
        "plan": None if plan is None else {"fetch": plan.fetch, "push": plan.push, "ahead": plan.ahead,
                                           "behind": plan.behind, "remote": plan.remote.state.value},
        "messages": done.messages,
    }


def _lines(done: Synced) -> list[str]:
    if done.plan is not None:
        p = done.plan
        return [f"{done.remote}: claude-memory {p.remote.state.value}; would fetch: {p.fetch}; would push: {p.push}"
                + (f" ({p.ahead} ahead, {p.behind} behind)" if p.ahead is not None and p.behind is not None else "")]
    lines = []
    for m in done.merges:
        if m.outcome == "fast-forward":
            lines.append(f"fast-forwarded claude-memory to {done.remote}'s ({m.tip[:12]})")
        elif m.outcome == "merged":
            lines.append(f"merged {done.remote}'s memory into claude-memory ({m.tip[:12]})")
        lines += [f"conflict: {path} changed on both sides; both kept, the other version is at {copy}"
                  for path, copy in m.conflicts]
    return lines + done.messages


@click.command(context_settings=CONTEXT)
@JSON_OPTION
def scan(as_json: bool) -> None:
    """Look for secret-shaped text in every version on claude-memory (exit 1 on a finding)."""
    from ..memory import scan as scan_mod

    findings = scan_mod.scan(workspace())
    if as_json:
        click.echo(envelope("scan", findings=[f.as_dict() for f in findings]))
    else:
        for f in findings:
            click.echo(f"{f.path} in {f.commit[:12]}: {f.spans} span{'s' if f.spans != 1 else ''} that look like "
                       f"secrets (git show {f.commit[:12]}:{f.path})")
        if not findings:
            click.echo("nothing in claude-memory's history looks like a secret")
    if findings:
        sys.exit(1)


COMMANDS = (sync, scan)
