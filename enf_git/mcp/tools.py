"""The MCP server's tools: recall, show, log, decisions, remember, forget.

Each tool is a thin adapter over the operations `git enf` runs (memory.queries,
memory.indexer + plumbing.search, memory.facts, memory.forget) and answers the rows
`git enf ... --json` gives (memory.answers), except recall, whose hits are compact
(kind, target, date, snippet: ~60-100 tokens each) because a model reads them all.

`call` is the one boundary: it never raises. Arguments that do not fit the tool's
schema, an EnfError, an error from libgit2, a bug of ours: each comes back as an
error result saying what happened and what to do next (a bug's traceback goes to
stderr, which the client keeps in its MCP log). No SDK here: server.py adapts this
to the MCP SDK, and tests call it directly.

Every call opens the repository afresh (a memory.Context), so it sees the commits
made while the server runs: by the hooks, by `git enf`, by a teammate's sync.
Parsed records are reused while the branch tip stays where it was.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple, cast

from .. import frame, paths
from ..errors import EnfError, NotFound
from ..memory.context import answers
from ..memory.share import fetched
from ..memory.record import queries
from ..memory.workspace import Context, require_branch
from ..plumbing import store
from ..pure import facts as pf, suspicious
from . import schema
from .schema import BadArguments, Spec, boolean, integer, string, strings

SCHEMA = 1  # as cli.text.JSON_SCHEMA: the envelope's version (the server may not import cli/)
SCOPES = ("project", "user", "session")
Args = dict[str, Any]


class Where:
    """What only the edge knows: where the server was started, the user's config folder,
    the client's session id (Claude Code gives its MCP servers CLAUDE_CODE_SESSION_ID),
    and the clock."""

    def __init__(self, start: Path, user_dir: Path | None, session_id: str, clock: Callable[[], float]) -> None:
        self.start = start
        self.user_dir = user_dir
        self.session_id = session_id
        self.clock = clock
        self._memo = _Memo("")
        self._lock = threading.Lock()

    def open(self) -> Context:
        """The repository afresh, with what git fetched since the last call merged first
        (a teammate's memory that a `git fetch` brought is in this call's answer)."""
        ctx = Context.open(self.start)
        for line in fetched.said(fetched.catch_up(ctx)):  # the server's log: the answer is JSON
            print(f"enf-git: {line}", file=sys.stderr)
        return ctx

    def _of(self, ctx: Context, tip: store.Commit) -> _Memo:
        if self._memo.tip != str(tip.id):
            self._memo = _Memo(str(tip.id), queries.load(ctx.repo, tip, ctx.cache()))
        return self._memo

    def records(self, ctx: Context, tip: store.Commit, authors: bool = False) -> tuple[Any, dict[str, str]]:
        """(records of `tip`, first authors if asked): reused while the tip has not moved."""
        with self._lock:
            memo = self._of(ctx, tip)
            if authors and memo.authors is None:
                memo.authors = queries.first_authors(ctx.repo, tip)
            return memo.records, memo.authors or {}

    def written_by(self, ctx: Context, tip: store.Commit) -> Any:
        """memory.authors' table for `tip` (who last changed each record), reused like the records."""
        from ..memory.record import authors

        with self._lock:
            memo = self._of(ctx, tip)
            if memo.written_by is None:
                memo.written_by = authors.load(ctx, tip)
            return memo.written_by

    def gate(self, ctx: Context, tip: store.Commit) -> Any:
        """memory.trust's gate for this call (enf.trust read afresh: a change applies at once)."""
        from ..memory.record import trust

        return trust.shown_gate(ctx, self.written_by(ctx, tip))

    def ledger(self, ctx: Context, tip: store.Commit) -> Any:
        """The decision ledger of `tip`'s records, reused like them."""
        with self._lock:
            memo = self._of(ctx, tip)
            if memo.ledger is None:
                memo.ledger = queries.build_ledger(memo.records)
            return memo.ledger

    def today(self) -> dt.date:
        return dt.date.fromtimestamp(self.clock())


class _Memo:
    """What is parsed from one tip, kept until the tip moves (records are ~0.1-0.5 s to
    load at 10,000 sessions, the ledger ~0.3 s, the first authors a walk of the branch)."""

    def __init__(self, tip: str, records: Any = None) -> None:
        self.tip = tip
        self.records = records
        self.authors: dict[str, str] | None = None
        self.written_by: Any = None
        self.ledger: Any = None


class Result(NamedTuple):
    text: str
    is_error: bool = False


# --- the tools ---------------------------------------------------------------------

