"""`git enf …`: parse arguments, call memory/queries/search, render. No logic lives here.

Exit codes: 0 success, 1 an error we explain (EnfError), 2 a usage error (click).
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from .. import __version__
from ..errors import EnfError

F = TypeVar("F", bound=Callable[..., Any])
CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def boundary(fn: F) -> F:
    """The one place a core error becomes a message and an exit code."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except EnfError as exc:
            click.echo(f"error: {exc.message}", err=True)
            if exc.hint:
                click.echo(f"hint: {exc.hint}", err=True)
            sys.exit(1)

    return wrapper  # type: ignore[return-value]


def _ctx() -> Any:
    from ..memory.ops import Context

    return Context.open(Path.cwd())


@click.group(context_settings=CONTEXT)
@click.version_option(__version__, "-V", "--version", prog_name="git-enf")
def main() -> None:
    """enf-git: your assistant's memory, versioned on the claude-memory branch."""


@main.command()
@click.option("--scope", type=click.Choice(["project", "local", "user"]), default="local", show_default=True,
              help="Where to register the Claude Code hooks: local = .claude/settings.local.json (you, this "
                   "repo), project = .claude/settings.json (the team), user = ~/.claude/settings.json (all repos).")
@click.option("--no-hooks", is_flag=True, help="Only set up the branch and working copy.")
@boundary
def init(scope: str, no_hooks: bool) -> None:
    """Create the memory branch and .claude-sessions/, and register the hooks (idempotent)."""
    from ..memory import ops as memory

    ctx = _ctx()
    report = memory.init(ctx)
    for w in report.warnings:
        click.echo(w)
    state = "created" if report.commit else "ready"
    click.echo(f"claude-memory {state}; working copy in {ctx.root}")
    if not no_hooks:
        _install_hooks(ctx, scope)


def _install_hooks(ctx: Any, scope: str) -> None:
    from ..install import claude as install
    from ..plumbing import store, workcopy

    top = Path(ctx.repo.workdir)
    result = install.install(scope, top, Path.home())
    if scope == "local":
        # Per-user files inside the repo: keep them out of `git status`, like the working copy.
        for line in ("/.claude/settings.local.json", f"/.claude/skills/{install.SKILL_NAME}/"):
            workcopy.ensure_excluded(store.common_dir(ctx.repo), line)
    verb = "registered" if result.changed else "already registered"
    click.echo(f"hooks {verb} in {result.settings} (scope {scope}), calling: {result.command}")
    if scope == "project":
        click.echo("  project scope is shared: it calls enf-hook from PATH, so every teammate needs enf-git "
                   "installed; --scope local uses an absolute path instead (faster, only for you)")


@main.command()
@click.option("--scope", type=click.Choice(["project", "local", "user"]), default="local", show_default=True,
              help="Which settings file to clean.")
@boundary
def uninstall(scope: str) -> None:
    """Remove enf-git's hooks and skill from Claude Code settings (memory is kept)."""
    from ..install import claude as install

    ctx = _ctx()
    changed = install.uninstall(scope, Path(ctx.repo.workdir), Path.home())
    for path in changed:
        click.echo(f"removed enf-git entries from {path}")
    if not changed:
        click.echo(f"no enf-git hooks in {scope} scope")
    click.echo("the claude-memory branch and .claude-sessions/ are untouched")


@main.command()
@boundary
def status() -> None:
    """What would be committed, and what needs attention."""
    from ..memory import ops as memory
    from ..plumbing import store

    ctx = _ctx()
    tip = memory.require_branch(ctx)
    changes, views = memory.pending(ctx)
    manifest = ctx.manifest()
    click.echo(f"branch {store.BRANCH} at {str(tip.id)[:12]}")
    if manifest.floor:
        since = manifest.floor.removeprefix("sessions/").removesuffix(".md")
        click.echo(f"working set: sessions from {since} on; older ones are on the branch "
                   f"(git enf show NAME, or git config {memory.WORKING_SET_KEY} all)")
    if manifest.base and manifest.base != str(tip.id):
        click.echo("working copy is behind the branch: git enf commit (or any hook) will refresh it")
    for path, data in sorted(changes.items()):
        click.echo(f"  {'deleted' if data is None else 'changed'}: {path}")
    for path in sorted(views):
        click.echo(f"  hand-edited view: {path} (imported or set aside at the next commit)")
    if not changes and not views:
        click.echo("nothing to commit")
    for path in sorted(store.list_files(ctx.repo, tip.tree)):
        if path.startswith(memory.CONFLICTS):
            click.echo(f"  conflict copy: {path} (merge it into the original, then delete it)")


