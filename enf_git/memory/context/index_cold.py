"""The rows of a cold build of the recall index, worked out in forked worker processes.

A cold build indexes every record file of the tip. At 100,000 sessions its parent
process did most of the work while the workers only analyzed: it read each blob,
loaded each record from records.json, deflated each row and worked out the decision
ledger, ~23 s of CPU against the workers' ~7 s. Here the workers do all of that for
a share of the files each (`_rows`), and one of them works out the ledger and its
rows (`_ledger`) while the others go on; the parent writes what they send into the
database, which only it can.

Each worker opens the repository itself (libgit2's handles are not to be shared
across a fork) and reads the records cache the parent loaded before forking, by
copy-on-write. A record the cache lacks is parsed where it is read, and its entry is
sent back for the parent to save, as a build in one process did.

Rows come back in the order of the files, so rows get the ids a build one by one gave
them. The first rows come back undeflated: the writer takes the index's dictionary
from them (indexer._Writer), and the rest are deflated against it in the workers and
sent as the tables take them, in marshal's bytes (`_packed`, `Packed`): the parent's
unpickling of row tuples and its own loop over them were ~1.5 s of CPU at 100,000.
"""

from __future__ import annotations

import gc
import marshal
import os
from itertools import islice
from collections.abc import Iterator, Sequence
from typing import Any

from ...pure import model
from ...plumbing import search, store

from .. import records
from . import index_rows

Files = Sequence[tuple[str, str]]  # (path, blob) of record files, in index order
Built = tuple[index_rows.Row, tuple[str, Any] | None]  # (row, a cache entry the worker added)
# The rows of a share of the files as the database takes them, deflated, as a worker sends
# them (marshal's bytes: ~4x faster to make and read than pickle's of the rows): the docs
# rows but their id, the fts rows but their rowid, (row in the share, short, long) of each
# abbreviation they define, and (key, entry) of each records cache entry it parsed.
Packed = tuple[list[tuple[str, str, str, str, str, str, int, bytes]], list[tuple[str, str, str, str]],
               list[tuple[int, str, str]], list[tuple[str, Any]]]

_CHUNK = 200  # files a worker takes at a time: large enough that passing them costs little
_MAX_WORKERS = 4

# Set before the workers fork, which inherit them: the repository's git dir, the records
# cache, and this process's own handle on the repository (by process id: a forked worker
# opens its own).
_SOURCE: tuple[str, records.Cache] | None = None
_REPO: tuple[int, store.Repo] | None = None


def kind_of(path: str) -> str:
    return "session" if model.is_session_path(path) else "decision"


class Workers:
    """The processes working out a cold build's rows: forked when there are enough files
    and cores, else the same work done in this process, as it is asked for."""

    def __init__(self, repo: store.Repo, cache: records.Cache, files: int) -> None:
        self._repo, self._cache, self._files = repo, cache, files
        self._pool: Any = None
        self._collecting = gc.isenabled()

    @property
    def parallel(self) -> bool:
        return self._pool is not None

    def __enter__(self) -> Workers:
        global _SOURCE, _REPO
        # No garbage collection until the build ends, here or in the workers: the records
        # cache is millions of objects, and the collections its loading set off took as
        # long as the loading (records.json at 100,000 sessions: ~3.9 s, 1-2 s without).
        # The build makes few reference cycles: reference counting frees what it drops.
        gc.disable()
        try:
            self._cache.entries  # loaded here, once, for every worker to share
            _SOURCE, _REPO = (self._repo.path, self._cache), (os.getpid(), self._repo)
            self._pool = _pool(self._files)
        except BaseException:  # Ctrl-C while loading: the collector back on, as __exit__ would
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        global _SOURCE, _REPO
        if self._pool is not None:
            self._pool.terminate()  # done or abandoned (an error in the writer): no worker outlives the build
            self._pool.join()
            self._pool = None
        _SOURCE = _REPO = None
        if self._collecting:
            # What the build left alive (the records cache: millions of objects, none in a
            # cycle) is moved out of the collector's reach first: else the first collection
            # after gc.enable() went through all of it (~0.6 s at 100,000 sessions, the last
            # thing the build did). Reference counting still frees it when it is dropped;
            # what only the collector frees (a few cycles of the pool's, say) is kept: a few
            # KB once per cold build, which a process seldom runs twice.
            gc.freeze()
            gc.enable()

    def ledger(self, files: Files) -> Ledger:
        """The decisions table's rows, started now (in a worker) unless there are no workers."""
        return Ledger(files, None if self._pool is None else self._pool.apply_async(_sent_ledger, (list(files),)))

    def rows(self, files: Files) -> Iterator[Built]:
        """Each file's row, in order."""
        tasks = [list(files[i:i + _CHUNK]) for i in range(0, len(files), _CHUNK)]
        for chunk in map(_rows, tasks) if self._pool is None else self._pool.imap(_rows, tasks):
            yield from chunk

    def packed(self, files: Files, zdict: bytes) -> Iterator[Packed]:
        """The rows of each share of the files, in order, deflated against `zdict`."""
        tasks = [(zdict, list(files[i:i + _CHUNK])) for i in range(0, len(files), _CHUNK)]
        for data in map(_packed, tasks) if self._pool is None else self._pool.imap(_packed, tasks):
            yield marshal.loads(data)