def _recall(where: Where, args: Args) -> dict[str, Any]:
    from ..memory.context import indexer
    from ..plumbing import fastconfig, search

    text = args["query"]
    if not search.terms(text):
        raise BadArguments(f"recall: the query {text!r} has no words to search for",
                           hint=RECALL.example)
    ctx = where.open()
    tip = require_branch(ctx)
    check = fastconfig.truth(store.config_value(ctx.repo, f"enf.{search.ANSWER_CHECK_KEY}"), False)
    answer = search.query(indexer.ensure(ctx.repo, ctx.cache()), text, args["limit"], answer_check=check)
    answers.note_asked(ctx, tip, [h.path for h in answer.hits])
    table = where.written_by(ctx, tip)
    withheld = where.gate(ctx, tip).withheld([h.path for h in answer.hits])
    hits = [h for h in answer.hits if h.path not in withheld]
    reason = answer.reason if answer.weak else ""  # "the notes mention Declan and bed but give no amount"
    return _counted({"query": text, "weak": answer.weak, **({"reason": reason} if reason else {}),
                     "results": [_signed(_hit(h), table.by(h.path) if h.kind != "history" else "") for h in hits]},
                    len({h.path for h in answer.hits} & set(withheld)))


def _counted(answer: dict[str, Any], withheld: int) -> dict[str, Any]:
    """`answer` saying how many records enf.trust kept out of it, and where to look."""
    if not withheld:
        return answer
    from ..memory.record import trust

    return {**answer, "withheld": withheld, "withheld_note": trust.withheld_line(withheld)}


def _signed(row: dict[str, Any], by: str) -> dict[str, Any]:
    """`row` with `written_by` ("Alice, 2026-12-01") when someone else last changed its record."""
    return {**row, "written_by": by} if by else row


def _hit(h: Any) -> dict[str, Any]:
    """A recall hit, compact: what to pass to `show` (target, and at for an older version)."""
    row = {"kind": h.kind, "target": h.path if h.kind == "history" else h.ref, "date": h.date or None}
    if h.kind == "history":
        row["at"] = h.rev[:12]
    if h.status:
        row["status"] = h.status
    if h.superseded_by:
        row["superseded_by"] = h.superseded_by
        row["superseded_on"] = h.superseded_on
    row["snippet"] = h.snippet
    if suspicious.reasons(h.snippet):
        row["flagged"] = suspicious.MARK
    return {k: v for k, v in row.items() if v is not None}


def _show(where: Where, args: Args) -> dict[str, Any]:
    ctx = where.open()
    tip = require_branch(ctx)
    at = _revision(ctx, tip, args["at"])
    recs, _ = where.records(ctx, at)
    found = queries.resolve_target(ctx.repo, at, recs, args["target"])
    why = where.gate(ctx, tip).withheld([found.path]).get(found.path)
    if why:
        from ..memory.record import trust

        raise EnfError(f"{found.path} is withheld from the model by enf.trust ({why})",
                       hint=f"the user can read it with git enf show, and review it with {trust.REVIEW}")
    answers.note_asked(ctx, tip, [found.path])
    if args["history"]:
        versions = queries.history(ctx.repo, tip, found.path)
        return {"path": found.path, "total": len(versions), "versions": [
            {"commit": v.commit, "date": v.date, "author": v.author, "subject": v.subject, "blob": v.blob}
            for v in versions[:HISTORY_SHOWN]]}
    if found.chain is not None and found.decision is not None:
        _, authors = where.records(ctx, at, authors=True)
        return _signed({"kind": "decision", "path": found.decision.source,
                        "decision": answers.decision_answer(found.chain, found.decision, authors)},
                       where.written_by(ctx, tip).by(found.decision.source) if at.id == tip.id else "")
    data = store.read_path(ctx.repo, at.tree, found.path) or b""
    if args["full"]:
        from ..memory.lifecycle.compress import full_text

        data = full_text(ctx.repo, at, found.path, data)
    from ..pure import model

    text = data.decode("utf-8", "replace")
    marks = [{"line": f.line, "reasons": list(f.reasons)} for f in suspicious.flags(text)]
    return _signed({"kind": "session" if model.is_session_path(found.path) else "file", "path": found.path,
                    "revision": str(at.id), "text": text,
                    **({"flagged": marks, "flagged_note": suspicious.MARK} if marks else {})},
                   where.written_by(ctx, tip).by(found.path) if at.id == tip.id else "")


def _revision(ctx: Context, tip: store.Commit, rev: str | None) -> store.Commit:
    """`at`: a commit of the memory branch (the tip, or one it descends from), never
    another branch of the user's repository."""
    if rev is None:
        return tip
    at = store.resolve(ctx.repo, rev)
    if not store.descends_from(ctx.repo, tip, at):
        raise NotFound(f"{rev} is not a revision of {paths.BRANCH}",
                       hint=f"give a commit of git log {paths.BRANCH} --oneline, or {paths.BRANCH}~N")
    return at


