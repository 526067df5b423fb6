"""`git enf compress`: the compression tiers, by hand (SessionStart runs one tier itself)."""

from __future__ import annotations

import datetime as dt
import sys
import time
from typing import TYPE_CHECKING

import click

from .base import CONTEXT, JSON_OPTION, emit, parse_date, workspace
from .text import envelope, plural

if TYPE_CHECKING:  # the compression machinery is imported only when the command runs
    from ..memory.lifecycle.compress import Compression


@click.command(context_settings=CONTEXT)
@click.argument("names", nargs=-1, metavar="[NAME]...")
@click.option("--dry-run", is_flag=True, help="List the sessions, their tier and bytes before and after; change nothing.")
@click.option("--tier", type=click.Choice(["fold", "warm", "cold"]),
              help="Only this tier (with NAMEs: compress them to it, whatever their age).")
@click.option("--as-of", "as_of", metavar="DATE",
              help="Judge ages on this day (YYYY-MM-DD, yesterday, or 7d, 2w, 3m before today; default: today, UTC).")
@click.option("-n", "--limit", type=click.IntRange(min=1), help="Compress at most this many sessions.")
@JSON_OPTION
def compress(names: tuple[str, ...], dry_run: bool, tier: str | None, as_of: str | None, limit: int | None,
             as_json: bool) -> None:
    """Compress older sessions (cold, then warm, then long ones folded), one commit each."""
    from ..memory.lifecycle import compress as compress_mod

    now = int(time.time())
    today = compress_mod.as_of_day(now)
    day = dt.date.fromisoformat(parse_date(as_of, "--as-of", today) or today.isoformat())
    ctx = workspace()
    done = compress_mod.compress(ctx, day, tier=tier, names=names, dry_run=dry_run, limit=limit, now=now)
    if as_json:
        click.echo(envelope("compress", as_of=day.isoformat(), dry_run=dry_run,
                            sessions=[s.as_dict() for s in done.steps]))
    else:
        emit(ctx, "\n".join(_lines(done)))
    if names and not done.done:
        sys.exit(1)  # asked for these sessions by name, and none could be compressed


def _lines(done: Compression) -> list[str]:
    verb = "would compress" if done.dry_run else "compressed"
    lines = []
    for s in done.steps:
        if s.skipped:
            lines.append(f"skipped {s.stem}: {s.skipped}")
            continue
        where = f"  [{s.commit[:12]}]" if s.commit else ""
        lines.append(f"{verb} ({s.tier}) {s.stem}: {s.before:,} -> {s.after:,} bytes{where}")
    saved = sum(s.before - s.after for s in done.done)
    if done.done:
        lines.append(f"{plural(len(done.done), 'session')}, {saved:,} bytes smaller as of {done.as_of.isoformat()}"
                     + ("" if done.dry_run else "; the full texts stay in history (git enf show NAME --full)"))
    elif not lines:
        lines.append(f"nothing to compress as of {done.as_of.isoformat()}")
    return lines


COMMANDS = (compress,)
