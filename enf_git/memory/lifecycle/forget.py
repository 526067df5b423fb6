"""`forget`: remove exactly the one remembered thing a query names.

Forgetting matches *things to forget*, each a `Forgettable` from one of `SOURCES`:
the remembered facts of the three scopes, and the pins (memory/pins.forgettables,
Forgettables of kind "pin" with their own `remove`); `forget` matches both kinds
with the same rule (pure/facts.best_matches): its id or a prefix of it (as `show`
takes one), else its whole text, else its words as whole words, never stopwords alone.
Exactly one match by id, text or two meaningful words is removed; several, or one
found by a single word ("tabs" in "we indent with tabs"), are removed only when the
caller says yes (`--yes`), else refused and listed; none is NotFound. Nothing outside
memory is ever touched.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ...errors import EnfError, NotFound
from ...pure import facts as pf
from ..record import fact_stores
from . import pins
from .facts import FactSettings, Places, load_scope, require_session, require_user
from .forgettable import Forgettable
from ..workspace import Context


class AmbiguousMatch(EnfError):
    """`forget` found several things: it removes none and names them all."""

    def __init__(self, query: str, matches: Sequence[Forgettable]) -> None:
        self.query = query
        self.matches = list(matches)
        listed = "\n".join(f"  {m.describe()}" for m in self.matches)
        super().__init__(f"{len(self.matches)} things match {query!r}; nothing was forgotten:\n{listed}",
                         hint=f"name one by its id: git enf forget ID (or forget all {len(self.matches)}: "
                              f"git enf forget --yes {query})")


class WeakMatch(EnfError):
    """`forget` found one thing by a single word of its text: it asks before removing it."""

    def __init__(self, query: str, match: Forgettable) -> None:
        self.query = query
        self.matches = [match]
        super().__init__(f"{query!r} names only one word of {match.describe()}; nothing was forgotten",
                         hint=f"forget it by its id: git enf forget {match.id} (or: git enf forget --yes {query})")


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
           settings: FactSettings | None = None, by_id_outside_git: bool = False, yes: bool = False) -> Forgotten:
    """Remove exactly the one fact `query` names (its id or a prefix, its text, or two
    of its words). Several matches: AmbiguousMatch; one by a single word: WeakMatch;
    nothing is removed then, unless `yes` (forget_all removes several). None: NotFound.

    With `by_id_outside_git` (the MCP tool: a model's vague words), a fact kept outside
    git (user or session scope), whose removal cannot be undone, is removed only when
    `query` is its id."""
    found = matching(ctx, places, query, scopes=scopes, settings=settings)
    if len(found.items) > 1:
        raise AmbiguousMatch(query, found.items)
    item = found.items[0]
    if by_id_outside_git and item.scope not in VERSIONED and found.how != "id":
        raise EnfError(f"{query!r} matches {item.describe()}, a {item.scope}-scope fact kept outside git: forgetting "
                       "it cannot be undone, so it is forgotten only by its id; nothing was forgotten",
                       hint=f'{{"query": "{item.id}"}}')
    if found.weak and not yes:
        raise WeakMatch(query, item)
    return Forgotten(item, item.remove())


class Found:
    def __init__(self, items: list[Forgettable], how: str) -> None:
        self.items, self.how = items, how

    @property
    def weak(self) -> bool:
        return self.how == "word"


def matching(ctx: Context, places: Places, query: str, *, scopes: Sequence[str] | None = None,
             settings: FactSettings | None = None) -> Found:
    """What `query` names (at least one thing), and how; NotFound when it names nothing."""
    from ...plumbing.stem import STOPWORDS

    settings = settings or FactSettings.read(ctx.repo)
    items = [item for scope in scopes or places.scopes() for source in SOURCES
             for item in source(ctx, places, scope, settings)]
    found = pf.best_matches(query, [(i.id, i.text) for i in items], STOPWORDS)
    if found.how == "stopwords":
        raise NotFound(f"{query!r} is only words too common to name anything; nothing was forgotten",
                       hint="give its id or words of its own (git enf memories list shows them)")
    if not found.indexes:
        raise NotFound(f"nothing remembered matches {query!r}", hint="git enf memories list; git enf pins")
    return Found([items[n] for n in found.indexes], found.how)


def forget_all(items: Sequence[Forgettable]) -> list[Forgotten]:
    """Remove each of `items` (what the user said yes to), one removal each."""
    return [Forgotten(item, item.remove()) for item in items]
