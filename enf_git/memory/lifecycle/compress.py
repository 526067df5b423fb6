"""Compressing older sessions on the branch: pick, compress, guard, one commit each.

Which tier a session is due for and what its compressed text is are pure
(pure/tiers.py); this module reads the branch, skips what must not be touched (a
session with uncommitted edits in the working copy, one whose result would not be
smaller), and commits each session's compression alone, as `compress(<tier>): <name>`,
so that commit's parent holds the full text (DESIGN.md invariant 4: never squashed,
never pruned). The commit message records the as-of day and the compressor version,
the two inputs besides the file.

SessionStart runs `scheduled`: one tier per session start, cold before warm before
fold, oldest first, at most `enf.compressPerStart` sessions, in one commit
(`compress(<tier>): N sessions, …`, a line and a Compressed-from trailer per session;
its parent holds every full text). `git enf compress` runs `compress` by hand.
`keep_edit` is the sharing rule for sync_merge: a compression on
one side yields to an edit on the other, so nothing written is ever lost to it.

Per machine, `.git/enf/tiers.json` remembers each session blob's tier and
Interactions count and the compressions that were refused or not smaller, so a
session start on a 10,000-session branch does not re-read every file; without it (a
fresh clone) the records cache's entries give the same facts (records.tier_facts).
A tier's run reads the branch one month folder at a time, and only the folders its walk
reaches or that changed (compress_folders.py): its cost does not grow with the branch.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ... import paths
from ...errors import EnfError, NotFound, is_refusal
from ...plumbing import atomic, record_index, store, store_write
from ...plumbing.workcopy import Manifest
from ...pure import model, tiers
from ...pure.pins import PINS_DIR
from .. import records
from ..record import views
from . import compress_folders
from ..workspace import Context, require_branch

if TYPE_CHECKING:  # the merge rule protocol, for the rule this module adds
    from ..record.merge_rules import Plan, Sides

HOT_KEY, COLD_KEY, FOLD_KEY = "enf.hotSessions", "enf.coldDays", "enf.foldAfter"
ENABLED_KEY, PER_START_KEY = "enf.compress", "enf.compressPerStart"
PER_START_DEFAULT = 20  # one session start compresses at most this many (each is a commit)
CACHE_FILE = "tiers.json"
START_BUDGET = 2000  # sessions' facts a start's ranking may work out (~30 us each, plus loading records.json)
DIRECT_PARSES = 20  # misses of tiers.json parsed directly before the records cache is loaded
SAVE_AFTER = 8  # new facts in tiers.json worth rewriting it for (< DIRECT_PARSES)
ACTIVE_DIR = ".active"  # under the working copy, local only: <session-id prefix> of a session in progress
ORDER = ("cold", "warm", "fold")  # Elephants Never Forget: cold first this session, warm the next
_FALSE = ("false", "no", "off", "0")


class Step:  # a plain class: see workspace.Settings
    """One session: compressed (commit), would be (dry run), or skipped (why)."""

    def __init__(self, path: str, tier: str, before: int, after: int, commit: str | None = None,
                 skipped: str = "") -> None:
        self.path, self.tier, self.before, self.after = path, tier, before, after
        self.commit = commit  # the compress(<tier>) commit, None on a dry run or a skip
        self.skipped = skipped

    @property
    def stem(self) -> str:
        return _stem(self.path)

    def as_dict(self) -> dict[str, object]:
        return {"session": self.stem, "path": self.path, "tier": self.tier, "bytes_before": self.before,
                "bytes_after": self.after, "commit": self.commit, "skipped": self.skipped or None}


class Compression:
    """What one run did (or would do, on a dry run)."""

    def __init__(self, as_of: dt.date, dry_run: bool = False) -> None:
        self.as_of = as_of
        self.dry_run = dry_run
        self.steps: list[Step] = []
        self.error = ""  # scheduled(): why nothing was tried (the session goes on regardless)
        self.current_named = True  # whether `current` named a session on the branch (True: not known)
        # The first day ("YYYY-MM-DD") a session not due today ages into cold ("9999-12-31":
        # none does); None: not known (the ranking was not lazy, or did not run to its end).
        self.until: str | None = None

    @property
    def done(self) -> list[Step]:
        """Compressed (or, on a dry run, to be compressed)."""
        return [s for s in self.steps if not s.skipped]


class Policy:
    """The compression settings of `enf.*`, read once."""

    def __init__(self, repo: store.Repo) -> None:
        self.tiers = tiers.Policy(_int(repo, HOT_KEY, tiers.HOT_DEFAULT), _int(repo, COLD_KEY, tiers.COLD_DAYS_DEFAULT),
                                  _int(repo, FOLD_KEY, tiers.FOLD_AFTER_DEFAULT))
        self.enabled = (store.config_value(repo, ENABLED_KEY) or "true").strip().lower() not in _FALSE
        self.per_start = _int(repo, PER_START_KEY, PER_START_DEFAULT)


def _int(repo: store.Repo, key: str, default: int) -> int:
    raw = (store.config_value(repo, key) or "").strip()
    return int(raw) if raw.isdigit() else default


def active_markers(ctx: Context) -> frozenset[str]:
    """The session-id prefixes of this working copy's `.active/` markers: sessions in
    progress, which count as current whoever ranks (a shell has no session of its own)."""
    try:
        return tiers.marker_names(e.name for e in os.scandir(ctx.root / ACTIVE_DIR) if e.is_file())
    except OSError:  # no folder (the markers are optional), or not readable: none
        return frozenset()


def as_of_day(now: int) -> dt.date:
    """The UTC day of `now`: every clone names the same day for the same moment."""
    return dt.datetime.fromtimestamp(now, dt.timezone.utc).date()


def scheduled(ctx: Context, now: int, current: str | None = None) -> Compression:
    """SessionStart's step: the first tier (cold, warm, fold) with work, oldest first.

    Never raises an EnfError (a session must start regardless): `error` says why not.
    """
    as_of = as_of_day(now)
    try:
        policy = Policy(ctx.repo)
        if not policy.enabled:
            return Compression(as_of)
        idle = _Idle(ctx, as_of, policy)
        if idle.known(current):
            return Compression(as_of)
        done = compress(ctx, as_of, current=current, limit=policy.per_start, now=now, one_tier=True, policy=policy,
                        batch=True, budget=START_BUDGET)
        if not done.done:
            idle.remember(current, done)
        return done
    except compress_folders.Deferred:
        _mark_deferred(ctx)
        return Compression(as_of)
    except EnfError as exc:
        done = Compression(as_of)
        done.error = exc.message
        return done


def _mark_deferred(ctx: Context) -> None:
    try:
        (store.state_dir(ctx.repo) / compress_folders.DEFERRED_MARK).touch()
    except OSError:
        pass  # an unwritable .git/enf: every start defers, and compression waits for `git enf compress`


def warm(ctx: Context) -> None:
    """The background refresh's step after a start deferred its ranking: every month
    folder whose bounds are not known is opened and its facts kept, so the next start
    ranks from them. Writes only caches; compresses nothing."""
    mark = store.state_dir(ctx.repo) / compress_folders.DEFERRED_MARK
    if not mark.exists():
        return
    run = _Run(ctx, as_of_day(int(time.time())), Policy(ctx.repo), dry_run=True, now=None)
    run._rows()  # opens every folder it has no bounds for
    run.known.save()
    assert run.folders is not None
    run.folders.save()
    run.cache.save()
    mark.unlink(missing_ok=True)


IDLE_FILE = "compress-idle.json"


class _Idle:
    """The last start that found nothing to compress, by what decided it: the sessions,
    pins and conflict copies on the branch and the policy, until the first day a
    session ages into the cold tier (`until`: the day is the only other input, and
    nothing else changes with it). Ranking 10,000 sessions to find nothing due again
    cost a start ~0.25 s (100,000: seconds, on each day's first start); the next commit
    that changes a session changes the key. Kept for `current` only when it named no
    session (then any other current that names none finds nothing too: a current
    session only keeps sessions whole)."""

    def __init__(self, ctx: Context, as_of: dt.date, policy: Policy) -> None:
        tip = require_branch(ctx)
        tree = tip.tree
        self.path = store.state_dir(ctx.repo) / IDLE_FILE
        self.as_of = as_of.isoformat()
        self.key = [store.blob_oid(ctx.repo, tree, model.SESSIONS_DIR) or "", store.blob_oid(ctx.repo, tree, PINS_DIR) or "",
                    store.blob_oid(ctx.repo, tree, paths.CONFLICTS.rstrip("/")) or "", IDLE_VERSION,
                    list(policy.tiers), policy.per_start, _cache_version(), sorted(active_markers(ctx))]

    def known(self, current: str | None) -> bool:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        return (isinstance(raw, dict) and raw.get("key") == self.key and raw.get("current") in (None, current)
                and raw.get("since", "~") <= self.as_of < raw.get("until", ""))

    def remember(self, current: str | None, done: Compression) -> None:
        if done.error or done.dry_run or done.until is None:
            return
        named = current is not None and done.current_named
        data = {"key": self.key, "current": current if named else None, "since": self.as_of, "until": done.until}
        try:
            atomic.write(self.path, json.dumps(data).encode())
        except OSError:
            pass  # the next start ranks again


IDLE_VERSION = 2  # 2: kept from day to day, until a session ages into cold


def compress(ctx: Context, as_of: dt.date, *, tier: str | None = None, names: Sequence[str] = (),
             dry_run: bool = False, current: str | None = None, pins: frozenset[str] | None = None,
             limit: int | None = None, now: int | None = None, one_tier: bool = False,
             policy: Policy | None = None, batch: bool = False, budget: int | None = None) -> Compression:
    """Compress what is due on `as_of` (or `names`, to `tier` if given), one commit each,
    or with `batch` and `one_tier` one commit for the run (SessionStart's: see `_Batch`).
    `pins` None: the sessions pinned on the branch (memory/pins.py), never compressed.
    `budget`: the sessions' facts the ranking may work out, past which it raises
    compress_folders.Deferred having changed nothing (None: no limit)."""
    require_branch(ctx)
    # A dry run writes nothing, so it needs no lock (and answers in a .git it may not write).
    with nullcontext(True) if dry_run else ctx.lock():
        run = _Run(ctx, as_of, policy or Policy(ctx.repo), dry_run, now)
        run.budget = budget
        run.batch = _Batch(run) if batch and one_tier and not dry_run else None  # one tier: one subject
        if pins is None:
            from .pins import pinned

            pins = pinned(ctx.repo, run.tip)
        run.select(tier, names, current, pins)
        run.execute(limit, one_tier)
        return run.result


class _Ranked(NamedTuple):  # a NamedTuple, not a Session: ranking builds 10,000 of them
    path: str
    stem: str
    session_id: str
    date: str
    start_time: str
    status: str


class _Run:
    """One compression run: the tip it read, its candidates, what it did."""

    def __init__(self, ctx: Context, as_of: dt.date, policy: Policy, dry_run: bool, now: int | None) -> None:
        self.ctx, self.as_of, self.policy, self.now = ctx, as_of, policy, now
        self.result = Compression(as_of, dry_run)
        self.tip = require_branch(ctx)
        self.cache = ctx.cache()
        self.known = _TierCache(store.state_dir(ctx.repo) / CACHE_FILE)
        self.misses = 0  # blobs tiers.json did not know
        self.remember = True  # False for sessions named by hand with --tier: tiers.json is not even read
        self._all: dict[str, str] | None = None
        self._looked_up: dict[str, str | None] = {}
        self._manifest: Manifest | None = None
        self.todo: Iterable[tuple[str, str]] = ()  # (tier, path), in the order to run them
        self.active = active_markers(ctx)
        self.batch: _Batch | None = None  # None: one commit per session
        self._index: record_index.Reader | None = None  # the tip's records index, read on a miss
        self.folders: compress_folders.Walk | None = None  # the ranking's month folders, once walked
        self.budget: int | None = None  # see compress()

    @property
    def oids(self) -> dict[str, str]:
        """Path -> blob id of every session at the tip (listed once, when needed)."""
        if self._all is None:
            self._all = {f"{model.SESSIONS_DIR}/{name}": oid for name, oid, kind
                         in store.folder_entries(self.ctx.repo, self.tip.tree, model.SESSIONS_DIR) if kind == "blob"}
        return self._all

    def _oid(self, path: str) -> str | None:
        if self._all is not None:
            return self._all.get(path)
        if self.folders is not None and path in self.folders.oids:  # listed by the ranking's walk
            return self.folders.oids[path]
        if path not in self._looked_up:  # one lookup beats listing 10,000 entries
            self._looked_up[path] = store.blob_oid(self.ctx.repo, self.tip.tree, path)
        return self._looked_up[path]

    @property
    def manifest(self) -> Manifest:
        if self._manifest is None:
            self._manifest = self.ctx.manifest()
        return self._manifest

    def select(self, tier: str | None, names: Sequence[str], current: str | None, pins: frozenset[str]) -> None:
        conflicted = frozenset(_conflicted(self.ctx.repo, self.tip))
        if names and tier is not None:  # by hand, to a tier: no need to rank the other sessions
            self.remember = False
            wanted = [self._resolve(n) for n in names]
            ranked = {s.path: tiers.Verdict(tier, tiers.never_compressed(s, pins, conflicted, self.active))
                      for s in wanted}
        elif not names:  # the common case, on every session start: lazily, oldest first
            self.todo = self._due(tier, current, pins, conflicted)
            return
        else:
            every = [s for s in map(self._session, sorted(self.oids)) if s is not None]
            ranked = tiers.assign(every, self.as_of, self.policy.tiers, pins, current, conflicted, self.active)
            self.result.current_named = current is not None and any(
                current in (s.stem, s.session_id, s.path) for s in every)
            wanted = [self._resolve(n) for n in names]
        by_age = sorted(wanted, key=lambda s: (s.date, s.start_time, s.stem))
        due: dict[str, list[str]] = {t: [] for t in tiers.TIERS}
        for s in by_age:
            verdict = ranked[s.path]
            if names and verdict.never:
                self._skip(s.path, tier or verdict.tier, f"never compressed: {verdict.never}")
                continue
            target = self._target(s.path, verdict, tier if names else None)
            if target and (tier is None or target == tier):
                due[target].append(s.path)
            elif names:
                self._skip(s.path, tier or verdict.tier, _why_not(verdict, self._facts(s.path)[0]))
        self.todo = [(t, p) for t in ORDER for p in due[t]]

    def _due(self, tier: str | None, current: str | None, pins: frozenset[str],
             conflicted: frozenset[str]) -> Iterator[tuple[str, str]]:
        """(tier, path) of what is due, cold then warm then fold, oldest first, yielded as
        found: `execute` stops at its limit, so a run that compresses one session of
        100,000 judges only the sessions up to it, and opens only the month folders the
        walk reaches (compress_folders.Walk). Everything is ranked by the facts of
        tiers.json (the frontmatter's date, never the file name's)."""
        walk = self._rows()
        hot, hot_rows = self._hot(walk, current, pins)
        ages = _Aging(self.as_of, self.policy.tiers.cold_days)
        for t in ORDER:
            if tier is not None and t != tier:
                continue
            rows = sorted(hot_rows) if t == "fold" else walk.oldest_first()  # only a hot session folds
            for date, start, stem, path, facts in rows:
                have = str(facts[0])
                if tiers.RANK.get(have, 0) >= tiers.RANK[t]:
                    continue  # never due for t: skipped before building its verdict
                s = _Ranked(path, stem, str(facts[5]), date, start, str(facts[4]))
                verdict = tiers.verdict(s, self.as_of, self.policy.tiers, path in hot, pins, conflicted, self.active)
                if tiers.due_tier(verdict, have, int(facts[1]), self.policy.tiers) == t:
                    yield t, path
                elif t == "cold" and verdict.tier == "warm" and not verdict.never:
                    ages.note(date)  # not cold yet: it will be
        if tier is None:
            self.result.until = ages.first

    def _rows(self) -> compress_folders.Walk:
        """The sessions at the tip by month folder, each opened only when the ranking reaches it."""
        self.folders = compress_folders.Walk(self.ctx.repo, self.tip.tree, compress_folders.Cache(
            store.state_dir(self.ctx.repo), _cache_version()), self._row_facts, self.budget)
        return self.folders

    def _row_facts(self, path: str, oid: str) -> list[Any]:
        """The facts of a blob no month file knew: a new one, mostly. A few are parsed
        without loading tiers.json (~0.13 s at 100,000 sessions, for one new file)."""
        self._looked_up[path] = oid
        if self.known.loaded or self.misses >= DIRECT_PARSES:
            return self._facts(path)
        self.misses += 1
        hit = self._find_facts(path, oid)
        self.known.put(oid, hit)
        return hit

    def _hot(self, walk: compress_folders.Walk, current: str | None,
             pins: frozenset[str]) -> tuple[set[str], list[compress_folders.Row]]:
        """The hot paths and their rows: the sessions `current` names (found where the
        folder summaries say they are: a new session's id, on no file yet, opens no
        folder), and the newest others, read newest first until the slots are filled."""
        named = walk.named(current) if current is not None else []
        self.result.current_named = current is None or bool(named)
        seen: list[compress_folders.Row] = []
        named_paths = {r[3] for r in named}

        def newest() -> Iterator[_Ranked]:
            for r in walk.newest_first():
                if r[3] not in named_paths:  # it takes no slot: left out, added below
                    seen.append(r)
                    yield _Ranked(r[3], r[2], str(r[4][5]), r[0], r[1], str(r[4][4]))

        # An active session past the filled slots goes unlisted: it is never compressed anyway.
        hot = tiers.hot_paths(newest(), self.policy.tiers.hot, pins, None, self.active) | named_paths
        return hot, [r for r in [*seen, *named] if r[3] in hot]

    def _resolve(self, name: str) -> _Ranked:
        """A session by name, prefix or session id, as `git enf show` takes it."""
        stem = name.removeprefix(f"{model.SESSIONS_DIR}/").removesuffix(".md")
        exact = f"{model.SESSIONS_DIR}/{stem}.md"
        found = [exact] if self._oid(exact) else [p for p in self.oids if _stem(p).startswith(stem)]
        if not found:
            found = [p for p in self.oids if (self._facts(p)[5] or "") == stem[:8]]
        if len(found) != 1:
            listed = ", ".join(_stem(p) for p in sorted(found)[:5])
            raise NotFound(f"{name!r} matches {len(found)} sessions: {listed}" if found else f"no session named {name!r}",
                           hint="give more of the name" if found else "git enf log --oneline")
        session = self._session(found[0])
        if session is None:
            raise NotFound(f"{found[0]} does not parse, so it is not compressed", hint="git enf doctor")
        return session

    def _target(self, path: str, verdict: tiers.Verdict, forced: str | None) -> str:
        have, count = self._facts(path)[:2]
        if forced is not None:  # named by hand with --tier: that tier, whatever its age
            return forced if tiers.RANK[forced] > tiers.RANK.get(str(have), 0) else ""
        return tiers.due_tier(verdict, str(have), int(count), self.policy.tiers)

    def _session(self, path: str) -> _Ranked | None:
        """What ranking needs of a session (None: it does not parse)."""
        facts = self._facts(path)
        if facts[2] is None:
            return None
        return _Ranked(path, _stem(path), str(facts[5]), str(facts[2]), str(facts[3]), str(facts[4]))

    def _facts(self, path: str) -> list[Any]:
        """[tier, Interactions, date, start_time, status, session_id] of the path's blob
        (date None: it does not parse), from tiers.json or found once (`_find_facts`)."""
        oid = self._oid(path) or ""
        hit = self.known.entries.get(oid) if self.remember else None
        if hit is None:
            self.misses += 1
            hit = self._find_facts(path, oid)
            if self.remember:
                self.known.put(oid, hit)
        return hit

    def _find_facts(self, path: str, oid: str) -> list[Any]:
        """The facts of a blob tiers.json does not know. A few misses (the blobs the last
        runs wrote) are parsed here: loading the records cache of a 10,000-session branch
        costs more than parsing twenty. Past those, the records cache answers, without
        even reading the blob when its entry holds the tier facts (it does after any
        full render, such as init's: a fresh clone's first ranking)."""
        cached = self._cached_facts(path, oid)
        if cached is not None:
            return cached
        if self.misses > DIRECT_PARSES:
            # The branch's records index first (a fresh clone's first ranking reads its
            # day files, not every blob): its entries hold the tier facts too.
            if self._index is None:
                self._index = records.index_reader(self.ctx.repo, self.tip.tree, reading=True)
            record = records.load_blob_record(self.cache, path, oid, lambda: store.blob_data(self.ctx.repo, oid),
                                              self._index)
            cached = self._cached_facts(path, oid)  # a new entry holds them: not worked out twice
            if cached is not None:
                return cached
        data = store.blob_data(self.ctx.repo, oid)
        if self.misses <= DIRECT_PARSES:
            record = records.parse_blob(path, data)
        hit: list[Any] = [*tiers.facts_of(data)]
        if isinstance(record, model.Session):
            return hit + [record.date, record.start_time, record.status, record.session_id]
        return hit + [None, "", "", ""]

    def _cached_facts(self, path: str, oid: str) -> list[Any] | None:
        if self.misses <= DIRECT_PARSES:
            return None
        return records.tier_facts(self.cache, path, oid, tiers.FACTS_VERSION)

    def _skip(self, path: str, tier: str, why: str, before: int = 0, after: int = 0) -> None:
        self.result.steps.append(Step(path, tier, before, after, skipped=why))

    def execute(self, limit: int | None, one_tier: bool) -> None:
        edited: set[str] | None = None  # read at the first session due: none due, none read
        ran = ""
        todo = iter(self.todo)
        while limit is None or len(self.result.done) < limit:  # checked first: a lazy todo scans no further
            tier, path = next(todo, ("", ""))
            if not path or one_tier and ran and tier != ran:
                break
            if edited is None:
                edited = self._edited() if not self.result.dry_run else set()
            if path in edited:
                self._skip(path, tier, "it has uncommitted edits in the working copy; git enf commit first")
            elif self._one(tier, path):
                ran = tier
        if self.batch is not None:
            self.batch.commit()
        self.known.save()
        if self.folders is not None:
            self.folders.save()
        if self.result.done and not self.result.dry_run:
            from ..record.working_set import materialize

            materialize(self.ctx, manifest=self.manifest)

    def _edited(self) -> set[str]:
        from ..record.commits import pending

        return {p for p in pending(self.ctx, self.manifest, self.tip).changes if model.is_session_path(p)}

    def _one(self, tier: str, path: str) -> bool:
        """Compress one session; True when it was (or, on a dry run, would be)."""
        oid = self._oid(path) or ""
        refused = self.known.refused(oid, tier) if self.remember else ""
        data = store.blob_data(self.ctx.repo, oid)
        if refused:
            self._skip(path, tier, refused, len(data))
            return False
        try:
            new = tiers.compress(path, data, tier, self.policy.tiers.fold_after)
        except tiers.CompressionRefused as exc:
            self.known.refuse(oid, tier, exc.message)
            self._skip(path, tier, exc.message, len(data))
            return False
        if len(new) >= len(data):
            why = f"not smaller ({len(data):,} -> {len(new):,} bytes)"
            self.known.refuse(oid, tier, why)
            self._skip(path, tier, why, len(data), len(new))
            return False
        step = Step(path, tier, len(data), len(new))
        if self.batch is not None:
            self.batch.add(step, data, new)
        elif not self.result.dry_run:
            done = store_write.commit(self.ctx.repo, self._builder(path, tier, data, new),
                                message(path, tier, data, new, self.as_of), when=self.now,
                                env=self.ctx.ident)
            if done is None:
                return False  # changed or compressed meanwhile by another writer: nothing left to do
            step.commit = done.oid
            self._learn(path, done.blobs.get(path), new)
        self.result.steps.append(step)
        return True

    def _learn(self, path: str, oid: str | None, data: bytes) -> None:
        """Remember the facts of the blob just written: the next run need not read it."""
        if self.remember and oid == store.hash_bytes(data):  # what we built, not a redo on a moved tip
            ranked = self.folders.facts.get(path) if self.folders is not None else None
            facts = [*tiers.facts_of(data), *(ranked or self._facts(path))[2:]]
            self.known.put(oid, facts)
            if self.folders is not None:
                self.folders.learn(path, oid, facts)

    def _builder(self, path: str, tier: str, data: bytes, new: bytes) -> store_write.ChangeBuilder:
        def build(tip: store.Commit | None) -> dict[str, bytes | None]:
            again = self.again(tip, path, tier, data, new)
            return self.with_views(tip, {path: again[1]}) if again is not None else {}
        return build

    def again(self, tip: store.Commit | None, path: str, tier: str, data: bytes,
              new: bytes) -> tuple[bytes, bytes] | None:
        """(the text at `tip`, its compression), checked against the tip a commit lands on:
        someone committed the file meanwhile, so compress what stands now; None when that is
        refused or would not be smaller (nothing to do)."""
        current = store.read_path(self.ctx.repo, tip.tree, path) if tip is not None else None
        if current == data:
            return data, new
        try:
            out = tiers.compress(path, current, tier, self.policy.tiers.fold_after) if current else b""
        except tiers.CompressionRefused:
            return None
        return (current, out) if current and len(out) < len(current) else None

    def with_views(self, tip: store.Commit | None, files: dict[str, bytes]) -> dict[str, bytes | None]:
        changes: dict[str, bytes | None] = dict(files)
        rendered, _ = views.views_for(self.ctx.repo, tip, changes, self.cache, (self.ctx.root, self.manifest))
        changes.update(rendered)
        return changes


class _Batch:
    """SessionStart's run as one commit: `compress(<tier>): N sessions`, the parent holding
    every full text (invariant 4 holds per file, as with one commit each), the message
    listing each session with its sizes and the blob of its full text. One commit instead
    of twenty spares the start twenty ref updates, tree writes and view patches, and
    every reader after it (authors, the digest) one walk step instead of twenty."""

    def __init__(self, run: _Run) -> None:
        self.run = run
        self.wanted: dict[str, tuple[Step, bytes, bytes]] = {}  # path -> (its step, text, compression)
        self.kept: dict[str, tuple[bytes, bytes]] = {}  # what the last attempt commits

    def add(self, step: Step, data: bytes, new: bytes) -> None:
        self.wanted[step.path] = (step, data, new)

    def commit(self) -> None:
        if not self.wanted:
            return
        run = self.run
        done = store_write.commit(run.ctx.repo, self._build, self._message, when=run.now, env=run.ctx.ident)
        kept = self.kept if done is not None else {}
        # What a concurrent writer left nothing to do for is no step of this run.
        run.result.steps = [s for s in run.result.steps if s.skipped or s.path in kept or s.path not in self.wanted]
        for path, (before, after) in kept.items():
            step = self.wanted[path][0]
            step.before, step.after = len(before), len(after)
            step.commit = done.oid if done is not None else None
            run._learn(path, done.blobs.get(path) if done is not None else None, after)

    def _build(self, tip: store.Commit | None) -> dict[str, bytes | None]:
        self.kept = {}
        for path, (step, data, new) in self.wanted.items():
            again = self.run.again(tip, path, step.tier, data, new)
            if again is not None:
                self.kept[path] = again
        return self.run.with_views(tip, {p: k[1] for p, k in self.kept.items()}) if self.kept else {}

    def _message(self) -> str:
        tier = next(iter(self.wanted.values()))[0].tier
        done = [(path, *texts) for path, texts in self.kept.items()]
        return batch_message(tier, done, self.run.as_of)


class _Aging:
    """The first day on which a session that is warm today (by its age) turns cold."""

    def __init__(self, as_of: dt.date, cold_days: int) -> None:
        self.as_of, self.cold_days = as_of, cold_days
        self.first = "9999-12-31"

    def note(self, date: str) -> None:
        try:
            day = dt.date.fromisoformat(date[:10]) + dt.timedelta(days=self.cold_days + 1)
        except (ValueError, OverflowError):
            return
        self.first = min(self.first, max(day, self.as_of + dt.timedelta(days=1)).isoformat())


def _stem(path: str) -> str:
    return path.removeprefix(f"{model.SESSIONS_DIR}/").removesuffix(".md")


def _why_not(verdict: tiers.Verdict, have: str) -> str:
    if verdict.never:
        return f"never compressed: {verdict.never}"
    if have and verdict.tier != "hot":
        return f"already {have}"
    if verdict.tier == "hot":
        return "hot: among the newest sessions (git enf compress --tier warm NAME compresses it anyway)"
    return verdict.tier or "no tier applies"


def message(path: str, tier: str, data: bytes, new: bytes, as_of: dt.date) -> str:
    """`compress(<tier>): <name>`, then the inputs that decided its bytes, as trailers."""
    stem = _stem(path)
    source = tiers.compressed_from(new)
    return (f"compress({tier}): {stem}\n\n"
            f"{len(data):,} -> {len(new):,} bytes. The full text is blob {source[:12]} "
            f"(git enf show {stem} --full); the parent commit holds the text before this step.\n\n"
            f"As-of: {as_of.isoformat()}\nCompressor: {tiers.VERSION}\nCompressed-from: {source}\n")


def batch_message(tier: str, done: Sequence[tuple[str, bytes, bytes]], as_of: dt.date) -> str:
    """`compress(<tier>): N sessions, FIRST to LAST`, a line per (path, text, compression),
    then the trailers: the as-of day, the compressor, and each full text's blob in the
    order listed. One session alone gets the message a commit of its own would have."""
    if len(done) == 1:
        path, data, new = done[0]
        return message(path, tier, data, new, as_of)
    stems = [_stem(path) for path, _data, _new in done]
    lines = [f"- {_stem(path)}: {len(data):,} -> {len(new):,} bytes, the full text is blob "
             f"{tiers.compressed_from(new)[:12]}" for path, data, new in done]
    sources = "".join(f"Compressed-from: {tiers.compressed_from(new)}\n" for _path, _data, new in done)
    return (f"compress({tier}): {len(done)} sessions, {stems[0]} to {stems[-1]}\n\n"
            f"One session start's batch; the parent commit holds each file's text before this step "
            f"(git enf show NAME --full).\n\n" + "\n".join(lines) + "\n\n"
            f"As-of: {as_of.isoformat()}\nCompressor: {tiers.VERSION}\n{sources}")


def _conflicted(repo: store.Repo, tip: store.Commit) -> list[str]:
    """Session paths with a conflict copy (`conflicts/sessions/<name>.md.<a>-<b>`) on the branch."""
    folder = f"{paths.CONFLICTS}{model.SESSIONS_DIR}"
    out = []
    for name, _oid, _kind in store.folder_entries(repo, tip.tree, folder):
        stem, dot, _ = name.rpartition(".md.")
        if dot:
            out.append(f"{model.SESSIONS_DIR}/{stem}.md")
    return out


def full_text(repo: store.Repo, tip: store.Commit, path: str, data: bytes) -> bytes:
    """The full text of a session whose bytes at `tip` are `data`: the blob its
    `compressed_from` names, else the newest version on the branch without one."""
    seen: set[str] = set()
    while tiers.compressed_from(data):
        source = tiers.compressed_from(data)
        if source in seen:
            break
        seen.add(source)
        try:
            data = store.blob_data(repo, source)
        except (KeyError, TypeError, ValueError):
            return _newest_full(repo, tip, path) or data
    return data


def _newest_full(repo: store.Repo, tip: store.Commit, path: str) -> bytes | None:
    from ..record.queries import history

    for version in history(repo, tip, path):
        if version.blob is not None:
            data = store.blob_data(repo, version.blob)
            if not tiers.compressed_from(data):
                return data
    return None


def keep_edit(sides: Sides, plan: Plan) -> None:
    """sync_merge's rule for sessions: a side that only compressed the base yields to the
    other side (an edit, kept in full, compressed again later); two compressions of
    the same text keep this compressor's over an older one's, then the later tier.
    Anything else is the default three-way."""
    from ..record.merge_rules import three_way

    if sides.base is None or sides.ours is None or sides.theirs is None:
        three_way(sides, plan)
        return
    base = sides.read(sides.base)
    ours_only = _compression_rank(sides.path, base, sides.read(sides.ours))
    theirs_only = _compression_rank(sides.path, base, sides.read(sides.theirs))
    if ours_only and theirs_only:  # the same in either direction: this version's, by tier, then blob id
        keep = max((ours_only, sides.ours), (theirs_only, sides.theirs))[1]
    elif ours_only or theirs_only:
        keep = sides.theirs if ours_only else sides.ours
    else:
        three_way(sides, plan)
        return
    if keep != sides.ours:
        plan.changes[sides.path] = sides.read(keep)


def _compression_rank(path: str, base: bytes, data: bytes) -> tuple[int, int] | None:
    """(1 for this compressor's output, else 0; the tier's rank) when `data` is a
    compression of `base`, None when it is an edit.

    A clone of an older enf-git writes another compressor's bytes for the same text (the
    first one dropped Errors & Fixes from the cold tier). Taken as an edit, its output
    would stand in place of this version's, or make a conflict copy against a real edit;
    it is a compression, and yields like one: to an edit, and to this version's output.
    """
    tier = _compresses(path, base, data)
    if tier:
        return 1, tiers.RANK[tier]
    tier = _older_compression(path, base, data)
    return (0, tiers.RANK[tier]) if tier else None


def _older_compression(path: str, base: bytes, data: bytes) -> str:
    """The tier `data` was compressed to by an older compressor from the same full text
    as `base` ("" if it was not, or if it holds a line of its own: someone edited it).

    Its bytes cannot be checked by compressing again, so: another compressor version in
    its header, the same full text named in `compressed_from`, a later tier than `base`,
    and every line of its body (References aside: the older rules listed other things)
    found in `base` or in this version's compression of it.
    """
    tier = tiers.tier_of(data)
    version = tiers.header_value(data, "compressor:")
    if tier not in tiers.TIERS or not version or version == tiers.VERSION:
        return ""
    if tiers.compressed_from(data) != (tiers.compressed_from(base) or tiers.blob_id(base)):
        return ""
    if tiers.RANK[tier] <= tiers.RANK.get(tiers.tier_of(base), 0):
        return ""
    try:
        known = base.decode("utf-8") + tiers.compress(path, base, tier).decode("utf-8")
        text = data.decode("utf-8")
    except (tiers.CompressionRefused, ValueError, UnicodeDecodeError):
        return ""
    body = text.split("\n---", 1)[1] if text.startswith("---") and "\n---" in text else ""
    in_references = False
    for line in body.splitlines()[1:]:
        if line.startswith("## "):
            in_references = line.rstrip() == "## References"
        elif line.strip() and not in_references and line.strip() not in known:
            return ""
    return tier


def _compresses(path: str, base: bytes, data: bytes) -> str:
    """The tier `data` is exactly the compression of `base` to ("" if it is not)."""
    tier = tiers.tier_of(data)
    if tier not in tiers.TIERS:
        return ""
    try:
        return tier if tiers.compress(path, base, tier) == data else ""
    except (tiers.CompressionRefused, ValueError, UnicodeDecodeError):
        return ""


def is_session(path: str) -> bool:
    """Where `keep_edit` applies (RULES' matcher)."""
    return model.is_session_path(path)


def _cache_version() -> str:
    # Its facts come from the compressor, from parsing and from `tiers.facts_of` (which
    # counts no compressed file's Interactions): any of them changing voids it.
    return f"{tiers.VERSION}.{records.CACHE_VERSION}.{tiers.FACTS_VERSION}"


class _TierCache:
    """Blob id -> [tier, Interactions]; "blob:tier" -> why it was not compressed. A pure
    accelerator, like records.Cache: delete it and the next run rebuilds it.

    New facts go to a small file beside it (NEW_FILE) until there are DELTA_MAX of them:
    rewriting 10,000 entries (~1 MB of JSON, ~40 ms) for the twenty blobs each
    compressing start writes was a sixth of that start."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.new_path = path.with_name(NEW_FILE)
        self._entries: dict[str, list[Any]] | None = None
        self._skips: dict[str, str] = {}
        self._new: dict[str, list[Any]] = {}  # the entries of NEW_FILE, and those learnt since
        self._main = False  # whether the main file was read (else a save rewrites it whole)
        self._skips_read = False  # whether SKIPS_FILE was read (refused() before the main file)
        self.dirty = False  # a refusal to remember: always saved (finding it again means compressing again)
        self.added = 0  # facts learnt since the file was read

    @property
    def entries(self) -> dict[str, list[Any]]:
        if self._entries is None:
            self._entries = {}
            learnt, refusals = self._new, self._skips  # put or read before the file was
            raw = _read_json(self.path)
            if raw is not None:
                self._entries, self._skips, self._main = dict(raw["entries"]), dict(raw["skips"]), True
                new = _read_json(self.new_path) if self._main else None
                if new is not None:
                    self._new = dict(new["entries"])
                    self._entries.update(self._new)
                    self._skips.update(new["skips"])
                self._new.update(learnt)
                self._skips.update(refusals)
            self._entries.update(learnt)
        return self._entries

    @property
    def loaded(self) -> bool:
        return self._entries is not None

    def put(self, oid: str, value: list[Any]) -> None:
        # Not loaded for it: a run whose ranking read month files learns one or two blobs.
        if self._entries is not None:
            self._entries[oid] = value
        self._new[oid] = value
        self.added += 1

    def refused(self, oid: str, tier: str) -> str:
        if self._entries is None and not self._skips_read:  # the refusals alone (SKIPS_FILE), not every blob's facts
            raw = _read_json(self.path.with_name(SKIPS_FILE), "skips")
            self._skips.update(raw["skips"] if raw is not None else {})
            self._skips_read = True
        return self._skips.get(f"{oid}:{tier}", "")

    def refuse(self, oid: str, tier: str, why: str) -> None:
        self.entries  # noqa: B018 - loaded first, so saving keeps what the file held
        self._skips[f"{oid}:{tier}"] = why
        self.dirty = True

    def save(self) -> None:
        # Parsing again the few blobs the last runs wrote costs ~1 ms each, so a few new
        # facts wait for more, well before DIRECT_PARSES misses would make a run load the
        # records cache.
        if not (self.dirty or self.added >= SAVE_AFTER):
            return
        self.entries  # noqa: B018 - what the files hold, kept: put() does not read them
        whole = not self._main or len(self._new) > DELTA_MAX
        target, entries = (self.path, self.entries) if whole else (self.new_path, self._new)
        data = {"version": _cache_version(), "entries": entries, "skips": self._skips}
        try:
            atomic.write(target, json.dumps(data).encode("utf-8"))
            if self.dirty:
                atomic.write(self.path.with_name(SKIPS_FILE),
                             json.dumps({"version": _cache_version(), "skips": self._skips}).encode("utf-8"))
            if whole:
                self.new_path.unlink(missing_ok=True)
        except OSError as exc:
            if not is_refusal(exc):
                raise
            return  # an unwritable .git/enf: a cache, the next run parses again
        self.dirty, self.added, self._main = False, 0, True
        if whole:
            self._new = {}


NEW_FILE = "tiers-new.json"  # in .git/enf/: what tiers.json learnt since it was last written whole
SKIPS_FILE = "tiers-skips.json"  # in .git/enf/: the refusals of tiers.json alone, read without its facts
DELTA_MAX = 2000  # entries of NEW_FILE past which tiers.json is written whole again


def _read_json(path: Path, *fields: str) -> dict[str, Any] | None:
    """A tiers file of this version (None: missing, unreadable or another version's)."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        if raw.get("version") == _cache_version() and all(isinstance(raw[f], dict) for f in fields or ("entries", "skips")):
            return dict(raw)
    except (OSError, ValueError, KeyError, AttributeError, TypeError):
        pass
    return None
