"""`git enf pin`, `git enf unpin`, `git enf pins`: sessions kept whole and offered at
every SessionStart (seed 001's permanent and temporary-priority tiers)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from .base import CONTEXT, JSON_OPTION, emit, workspace
from .text import envelope, plural

if TYPE_CHECKING:  # the pins machinery is imported only when a pin command runs
    from ..memory.lifecycle.pins import Listing


@click.command(context_settings=CONTEXT)
@click.argument("name")
@click.option("--temporary", is_flag=True,
              help="Priority only while it is asked about (\"do you remember this\"): released after "
                   "enf.pinRelease sessions (default 10) without it.")
@click.option("--force", is_flag=True, help="Pin a session that looks like a one-off (no decisions, no open items).")
@JSON_OPTION
def pin(name: str, temporary: bool, force: bool, as_json: bool) -> None:
    """Pin the session NAME (file name, stem, prefix or session id): never compressed, always in context."""
    from ..memory.lifecycle import pins as pinning

    ctx = workspace()
    done = pinning.pin(ctx, name, temporary=temporary, force=force)
    if as_json:
        click.echo(envelope("pin", pin=done.pin.as_dict(), action=done.action, commit=done.commit))
        return
    p = done.pin
    where = f"  [{done.commit[:12]}]" if done.commit else ""
    if done.action == "already":
        note = " (git enf unpin it first to make it temporary)" if temporary and p.kind == "permanent" else ""
        click.echo(f"already pinned ({p.kind}): {p.session}{note}")
    elif done.action == "upgraded":
        click.echo(f"pinned (permanent, was temporary): {p.session}{where}")
    elif done.action == "asked":
        click.echo(f"pinned again (temporary, last asked {p.last_asked}): {p.session}{where}")
    else:
        click.echo(f"pinned ({p.kind}): {p.session}{where}")


@click.command(context_settings=CONTEXT)
@click.argument("name")
@JSON_OPTION
def unpin(name: str, as_json: bool) -> None:
    """Unpin the session NAME: it goes back to its normal tier."""
    from ..memory.lifecycle import pins as pinning

    ctx = workspace()
    done = pinning.unpin(ctx, name)  # NotPinned: exit 1 with its hint, as `pin nosuch` and `show nosuch`
    if as_json:
        click.echo(envelope("unpin", pin=done.pin.as_dict(), commit=done.commit))
        return
    where = f"  [{done.commit[:12]}]" if done.commit else ""
    click.echo(f"unpinned ({done.pin.kind}): {done.pin.session}{where}")


@click.command(name="pins", context_settings=CONTEXT)
@JSON_OPTION
def pins_(as_json: bool) -> None:
    """List the pinned sessions, permanent first."""
    from ..memory.lifecycle import pins as pinning

    ctx = workspace()
    listing = pinning.list_pins(ctx)
    for line in listing.problems:
        click.echo(f"warning: {line} (left out)", err=True)
    if as_json:
        click.echo(envelope("pins", pins=[s.as_dict() for s in listing.statuses], release_after=listing.after,
                            problems=listing.problems))
        return
    emit(ctx, "\n".join(_lines(listing)), pageable=True)


def _lines(listing: Listing) -> list[str]:
    if not listing.statuses:
        return ["nothing pinned: git enf pin NAME (or --temporary)"]
    lines = []
    for s in listing.statuses:
        p = s.pin
        lines.append(f"{p.kind:<9}  {p.session}  {s.summary or '(no summary)'}")
        extra = f"pinned {p.date} by {p.author or 'someone'}"
        if s.since_asked is not None:
            extra += (f"; last asked {p.last_asked}, {plural(s.since_asked, 'session')} since "
                      f"(released at {listing.after})")
        if not s.on_branch:
            extra += "; its session is no longer on the branch"
        lines.append(f"           {extra}")
    return lines


COMMANDS = (pin, unpin, pins_)