class Ledger:
    """The decisions table's rows, worked out in a worker (`pending`) or, without one, here
    when asked for."""

    def __init__(self, files: Files, pending: Any) -> None:
        self._files, self._pending = files, pending
        self.done = False  # whether get() gave them already

    def ready(self) -> bool:
        """Whether get() would not wait (False without a worker: they are worked out then)."""
        return not self.done and self._pending is not None and bool(self._pending.ready())

    def get(self) -> list[index_rows.DecisionRow]:
        self.done = True
        return _ledger(list(self._files)) if self._pending is None else list(marshal.loads(self._pending.get()))


def _pool(files: int) -> Any:
    """Worker processes, one per core (at most _MAX_WORKERS); None when forking costs more
    than it saves (few files, one core) or there are none to be had."""
    n = min(os.cpu_count() or 1, _MAX_WORKERS)
    if files < index_rows.PARALLEL_MIN or n < 2 or not hasattr(os, "fork"):
        return None
    try:
        import multiprocessing

        return multiprocessing.get_context("fork").Pool(n)
    except (OSError, ValueError, ImportError):  # the same rows, in this process
        return None


def _repo() -> store.Repo:
    global _REPO
    assert _SOURCE is not None
    if _REPO is None or _REPO[0] != os.getpid():
        _REPO = (os.getpid(), store.open_repo(_SOURCE[0]))
    return _REPO[1]


def _rows(files: list[tuple[str, str]]) -> list[Built]:
    """The rows of a share of the files (in a worker)."""
    assert _SOURCE is not None
    repo, cache = _repo(), _SOURCE[1]
    entries = cache.entries
    out: list[Built] = []
    for path, blob in files:
        data = store.blob_data(repo, blob)
        entry = entries.get(f"{blob}:{path}")  # records.load_blob_record's key
        added = None
        if entry is not None:
            facts = index_rows.gist_of_entry(path, entry)
        else:
            facts = index_rows.gist(path, records.load_blob_record(cache, path, blob, lambda d=data: d))
            # A parse adds the record's entry last (dicts keep their order): the parent saves it.
            added = next(reversed(entries.items()))
        out.append((index_rows.row_of((path, data, facts)), added))
    return out


def _packed(task: tuple[bytes, list[tuple[str, str]]]) -> bytes:
    """The rows of a share of the files, deflated against a dictionary, as Packed (in a worker)."""
    zdict, files = task
    pack = search.packer(zdict)
    docs, fts, pairs, added = [], [], [], []
    for i, ((path, blob), (row, entry)) in enumerate(zip(files, _rows(files))):
        ref, date, decided, summary, tags, body, text, length, defined = row
        docs.append((kind_of(path), ref, path, date, "", blob, length, pack([decided, summary, tags, body, text])))
        fts.append((decided, summary, tags, body))
        pairs += [(i, short, long) for short, long in defined]
        if entry is not None:
            added.append(entry)
    return marshal.dumps((docs, fts, pairs, added))


def _ledger(files: list[tuple[str, str]]) -> list[index_rows.DecisionRow]:
    """Every decision of the ledger of `files`, with its standing (in a worker).

    The ledger needs the decisions and reversals alone: they are made from the records
    cache's entries, not whole sessions (~1 s of CPU less at 100,000 sessions), in the order
    render.build_ledger takes them: the sessions' by path, then the decision files' by path.
    """
    assert _SOURCE is not None
    repo, cache = _repo(), _SOURCE[1]
    entries = cache.entries
    known = len(entries)
    decisions: list[model.Decision] = []
    reversals: list[model.Reversal] = []
    extra: list[model.Decision] = []
    for path, blob in files:
        entry = entries.get(f"{blob}:{path}")  # records.load_blob_record's key
        if entry is None:
            _add_record(records.load_blob_record(cache, path, blob, lambda b=blob: store.blob_data(repo, b)),
                        decisions, reversals, extra)
        elif entry["kind"] == "session":
            decisions += [model.Decision(**d) for d in entry["data"]["decisions"]]
            reversals += [model.Reversal(**r) for r in entry["data"]["reversals"]]
        elif entry["kind"] == "decisions":
            extra += [model.Decision(**d) for d in entry["data"]]
    # The entries it parsed are dropped (the last ones: dicts keep their order): _rows in
    # this worker must parse them again, to send them to the parent.
    for key in list(islice(reversed(entries), len(entries) - known)):
        del entries[key]
    from ...pure import ledger

    return index_rows.decision_rows(ledger.build(decisions + extra, reversals), {})


def _sent_ledger(files: list[tuple[str, str]]) -> bytes:
    """_ledger's rows in marshal's bytes (in a worker): 100,000 of them, pickled, cost the
    parent's thread that receives them ~0.2 s of CPU it otherwise spends writing."""
    return marshal.dumps(_ledger(files))


def _add_record(record: index_rows.Record, decisions: list[model.Decision], reversals: list[model.Reversal],
                extra: list[model.Decision]) -> None:
    """What a record parsed here gives the ledger, as _ledger takes it from a cache entry."""
    if isinstance(record, model.Session):
        decisions += record.decisions
        reversals += record.reversals
    elif isinstance(record, list):
        extra += record
