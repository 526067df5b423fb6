"""Who wrote each record as it stands: the commit that last changed it, its author and date.

Memory reaches every teammate's assistant, so every line shown from a record someone
else wrote names them (`— Alice, 2026-12-01`), and `enf.trust signed` asks whether that
very commit is signed. "Last changed" is git's own sense of it: a commit changed a path
when its blob there differs from the blob in every parent (a merge that only brought a
teammate's version in changed nothing; one that resolved two versions did).

Kept per machine in `.git/enf/authors/`: one small file per shard of the paths (a hash
of the path picks it), and `tip`, the commit the shards describe. A start reads only the
shards of the few records it shows (a whole table is ~40 ms to load at 10,000 records,
a shard well under one), and a new tip is reached by walking only the commits since,
oldest first; a tip that does not descend from the saved one (a rewritten branch) is
walked from the start. Shards are written before `tip`, under a lock, so a writer
killed halfway leaves a `tip` whose walk is simply redone (each step is "the last change
wins": doing it twice gives the same). A pure accelerator: delete the folder and the
next read walks the branch again.

A walk of more than a few dozen commits (a fresh clone's, a merge of a long absence) is
git's: `git log --raw -c` lists each commit's changes newest first (plumbing/
gitlog_changes.py), and a record's last change is the newest commit that wrote the very
blob the tip holds. In process, loading a busy month folder twice per commit made a
clone of 100,000 commits take over ten minutes; git takes ~30 s, in the background
refresh. A hook never waits for that: under `bound_walks(n)` a walk from scratch reads
at most n changed paths, and the table it hands out is `partial`: a record it did not reach
reads "author not known yet" (never as the reader's own), and nothing built from it is
cached or saved.
"""

from __future__ import annotations

import marshal
import time
import zlib
from collections.abc import Iterable, Iterator, Mapping
from contextlib import closing
from itertools import islice
from pathlib import Path
from typing import NamedTuple

from ...plumbing import atomic, gitlog_changes, locks, store
from ...pure import model
from ..workspace import Context

FOLDER = "authors"
VERSION = 1
SHARDS = 256
LOCK_WAIT = 2.0  # seconds; a writer stuck longer: this read walks in memory and writes nothing
IN_PROCESS = 64  # commits an increment walks in process; past them, git lists the changes
NOT_KNOWN = "author not known yet"  # a partial table's record it did not reach
_BOUND: list[int | None] = [None]  # bound_walks(): the changed paths a walk from scratch may read here
_PARTIAL: list[bool] = [False]  # whether a partial table was handed out since


def bound_walks(most: int | None) -> None:
    """In this process (a hook's), walks from scratch read at most `most` changed paths
    (None: no bound), and the lock a background build holds is not waited for."""
    _BOUND[0] = most
    _PARTIAL[0] = False


def provisional() -> bool:
    """Whether a table handed out in this process since bound_walks() was partial: what a
    reader built from it must not be cached."""
    return _PARTIAL[0]


class Change(NamedTuple):
    """The commit that last changed a record."""

    commit: str
    name: str
    email: str
    time: int  # the author's date, unix seconds

    @property
    def date(self) -> str:
        return time.strftime("%Y-%m-%d", time.gmtime(self.time))


Saved = Change | tuple[object, ...]  # a shard's entry: read as marshal keeps it, made a Change when asked


def shard_of(path: str) -> int:
    return zlib.crc32(path.encode("utf-8")) % SHARDS


