"""Who wrote each record as it stands: the commit that last changed it, its author and date.

Memory reaches every teammate's assistant, so every line shown from a record someone
else wrote names them (`— Alice, 2026-12-01`), and `enf.trust signed` asks whether that
very commit is signed. "Last changed" is git's own sense of it: a commit changed a path
when its blob there differs from the blob in every parent (a merge that only brought a
teammate's version in changed nothing; one that resolved two versions did).

Kept per machine in `.git/enf/authors.bin` (marshal: read in about a millisecond at
10,000 records) for the tip it describes, and brought to a new tip by walking only the
commits since, oldest first; a tip that does not descend from the saved one (a rewritten
branch) is walked from the start. A pure accelerator: delete it and the next read walks
the branch again.
"""

from __future__ import annotations

import marshal
import time
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from ..plumbing import atomic, store
from ..pure import model
from .workspace import Context

FILE = "authors.bin"
VERSION = 1


class Change(NamedTuple):
    """The commit that last changed a record."""

    commit: str
    name: str
    email: str
    time: int  # the author's date, unix seconds

    @property
    def date(self) -> str:
        return time.strftime("%Y-%m-%d", time.gmtime(self.time))


class Authors:
    """path -> Change for every record at one tip, and whose they are to this reader."""

    def __init__(self, tip: str, changes: Mapping[str, Change], me: tuple[str, str]) -> None:
        self.tip = tip
        self.changes = changes
        self._me = (me[0].strip().lower(), me[1].strip().lower())

    def of(self, path: str) -> Change | None:
        return self.changes.get(path)

    def mine(self, change: Change) -> bool:
        """Whether the reader made it: the same email (or, with no email on either, name)."""
        email = change.email.strip().lower()
        if email and self._me[1]:
            return email == self._me[1]
        return change.name.strip().lower() == self._me[0]

    def by(self, path: str) -> str:
        """"Alice, 2026-12-01" for a record someone else last changed; "" for the reader's
        own, or one this table does not know."""
        change = self.changes.get(path)
        if change is None or self.mine(change):
            return ""
        return f"{change.name or change.email}, {change.date}"

    def names(self, paths: Iterable[str]) -> list[str]:
        """Whose words `paths` hold, the reader first ("you"), each name once."""
        out: dict[str, None] = {}
        for path in paths:
            change = self.changes.get(path)
            if change is not None:
                out["you" if self.mine(change) else (change.name or change.email)] = None
        return sorted(out, key=lambda n: (n != "you", n.lower()))


def load(ctx: Context, tip: store.Commit | None = None) -> Authors:
    """The table for `tip` (default: the branch tip), from the file, brought up to date, or built."""
    me = _me(ctx)
    tip = tip or store.tip(ctx.repo)
    if tip is None:
        return Authors("", {}, me)
    path = store.state_dir(ctx.repo) / FILE
    saved = _read(path)
    if saved is not None and saved[0] == str(tip.id):
        return Authors(saved[0], saved[1], me)
    base = store.commit_at(ctx.repo, saved[0]) if saved is not None else None
    if base is None or not store.descends_from(ctx.repo, tip, base):
        base, changes = None, {}
    else:
        changes = dict(saved[1]) if saved is not None else {}
    _walk(ctx, tip, base, changes)
    _write(path, str(tip.id), changes)
    return Authors(str(tip.id), changes, me)


def _walk(ctx: Context, tip: store.Commit, base: store.Commit | None, changes: dict[str, Change]) -> None:
    for c in store.walk(ctx.repo, tip, hide=base, oldest_first=True):
        trees = [p.tree for p in c.parents]
        first = trees[0] if trees else None
        for delta in store.deltas(first, c.tree):  # working-copy names: a month folder is no change
            if delta.status == "D":
                changes.pop(delta.old_path, None)
                continue
            path = delta.new_path
            if not _record(path) or _inherited(ctx, trees[1:], path, delta.new_oid):
                continue
            changes[path] = Change(str(c.id), c.author.name or "", c.author.email or "", int(c.author.time))


def _record(path: str) -> bool:
    return (model.is_session_path(path) or model.is_decision_path(path)
            or path.startswith(("memories/", "instincts/", "pins/")))


def _inherited(ctx: Context, others: list[store.Tree], path: str, oid: str) -> bool:
    """Whether another parent of a merge holds this very blob: the merge only brought it in."""
    return any(store.blob_oid(ctx.repo, tree, path) == oid for tree in others)


def reader(ctx: Context) -> tuple[str, str]:
    """(name, email) of whoever reads memory here: git's author identity, as a commit would take it."""
    return _me(ctx)


def _me(ctx: Context) -> tuple[str, str]:
    from ..plumbing import ident

    who = ident.person("author", ctx.ident, lambda key: store.config_value(ctx.repo, key))
    return who.name or "", who.email or ""


def _read(path: object) -> tuple[str, dict[str, Change]] | None:
    try:
        with open(str(path), "rb") as f:
            raw = marshal.load(f)
        if raw[0] != VERSION:
            return None
        return str(raw[1]), {p: Change(*c) for p, c in raw[2].items()}
    except (OSError, ValueError, EOFError, TypeError, IndexError, KeyError):
        return None


def _write(path: object, tip: str, changes: Mapping[str, Change]) -> None:
    try:
        atomic.write(str(path), marshal.dumps((VERSION, tip, {p: tuple(c) for p, c in changes.items()})))
    except OSError:
        pass  # a read-only state dir: the next read walks again, this one answers
