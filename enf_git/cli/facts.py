"""`git enf remember`, `git enf forget`, `git enf memories`: remembered facts (seed 003)."""

from __future__ import annotations

import os
import sys
import time
from typing import Any

import click

from ..memory.lifecycle import facts
from ..memory.workspace import Context
from .base import CONTEXT, JSON_OPTION, emit, workspace
from .text import envelope, plural

SCOPE_CHOICES = ("project", "user", "session")
SESSION_ENV = "CLAUDE_CODE_SESSION_ID"  # set by Claude Code for the tools it runs
# Fact text may hold words that look like options (`pytest -q`): they stay in the text.
FREE_TEXT = {**CONTEXT, "ignore_unknown_options": True}
SESSION_OPTION = click.option("--session", "session_id", metavar="ID",
                              help=f"The session whose facts to use (default: ${SESSION_ENV}).")


def _places(session_id: str | None) -> facts.Places:
    from ..memory.record import fact_stores

    return facts.Places(fact_stores.user_dir(os.environ), session_id or os.environ.get(SESSION_ENV, "").strip())


def _category(value: str | None) -> str | None:
    from ..pure import facts as pf

    if value is None:
        return None
    try:
        return pf.parse_category(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--category") from exc


def _warn(settings: facts.FactSettings, problems: list[str] | None = None) -> None:
    for line in [*settings.warnings, *(problems or [])]:
        click.echo(f"warning: {line}", err=True)


@click.command(context_settings=FREE_TEXT)
@click.argument("text", nargs=-1, required=True)
@click.option("--category", "-c", metavar="C",
              help="Decision, Gotcha, Pattern, Preference, Action Item or General (default: from keywords).")
@click.option("--scope", type=click.Choice(SCOPE_CHOICES), default="project", show_default=True,
              help="project: on the branch, shared; user: your config dir, all projects; session: this session only.")
@SESSION_OPTION
@JSON_OPTION
def remember(text: tuple[str, ...], category: str | None, scope: str, session_id: str | None, as_json: bool) -> None:
    """Remember TEXT (a decision, a gotcha, a preference…) for later sessions."""
    ctx = workspace()
    settings = facts.FactSettings.read(ctx.repo)
    _warn(settings)
    done = facts.remember(ctx, _places(session_id), " ".join(text), scope=scope, category=_category(category),
                          settings=settings)
    if as_json:
        click.echo(envelope("remember", fact=done.fact.as_dict(), existing=done.existing, commit=done.commit,
                            redacted=done.redacted))
        return
    fact = done.fact
    lasts = f"until {fact.expires}" if fact.expires else "with no expiry"
    verb = "already remembered" if done.existing else "remembered"
    click.echo(f"{verb} {fact.id} ({fact.scope} {fact.category.lower()}, {lasts}): {fact.text}")
    if done.redacted:
        click.echo(f"warning: {plural(done.redacted, 'secret')} redacted before it was stored", err=True)


@click.command(context_settings=FREE_TEXT)
@click.argument("query", nargs=-1, required=True)
@click.option("--scope", type=click.Choice(SCOPE_CHOICES), help="Only look in this scope.")
@click.option("--yes", "-y", is_flag=True, help="Forget every match, even several, or one found by a single word.")
@SESSION_OPTION
@JSON_OPTION
def forget(query: tuple[str, ...], scope: str | None, yes: bool, session_id: str | None, as_json: bool) -> None:
    """Forget the one fact QUERY names: its id (or a prefix), its text, or words of it."""
    from ..memory.lifecycle import forget as forgetting

    ctx = workspace()
    words = " ".join(query)
    try:
        done = [forgetting.forget(ctx, _places(session_id), words, scopes=(scope,) if scope else None, yes=yes)]
    except (forgetting.AmbiguousMatch, forgetting.WeakMatch) as exc:
        if yes:  # several matches, each of which the user said yes to
            done = forgetting.forget_all(exc.matches)
        elif as_json:
            click.echo(envelope("forget", forgotten=None, forgotten_all=[], commit=None,
                                matches=[m.as_dict() for m in exc.matches]))
            sys.exit(1)
        else:
            raise
    commits = [d.commit for d in done if d.commit]
    if as_json:
        click.echo(envelope("forget", forgotten=done[0].item.as_dict() if len(done) == 1 else None,
                            forgotten_all=[d.item.as_dict() for d in done], commit=commits[-1] if commits else None,
                            matches=[]))
        return
    for d in done:
        click.echo(f"forgot {d.item.describe()}")
    if commits:
        what = f"commit {commits[0][:12]}" if len(commits) == 1 else f"{len(commits)} commits, the last {commits[-1][:12]}"
        click.echo(f"  as {what}; the branch's history still holds {'it' if len(done) == 1 else 'them'} "
                   "(docs/lifecycle.md: Forgetting)")


@click.command(context_settings=CONTEXT)
@click.argument("action", type=click.Choice(("list", "prune", "export")), default="list")
@click.option("--scope", type=click.Choice(SCOPE_CHOICES), help="Only this scope (default: every one reachable).")
@click.option("--format", "fmt", type=click.Choice(("md", "json")), default="md", show_default=True,
              help="export: seed 003's markdown, or JSON.")
@SESSION_OPTION
@JSON_OPTION
def memories(action: str, scope: str | None, fmt: str, session_id: str | None, as_json: bool) -> None:
    """List remembered facts, prune expired and duplicate ones, or export them."""
    ctx = workspace()
    settings = facts.FactSettings.read(ctx.repo)
    places = _places(session_id)
    scopes = (scope,) if scope else None
    if action == "prune":
        _prune(ctx, places, scopes, settings, as_json)
        return
    listing = facts.list_facts(ctx, places, scopes, settings)
    _warn(settings, listing.problems)
    rows = [f.as_dict() for f in listing.all()]
    if action == "export":
        out = envelope("memories-export", facts=rows) if fmt == "json" or as_json else \
            facts.export_markdown(listing, facts.day_of(time.time()))
        click.echo(out.rstrip("\n"))
        return
    if as_json:
        click.echo(envelope("memories-list", facts=rows, problems=listing.problems))
        return
    emit(ctx, "\n".join(_list_lines(listing, facts.day_of(time.time()))), pageable=True)


def _list_lines(listing: facts.Listing, today: str) -> list[str]:
    lines: list[str] = []
    for scope, found in listing.by_scope.items():
        lines.append(f"{scope} ({plural(len(found), 'fact')})")
        for f in found:
            lasts = "expired" if f.expired(today) else f"until {f.expires}" if f.expires else "no expiry"
            lines.append(f"  {f.id}  {f.category:<11} {f.date}  {f.text}  [{lasts}]")
    return lines or ["nothing remembered yet: git enf remember TEXT"]


def _prune(ctx: Context, places: facts.Places, scopes: tuple[str, ...] | None, settings: facts.FactSettings,
           as_json: bool) -> None:
    done = facts.prune(ctx, places, scopes=scopes, settings=settings)
    rows: list[dict[str, Any]] = [{**f.as_dict(), "why": why} for f, why in done.removed]
    if as_json:
        click.echo(envelope("memories-prune", removed=rows, commit=done.commit))
        return
    for f, why in done.removed:
        click.echo(f"pruned {f.id} ({f.scope} {f.category.lower()}, {why}): {f.text}")
    if done.commit:
        click.echo(f"  as commit {done.commit[:12]}; the branch's history still holds them")
    if not done.removed:
        click.echo("nothing to prune: no expired or duplicate facts")


COMMANDS = (remember, forget, memories)
