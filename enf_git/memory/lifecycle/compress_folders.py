"""Compression's ranking, one month folder at a time.

A run that compresses one session of 100,000 listed them all, read every blob's facts
from tiers.json and built a row each (0.75 s) to judge the few up to its limit. The
branch keeps sessions in month folders (`sessions/YYYY/MM/`), so a month whose tree id
has not changed since the last run holds the same sessions: what ranking needs of it is
kept per tree id in `.git/enf/tiers-folders.json` (SUMMARY_FILE), small, and read whole:

- `lo`: the oldest (date, start_time, stem) among its sessions not yet cold (none: the
  folder has nothing any tier could still compress, and is never opened for it);
- `hi`: its newest (date, start_time, stem), for the hot set;
- `ids`: its sessions' ids, for finding the current session without opening a folder;
- `bad`: the names in it that do not parse.

Ranking is by the frontmatter's date, which need not be the file name's month: the
bounds are those of the dates, so a session old by its date in a new folder is still
met in its place. A folder is opened (listed, its facts read) only when the walk
reaches its bound: the due walk oldest first from `lo`, the hot walk newest first
from `hi`. An opened folder's facts come from its month's file under MONTHS_DIR (name
-> blob id and facts, checked by blob id), so a folder that changed in one file costs
one miss, not a load of every blob's facts. All of it is an accelerator: delete it and
the next run opens every folder once.

That once is seconds at 100,000 sessions (a fresh clone, or a cache deleted): too
much for a SessionStart hook. So a start's walk has a budget of facts it may work out
(`Walk(budget=...)`); folders that would take it past raise `Deferred` before any is
opened, and the start leaves compression to the background refresh, which walks every folder (compress.warm) for the next start.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ...errors import is_refusal
from ...plumbing import atomic, store
from ...pure import model

SUMMARY_FILE = "tiers-folders.json"
MONTHS_DIR = "tiers-months"  # in .git/enf/: <YYYY-MM>.json (flat.json: sessions/ itself), a month's facts
DEFERRED_MARK = "tiers-deferred"  # in .git/enf/: a start left its ranking to the background refresh
FLAT = ""  # the entries directly under sessions/: undated sessions, a branch not moved yet

Key = tuple[str, str, str]  # (date, start_time, stem): ranking's order
Row = tuple[str, str, str, str, list[Any]]  # (date, start_time, stem, path, facts), as ranking reads them
Facts = Callable[[str, str], list[Any]]  # (path, blob id) -> [tier, Interactions, date, start_time, status, id]


def ranking_deferred(state: Path) -> bool:
    """Whether a start left its ranking to the background refresh (one stat: hooks ask)."""
    return (state / DEFERRED_MARK).exists()


class Deferred(Exception):
    """A walk's budget would be spent: the ranking is left to the background refresh."""


class Summary:
    """What ranking needs of one month folder's tree without opening it."""

    def __init__(self, lo: Key | None, hi: Key | None, ids: str, bad: list[str]) -> None:
        self.lo, self.hi, self.ids, self.bad = lo, hi, ids, bad

    @classmethod
    def of(cls, rows: list[Row], bad: list[str]) -> Summary:
        due = [r[:3] for r in rows if r[4][0] != "cold"]  # sorted rows: the first is the oldest
        return cls(due[0] if due else None, rows[-1][:3] if rows else None,
                   "\n" + "\n".join(str(r[4][5]) for r in rows) + "\n", bad)

    def as_json(self, tree: str) -> list[Any]:
        return [tree, self.lo, self.hi, self.ids, self.bad]

    @classmethod
    def from_json(cls, raw: list[Any]) -> Summary:
        return cls(_key(raw[1]), _key(raw[2]), str(raw[3]), [str(n) for n in raw[4]])

    def names_id(self, current: str) -> bool:
        return f"\n{current}\n" in self.ids


def _key(raw: Any) -> Key | None:
    return (str(raw[0]), str(raw[1]), str(raw[2])) if raw else None


