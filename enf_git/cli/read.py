"""`git enf log`, `git enf show`, `git enf recall`: reading memory back."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from .. import paths
from ..errors import NotFound
from ..memory.context import answers
from ..memory.workspace import Context
from ..pure import model
from .base import CONTEXT, JSON_OPTION, emit, parse_date, reading, style
from .text import envelope, plural, recall_json

if TYPE_CHECKING:  # annotations only: the ledger is imported when a command builds one
    from ..memory.record.queries import Target
    from ..plumbing.store import Commit
    from ..pure.ledger import Chain, Disagreement

LIMIT = click.IntRange(min=1)


@click.command(context_settings=CONTEXT)
@click.option("--since", help="Only entries on or after this date (YYYY-MM-DD, or 7d, 2w, 3m).")
@click.option("--until", help="Only entries on or before this date.")
@click.option("--tag", "tags", multiple=True, help="Only sessions with this tag (repeatable).")
@click.option("--status", type=click.Choice(["active", "completed"]), help="Only sessions with this status.")
@click.option("--author", help="Only entries first committed by an author matching this text.")
@click.option("--oneline", is_flag=True, help="One line per entry.")
@JSON_OPTION
@click.option("--decisions", is_flag=True, help="The decision log with reversal chains instead.")
@click.option("-n", "--limit", type=LIMIT, help="At most this many entries (1 or more).")
def log(since: str | None, until: str | None, tags: tuple[str, ...], status: str | None, author: str | None,
        oneline: bool, as_json: bool, decisions: bool, limit: int | None) -> None:
    """Sessions, newest first (or --decisions)."""
    from .. import memory
    from ..memory.record import queries

    if decisions and status:
        raise click.UsageError(f"--status filters sessions, and decisions have none; drop it, "
                               f"or list sessions: git enf log --status {status}")
    since, until = parse_date(since, "--since"), parse_date(until, "--until")
    ctx = reading()
    tip = memory.require_branch(ctx)
    recs = queries.load(ctx.repo, tip, ctx.cache())
    authors = queries.first_authors(ctx.repo, tip) if author or as_json else None
    filters = queries.Filters(since=since, until=until, tags=tags, status=status, author=author)
    if decisions:
        ledger = queries.build_ledger(recs)  # once for both
        chains, unresolved = queries.decision_chains(recs, filters, authors, ledger)
        disagreements = queries.open_disagreements(recs, ledger)
        if disagreements and authors is None:
            authors = queries.first_authors(ctx.repo, tip)  # the text names who reversed what
        _print_decisions(ctx, chains[:limit], unresolved, as_json, oneline, authors or {}, disagreements)
        return
    sessions = queries.filter_sessions(recs.all_sessions(), filters, authors)[:limit]
    # Malformed session files are on the branch (committed as-is) but have no fields to
    # list or filter by: say they are left out, never drop them without a word.
    malformed = sorted(p for p in recs.problems if model.is_session_path(p))
    withheld = _withheld(ctx, [s.path for s in sessions])
    if as_json:
        rows = [{**answers.session_row(s, authors or {}), **({"withheld": withheld[s.path]} if s.path in withheld else {})}
                for s in sessions]
        click.echo(envelope("log", sessions=rows, malformed=malformed))
        return
    emit(ctx, "\n".join(_session_lines(ctx, sessions, oneline, withheld)) or "no sessions match", pageable=True)
    if malformed:
        click.echo(f"note: {plural(len(malformed), 'malformed session file')} left out "
                   f"({', '.join(malformed[:3])}{' …' if len(malformed) > 3 else ''}): git enf doctor says what "
                   "is wrong with each", err=True)


def _withheld(ctx: Context, paths: list[str]) -> dict[str, str]:
    """path -> why enf.trust keeps it from the model: the person sees it all, marked."""
    from ..memory.record import trust

    return trust.shown_gate(ctx).withheld(paths)


def _session_lines(ctx: Context, sessions: list[model.Session], oneline: bool,
                   withheld: dict[str, str] | None = None) -> list[str]:
    lines: list[str] = []
    withheld = withheld or {}
    for s in sessions:
        if oneline:
            tags_txt = f"  [{', '.join(s.tags)}]" if s.tags else ""
            mark = f"  [withheld from the model: {withheld[s.path]}]" if s.path in withheld else ""
            lines.append(f"{s.stem}  {s.status:<9}  {s.summary or '(in progress)'}{tags_txt}{mark}")
            continue
        lines.append(style(ctx, f"session {s.stem}", fg="yellow") + f"  ({s.status}, id {s.session_id})")
        lines.append(f"Date:   {s.date} {s.start_time}".rstrip())
        if s.tags:
            lines.append(f"Tags:   {', '.join(s.tags)}")
        if s.path in withheld:
            lines.append(f"Trust:  withheld from the model by enf.trust ({withheld[s.path]})")
        lines += ["", f"    {s.summary or '(in progress)'}", ""]
        if s.decisions or s.reversals:
            lines += [f"    {len(s.decisions)} decision(s), {len(s.reversals)} reversal(s)", ""]
    while lines and not lines[-1]:
        lines.pop()  # blank lines separate entries; git log ends on the last one, not on a blank
    return lines


def _print_decisions(ctx: Context, chains: list[Chain], unresolved: list[model.Reversal], as_json: bool,
                     oneline: bool, authors: dict[str, str], disagreements: list[Disagreement]) -> None:
    if as_json:
        click.echo(envelope("log-decisions", decisions=[answers.chain_row(c, authors) for c in chains],
                            unresolved=[answers.unresolved_row(r) for r in unresolved],
                            disagreements=[answers.disagreement_row(d, authors) for d in disagreements]))
        return
    lines = []
    for c in chains:
        d = c.current
        conf = f" ({d.confidence})" if d.confidence else ""
        over = f" over {d.over}" if d.over else ""
        lines.append(style(ctx, d.id, fg="yellow") + f"  {d.date} {d.time}".rstrip()
                     + f"  [{d.topic}]  decided {d.decided}{over}{conf}")
        if oneline:
            continue
        replaced_by = [c.current, *c.superseded]
        for i, (old, rev) in enumerate(zip(c.superseded, c.reversals)):
            because = f" because {rev.reason}" if rev.reason else ""
            lines.append(f"    ~~ {old.id}  {old.date}  decided {old.decided}~~ SUPERSEDED by {replaced_by[i].id} "
                         f"({rev.date}){because}")
    lines += [f"unresolved reversal in {r.source}: REVERSED {r.ref} (no matching decision)" for r in unresolved]
    from ..pure.render import disagreement_line

    lines += [f"DISAGREEMENT: {disagreement_line(d, authors)}" for d in disagreements]
    emit(ctx, "\n".join(lines) or "no decisions match", pageable=True)


@click.command(context_settings=CONTEXT)
@click.argument("target")
@click.option("--at", "rev", help="Show it as of this revision of claude-memory (e.g. claude-memory~3, an OID).")
@click.option("--history", is_flag=True, help="List every version of it, newest first.")
@click.option("--full", is_flag=True, help="A compressed session's full text, from history.")
@JSON_OPTION
def show(target: str, rev: str | None, history: bool, full: bool, as_json: bool) -> None:
    """Show a session (name or prefix), a decision (id or prefix) or a path on the branch."""
    from .. import memory
    from ..memory.record import queries
    from ..plumbing import store

    ctx = reading()
    tip = memory.require_branch(ctx)
    at = store.resolve(ctx.repo, rev or paths.REF)
    recs = queries.load(ctx.repo, at, ctx.cache())
    try:
        found = queries.resolve_target(ctx.repo, at, recs, target)
    except NotFound:
        if rev is None:
            raise
        raise queries.missing_at(ctx.repo, tip, at, rev, target, _on_tip(ctx, tip, target)) from None
    answers.note_asked(ctx, tip, [found.path])
    if history:
        versions = queries.history(ctx.repo, store.resolve(ctx.repo, paths.REF), found.path)
        _print_history(ctx, found.path, versions, as_json)
        return
    if found.chain is not None and found.decision is not None:
        # The same rows as `log --decisions --json`, authors included (one walk of the branch).
        authors = queries.first_authors(ctx.repo, at) if as_json else {}
        _print_decision(ctx, found.chain, found.decision, as_json, authors)
        return
    why = _withheld(ctx, [found.path]).get(found.path) if at.id == tip.id else None
    if why:
        click.echo(f"note: withheld from the model by enf.trust ({why}): git enf trust review", err=True)
    data = store.read_path(ctx.repo, at.tree, found.path) or b""
    if full:
        from ..memory.lifecycle.compress import full_text

        data = full_text(ctx.repo, at, found.path, data)
    if as_json:
        click.echo(envelope("show", kind="session" if model.is_session_path(found.path) else "file",
                            path=found.path, revision=str(at.id), text=data.decode("utf-8", "replace")))
        return
    emit(ctx, data.decode("utf-8", "replace").rstrip("\n"), pageable=True)


def _on_tip(ctx: Context, tip: Commit, target: str) -> Target | None:
    """`target` resolved on the branch tip, or None (for what `--at` lacked)."""
    from ..memory.record import queries

    try:
        return queries.resolve_target(ctx.repo, tip, queries.load(ctx.repo, tip, ctx.cache()), target)
    except NotFound:
        return None


def _print_history(ctx: Context, path: str, versions: list[Any], as_json: bool) -> None:
    if as_json:
        click.echo(envelope("show-history", path=path, versions=[
            {"commit": v.commit, "date": v.date, "author": v.author, "subject": v.subject, "blob": v.blob}
            for v in versions]))
        return
    lines = []
    for v in versions:
        state = "deleted" if v.blob is None else f"git enf show {path} --at {v.commit[:12]}"
        lines += [f"{v.commit[:12]}  {v.date}  {v.author}: {v.subject}", f"    {state}"]
    emit(ctx, "\n".join(lines), pageable=True)


def _print_decision(ctx: Context, chain: Chain, decision: model.Decision, as_json: bool,
                    authors: dict[str, str]) -> None:
    from ..pure import render

    if as_json:
        click.echo(envelope("show", kind="decision", path=decision.source,
                            decision=answers.decision_answer(chain, decision, authors)))
        return
    lines = [style(ctx, f"decision {decision.id}", fg="yellow") + f"  (from {decision.source})"]
    if decision.id != chain.current.id:
        lines.append(f"SUPERSEDED: it no longer stands; the standing decision is {chain.current.id}")
    lines.append(f"- {render.decision_line(chain.current)}")
    for old, rev_ in zip(chain.superseded, chain.reversals):
        when = f"{rev_.date} {rev_.time}".strip()
        lines.append(f"  - ~~{render.decision_line(old)}~~ SUPERSEDED ({when}: {rev_.reason})")
    emit(ctx, "\n".join(lines), pageable=True)


@click.command(context_settings=CONTEXT)
@click.argument("query", nargs=-1, required=True)
@click.option("-n", "--limit", type=click.IntRange(1, 1000), default=10, show_default=True, help="At most this many hits.")
@JSON_OPTION
def recall(query: tuple[str, ...], limit: int, as_json: bool) -> None:
    """Search memory: decisions, sessions and their history, ranked by relevance."""
    from .. import memory
    from ..memory.context import indexer
    from ..plumbing import fastconfig, search, store

    text = " ".join(query)
    if not search.terms(text):
        raise click.UsageError("the query has no words to search for; try: git enf recall postgres migration")
    ctx = reading()
    tip = memory.require_branch(ctx)
    db = indexer.ensure(ctx.repo, ctx.cache())
    check = fastconfig.truth(store.config_value(ctx.repo, f"enf.{search.ANSWER_CHECK_KEY}"), False)
    answer = search.query(db, text, limit, answer_check=check)
    answers.note_asked(ctx, tip, [h.path for h in answer.hits])
    click.echo(recall_json(search.as_rows(answer.hits), text, answer.weak, answer.strength()) if as_json
               else search.format_hits(answer, text))


COMMANDS = (log, show, recall)
