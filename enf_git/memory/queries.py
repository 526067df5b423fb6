"""Read-side operations the CLI renders: session listing, decision chains, show, history.

Each returns plain data; cli.py decides how it looks.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

import pygit2

from ..pure import ledger as ledger_mod
from ..pure import model, render
from . import records
from ..plumbing import store
from ..errors import EnfError, NotFound

_REL = re.compile(r"^(\d+)\s*([dwmy])$")
_DECISION_ID = re.compile(r"^d[0-9a-f]{7}$")


@dataclass(frozen=True)
class Version:
    commit: str
    date: str
    author: str
    subject: str
    blob: str | None  # None: the path was deleted in this commit


def load(repo: pygit2.Repository, commit: pygit2.Commit, cache: records.Cache) -> records.Records:
    return records.load(repo, commit.tree, cache)


def parse_date(text: str, today: dt.date) -> str:
    """YYYY-MM-DD, or a relative `3d`/`2w`/`1m`/`1y` meaning that long before today."""
    text = text.strip().lower().removesuffix(" ago")
    if re.match(r"^\d{4}-\d{2}-\d{2}$", text):
        return text
    m = _REL.match(text.replace(" days", "d").replace(" weeks", "w"))
    if m is None:
        raise EnfError(f"cannot read the date {text!r}", hint="use YYYY-MM-DD or a span like 7d, 2w, 3m")
    n, unit = int(m.group(1)), m.group(2)
    days = n * {"d": 1, "w": 7, "m": 30, "y": 365}[unit]
    return (today - dt.timedelta(days=days)).isoformat()


def filter_sessions(sessions: list[model.Session], *, since: str | None, until: str | None,
                    tags: tuple[str, ...], status: str | None, authors: dict[str, str] | None,
                    author: str | None) -> list[model.Session]:
    out = []
    for s in render.newest_first(sessions):
        if since and s.date < since or until and s.date > until:
            continue
        if tags and not {t.lower() for t in tags} & set(s.tags):
            continue
        if status and s.status != status:
            continue
        if author and authors is not None and author.lower() not in authors.get(s.path, "").lower():
            continue
        out.append(s)
    return out


def first_authors(repo: pygit2.Repository, tip: pygit2.Commit) -> dict[str, str]:
    """Session path -> 'Name <email>' of the commit that first added it."""
    authors: dict[str, str] = {}
    walker = repo.walk(tip.id, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE)
    for c in walker:
        parent_tree = c.parents[0].tree if c.parents else None
        diff = c.tree.diff_to_tree(parent_tree, swap=True) if parent_tree is not None else c.tree.diff_to_tree(swap=True)
        for delta in diff.deltas:
            path = delta.new_file.path
            if model.is_session_path(path) and path not in authors:
                authors[path] = f"{c.author.name} <{c.author.email}>"
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


def resolve_target(repo: pygit2.Repository, commit: pygit2.Commit, recs: records.Records,
                   target: str) -> tuple[str, str | None, ledger_mod.Chain | None]:
    """(path on the branch, decision id or None, its chain) for a session, decision id or path."""
    if _DECISION_ID.match(target):
        ledger = render.build_ledger(recs.all_sessions(), recs.extra_decisions())
        found = ledger.find(target)
        if found is None:
            raise NotFound(f"no decision {target}", hint="git enf log --decisions")
        chain, decision = found
        return decision.source, target, chain
    if store.read_path(repo, commit.tree, target) is not None:
        return target, None, None
    return find_session(recs, target).path, None, None


def history(repo: pygit2.Repository, tip: pygit2.Commit, path: str) -> list[Version]:
    """Every commit that changed `path`, newest first, with the blob it left behind."""
    out = []
    for c in repo.walk(tip.id, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME):
        mine = store.blob_oid(repo, c.tree, path)
        parents = [store.blob_oid(repo, p.tree, path) for p in c.parents] or [None]
        if all(mine != p for p in parents):
            when = dt.datetime.fromtimestamp(c.commit_time, dt.timezone.utc).strftime("%Y-%m-%d %H:%M")
            out.append(Version(str(c.id), when, c.author.name, c.message.splitlines()[0] if c.message else "", mine))
    return out
