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

from collections.abc import Iterable
from dataclasses import dataclass, replace

from .model import Decision, Reversal, stable_id


@dataclass(frozen=True)
class Chain:
    current: Decision
    superseded: tuple[Decision, ...]  # newest first
    reversals: tuple[Reversal, ...]  # the reversals that led to `current`, newest first


@dataclass(frozen=True)
class Ledger:
    chains: tuple[Chain, ...]
    unresolved: tuple[Reversal, ...]

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
    pool = sorted(_dedupe(decisions), key=_key)
    successor: dict[str, str] = {}
    via: dict[str, Reversal] = {}
    unresolved = []
    for rev in sorted(reversals, key=_key):
        target = _target(rev, [d for d in pool if d.id not in successor and _key(d) <= _key(rev)])
        if target is None:
            unresolved.append(rev)
            continue
        new = _replacement(rev, target, pool)
        if new not in pool:
            pool.append(new)
        successor[target.id] = new.id
        via[target.id] = rev
    by_id = {d.id: d for d in pool}
    predecessors: dict[str, str] = {new: old for old, new in successor.items()}
    chains = []
    for d in pool:
        if d.id in successor:
            continue
        older, revs, cur = [], [], d.id
        while cur in predecessors and len(older) < len(pool):
            prev = predecessors[cur]
            older.append(by_id[prev])
            revs.append(via[prev])
            cur = prev
        chains.append(Chain(d, tuple(older), tuple(revs)))
    chains.sort(key=lambda c: _key(c.current))
    return Ledger(tuple(chains), tuple(unresolved))


def _dedupe(decisions: Iterable[Decision]) -> list[Decision]:
    seen: dict[str, Decision] = {}
    for d in decisions:
        seen.setdefault(d.id, d)
    return list(seen.values())


def _target(rev: Reversal, candidates: list[Decision]) -> Decision | None:
    ref = rev.ref.casefold().strip()
    for d in reversed(candidates):
        if ref == d.id:
            return d
    for needle in (ref, rev.old.casefold().strip()):
        if not needle:
            continue
        for d in reversed(candidates):
            if d.source == rev.source and d.decided.casefold() == rev.new.casefold():
                continue  # the replacement itself is never its own target
            if needle in d.decided.casefold() or needle in d.text.casefold():
                return d
    return None


def _replacement(rev: Reversal, target: Decision, pool: list[Decision]) -> Decision:
    new = rev.new.casefold().strip()
    for d in pool:
        if d.source == rev.source and d.id != target.id and new and (new in d.decided.casefold() or d.decided.casefold() in new):
            return d
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