class Authors:
    """Who last changed each record at one tip, read shard by shard, and whose they are
    to this reader."""

    def __init__(self, tip: str, folder: Path | None, me: tuple[str, str],
                 loaded: dict[int, dict[str, Saved]] | None = None) -> None:
        self.tip = tip
        self._folder = folder  # None: everything is in `loaded`
        self._shards: dict[int, dict[str, Saved]] = loaded or {}
        self._me = (me[0].strip().lower(), me[1].strip().lower())
        self.partial = False  # a bounded walk stopped before the start: unknown means not reached

    def of(self, path: str) -> Change | None:
        found = self._shard(shard_of(path)).get(path)
        if found is None or isinstance(found, Change):
            return found
        change = _change(found)
        if change is None and self._folder is not None:
            _distrust(self._folder)  # a damaged entry, as a damaged shard: the next read walks afresh
        return change

    def all(self) -> Iterator[tuple[str, Change]]:
        """Every record's change (every shard read: for a background job, not a hook)."""
        for n in range(SHARDS):
            for path, found in self._shard(n).items():
                change = found if isinstance(found, Change) else _change(found)
                if change is not None:
                    yield path, change

    def _shard(self, n: int) -> dict[str, Saved]:
        found = self._shards.get(n)
        if found is None:
            found = _read_shard(self._folder, n) if self._folder is not None else {}
            self._shards[n] = found
        return found

    def mine(self, change: Change) -> bool:
        """Whether the reader made it: the same email (or, with no email on either, name)."""
        email = change.email.strip().lower()
        if email and self._me[1]:
            return email == self._me[1]
        return change.name.strip().lower() == self._me[0]

    def by(self, path: str) -> str:
        """"Alice, 2026-12-01" for a record someone else last changed; "" for the reader's
        own, or one this table does not know."""
        change = self.of(path)
        if change is None:
            return NOT_KNOWN if self.partial else ""
        if self.mine(change):
            return ""
        return f"{change.name or change.email}, {change.date}"

    def names(self, paths: Iterable[str]) -> list[str]:
        """Whose words `paths` hold, the reader first ("you"), each name once."""
        out: dict[str, None] = {}
        for path in paths:
            change = self.of(path)
            if change is not None:
                out["you" if self.mine(change) else (change.name or change.email)] = None
        return sorted(out, key=lambda n: (n != "you", n.lower()))


def load(ctx: Context, tip: store.Commit | None = None) -> Authors:
    """The table for `tip` (default: the branch tip), brought up to date first if need be."""
    me = _me(ctx)
    tip = tip or store.tip(ctx.repo)
    if tip is None:
        return Authors("", None, me)
    folder = store.state_dir(ctx.repo) / FOLDER
    if _saved_tip(folder) == str(tip.id):
        return Authors(str(tip.id), folder, me)
    table = None
    try:
        folder.mkdir(exist_ok=True)
        with locks.file_lock(folder / "lock", wait=LOCK_WAIT if _BOUND[0] is None else 0) as held:
            if held:
                table = _bring(ctx, tip, folder, me, write=True)
    except OSError:
        pass  # not ours to write (a read-only .git): answer from memory
    if table is None:
        table = _bring(ctx, tip, folder, me, write=False)
    _PARTIAL[0] = _PARTIAL[0] or table.partial
    return table


def _bring(ctx: Context, tip: store.Commit, folder: Path, me: tuple[str, str], write: bool) -> Authors:
    saved = _saved_tip(folder)
    if saved == str(tip.id):
        return Authors(saved, folder, me)
    base = store.commit_at(ctx.repo, saved) if saved else None
    fresh = base is None or not store.descends_from(ctx.repo, tip, base)
    if fresh or not _few(ctx, tip, base):
        table, touched = _from_log(ctx, tip, None if fresh else base, folder, me)
    else:
        table, touched = _increment(ctx, tip, base, folder, me)
    if write and not table.partial:
        _save(folder, str(tip.id), {n: table._shard(n) for n in touched})
    return table


def _increment(ctx: Context, tip: store.Commit, base: store.Commit | None, folder: Path,
               me: tuple[str, str]) -> tuple[Authors, set[int]]:
    """The saved table brought from `base` to `tip` in process (a few commits: cheaper than starting git)."""
    table = Authors(str(tip.id), folder, me)
    touched: set[int] = set()
    for path, change in _walk(ctx, tip, base):
        n = shard_of(path)
        shard = table._shard(n)
        touched.add(n)
        if change is None:
            shard.pop(path, None)
        else:
            shard[path] = change
    return table, touched


def _few(ctx: Context, tip: store.Commit, base: store.Commit | None) -> bool:
    """Whether at most IN_PROCESS commits lie between `base` and `tip` (reads commits only)."""
    return next(islice(store.walk(ctx.repo, tip, hide=base), IN_PROCESS, None), None) is None