@main.command()
@click.option("-m", "--message", help="Commit message (default: a summary of the paths).")
@boundary
def commit(message: str | None) -> None:
    """Commit the working copy's changes to claude-memory."""
    from ..memory import ops as memory

    report = memory.commit(_ctx(), message)
    _print_report(report)


def _print_report(report: Any) -> None:
    from ..memory.ops import report_lines

    for is_err, line in report_lines(report):
        click.echo(line, err=is_err)


@main.command()
@click.option("--since", help="Only sessions on or after this date (YYYY-MM-DD, or 7d, 2w, 3m).")
@click.option("--until", help="Only sessions on or before this date.")
@click.option("--tag", "tags", multiple=True, help="Only sessions with this tag (repeatable).")
@click.option("--status", type=click.Choice(["active", "completed"]), help="Only sessions with this status.")
@click.option("--author", help="Only sessions first committed by an author matching this text.")
@click.option("--oneline", is_flag=True, help="One line per session.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--decisions", is_flag=True, help="The decision log with reversal chains instead.")
@click.option("-n", "--limit", type=int, help="At most this many entries.")
@boundary
def log(since: str | None, until: str | None, tags: tuple[str, ...], status: str | None, author: str | None,
        oneline: bool, as_json: bool, decisions: bool, limit: int | None) -> None:
    """Sessions, newest first (or --decisions)."""
    from ..memory import ops as memory, queries
    from ..pure import render

    ctx = _ctx()
    tip = memory.require_branch(ctx)
    recs = queries.load(ctx.repo, tip, ctx.cache())
    if decisions:
        ledger = render.build_ledger(recs.all_sessions(), recs.extra_decisions())
        _print_decisions(list(reversed(ledger.chains))[:limit], ledger.unresolved, as_json)
        return
    today = dt.date.today()
    authors = queries.first_authors(ctx.repo, tip) if author or as_json else None
    sessions = queries.filter_sessions(
        recs.all_sessions(), since=queries.parse_date(since, today) if since else None,
        until=queries.parse_date(until, today) if until else None, tags=tags, status=status,
        authors=authors, author=author)[:limit]
    if as_json:
        rows = [{"session": s.stem, "path": s.path, "session_id": s.session_id, "date": s.date,
                 "start_time": s.start_time, "status": s.status, "tags": list(s.tags), "summary": s.summary,
                 "author": (authors or {}).get(s.path, ""), "decisions": [d.id for d in s.decisions]}
                for s in sessions]
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    for s in sessions:
        if oneline:
            tags_txt = f"  [{', '.join(s.tags)}]" if s.tags else ""
            click.echo(f"{s.stem}  {s.status:<9}  {s.summary or '(in progress)'}{tags_txt}")
            continue
        click.echo(click.style(f"session {s.stem}", fg="yellow") + f"  ({s.status}, id {s.session_id})")
        click.echo(f"Date:   {s.date} {s.start_time}".rstrip())
        if s.tags:
            click.echo(f"Tags:   {', '.join(s.tags)}")
        click.echo(f"\n    {s.summary or '(in progress)'}\n")
        if s.decisions or s.reversals:
            click.echo(f"    {len(s.decisions)} decision(s), {len(s.reversals)} reversal(s)\n")
    if not sessions:
        click.echo("no sessions match")


