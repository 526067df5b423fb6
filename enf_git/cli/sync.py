"""`git enf sync [REMOTE]`: fetch, merge and push memory with its remote."""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING

import click

from .base import CONTEXT, JSON_OPTION, workspace
from .sync_text import lines as _lines
from .sync_text import payload as _payload
from .text import envelope

if TYPE_CHECKING:
    from ..memory.flags import Flagged


@click.command(context_settings=CONTEXT)
@click.argument("remote", required=False)
@click.option("--dry-run", is_flag=True, help="Show what would be fetched and pushed; change nothing.")
@click.option("--allow", "allow_secrets", is_flag=True,
              help="Push even though git enf scan found secret-shaped text (after you reviewed it).")
@JSON_OPTION
def sync(remote: str | None, dry_run: bool, allow_secrets: bool, as_json: bool) -> None:
    """Share memory with its remote (enf.remote, or REMOTE): fetch, merge, push; never forced."""
    from ..memory.share import sync as sync_mod

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


@click.command(context_settings=CONTEXT)
@JSON_OPTION
def scan(as_json: bool) -> None:
    """Look for secret-shaped text in every version on claude-memory, and for records at its tip that read as
    instructions to the assistant (exit 1 on a finding)."""
    from ..memory import flags
    from ..memory.record import scan as scan_mod
    from ..plumbing import store

    ctx = workspace()
    findings = scan_mod.scan(ctx)
    tip = store.tip(ctx.repo)
    flagged = flags.flagged(ctx.repo, tip.tree if tip is not None else None)
    if as_json:
        click.echo(envelope("scan", findings=[f.as_dict() for f in findings], flagged=[f.as_dict() for f in flagged]))
    else:
        for f in findings:
            click.echo(f"{f.path} in {f.commit[:12]}: {f.spans} span{'s' if f.spans != 1 else ''} that look like "
                       f"secrets (git show {f.commit[:12]}:{f.path})")
        if not findings:
            click.echo("nothing in claude-memory's history looks like a secret")
        for line in _flagged_lines(flagged):
            click.echo(line)
    if findings or flagged:
        sys.exit(1)


def _flagged_lines(flagged: list[Flagged]) -> list[str]:
    """Each flagged line with its place and why; the line itself escaped (control and
    invisible characters as \\u…) and cut, so printing it is safe and shows what hid it."""
    from ..memory import flags
    from ..pure import suspicious

    if not flagged:
        return ["nothing at claude-memory's tip reads as instructions to the assistant"]
    out = [f"{flags.summary(len(flags.flagged_paths(flagged)))} (shown to it marked \"{suspicious.MARK}\"):"]
    out += [f"{f.path}:{f.line}: {', '.join(f.reasons)}: {suspicious.shown(f.text.strip())}" for f in flagged]
    return out


COMMANDS = (sync, scan)
