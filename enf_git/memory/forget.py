"""`forget`: remove exactly the one remembered thing a query names.

Forgetting matches *things to forget*, each a `Forgettable` from one of `SOURCES`:
the remembered facts of the three scopes, and the pins (memory/pins.forgettables,
Forgettables of kind "pin" with their own `remove`); `forget` matches both kinds
with the same rule: its id, else its
whole text, else a part of it; exactly one match is removed, several are refused
and listed, none is NotFound. Nothing outside memory is ever touched.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..errors import EnfError, NotFound
from ..pure import facts as pf
from . import fact_stores, pins
from .facts import FactSettings, Places, load_scope, require_session, require_user
from .workspace import Context


class Forgettable:
    """One thing `forget` can remove: a fact (later also a pin), with how to remove it."""

    def __init__(self, kind: str, scope: str, ident: str, text: str, label: str,
                 remove: Callable[[], str | None]) -> None:
        self.kind, self.scope, self.id, self.text, self.label = kind, scope, ident, text, label
        self.remove = remove  # removes it; returns the commit that did, if one did

    def as_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "scope": self.scope, "id": self.id, "category": self.label, "text": self.text}

    def describe(self) -> str:
        return f"{self.id} ({self.scope} {self.label.lower()}) {self.text}"


class AmbiguousMatch(EnfError):
    """`forget` found several things: it removes none and names them all."""

    def __init__(self, query: str, matches: Sequence[Forgettable]) -> None:
        self.query = query
        self.matches = list(matches)
        listed = "\n".join(f"  {m.describe()}" for m in self.matches)
        super().__init__(f"{len(self.matches)} things match {query!r}; nothing was forgotten:\n{listed}",
                         hint="name one by its id: git enf forget ID")


def _fact_items(ctx: Context, places: Places, scope: str, settings: FactSettings) -> list[Forgettable]:
    """The facts of `scope`, as things to forget."""
    items = []
    for fact in pf.ordered(load_scope(ctx, places, scope, settings).facts):
        items.append(Forgettable("fact", scope, fact.id, fact.text, fact.category,
                                 _remover(ctx, places, fact, settings)))
    return items


def _remover(ctx: Context, places: Places, fact: pf.Fact, settings: FactSettings) -> Callable[[], str | None]:
    def remove() -> str | None:
        if fact.scope == "project":
            def drop(current: list[pf.Fact]) -> dict[str, bytes | None]:
                return {pf.fact_path(fact.id): None} if any(f.id == fact.id for f in current) else {}
            result = fact_stores.commit_project(ctx, drop, f"enf: forget {fact.id} ({fact.category})",
                                                settings.ttls, None)
            return result.oid if result else None
        if fact.scope == "user":
            fact_stores.remove_user(require_user(places), fact.id)
            return None
        fact_stores.change_session(ctx, require_session(places),
                                   lambda current: [f for f in current if f.id != fact.id], settings.ttls)
        return None
    return remove


# Each source lists the things of one kind in one scope. Pins add theirs here.
Source = Callable[[Context, Places, str, FactSettings], list[Forgettable]]
SOURCES: tuple[Source, ...] = (_fact_items, pins.forgettables)


class Forgotten:
    def __init__(self, item: Forgettable, commit: str | None) -> None:
        self.item = item
        self.commit = commit


VERSIONED = ("project",)  # scopes whose removal is a commit: history keeps what was forgotten


def forget(ctx: Context, places: Places, query: str, *, scopes: Sequence[str] | None = None,
           settings: FactSettings | None = None, by_id_outside_git: bool = False) -> Forgotten:
    """Remove exactly the one fact `query` names (its id, its text, or a part of it).
    Several matches: AmbiguousMatch, and nothing is removed; none: NotFound.

    With `by_id_outside_git` (the MCP tool: a model's vague words), a fact kept outside
    git (user or session scope), whose removal cannot be undone, is removed only when
    `query` is its id."""
    settings = settings or FactSettings.read(ctx.repo)
    items = [item for scope in scopes or places.scopes() for source in SOURCES
             for item in source(ctx, places, scope, settings)]
    found = pf.best_matches(query, [(i.id, i.text) for i in items])
    if not found:
        raise NotFound(f"nothing remembered matches {query!r}", hint="git enf memories list; git enf pins")
    if len(found) > 1:
        raise AmbiguousMatch(query, [items[n] for n in found])
    item = items[found[0]]
    if by_id_outside_git and item.scope not in VERSIONED and query.strip() != item.id:
        raise EnfError(f"{query!r} matches {item.describe()}, a {item.scope}-scope fact kept outside git: forgetting "
                       "it cannot be undone, so it is forgotten only by its id; nothing was forgotten",
                       hint=f'{{"query": "{item.id}"}}')
    return Forgotten(item, item.remove())
