"""The decisions the ledger folds reversals into, with the lookups it makes once per
reversal: by id, by source file, by session name, and by phrase.

Rebuilding the standing list, filtering it by time and scanning it for the
replacement at every reversal was O(reversals x decisions): seconds on a
10,000-session branch. Here each lookup is a bisect or a dict lookup, and a phrase
is found with `str.rfind` over the decisions' decided clauses (or texts) joined into
one string, newest first. A reversal names what it names, replaced or not, so the
search can stop early only at a standing decision named exactly; one with no such
match looks at everything, which in a Python loop over each decision cost several
times what the joined search does. Pure.
"""

from __future__ import annotations

from bisect import bisect_right, insort
from itertools import accumulate
from collections.abc import Callable, Container, Iterable, Iterator

from .model import Decision, Reversal

_SEP = "\x00"  # between the joined texts


def key(item: Decision | Reversal) -> tuple[str, str, str]:
    return (item.date, item.time, item.id)


class Pool:
    """Every decision so far (given or synthesized), sorted by `key`."""

    def __init__(self, decisions: Iterable[Decision]) -> None:
        self.items = sorted(decisions, key=key)
        self.keys = [key(d) for d in self.items]  # for bisect
        self._members = set(self.items)  # hashing, not a scan comparing every field
        self.by_id: dict[str, list[Decision]] = {}  # a list: a synthesized id may collide
        self.by_source: dict[str, list[Decision]] = {}  # each sorted by key, like `items`
        for d in self.items:
            self.by_id.setdefault(d.id, []).append(d)
            self.by_source.setdefault(d.source, []).append(d)
        self._by_session: dict[str, list[str]] | None = None  # name -> sources; built when first asked
        # The decided clauses and texts, casefolded once and joined, for `phrase`: the given
        # decisions in `key` order (a prefix of them was made by a given moment), and those
        # added later (replacements, at most one per reversal) in the order they came.
        self._given, self._given_keys = list(self.items), list(self.keys)
        self._decided = _Joined([d.decided.casefold() for d in self._given])
        self._added: list[Decision] = []
        self._added_decided = _Joined([])
        # The texts, joined at the first phrase that no decided clause holds.
        self._text: _Joined | None = None
        self._added_text: _Joined | None = None

    def add(self, d: Decision) -> None:
        if d in self._members:
            return
        self._members.add(d)
        # Right of equal keys: where append-then-stable-sort used to put it.
        i = bisect_right(self.keys, key(d))
        self.keys.insert(i, key(d))
        self.items.insert(i, d)
        self.by_id.setdefault(d.id, []).append(d)
        insort(self.by_source.setdefault(d.source, []), d, key=key)
        if self._by_session is not None and len(self.by_source[d.source]) == 1:
            for alias in _session_names(d.source, {d.session_id}):
                self._by_session.setdefault(alias, []).append(d.source)
        self._added.append(d)
        self._added_decided.append(d.decided.casefold())
        if self._added_text is not None:
            self._added_text.append(d.text.casefold())

    def in_session(self, names: Iterable[str], by: tuple[str, str, str]) -> list[tuple[Decision, int]]:
        """The decisions, made no later than `by`, of the session called by the first of
        `names` that names one."""
        if self._by_session is None:  # once, and only for a reversal that names no phrase
            self._by_session = {}
            for source, decisions in self.by_source.items():
                for alias in _session_names(source, {d.session_id for d in decisions}):
                    self._by_session.setdefault(alias, []).append(source)
        for name in names:
            found = [(d, 0) for source in self._by_session.get(name, ())
                     for d in self.by_source[source] if key(d) <= by]
            if found:
                return found
        return []

    def phrase(self, needle: str, old: str, by: tuple[str, str, str], replaced: Container[str],
               skip: Callable[[Decision], bool]) -> list[tuple[Decision, int]]:
        """The decisions made no later than `by`, but those `skip` leaves out, whose decided
        clause is `needle` (2) or holds it (1); whose text holds it (0) when no decided
        clause does, or when it decided exactly `old` (which may outrank them all:
        ledger._rank_named).

        It looks newest first, and no further than a standing one (its id not among
        those `replaced`) that decided `needle`, which is `old`: nothing older can
        outrank it. That is the common case ("REVERSED REST:
        Changed from REST to …"), found in the last few texts."""
        if not needle:
            return []
        decided = [(d, 2 if needle == d.decided.casefold() else 1)
                   for d in self._holding(needle, by, text=False, given=False) if not skip(d)]
        for d in self._holding(needle, by, text=False, given=True):
            if skip(d):
                continue
            exact = needle == d.decided.casefold()
            decided.append((d, 2 if exact else 1))
            if exact and needle == old and d.id not in replaced:
                return decided  # every one added later is in already: none is left out
        if decided:
            texts = [d for given in (False, True) for d in self._holding(old, by, text=False, given=given)
                     if d.decided.casefold() == old and needle in d.text.casefold()] if old else []
        else:
            texts = [d for given in (False, True) for d in self._holding(needle, by, text=True, given=given)]
        named = {d for d, _ in decided}
        return decided + [(d, 0) for d in texts if d not in named and not skip(d)]

    def _holding(self, needle: str, by: tuple[str, str, str], text: bool, given: bool) -> Iterator[Decision]:
        """The decisions made no later than `by` whose decided clause (or text) holds
        `needle`: of the given ones, newest first; or of those added later."""
        if given:
            joined = self._decided
            if text:
                joined = self._text = self._text or _Joined([d.text.casefold() for d in self._given])
            yield from (self._given[k] for k in joined.holding(needle, bisect_right(self._given_keys, by)))
        else:
            joined = self._added_decided
            if text:
                joined = self._added_text = self._added_text or _Joined([d.text.casefold() for d in self._added])
            yield from (d for d in (self._added[k] for k in joined.holding(needle)) if key(d) <= by)


class _Joined:
    """Texts joined into one string, so that finding the ones that hold a phrase is a few
    `str.rfind` calls rather than a Python loop over all of them."""

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self.starts = [0, *accumulate(len(t) + len(_SEP) for t in texts)][:-1]
        self.hay = _SEP.join(texts) + _SEP

    def append(self, text: str) -> None:
        self.texts.append(text)
        self.starts.append(len(self.hay))
        self.hay += text + _SEP  # a copy each time, at C speed: one per reversal at most

    def holding(self, needle: str, cut: int | None = None) -> Iterator[int]:
        """The indexes (below `cut`) of the texts that hold `needle`, last first."""
        end = self.starts[cut] if cut is not None and cut < len(self.starts) else len(self.hay)
        if _SEP in needle:  # it could match across texts: look in each
            yield from (k for k in range(len(self.starts[:cut]) - 1, -1, -1) if needle in self.texts[k])
            return
        at = self.hay.rfind(needle, 0, end)
        while at >= 0:
            k = bisect_right(self.starts, at) - 1
            yield k
            at = self.hay.rfind(needle, 0, self.starts[k])  # the next one is in an earlier text


def _session_names(source: str, session_ids: set[str]) -> set[str]:
    """What a reversal may call the session file `source`: its name, that name without
    the date, its session id. Not decisions.md: that is no session."""
    if not source.startswith("sessions/"):
        return set()
    stem = source.rsplit("/", 1)[-1].removesuffix(".md").casefold()
    return {stem, stem[11:] if _dated(stem) else stem} | {s.casefold() for s in session_ids if s}


def _dated(stem: str) -> bool:
    """`2026-04-01-api-design`: a name that starts with its date."""
    return len(stem) > 11 and stem[4] == stem[7] == stem[10] == "-" and stem[:4].isdigit()