def _filters(where: Where, args: Args, status: str | None = None) -> queries.Filters:
    dates = []
    for name in ("since", "until"):
        try:
            dates.append(queries.parse_date(args[name], where.today()) if args[name] else None)
        except ValueError as exc:
            raise BadArguments(f"{name}: {exc}", hint='for example: {"since": "2w"} or {"since": "2026-04-01"}') \
                from None
    return queries.Filters(since=dates[0], until=dates[1], tags=tuple(args["tags"] or ()), status=status,
                           author=args["author"])


def _log(where: Where, args: Args) -> dict[str, Any]:
    filters = _filters(where, args, args["status"])
    ctx = where.open()
    tip = require_branch(ctx)
    recs, authors = where.records(ctx, tip, authors=True)
    sessions = queries.filter_sessions(recs.all_sessions(), filters, authors)
    table = where.written_by(ctx, tip)
    withheld = where.gate(ctx, tip).withheld([s.path for s in sessions])
    kept = [s for s in sessions if s.path not in withheld]
    return _counted({"total": len(kept), "sessions": [_signed(answers.session_row(s, authors), table.by(s.path))
                                                      for s in kept[:args["limit"]]]}, len(withheld))


HISTORY_SHOWN = 50  # versions `show history` lists, newest first (its total says how many there are)


def _decisions(where: Where, args: Args) -> dict[str, Any]:
    filters = _filters(where, args)
    ctx = where.open()
    tip = require_branch(ctx)
    recs, authors = where.records(ctx, tip, authors=True)
    ledger = where.ledger(ctx, tip)
    chains, unresolved = queries.decision_chains(recs, filters, authors, ledger)
    open_ = queries.open_disagreements(recs, ledger)
    # Every list within `limit`, with its total: a model's context is no place for all of them.
    table = where.written_by(ctx, tip)
    withheld = where.gate(ctx, tip).withheld([c.current.source for c in chains])
    chains = [c for c in chains if c.current.source not in withheld]
    rows = [_signed(answers.chain_row(c, authors), table.by(c.current.source)) for c in chains[:args["limit"]]]
    return {"total": len(chains), "decisions": rows, **({"withheld": len(withheld)} if withheld else {}),
            "unresolved_total": len(unresolved),
            "unresolved": [answers.unresolved_row(r) for r in unresolved[:args["limit"]]],
            "disagreements_total": len(open_),
            "disagreements": [answers.disagreement_row(d, authors) for d in open_[:args["limit"]]]}


def _places(where: Where) -> Any:
    from ..memory.lifecycle import facts

    return facts.Places(where.user_dir, where.session_id)


def _remember(where: Where, args: Args) -> dict[str, Any]:
    from ..memory.lifecycle import facts

    category = None
    if args["category"] is not None:
        try:
            category = pf.parse_category(args["category"])
        except ValueError as exc:
            raise BadArguments(f"remember: {exc}", hint=REMEMBER.example) from None
    ctx = where.open()
    settings = facts.FactSettings.read(ctx.repo)
    done = facts.remember(ctx, _places(where), args["text"], scope=args["scope"], category=category,
                          now=int(where.clock()), settings=settings)
    return {"fact": done.fact.as_dict(), "existing": done.existing, "commit": done.commit,
            "redacted": done.redacted, "warnings": settings.warnings}


def _forget(where: Where, args: Args) -> dict[str, Any]:
    from ..memory.lifecycle import forget

    scope = args["scope"]
    try:
        done = forget.forget(where.open(), _places(where), args["query"], scopes=(scope,) if scope else None,
                             by_id_outside_git=True)
    except forget.AmbiguousMatch as exc:  # the same refusal, with this tool's way of naming one
        raise EnfError(exc.message, hint='name one by its id: {"query": "ID"}') from None
    except forget.WeakMatch as exc:
        raise EnfError(exc.message, hint=f'name it by its id: {{"query": "{exc.matches[0].id}"}}') from None
    return {"forgotten": done.item.as_dict(), "commit": done.commit}


# --- what the client lists -----------------------------------------------------------

_SINCE = string("Only entries on or after this date: YYYY-MM-DD, or a span back from today like 7d, 2w, 3m.",
                max_length=40)
_UNTIL = string("Only entries on or before this date (as since).", max_length=40)
_TAGS = strings("Only sessions with one of these tags.", max_items=20, max_length=100)
_AUTHOR = string("Only entries first committed by an author whose name or email contains this.", max_length=200)

RECALL = Spec(
    "recall", "Recall from memory",
    "Search this project's memory (past sessions, decisions with their reversals, older versions of both) "
    "before re-deriving something or asking the user again. Returns ranked compact hits; `weak` true means "
    "no strong match (`reason`, when there is one, says what the notes lack). Pass a hit's `target` (and `at`, if it has one) to `show` for the full text.",
    {"query": string("What to look for, in plain words (e.g. 'postgres migration').", max_length=1000),
     "limit": integer("At most this many hits.", minimum=1, maximum=50, default=8)},
    ("query",), example='{"query": "postgres migration", "limit": 5}')