def _from_log(ctx: Context, tip: store.Commit, base: store.Commit | None, folder: Path,
              me: tuple[str, str]) -> tuple[Authors, set[int]]:
    """The table at `tip` from git's list of changes since `base` (None: from the start,
    every shard rewritten), newest first: a record's change is the newest commit that
    wrote the blob the tip holds; one gone from the tip is dropped. Under bound_walks(n)
    a walk from the start stops after n changed paths, its table partial (an increment
    is never cut short: a record changed in a commit it did not reach would keep an
    older author)."""
    table = Authors(str(tip.id), None if base is None else folder, me)
    touched: set[int] = set(range(SHARDS)) if base is None else set()
    at_tip = _TipBlobs(ctx.repo, tip.tree)
    settled: set[str] = set()
    most = _BOUND[0] if base is None else None
    walked = 0
    # A bounded walk stops early: in git's default order it streams at once (the table it
    # makes is partial, never saved, so a clock skew's order costs nothing lasting).
    with closing(gitlog_changes.changes(str(ctx.repo.path), str(tip.id), str(base.id) if base else None,
                                        topo=most is None)) as log:
        for c in log:
            if table.partial:
                break
            for path, new in gitlog_changes.working_copy(c.paths):
                walked += 1
                if most is not None and walked > most:
                    table.partial = True  # one commit may hold thousands of changes: cut inside it too
                    break
                if path in settled or not _record(path):
                    continue
                now = at_tip.get(path)
                n = shard_of(path)
                if now is None:  # gone from the tip (its newest change a deletion)
                    settled.add(path)
                    table._shard(n).pop(path, None)
                    touched.add(n)
                elif new == now:
                    settled.add(path)
                    table._shard(n)[path] = Change(c.id, c.name, c.email, c.time)
                    touched.add(n)
    return table, touched


class _TipBlobs:
    """The blob each record path names at the tip, by working-copy name (a flat copy
    wins, as every read has it), each looked up once."""

    def __init__(self, repo: store.Repo, tree: store.Tree) -> None:
        self.repo, self.tree = repo, tree
        self.seen: dict[str, str | None] = {}

    def get(self, path: str) -> str | None:
        if path not in self.seen:
            self.seen[path] = store.blob_oid(self.repo, self.tree, path)  # a working-copy name, as reads take it
        return self.seen[path]


def _walk(ctx: Context, tip: store.Commit, base: store.Commit | None) -> Iterator[tuple[str, Change | None]]:
    """(path, its change, or None: deleted) for every record change since `base`, oldest first."""
    for c in store.walk(ctx.repo, tip, hide=base, oldest_first=True):
        trees = [p.tree for p in c.parents]
        first = trees[0] if trees else None
        for delta in store.deltas(first, c.tree):  # working-copy names: a month folder is no change
            if delta.status == "D":
                if _record(delta.old_path):
                    yield delta.old_path, None
                continue
            path = delta.new_path
            if _record(path) and not _inherited(ctx, trees[1:], path, delta.new_oid):
                yield path, Change(str(c.id), c.author.name or "", c.author.email or "", int(c.author.time))


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
    from ...plumbing import ident

    who = ident.person("author", ctx.ident, lambda key: store.config_value(ctx.repo, key))
    return who.name or "", who.email or ""


def _saved_tip(folder: Path) -> str:
    try:
        version, _, tip = (folder / "tip").read_text(encoding="utf-8").strip().partition(" ")
    except (OSError, UnicodeDecodeError):
        return ""
    return tip if version == str(VERSION) else ""


def _change(saved: tuple[object, ...]) -> Change | None:
    """A shard's entry as marshal keeps it (a plain tuple), made a Change when asked for:
    a start asks for a few of the ~400 each shard holds at 100,000 records. None: an
    entry that is not one (a damaged file): its record goes unsigned."""
    try:
        commit, name, email, when = saved
        return Change(str(commit), str(name), str(email), int(when))  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return None


def _read_shard(folder: Path, n: int) -> dict[str, Saved]:
    try:
        raw = marshal.loads((folder / f"{n:02x}.bin").read_bytes())
        if not isinstance(raw, dict):
            raise TypeError(f"shard {n:02x} is not a table")
        return raw
    except (OSError, ValueError, EOFError, TypeError, AttributeError):
        _distrust(folder)
        return {}


def _distrust(folder: Path) -> None:
    """Every shard is written with the tip: one missing or damaged means the folder cannot
    be trusted. Its records go unsigned in this read; the next walks afresh."""
    try:
        (folder / "tip").unlink()
    except OSError:
        pass


def _save(folder: Path, tip: str, shards: Mapping[int, Mapping[str, Saved]]) -> None:
    """The shards, then `tip` (see the module docstring). Best effort: a failed write only
    means the next read walks again."""
    try:
        for n, shard in shards.items():
            atomic.write(folder / f"{n:02x}.bin", marshal.dumps({p: tuple(c) for p, c in shard.items()}))
        atomic.write(folder / "tip", f"{VERSION} {tip}\n".encode("utf-8"))
    except OSError:
        pass