class Cache:
    """SUMMARY_FILE (month -> [tree id, summary]) and the months' facts files, read when needed."""

    def __init__(self, state: Path, version: str) -> None:
        self.state, self.version = state, version
        self._summaries: dict[str, list[Any]] | None = None
        self._months: dict[str, dict[str, list[Any]]] = {}
        self.dirty: set[str] = set()  # months whose facts file is to be written
        self.changed = False  # the summaries are to be written

    @property
    def summaries(self) -> dict[str, list[Any]]:
        if self._summaries is None:
            raw = self._read(self.state / SUMMARY_FILE)
            self._summaries = dict(raw["months"]) if raw is not None else {}
        return self._summaries

    def summary(self, month: str, tree: str) -> Summary | None:
        raw = self.summaries.get(month)
        if not raw or raw[0] != tree:
            return None
        try:
            return Summary.from_json(raw)
        except (IndexError, TypeError, ValueError):
            return None

    def put_summary(self, month: str, tree: str, summary: Summary) -> None:
        self.summaries[month] = summary.as_json(tree)
        self.changed = True

    def month(self, month: str) -> dict[str, list[Any]]:
        """name -> [blob id, *facts] of what was learnt of `month`'s sessions."""
        if month not in self._months:
            raw = self._read(self._month_path(month))
            self._months[month] = dict(raw["names"]) if raw is not None else {}
        return self._months[month]

    def learn(self, month: str, name: str, oid: str, facts: list[Any]) -> None:
        known = self.month(month)
        if known.get(name) != [oid, *facts]:
            known[name] = [oid, *facts]
            self.dirty.add(month)

    def save(self, months: set[str]) -> None:
        """Write what changed; `months`: the month folders on the branch (others are dropped)."""
        try:
            for month in sorted(self.dirty):
                self._write(self._month_path(month), {"names": self._months[month]})
            if self.changed:
                kept = {m: v for m, v in self.summaries.items() if m in months}
                self._write(self.state / SUMMARY_FILE, {"months": kept})
        except OSError as exc:
            if not is_refusal(exc):
                raise
            return  # an unwritable .git/enf: the next run opens the folders again
        self.dirty, self.changed = set(), False

    def _month_path(self, month: str) -> Path:
        return self.state / MONTHS_DIR / f"{month.replace('/', '-') or 'flat'}.json"

    def _write(self, path: Path, data: dict[str, Any]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic.write(path, json.dumps({"version": self.version, **data}).encode("utf-8"))

    def _read(self, path: Path) -> dict[str, Any] | None:
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(raw, dict) and raw.get("version") == self.version:
                return raw
        except (OSError, ValueError):
            pass
        return None


class Walk:
    """The sessions of one tip, by month folder: each opened only when a walk reaches it."""

    def __init__(self, repo: store.Repo, tree: store.Tree, cache: Cache, find: Facts,
                 budget: int | None = None) -> None:
        self.repo, self.tree, self.cache, self.find = repo, tree, cache, find
        self.budget = budget  # facts the folders with unknown bounds may take (None: no limit)
        self.trees = store.session_months(repo, tree)  # "YYYY/MM" -> tree id
        self.flat = {n: o for n, o, k in store.flat_sessions(repo, tree) if k == "blob"}
        self.oids: dict[str, str] = {}  # path -> blob id of each session of the opened folders
        self.facts: dict[str, list[Any]] = {}  # path -> its blob's facts, likewise
        self.rows: dict[str, list[Row]] = {}  # opened folder -> its rows, oldest first
        self.summaries: dict[str, Summary] = {}
        unknown = [m for m, tree_id in self.trees.items() if cache.summary(m, tree_id) is None]
        for month, tree_id in self.trees.items():
            known = cache.summary(month, tree_id)
            if known is not None:
                self.summaries[month] = known
        # Checked before any is opened, so a deferred start works out nothing. Folders
        # opened later, as a walk reaches them, have known bounds and so a month file.
        self._afford([*unknown, FLAT])
        for month in unknown:
            self.open(month)  # changed since the last run: its bounds are not known
        self.open(FLAT)

    def _entries(self, month: str) -> list[tuple[str, str]]:
        """(name, blob id) of the sessions in `month` (FLAT: directly under sessions/)."""
        if month == FLAT:
            return list(self.flat.items())
        return [(n, o) for n, o, k in store.month_sessions(self.repo, self.tree, month)
                if k == "blob" and n not in self.flat]  # a flat copy of a name wins over its month's

    def _fresh(self, month: str, entries: list[tuple[str, str]]) -> int:
        """How many of `entries` the month's file does not know: facts to work out."""
        known = self.cache.month(month)
        return sum(1 for n, o in entries if (known.get(n) or [None])[0] != o)

    def _afford(self, months: list[str]) -> None:
        """Raise Deferred when opening `months` would work out more facts than the budget
        allows (counted folder by folder: a fresh clone stops at its second folder)."""
        if self.budget is None:
            return
        fresh = 0
        for month in months:
            fresh += self._fresh(month, self._entries(month))
            if fresh > self.budget:
                raise Deferred(f"{fresh}+ sessions' facts to work out, {self.budget} allowed to this walk")

    def open(self, month: str) -> list[Row]:
        if month in self.rows:
            return self.rows[month]
        entries = self._entries(month)
        known = self.cache.month(month)
        rows: list[Row] = []
        bad = []
        for name, oid in entries:
            path = f"{model.SESSIONS_DIR}/{name}"
            self.oids[path] = oid
            hit = known.get(name)
            facts = hit[1:] if hit and hit[0] == oid else self.find(path, oid)
            self.facts[path] = facts
            self.cache.learn(month, name, oid, facts)
            if facts[2] is None:
                bad.append(name)
            else:
                rows.append((str(facts[2]), str(facts[3]), name.removesuffix(".md"), path, facts))
        rows.sort()  # stems are unique: the facts are never compared
        self.rows[month] = rows
        summary = Summary.of(rows, bad)
        self.summaries[month] = summary
        if month != FLAT:
            self.cache.put_summary(month, self.trees[month], summary)
        return rows

    def oldest_first(self) -> Iterator[Row]:
        """Every session that is not cold yet, oldest first, opening each folder only once
        the walk reaches the oldest of its sessions that a tier could still compress."""
        bounds = sorted((s.lo, m) for m, s in self.summaries.items() if s.lo is not None)
        buf: list[Row] = []  # sorted newest first: the next to yield is last
        for lo, month in bounds:
            while buf and buf[-1][:3] < lo:
                yield buf.pop()
            buf = sorted(buf + [r for r in self.open(month) if r[4][0] != "cold"], reverse=True)
        while buf:
            yield buf.pop()

    def newest_first(self) -> Iterator[Row]:
        """Every session that parses, newest first (the hot walk stops after a few)."""
        bounds = sorted(((s.hi, m) for m, s in self.summaries.items() if s.hi is not None), reverse=True)
        buf: list[Row] = []  # sorted oldest first: the next to yield is last
        for hi, month in bounds:
            while buf and buf[-1][:3] > hi:
                yield buf.pop()
            buf = sorted(buf + self.open(month))
        while buf:
            yield buf.pop()

    def named(self, current: str) -> list[Row]:
        """The sessions `current` names (its stem, session id or path): opened where the
        summaries say they are, so a new session's id (on no file yet) opens nothing."""
        stem = current.removeprefix(f"{model.SESSIONS_DIR}/").removesuffix(".md")
        path = f"{model.SESSIONS_DIR}/{stem}.md"
        months = [m for m, s in self.summaries.items() if s.names_id(current)]
        if (current in (stem, path) and store.blob_oid(self.repo, self.tree, path) is not None
                and "/" not in stem):
            months.append(FLAT if f"{stem}.md" in self.flat else _month_of(path))
        return [r for m in dict.fromkeys(months) if m in self.summaries or m == FLAT
                for r in self.open(m) if current in (r[2], r[4][5], r[3])]

    def learn(self, path: str, oid: str, facts: list[Any]) -> None:
        """Remember the facts of a blob this run wrote, for its folder's next opening."""
        name = path.removeprefix(f"{model.SESSIONS_DIR}/")
        self.cache.learn(FLAT if name in self.flat else _month_of(path), name, oid, facts)

    def save(self) -> None:
        self.cache.save(set(self.trees))


def _month_of(path: str) -> str:
    """"YYYY/MM" of the month folder a dated session is kept in (FLAT: an undated one)."""
    stored = store.stored_path(path)
    return stored[len(model.SESSIONS_DIR) + 1: stored.rfind("/")] if stored != path else FLAT
