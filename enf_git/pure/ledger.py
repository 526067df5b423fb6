"""The decision ledger: decisions plus reversals folded into chains.

A reversal names the decision it reverses (by id, or by a phrase of its text) and
what replaced it. The replacement is the decision in the reversing file whose
decided clause matches the reversal's "to …" part; when the assistant wrote only
the reversal line, a replacement record is synthesized from it, so the chain never
has a hole. Nothing is dropped: superseded decisions stay in their chain, and a
reversal that matches nothing is returned as unresolved for doctor and the views.
Pure: records in, chains out.
"""

from __future__ import annotations

import re
from bisect import bisect_right, insort
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TypeVar

from .model import Decision, Reversal, stable_id

_Item = TypeVar("_Item", Decision, Reversal)


@dataclass(frozen=True)
class Chain:
    current: Decision
    superseded: tuple[Decision, ...]  # newest first
    reversals: tuple[Reversal, ...]  # the reversals that led to `current`, newest first


@dataclass(frozen=True)
class Disagreement:
    """Two reversals of one decision, each made without seeing the other (the second
    names a decision the first had already replaced): both replacements stand until a
    later reversal of either one settles it."""

    decision: Decision  # the decision both reversed
    reversals: tuple[Reversal, Reversal]  # the first and the second, by time
    replacements: tuple[Decision, Decision]  # what each put in its place
    settled_by: Reversal | None = None  # a later reversal of one of the replacements

    @property
    def open(self) -> bool:
        return self.settled_by is None


@dataclass(frozen=True)
class Ledger:
    chains: tuple[Chain, ...]
    unresolved: tuple[Reversal, ...]
    disagreements: tuple[Disagreement, ...] = ()

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


def _key(item: Decision | Reversal) -> tuple[str, str, str]:
    return (item.date, item.time, item.id)


def build(decisions: Iterable[Decision], reversals: Iterable[Reversal]) -> Ledger:
    pool = _Pool(_dedupe(decisions))
    successor: dict[str, str] = {}  # superseded id -> the id that replaced it
    via: dict[str, Reversal] = {}
    unresolved = []
    split: list[tuple[Decision, Reversal, Reversal, Decision]] = []  # (decision, first, second, second's new)
    for rev in sorted(_dedupe(reversals), key=_key):
        target = _target(rev, pool, successor)
        if target is None:
            twice = _reversed_already(rev, pool, successor)
            if twice is None:
                unresolved.append(rev)
                continue
            # A second reversal of the same decision: its replacement stands beside the
            # first one's; which one wins is the team's call (a disagreement), not ours.
            new = _replacement(rev, twice, (d for d in pool.by_source.get(rev.source, ()) if d.id not in successor))
            pool.add(new)
            split.append((twice, via[twice.id], rev, new))
            continue
        # Only a standing decision can replace: one already superseded would close a
        # cycle (A -> B -> A) and drop the whole chain from the views. Only one written
        # beside the reversal can (`_replaces`), hence the lookup by source file.
        new = _replacement(rev, target, (d for d in pool.by_source.get(rev.source, ()) if d.id not in successor))
        pool.add(new)
        successor[target.id] = new.id
        via[target.id] = rev
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


def _reversed_already(rev: Reversal, pool: _Pool, successor: dict[str, str]) -> Decision | None:
    """The decision `rev` names by id when another reversal had already replaced it."""
    ref = rev.ref.casefold().strip()
    ids = {ref, *_ID.findall(ref)}
    named = [d for i in ids for d in pool.by_id.get(i, []) if d.id in successor and _key(d) <= _key(rev)]
    return max(named, key=_key) if named else None


def _disagreements(split: list[tuple[Decision, Reversal, Reversal, Decision]], successor: dict[str, str],
                   via: dict[str, Reversal], by_id: dict[str, Decision]) -> tuple[Disagreement, ...]:
    out = []
    for decision, first, second, new in split:
        theirs = by_id[successor[decision.id]]
        # Settled once either replacement was itself reversed later.
        settled = [via[d.id] for d in (theirs, new) if d.id in successor]
        out.append(Disagreement(decision, (first, second), (theirs, new), min(settled, key=_key) if settled else None))
    return tuple(out)


class _Pool:
    """Every decision so far (given or synthesized), sorted by `_key`, with the lookups
    `build` makes once per reversal.

    Rebuilding the standing list, filtering it by time and scanning it for the
    replacement at every reversal was O(reversals x decisions): seconds on a
    10,000-session branch. Here each of those is a bisect or a dict lookup.
    """

    def __init__(self, decisions: Iterable[Decision]) -> None:
        self.items = sorted(decisions, key=_key)
        self.keys = [_key(d) for d in self.items]  # for bisect
        self.folded = [_fold(d) for d in self.items]  # casefolded once, not per reversal
        self._members = set(self.items)  # hashing, not a scan comparing every field
        self.by_id: dict[str, list[Decision]] = {}  # a list: a synthesized id may collide
        self.by_source: dict[str, list[Decision]] = {}  # each sorted by _key, like `items`
        for d in self.items:
            self.by_id.setdefault(d.id, []).append(d)
            self.by_source.setdefault(d.source, []).append(d)

    def add(self, d: Decision) -> None:
        if d in self._members:
            return
        self._members.add(d)
        # Right of equal keys: where append-then-stable-sort used to put it.
        i = bisect_right(self.keys, _key(d))
        self.keys.insert(i, _key(d))
        self.folded.insert(i, _fold(d))
        self.items.insert(i, d)
        self.by_id.setdefault(d.id, []).append(d)
        insort(self.by_source.setdefault(d.source, []), d, key=_key)

    def made_by(self, item: Reversal) -> int:
        """How many of `items` (a prefix) were decided no later than `item`."""
        return bisect_right(self.keys, _key(item))


def _fold(d: Decision) -> tuple[str, str]:
    """`decided` and `text`, casefolded: what a reversal's phrase is looked for in, in that order."""
    return d.decided.casefold(), d.text.casefold()


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


def _target(rev: Reversal, pool: _Pool, successor: dict[str, str]) -> Decision | None:
    """The newest standing decision, made no later than `rev`, that `rev` names."""
    key = _key(rev)
    ref = rev.ref.casefold().strip()
    ids = {ref, *_ID.findall(ref)}  # "dabc1234", "(dabc1234)", "dabc1234 REST decision"
    # By id first: the newest standing one made by then (of equal keys, the last added,
    # which is the last of them in `items` too).
    named = [d for i in ids for d in reversed(pool.by_id.get(i, [])) if d.id not in successor and _key(d) <= key]
    if named:
        return max(named, key=_key)
    if any(pool.by_id.get(i) for i in ids):
        # It names a known decision by id, one that was already replaced: not a phrase to
        # look for elsewhere (that would chain it onto the replacement and hide that two
        # people reversed the same decision); build() records the disagreement.
        return None
    cut = pool.made_by(rev)
    for needle in (ref, rev.old.casefold().strip()):
        if not needle:
            continue
        # The decided clause first: the replacement's own text often names the old
        # choice ("decided GraphQL over REST") and must not win over it.
        for field in (0, 1):  # _fold's decided, text
            # Newest first, without copying the prefix; the cheap substring test first, as a
            # phrase that matches nothing (an unresolved reversal) scans everything.
            for k in range(cut - 1, -1, -1):
                if needle in pool.folded[k][field]:
                    d = pool.items[k]
                    # Not a superseded one; and the replacement is never its own target.
                    if d.id not in successor and not _replaces(rev, d):
                        return d
    return None


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
