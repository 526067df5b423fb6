"""`git enf instincts [list|forget ID]`: rules learned from tool calls that failed and
were then fixed in the same session (seed 002), shared on the claude-memory branch."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from .base import CONTEXT, JSON_OPTION, emit, workspace
from .text import envelope, plural

if TYPE_CHECKING:  # the instincts machinery is imported only when an instincts command runs
    from ..memory.lifecycle.instincts import Listing

ALL_OPTION = click.option("--all", "include_forgotten", is_flag=True, help="Also list the forgotten ones.")


@click.group(name="instincts", context_settings=CONTEXT, invoke_without_command=True)
@ALL_OPTION
@JSON_OPTION
@click.pass_context
def instincts_(ctx: click.Context, include_forgotten: bool, as_json: bool) -> None:
    """Rules learned from failed tool calls that a later call fixed (git enf instincts = list)."""
    if ctx.invoked_subcommand is None:
        _list(include_forgotten, as_json)


@instincts_.command(name="list", context_settings=CONTEXT)
@ALL_OPTION
@JSON_OPTION
def list_(include_forgotten: bool, as_json: bool) -> None:
    """List the instincts, most corroborated (sessions, then people) first."""
    _list(include_forgotten, as_json)


def _list(include_forgotten: bool, as_json: bool) -> None:
    from ..memory.lifecycle import instincts as learning

    ctx = workspace()
    listing = learning.list_instincts(ctx, include_forgotten)
    for line in listing.problems:
        click.echo(f"warning: {line} (left out)", err=True)
    if as_json:
        click.echo(envelope("instincts", instincts=[i.as_dict() for i in listing.instincts], enabled=listing.enabled,
                            problems=listing.problems, forgotten=listing.forgotten))
        return
    emit(ctx, "\n".join(_lines(listing, include_forgotten)), pageable=True)


def _lines(listing: Listing, include_forgotten: bool = False) -> list[str]:
    lines = [] if listing.enabled else ["instincts are off (git config enf.instincts false): none are learned or "
                                        "offered; git config --unset enf.instincts turns them on"]
    hidden = 0 if include_forgotten else listing.forgotten
    if not listing.instincts and hidden:
        return lines + [f"no instincts in use: {plural(hidden, 'instinct')} forgotten "
                        "(git enf instincts --all lists them)"]
    if not listing.instincts:
        return lines + ["no instincts yet: they are learned when a tool call fails and a later, similar call "
                        "in the same session works"]
    for i in listing.instincts:
        sessions, authors = i.corroboration()
        people = f"{authors} {'person' if authors == 1 else 'people'}"
        state = f"forgotten {i.forgotten}" if i.forgotten else f"{plural(sessions, 'session')}, {people}"
        lines.append(f"{i.id}  {i.rule}")
        lines.append(f"           {state}; first seen {i.first_seen}, last seen {i.last_seen}")
    if hidden:
        lines.append(f"({plural(hidden, 'forgotten instinct')} not listed: git enf instincts --all)")
    return lines


@instincts_.command(context_settings=CONTEXT)
@click.argument("ident", metavar="ID")
@JSON_OPTION
def forget(ident: str, as_json: bool) -> None:
    """Forget the instinct ID (or a unique prefix): out of the context, and never learned again."""
    from ..memory.lifecycle import instincts as learning

    ctx = workspace()
    done = learning.forget(ctx, ident)  # UnknownInstinct: exit 1 with its hint, as `show nosuch`
    if as_json:
        click.echo(envelope("instincts forget", instinct=done.instinct.as_dict(), commit=done.commit,
                            already=done.already))
        return
    if done.already:
        click.echo(f"already forgotten ({done.instinct.forgotten}): {done.instinct.id}")
        return
    where = f"  [{done.commit[:12]}]" if done.commit else ""
    click.echo(f"forgotten: {done.instinct.id} {done.instinct.rule}{where}")


COMMANDS = (instincts_,)
