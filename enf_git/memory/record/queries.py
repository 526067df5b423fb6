"""Read-side operations the CLI renders: session listing, decision chains, show, history.

Each returns plain data; cli.py decides how it looks.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import NamedTuple

from ... import paths
from ...pure import ledger as ledger_mod
from ...pure import model, render
from .. import records
from ...plumbing import store
from ...errors import EnfError, NotFound

_REL = re.compile(r"^([0-9]+)\s*(d|days?|w|weeks?|m|months?|y|years?)\Z")
_DAYS = {"d": 1, "w": 7, "m": 30, "y": 365}
_DECISION_PREFIX = re.compile(r"^d[0-9a-f]{3,7}\Z")  # at least 4 characters of an id


@dataclass(frozen=True)
class Version:
    commit: str
    date: str
    author: str
    subject: str
    blob: str | None  # None: the path was deleted in this commit


def load(repo: store.Repo, commit: store.Commit, cache: records.Cache) -> records.Records:
    return records.load(repo, commit.tree, cache)


class Filters(NamedTuple):
    """What `git enf log` (and `log --decisions`) narrows to; None/empty: no filter."""

    since: str | None = None
    until: str | None = None
    tags: tuple[str, ...] = ()
    status: str | None = None
    author: str | None = None


def parse_date(text: str, today: dt.date) -> str:
    """YYYY-MM-DD (a day that exists), `today`, `yesterday`, or a span before today
    (`3d`, `2w`, `1m`, `1y`, `7 days ago`, `2 months`); ValueError saying what to write otherwise."""
    text = " ".join(text.lower().split()).removesuffix(" ago")
    if re.match(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}\Z", text):
        try:
            return dt.date.fromisoformat(text).isoformat()
        except ValueError:
            raise ValueError(f"{text} is not a real date; use YYYY-MM-DD") from None
    m = _REL.match({"today": "0d", "yesterday": "1d"}.get(text, text))
    if m is None:
        raise ValueError(f"cannot read the date {text!r}: use YYYY-MM-DD or a span like 7d, 2w, 3m")
    try:
        return (today - dt.timedelta(days=int(m.group(1)) * _DAYS[m.group(2)[0]])).isoformat()
    except OverflowError:
        raise ValueError(f"{text!r} reaches back before the year 1; use YYYY-MM-DD") from None


def filter_sessions(sessions: list[model.Session], filters: Filters,
                    authors: dict[str, str] | None) -> list[model.Session]:
    out = []
    for s in render.newest_first(sessions):
        if filters.status and s.status != filters.status:
            continue
        if _keep(s.path, s.date, s.tags, filters, authors):
            out.append(s)
    return out


def _keep(path: str, date: str, tags: tuple[str, ...], f: Filters, authors: dict[str, str] | None) -> bool:
    if f.since and date < f.since or f.until and date > f.until:
        return False
    if f.tags and not {t.lower() for t in f.tags} & set(tags):
        return False
    return not (f.author and authors is not None and f.author.lower() not in authors.get(path, "").lower())


def decision_chains(recs: records.Records, filters: Filters, authors: dict[str, str] | None,
                    ledger: ledger_mod.Ledger | None = None) -> tuple[list[ledger_mod.Chain], list[model.Reversal]]:
    """(chains whose standing decision passes the filters, newest first; unresolved reversals).

    A decision's tags are its session's; a decision file of its own has none, so a
    --tag filter leaves it out. --author matches whoever made any decision of a chain:
    "what did Alice decide" includes what Bob later reversed. `ledger`: the one `recs`
    build, if the caller has it (a long-running caller keeps it while the tip stays:
    ~0.3 s at 10,000 sessions).
    """
    ledger = ledger if ledger is not None else build_ledger(recs)
    tags_of = {s.path: s.tags for s in recs.sessions.values()}
    anyone = Filters(since=filters.since, until=filters.until, tags=filters.tags, status=filters.status)

    def keep(c: ledger_mod.Chain) -> bool:
        if not _keep(c.current.source, c.current.date, tags_of.get(c.current.source, ()), anyone, authors):
            return False
        return not filters.author or any(_keep(d.source, d.date, (), Filters(author=filters.author), authors)
                                         for d in (c.current, *c.superseded))

    chains = [c for c in reversed(ledger.chains) if keep(c)]
    unresolved = [r for r in ledger.unresolved
                  if _keep(r.source, r.date, tags_of.get(r.source, ()), filters, authors)]
    return chains, unresolved


def open_disagreements(recs: records.Records, ledger: ledger_mod.Ledger | None = None) -> list[ledger_mod.Disagreement]:
    return list((ledger if ledger is not None else build_ledger(recs)).open_disagreements)


def build_ledger(recs: records.Records) -> ledger_mod.Ledger:
    return render.build_ledger(recs.all_sessions(), recs.extra_decisions())


def first_authors(repo: store.Repo, tip: store.Commit, skip: frozenset[str] = frozenset()) -> dict[str, str]:
    """Session or decision file path -> 'Name <email>' of the commit that first added it
    (`skip`: commits whose author is no record's, such as compressions).

    From git's list of changes, newest first, the oldest writer winning: loading each
    commit's month folders in process took minutes on a history of 100,000 commits."""
    from contextlib import closing

    from ...plumbing import gitlog_changes

    authors: dict[str, str] = {}
    with closing(gitlog_changes.changes(str(repo.path), str(tip.id))) as log:
        for c in log:
            if c.id in skip:
                continue
            for path, new in gitlog_changes.working_copy(c.paths):
                if new is not None and (model.is_session_path(path) or model.is_decision_path(path)):
                    authors[path] = f"{c.name} <{c.email}>"
    return authors


def find_session(recs: records.Records, name: str) -> model.Session:
    stem = name.removeprefix("sessions/").removesuffix(".md")
    exact = [s for s in recs.sessions.values() if s.stem == stem]
    if exact:
        return exact[0]
    matches = [s for s in recs.sessions.values() if s.stem.startswith(stem) or s.session_id == stem[:8]]
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        names = ", ".join(sorted(s.stem for s in matches)[:5])
        raise NotFound(f"{name!r} matches {len(matches)} sessions: {names}", hint="give more of the name")
    raise NotFound(f"no session named {name!r}", hint="git enf log --oneline")


class Target(NamedTuple):
    path: str  # on the branch
    decision: model.Decision | None = None
    chain: ledger_mod.Chain | None = None


def resolve_target(repo: store.Repo, commit: store.Commit, recs: records.Records, target: str) -> Target:
    """A session (name, prefix or session id), a decision (id or a prefix of one), or a path."""
    if _DECISION_PREFIX.match(target):
        ledger = render.build_ledger(recs.all_sessions(), recs.extra_decisions())
        hits = {d.id: (chain, d) for chain in ledger.chains for d in (chain.current, *chain.superseded)
                if d.id.startswith(target)}
        if len(hits) == 1:
            chain, decision = next(iter(hits.values()))
            return Target(decision.source, decision, chain)
        if len(hits) > 1:
            raise NotFound(f"{target!r} matches {len(hits)} decisions: {', '.join(sorted(hits)[:5])}",
                           hint="give more of the id")
        if len(target) == 8:
            raise NotFound(f"no decision {target}", hint="git enf log --decisions --oneline lists decision ids")
    if store.read_path(repo, commit.tree, target) is not None:
        return Target(target)
    # A malformed session is in no view, but recall still finds it by its name: show it as written.
    malformed = f"{model.SESSIONS_DIR}/{target.removeprefix(model.SESSIONS_DIR + '/').removesuffix('.md')}.md"
    if malformed in recs.problems:
        return Target(malformed)
    try:
        return Target(find_session(recs, target).path)
    except NotFound:
        if _DECISION_PREFIX.match(target):  # looks like an id prefix: say so, not "no session"
            raise NotFound(f"no decision or session matches {target!r}",
                           hint="git enf log --decisions --oneline lists decision ids") from None
        raise


def missing_at(repo: store.Repo, tip: store.Commit, at: store.Commit, rev: str, target: str,
               on_tip: Target | None) -> NotFound:
    """What `show TARGET --at REV` lacks, and where: REV is not a revision of the memory
    branch at all (`--at HEAD` names the user's code), or the memory of then did not hold
    TARGET. `on_tip` is TARGET resolved on the tip, if it is there."""
    short = str(at.id)[:12]
    if not store.descends_from(repo, tip, at) and store.read_path(repo, at.tree, paths.META) is None:
        return NotFound(f"{rev} is {short}, a commit of your code, not a revision of {paths.BRANCH}: no memory is "
                        f"there, so no {target!r} either",
                        hint=f"git enf show {target} --at {paths.BRANCH}~N (git log --oneline {paths.BRANCH} lists "
                             "memory's revisions)")
    when = dt.datetime.fromtimestamp(at.commit_time, dt.timezone.utc).strftime("%Y-%m-%d %H:%M")
    if on_tip is None:
        return NotFound(f"{target!r} is not in {paths.BRANCH} at {rev} ({short}, {when}), nor at its tip",
                        hint="git enf log --oneline lists the sessions")
    return NotFound(f"{on_tip.path} is not in {paths.BRANCH} at {rev} ({short}, {when}): it came later, or was "
                    "gone then", hint=f"git enf show {on_tip.path} --history lists the revisions that hold it")


def history(repo: store.Repo, tip: store.Commit, path: str) -> list[Version]:
    """Every commit that changed `path`, newest first, with the blob it left behind: a
    commit changed it when its blob there differs from the blob in every parent (git's
    combined diff, over the branch's places for it: month folder and flat)."""
    from contextlib import closing

    from ...plumbing import gitlog_changes

    places = tuple(dict.fromkeys((store.stored_path(path), path)))
    out = []
    with closing(gitlog_changes.changes(str(repo.path), str(tip.id), only=places)) as log:
        for c in log:
            changed = dict(gitlog_changes.working_copy(c.paths))
            if path in changed:
                when = dt.datetime.fromtimestamp(c.commit_time, dt.timezone.utc).strftime("%Y-%m-%d %H:%M")
                out.append(Version(c.id, when, c.name, c.subject, changed[path]))
    return sorted(out, key=lambda v: v.date, reverse=True)