def _print_decisions(chains: list[Any], unresolved: Any, as_json: bool) -> None:
    if as_json:
        rows = [{"id": c.current.id, "topic": c.current.topic, "date": c.current.date, "time": c.current.time,
                 "decided": c.current.decided, "over": c.current.over, "confidence": c.current.confidence,
                 "source": c.current.source, "text": c.current.text,
                 "supersedes": [{"id": d.id, "date": d.date, "decided": d.decided, "reversed_because": r.reason}
                                for d, r in zip(c.superseded, c.reversals)]} for c in chains]
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    for c in chains:
        d = c.current
        conf = f" ({d.confidence})" if d.confidence else ""
        over = f" over {d.over}" if d.over else ""
        click.echo(f"{d.id}  {d.date} {d.time}".rstrip() + f"  [{d.topic}]  decided {d.decided}{over}{conf}")
        for old, rev in zip(c.superseded, c.reversals):
            because = f" because {rev.reason}" if rev.reason else ""
            click.echo(f"    ~~ {old.id}  {old.date}  decided {old.decided}~~ reversed {rev.date}{because}")
    for r in unresolved:
        click.echo(f"unresolved reversal in {r.source}: REVERSED {r.ref} (no matching decision)")
    if not chains:
        click.echo("no decisions recorded yet")


@main.command()
@click.argument("target")
@click.option("--at", "rev", help="Show it as of this revision of claude-memory (e.g. claude-memory~3, an OID).")
@click.option("--history", is_flag=True, help="List every version of it, newest first.")
@boundary
def show(target: str, rev: str | None, history: bool) -> None:
    """Show a session (name or prefix), a decision (id) or a path on the branch."""
    from ..memory import ops as memory, queries
    from ..pure import render
    from ..plumbing import store

    ctx = _ctx()
    memory.require_branch(ctx)
    commit_ = store.resolve(ctx.repo, rev or store.REF)
    recs = queries.load(ctx.repo, commit_, ctx.cache())
    path, decision_id, chain = queries.resolve_target(ctx.repo, commit_, recs, target)
    if history:
        for v in queries.history(ctx.repo, store.resolve(ctx.repo, store.REF), path):
            state = "deleted" if v.blob is None else f"git enf show {path} --at {v.commit[:12]}"
            click.echo(f"{v.commit[:12]}  {v.date}  {v.author}: {v.subject}\n    {state}")
        return
    if chain is not None:
        click.echo(f"decision {decision_id}  (from {path})")
        click.echo(f"- {render.decision_line(chain.current)}")
        for old, rev_ in zip(chain.superseded, chain.reversals):
            when = f"{rev_.date} {rev_.time}".strip()
            click.echo(f"  - ~~{render.decision_line(old)}~~ SUPERSEDED ({when}: {rev_.reason})")
        return
    data = store.read_path(ctx.repo, commit_.tree, path)
    click.echo((data or b"").decode("utf-8", "replace"), nl=False)


@main.command()
@click.argument("query", nargs=-1, required=True)
@click.option("-n", "--limit", type=click.IntRange(1, 1000), default=10, show_default=True, help="At most this many hits.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@boundary
def recall(query: tuple[str, ...], limit: int, as_json: bool) -> None:
    """Search memory: decisions, then index/topics, then sessions, then history."""
    from ..memory import indexer, ops as memory
    from ..plumbing import search

    ctx = _ctx()
    memory.require_branch(ctx)
    db = indexer.ensure(ctx.repo, ctx.cache())
    text = " ".join(query)
    hits = search.query(db, text, limit)
    click.echo(search.format_json(hits) if as_json else search.format_hits(hits, text))


@main.command()
@boundary
def doctor() -> None:
    """Validate everything; name each problem and its fix."""
    from ..memory import doctor as doctor_mod

    problems = doctor_mod.run(_ctx())
    for p in problems:
        click.echo(f"{p.severity}: {p.what}\n  fix: {p.fix}")
    if any(p.severity == "error" for p in problems):
        sys.exit(1)
    if not problems:
        click.echo("all good")
