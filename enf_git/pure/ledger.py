"""The decision ledger: decisions plus reversals folded into chains.

A reversal names the decision it reverses (by id, by a phrase of its text, by the
session it was made in, or only by its "Changed from" clause) and what replaced it.
The replacement is the decision in the reversing file whose decided clause matches
the reversal's "to …" part; when the assistant wrote only the reversal line, a
replacement record is synthesized from it, so the chain never has a hole. Nothing is
dropped: superseded decisions stay in their chain, and a reversal that matches
nothing is returned as unresolved for doctor and the views. Pure: records in, chains
out.

The decision a reversal reverses is the one it names, replaced already or not, never
the head of the chain that one is in. A reversal that names the first replacement
saw it, and continues the chain; one that names a decision an earlier reversal had
already replaced was written without seeing that one (two teammates, each on their
own clone): both replacements stand, and the ledger records a Disagreement. However
the two name it, id, phrase or session alike, and in whatever order their sessions
were merged: reversals are folded in time order.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import partial
from typing import TypeVar

from . import decision_pool
from .frozen import Record, replace
from .model import Decision, Reversal, stable_id

_Item = TypeVar("_Item", Decision, Reversal)


class Chain(Record):
    FIELDS = ("current", "superseded", "reversals")

    current: Decision
    superseded: tuple[Decision, ...]  # newest first
    reversals: tuple[Reversal, ...]  # the reversals that led to `current`, newest first

    def __init__(self, current: Decision, superseded: tuple[Decision, ...], reversals: tuple[Reversal, ...]) -> None:
        vars(self).update(current=current, superseded=superseded, reversals=reversals)


class Disagreement(Record):
    """Two reversals of one decision, each made without seeing the other (the second
    names a decision the first had already replaced): both replacements stand until a
    later reversal of either one settles it."""

    FIELDS = ("decision", "reversals", "replacements", "settled_by")

    decision: Decision  # the decision both reversed
    reversals: tuple[Reversal, Reversal]  # the first and the second, by time
    replacements: tuple[Decision, Decision]  # what each side stood on when the second was made
    settled_by: Reversal | None  # a later reversal of one of the replacements

    def __init__(self, decision: Decision, reversals: tuple[Reversal, Reversal],
                 replacements: tuple[Decision, Decision], settled_by: Reversal | None = None) -> None:
        vars(self).update(decision=decision, reversals=reversals, replacements=replacements, settled_by=settled_by)

    @property
    def open(self) -> bool:
        return self.settled_by is None


class Ledger(Record):
    FIELDS = ("chains", "unresolved", "disagreements")

    chains: tuple[Chain, ...]
    unresolved: tuple[Reversal, ...]
    disagreements: tuple[Disagreement, ...]

    def __init__(self, chains: tuple[Chain, ...], unresolved: tuple[Reversal, ...],
                 disagreements: tuple[Disagreement, ...] = ()) -> None:
        vars(self).update(chains=chains, unresolved=unresolved, disagreements=disagreements)

    @property
    def open_disagreements(self) -> tuple[Disagreement, ...]:
        return tuple(d for d in self.disagreements if d.open)

    @property
    def standing(self) -> int:
        return len(self.chains)

    def find(self, decision_id: str) -> tuple[Chain, Decision] | None:
        for chain in self.chains:
            for d in (chain.current, *chain.superseded):
                if d.id == decision_id:
                    return chain, d
        return None


_key = decision_pool.key


def build(decisions: Iterable[Decision], reversals: Iterable[Reversal]) -> Ledger:
    pool = decision_pool.Pool(_dedupe(decisions))
    successor: dict[str, str] = {}  # superseded id -> the id that replaced it
    via: dict[str, Reversal] = {}
    unresolved = []
    split: list[tuple[Decision, Reversal, Reversal, Decision]] = []  # (decision, first, second, second's new)
    for rev in sorted(_dedupe(reversals), key=_key):
        named = _named(rev, pool, successor)
        if named is None:
            unresolved.append(rev)
            continue
        # Only a standing decision can replace: one already superseded would close a
        # cycle (A -> B -> A) and drop the whole chain from the views. Only one written
        # beside the reversal can (`_replaces`), hence the lookup by source file.
        new = _replacement(rev, named, (d for d in pool.by_source.get(rev.source, ()) if d.id not in successor))
        pool.add(new)
        if named.id in successor:
            # It names a decision another reversal had already replaced, so it was written
            # without seeing that one: its replacement stands beside the first one's, and
            # which one wins is the team's call (a disagreement), not ours.
            split.append((named, via[named.id], rev, new))
            continue
        successor[named.id] = new.id
        via[named.id] = rev
    by_id = {d.id: d for d in pool.items}
    # One decision may replace several (two reversals naming the same new choice):
    # every one of them stays in its chain.
    predecessors: dict[str, list[str]] = {}
    for old, new_id in successor.items():
        predecessors.setdefault(new_id, []).append(old)
    chains = []
    for d in pool.items:
        if d.id in successor:
            continue
        older, todo = [], list(predecessors.get(d.id, ()))
        while todo:
            prev = by_id[todo.pop()]
            older.append(prev)
            todo += predecessors.get(prev.id, ())
        older.sort(key=_key, reverse=True)
        chains.append(Chain(d, tuple(older), tuple(via[o.id] for o in older)))
    chains.sort(key=lambda c: _key(c.current))
    return Ledger(tuple(chains), tuple(unresolved), _disagreements(split, successor, via, by_id))


def _disagreements(split: list[tuple[Decision, Reversal, Reversal, Decision]], successor: dict[str, str],
                   via: dict[str, Reversal], by_id: dict[str, Decision]) -> tuple[Disagreement, ...]:
    out = []
    for decision, first, second, new in split:
        theirs = by_id[successor[decision.id]]
        # Where the first side stood when the second reversal was written: a step it took
        # before then (GraphQL on to gRPC) settled nothing, as the second had not seen it.
        while theirs.id in successor and _key(via[theirs.id]) < _key(second):
            theirs = by_id[successor[theirs.id]]
        # Settled once either replacement was itself reversed later.
        settled = [via[d.id] for d in (theirs, new) if d.id in successor]
        out.append(Disagreement(decision, (first, second), (theirs, new), min(settled, key=_key) if settled else None))
    return tuple(out)


def _dedupe(items: Iterable[_Item]) -> list[_Item]:
    # Of the copies of an id, the least by _rank survives, so which one does not depend on
    # input order. Ranked only on a clash: a repr() of every record was a third of build's time.
    seen: dict[str, _Item] = {}
    for item in items:
        kept = seen.get(item.id)
        if kept is None or _rank(item) < _rank(kept):
            seen[item.id] = item
    return list(seen.values())


def _rank(item: Decision | Reversal) -> tuple[tuple[str, str, str], str, str]:
    return _key(item), item.source, repr(item)


_ID = re.compile(r"\bd[0-9a-f]{7}\b")


def _named(rev: Reversal, pool: decision_pool.Pool, successor: Mapping[str, str]) -> Decision | None:
    """The decision `rev` names, made no later than it, standing or already replaced:
    what it names, never the head of the chain that decision is in, so that a reversal
    written without seeing an earlier one of the same decision is told apart from one
    that reverses that earlier replacement.

    By id first; else by a phrase of the decided clause or the text; else by session
    (its file name, with or without the date, or its session id); else by its
    "Changed from" clause alone. Of several it names, `_rank_named` picks.
    """
    key = _key(rev)
    ref, old = rev.ref.casefold().strip(), rev.old.casefold().strip()
    ids = {ref, *_ID.findall(ref)}  # "dabc1234", "(dabc1234)", "dabc1234 REST decision"
    found = [(d, 0) for i in ids for d in pool.by_id.get(i, []) if _key(d) <= key]
    if not found and any(pool.by_id.get(i) for i in ids):
        return None  # it names by id only decisions made after it
    beside = partial(_replaces, rev)  # the replacement written beside it is never its own target
    # Each kind only when the ones before it named nothing.
    found = found or pool.phrase(ref, old, key, successor, beside)
    found = found or [(d, how) for d, how in pool.in_session(_session_names(ref), key) if not beside(d)]
    found = found or pool.phrase(old, old, key, successor, beside)
    return max(found, key=lambda pair: _rank_named(pair[0], pair[1], old, successor))[0] if found else None


def _rank_named(d: Decision, how: int, old: str,
                successor: Mapping[str, str]) -> tuple[int, int, bool, tuple[str, ...]]:
    """Of the decisions a reversal names, the one it changed from first ("Changed from
    REST" picks REST, not the replacement whose text says "over REST"); then how well
    its reference matches (`Pool.phrase`); then a standing one; then the newest."""
    return _old_match(d, old), how, d.id not in successor, _key(d)


def _old_match(d: Decision, old: str) -> int:
    """2: `d` decided exactly what the reversal changed from; 1: one holds the other; 0: neither."""
    decided = d.decided.casefold().strip()
    if not old or not decided:
        return 0
    return 2 if decided == old else 1 if old in decided or decided in old else 0


# Patterns, not compiled ones: re compiles them at the first reversal by session, not at
# every SessionStart that imports this module.
_SESSION_WORDS = r"^(?:the\s+)?(?:session[:\s]+)?|(?:\s+session)?$"
_SESSION_SPLIT = r"[\s()\[\],;:'\"`]+"


def _session_names(ref: str) -> list[str]:
    """What a reference may call a session by: all of it without "session" around it
    (`session 2026-04-01-api-design`, `a1b2c3d4 session`), then each of its words
    (`api-design (REST)`); a path's folder and `.md` dropped."""
    whole = re.sub(_SESSION_WORDS, "", ref).strip()
    return [_bare(n) for n in (whole, *re.split(_SESSION_SPLIT, whole)) if n]


def _bare(name: str) -> str:
    return name.rsplit("/", 1)[-1].removesuffix(".md")


def _replaces(rev: Reversal, d: Decision) -> bool:
    """Whether `d` is the new decision `rev` points to: written beside it, deciding its "to …"."""
    new, decided = rev.new.casefold().strip(), d.decided.casefold()
    return d.source == rev.source and bool(new and decided) and (new in decided or decided in new)


def _decides_over(rev: Reversal, d: Decision) -> bool:
    """Whether `d`, written beside `rev`, decided something over what `rev` moved away
    from: the replacement named in other words ("Postgres FTS" for "Postgres full-text
    search"), which would otherwise stand beside a synthesized copy of itself."""
    old, over = rev.old.casefold().strip(), d.over.casefold().strip()
    return d.source == rev.source and bool(old and over) and (old in over or over in old)


def _replacement(rev: Reversal, target: Decision, standing: Iterable[Decision]) -> Decision:
    candidates = [d for d in standing if d.id != target.id]
    for matches in (_replaces, _decides_over):  # its "to …" first, then its "over …"
        found = [d for d in candidates if matches(rev, d)]
        if found:
            return found[0]
    text = f"In the context of {target.context or target.topic}, decided {rev.new} over {rev.old}"
    if rev.reason:
        text += f", because {rev.reason}"
    return replace(
        target,
        id=stable_id("d", rev.id, rev.new.casefold()),
        source=rev.source,
        date=rev.date,
        time=rev.time,
        decided=rev.new,
        over=rev.old,
        achieve=rev.reason,
        accepting="",
        confidence="",
        session_id=rev.session_id,
        text=text,
    )