SHOW = Spec(
    "show", "Show a memory record",
    "The full text of a session (name, prefix or session id), a decision (id like d1a2b3c4, with its "
    "reversal chain) or a path on the memory branch; `at` shows it as of an older revision.",
    {"target": string("A session name, a decision id, or a path such as decisions.md.", max_length=300),
     "at": string("A revision of the memory branch (a commit id, or claude-memory~3).", max_length=200),
     "full": boolean("A compressed session's full text, from history."),
     "history": boolean("List every version of it (commit, date, author) instead of its text.")},
    ("target",), example='{"target": "2026-04-13-search-api"}')
LOG = Spec(
    "log", "List sessions",
    "Sessions, newest first: date, status, tags, summary and the ids of the decisions each made.",
    {"since": _SINCE, "until": _UNTIL, "tags": _TAGS,
     "status": string("Only sessions with this status.", max_length=20, enum=("active", "completed")),
     "author": _AUTHOR, "limit": integer("At most this many sessions.", minimum=1, maximum=500, default=20)},
    example='{"since": "2w", "limit": 10}')
DECISIONS = Spec(
    "decisions", "List decisions",
    "The decision log, newest first: each standing decision with the ones it superseded (when and why they "
    "were reversed), reversals that match no decision, and open disagreements (one decision reversed two "
    "ways by people who had not seen each other's change).",
    {"since": _SINCE, "until": _UNTIL, "tags": _TAGS, "author": _AUTHOR,
     "limit": integer("At most this many decision chains.", minimum=1, maximum=500, default=20)},
    example='{"since": "3m"}')
REMEMBER = Spec(
    "remember", "Remember a fact",
    "Keep a short statement (a decision, a gotcha, a preference, an action item) for later sessions. "
    "project: on the memory branch, shared with the team; user: the user's config folder, all projects; "
    "session: this session only. Secrets are redacted before anything is stored.",
    {"text": string("The statement, one or two sentences.", max_length=2000),
     "category": string(f"One of {', '.join(pf.CATEGORIES)} (default: from its words).", max_length=40),
     "scope": string("Where to keep it.", max_length=20, enum=SCOPES) | {"default": "project"}},
    ("text",), read_only=False, example='{"text": "The CI runners have no network", "category": "Gotcha"}')
FORGET = Spec(
    "forget", "Forget a fact",
    "Forget the one remembered fact or pin that `query` names: its id, its text, or a part of the text. "
    "Several matches: nothing is removed and they are listed, so name one by its id.",
    {"query": string("The fact's id, or words of its text.", max_length=2000),
     "scope": string("Only look in this scope.", max_length=20, enum=SCOPES)},
    ("query",), read_only=False, example='{"query": "m1a2b3c4"}')

RUNNERS: dict[str, tuple[Spec, Callable[[Where, Args], dict[str, Any]]]] = {
    s.name: (s, run) for s, run in ((RECALL, _recall), (SHOW, _show), (LOG, _log), (DECISIONS, _decisions),
                                    (REMEMBER, _remember), (FORGET, _forget))}
SPECS = tuple(spec for spec, _ in RUNNERS.values())


# --- the boundary --------------------------------------------------------------------

def call(name: str, arguments: object, where: Where) -> Result:
    """Run the tool `name`; its JSON answer, or an error result. Never raises."""
    found = RUNNERS.get(name)
    if found is None:
        return _error(f"no tool named {name!r}", f"the tools are: {', '.join(RUNNERS)}")
    spec, run = found
    try:
        payload = run(where, schema.check(spec, arguments))
    except EnfError as exc:
        return _error(exc.message, exc.hint)
    except Exception as exc:  # noqa: BLE001 - the server must answer every call, whatever broke
        if store.is_git_error(exc):
            return _error(f"git could not read the repository: {exc}", f"git fsck --no-dangling {paths.BRANCH}")
        traceback.print_exc(file=sys.stderr)
        return _error(f"{name} failed inside enf-git ({type(exc).__name__}: {exc})",
                      "this is a bug in enf-git: the traceback is in the MCP server's log; please report it")
    # A model reads the result: every string in it (a summary, a session's text, a query
    # echoed) is shown as data, so none can close the client's frame around it (frame.py).
    return Result(json.dumps({"schema": SCHEMA, "command": name, **cast(Args, frame.shown_json(payload))}, ensure_ascii=False,
                             separators=(",", ":")))


def _error(message: str, hint: str | None) -> Result:
    return Result(frame.shown(f"error: {message}" + (f"\nhint: {hint}" if hint else "")), is_error=True)
