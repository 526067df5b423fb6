"""Build and update the recall index (search.py) from the branch.

One row per record file (session or decisions/*.md) on the tip, one per older version
of such a file (history), and the ledger's decisions with their standing. Each row
carries its text analyzed (stem.py) into the columns recall ranks: decided clauses,
summary, tags, body. The views (index.md, topics.md) are not indexed: every line of
them is a session's summary and tags, which the session's own row already holds.

Updates are incremental: the tree diff between the indexed tip and the new tip
says which record files to re-index, and the commits in between say which old
blobs became history. A missing, corrupt or other-schema index is rebuilt.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path

from ... import paths
from ...errors import EnfError, is_refusal
from ...pure import model, render

from .. import records
from . import index_cold, index_rows
from .pointer_state import pointers_path, pointers_stale

from ...plumbing import gitlog_changes, locks, pointer_build, search, store


def db_path(repo: store.Repo) -> Path:
    return store.state_dir(repo) / paths.SEARCH_DB


LOCK_WAIT = 60.0  # seconds an update waits for another one (a cold build at 10,000 sessions: ~5 s)


def ensure(repo: store.Repo, cache: records.Cache) -> sqlite3.Connection:
    """An index whose tip is the branch tip (built or updated as needed).

    Updates are serialized on a file lock: two processes updating at once (a background
    pointers refresh and the MCP server's first recall) would otherwise wait on sqlite's
    lock and fail after its timeout. A current index is read without the lock.
    """
    tip = store.tip(repo)
    path = db_path(repo)
    if tip is None:
        return _open(path)[0]
    current = _read(path) if path.is_file() else None  # a missing file is created under the lock only
    if current is not None:
        if current[1] == str(tip.id):
            return current[0]
        current[0].close()
    try:
        return _update_file(repo, path, tip, cache)
    except OSError as exc:
        if not is_refusal(exc):
            raise
    # .git/enf is not ours to write (another user's, a read-only mount): recall still
    # answers, from an index built in memory for this one process.
    db = search.connect(":memory:")
    _build(repo, db, None, tip, cache)
    return db


def _update_file(repo: store.Repo, path: Path, tip: store.Commit, cache: records.Cache) -> sqlite3.Connection:
    with locks.file_lock(store.state_dir(repo) / paths.SEARCH_LOCK, wait=LOCK_WAIT) as held:
        if not held:
            raise _busy()
        db, have = _open(path)
        if have == str(tip.id):
            return db  # the other process brought it here
        old = store.commit_at(repo, have) if have is not None else None
        # No tip recorded (new, or another SCHEMA: its tables have other columns), or a
        # tip the branch does not descend from: start from an empty file.
        if old is None or not store.descends_from(repo, tip, old):
            db.close()
            return _build_new(repo, path, tip, cache)
        if _outgrown(db):  # emptied and built again in one transaction: readers see one or the other
            old = None
        _build(repo, db, old, tip, cache)
        return db


def _build_new(repo: store.Repo, path: Path, tip: store.Commit, cache: records.Cache) -> sqlite3.Connection:
    """A cold build, into a file of its own that replaces the index once it is whole.

    Nothing an interrupted build leaves (Ctrl-C, kill -9, a power cut) is ever taken for
    the index: the file has another name until it is complete and on disk, and the next
    build removes it. So it needs no journal: a failed build is thrown away, never rolled
    back (every page written twice, to the WAL and then to the file, made the inserts of
    100,000 sessions ~2.0 s instead of ~1.6, and left a 165 MB WAL to fold in).
    """
    for stale in path.parent.glob(path.name + _PART + "*"):  # a build that never ended (we hold the lock)
        stale.unlink(missing_ok=True)
    part = path.with_name(f"{path.name}{_PART}{os.getpid()}")
    db = sqlite3.connect(str(part))
    try:
        db.execute("PRAGMA journal_mode=OFF")
        db.execute("PRAGMA synchronous=OFF")
        _build(repo, db, None, tip, cache, fresh=True)
        db.execute("PRAGMA journal_mode=WAL")  # as search.connect() leaves it, so readers need not change it
        db.close()
        _fsync(part)  # its pages on disk before its name is the index's: else a crash could leave half of it
        for name in (path.name + "-wal", path.name + "-shm"):  # the old index's: not to be replayed into this one
            path.with_name(name).unlink(missing_ok=True)
        os.replace(part, path)  # readers find the old index or this one, never no file or half of one
    except BaseException:
        db.close()
        for name in (part.name, part.name + "-wal", part.name + "-shm"):
            part.with_name(name).unlink(missing_ok=True)
        raise
    return search.connect(path)


_PART = ".build-"  # search.db.build-<pid>: a cold build in progress (or one killed)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _build(repo: store.Repo, db: sqlite3.Connection, old: store.Commit | None, tip: store.Commit,
           cache: records.Cache, fresh: bool = False) -> None:
    """Bring `db` from `old` (None: from nothing, emptying it first) to `tip`, in one
    transaction; `fresh`: a new file, whose ledger indexes are made once the ledger is in."""
    with db:
        search.create(db, ledger_indexes=not fresh)
        if old is None:
            search.clear(db)
        _update(repo, db, old, tip, cache)
        search.settle_lengths(db)
        db.execute("INSERT OR REPLACE INTO meta VALUES ('tip', ?), ('schema', ?)",
                   (str(tip.id), str(search.SCHEMA)))


def _outgrown(db: sqlite3.Connection) -> bool:
    """Whether the rows docs.data is deflated against are too few for the index's size now.

    A memory's index is often first built from its first session or two, then only
    updated: against a dictionary of one session, the text of 75 other sessions of
    bench/recall/ deflated 2.44x, of sixteen 2.76x, of sixty-four 2.83x (1.84x without
    one). The index is rebuilt (a moment's work at that size) each time it holds 4x the
    rows its dictionary was taken from, until those are ZDICT_ROWS.
    """
    row = db.execute("SELECT value FROM meta WHERE key='zdict_rows'").fetchone()
    if row is None or int(row[0]) >= ZDICT_ROWS:
        return False
    (n,) = db.execute("SELECT count(*) FROM docs").fetchone()
    return bool(n >= 4 * int(row[0]))


def _read(path: Path) -> tuple[sqlite3.Connection, str | None] | None:
    """The index and its tip, read without the lock; None when it cannot be read now.

    Never removes anything: the lock's holder may be rebuilding the file this moment (its
    removal of the old one shows here as "disk I/O error"), and a removal from here
    would delete the index it is building. The lock's holder sorts it out.
    """
    try:
        db = search.connect(path)
    except sqlite3.DatabaseError:
        return None
    try:
        return db, search.indexed_tip(db)
    except sqlite3.DatabaseError:
        db.close()
        return None


def _open(path: Path) -> tuple[sqlite3.Connection, str | None]:
    """The index and the tip it holds; a file that is not a database is removed and begun
    again (a cache), a locked one is never touched: another process is writing it."""
    try:
        db = search.connect(path)
        return db, search.indexed_tip(db)
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            raise _busy() from None
        _remove(path)
    except sqlite3.DatabaseError:
        _remove(path)
    return search.connect(path), None


def _busy() -> EnfError:
    return EnfError("the recall index is being updated by another process and did not come free",
                    hint="try again in a few seconds")


def refresh_pointers(repo: store.Repo, cache: records.Cache, pinned: frozenset[str] = frozenset(),
                     by: dict[str, str] | None = None, withheld: frozenset[str] | None = None) -> int | None:
    """Bring the recall index and the pointers file to the branch tip; the number of
    records written, or None when it was current or another process holds the lock."""
    lock = store.state_dir(repo) / paths.POINTERS_LOCK
    written = None
    with locks.file_lock(lock, wait=0) as held:
        # A commit during a refresh finds the lock held and starts none: so the holder
        # looks again when done, and catches up (a few rounds at most: commits are rare).
        for _ in range(3):
            if not held or not pointers_stale(repo):
                break
            db = ensure(repo, cache)
            try:
                tip = search.indexed_tip(db)
                written = pointer_build.refresh(db, str(pointers_path(repo)), tip or "", sorted(pinned), by, withheld,
                                                flag_judge())
            finally:
                db.close()
    return written


def flag_judge() -> pointer_build.Judge:
    """The rules that flag a record's text as an instruction (shown as a mark beside its
    pointer), applied when the pointers file is written rather than at every prompt."""
    from ...pure import suspicious

    return suspicious.RULES_VERSION, suspicious.reasons


def _remove(path: Path) -> None:
    """The database and its WAL files: a stale -wal beside a new file is not ours to replay."""
    for name in (path.name, path.name + "-wal", path.name + "-shm"):
        path.with_name(name).unlink(missing_ok=True)


def _update(repo: store.Repo, db: sqlite3.Connection, old: store.Commit | None,
            tip: store.Commit, cache: records.Cache) -> None:
    out = _Writer(db, search.has_fts(db))
    new_files = store.list_files(repo, tip.tree)
    if old is None:
        _index_tip(repo, out, new_files, cache)
        _index_history(repo, out, old, tip, set(new_files.values()), cache)
        out.flush()
        return
    old_files = store.list_files(repo, old.tree)
    ledger_changed = False
    for path in sorted(set(old_files) | set(new_files)):
        if old_files.get(path) == new_files.get(path):
            continue
        # The index holds the old tip, so a path it lacked has no rows to delete: a cold
        # build (no old tip) deletes nothing and its inserts stay in a few batches.
        if path in old_files:
            out.delete("path = ? AND kind != 'history'", (path,))
        record: model.Session | list[model.Decision] | EnfError | None = None
        if path in new_files and (model.is_session_path(path) or model.is_decision_path(path)):
            data = store.blob_data(repo, new_files[path])
            record = records.load_blob_record(cache, path, new_files[path], lambda d=data: d)
            kind = "session" if model.is_session_path(path) else "decision"
            out.insert(kind, "", path, new_files[path], data, record)
        if not ledger_changed and (model.is_session_path(path) or model.is_decision_path(path)):
            ledger_changed = _ledger_part(_old_record(repo, cache, path, old_files.get(path))) != _ledger_part(record)
    if ledger_changed:
        _reindex_decisions(repo, db, tip, cache)
    _index_history(repo, out, old, tip, set(new_files.values()), cache)
    out.flush()


def _index_tip(repo: store.Repo, out: _Writer, files: dict[str, str], cache: records.Cache) -> None:
    """Every record file of the tip, and the decisions' ledger, into an empty index.

    The rows are worked out in worker processes (index_cold.py), in the order of the
    paths: the first batch of them undeflated, the writer's dictionary is taken from
    them, and the rest come deflated against it.
    """
    tip = [(path, files[path]) for path in sorted(files) if model.is_session_path(path) or model.is_decision_path(path)]
    with index_cold.Workers(repo, cache, len(tip)) as work, _merges_deferred(out):
        ledger = work.ledger(tip)
        first, rest = tip[:out.BATCH], tip[out.BATCH:]
        for (path, blob), (row, added) in zip(first, work.rows(first)):
            _cached(cache, added)
            out.add(index_cold.kind_of(path), "", path, blob, row)
        # The first batch is written by now (the dictionary taken from it) if there is more.
        for docs, fts, pairs, parsed in work.packed(rest, out.zdict()) if rest else ():
            for added in parsed:
                _cached(cache, added)
            out.add_packed(docs, fts, pairs)
            if ledger.ready():  # written while the rows still come, not after them
                _write_ledger(out.db, ledger.get())
        if not ledger.done:
            _write_ledger(out.db, ledger.get())
    cache.save()


def _write_ledger(db: sqlite3.Connection, rows: list[index_rows.DecisionRow]) -> None:
    db.executemany("INSERT INTO decisions VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
    search.create_ledger_indexes(db)  # a fresh file's, made on its rows (search.create_ledger_indexes)


@contextmanager
def _merges_deferred(out: _Writer) -> Iterator[None]:
    """FTS5 merges no segments while a cold build writes (its 'automerge' off), then merges
    as it always does (FTS5's default, 4) for the updates that follow: ~0.35 s of ~1.6 s of
    FTS5 at 100,000 sessions, the index no larger and its queries no slower (its emergency
    'crisismerge' still bounds the segments)."""
    if out.fts:
        out.db.execute("INSERT INTO fts (fts, rank) VALUES ('automerge', 0)")
    yield
    if out.fts:
        out.db.execute("INSERT INTO fts (fts, rank) VALUES ('automerge', 4)")


def _cached(cache: records.Cache, added: tuple[str, object] | None) -> None:
    """Keep a record entry a worker parsed (records.json), as a build in one process did."""
    if added is not None:
        cache.entries[added[0]] = added[1]
        cache.dirty = True


def _old_record(repo: store.Repo, cache: records.Cache, path: str,
                oid: str | None) -> model.Session | list[model.Decision] | EnfError | None:
    if oid is None:
        return None
    return records.load_blob_record(cache, path, oid, lambda: store.blob_data(repo, oid))


def _ledger_part(record: model.Session | list[model.Decision] | EnfError | None) -> tuple[object, ...]:
    """What a record file gives the decision ledger: its decisions and reversals. A commit
    whose changed files give the same (a session's notes grew, its decisions did not)
    leaves every decision's standing as it was, and the ledger is not rebuilt: that
    rebuild reads every record (~1 s at 10,000 sessions) after each Stop."""
    if isinstance(record, model.Session):
        return (record.decisions, record.reversals)
    if isinstance(record, list):
        return (tuple(record),)
    return ()


def _reindex_decisions(repo: store.Repo, db: sqlite3.Connection, tip: store.Commit, cache: records.Cache) -> None:
    """Every decision of the ledger, with its standing: a reversal anywhere can change any of them.

    A decision's analyzed text is taken from the rows being replaced when its text is
    unchanged: analyzing 10,000 decisions again after each commit cost seconds."""
    analyzed = dict(db.execute("SELECT text, terms FROM decisions"))
    db.execute("DELETE FROM decisions")
    recs = records.load(repo, tip.tree, cache)
    ledger = render.build_ledger(recs.all_sessions(), recs.extra_decisions())
    db.executemany("INSERT INTO decisions VALUES (?, ?, ?, ?, ?, ?, ?, ?)", index_rows.decision_rows(ledger, analyzed))
    cache.save()


def _index_history(repo: store.Repo, out: _Writer, old: store.Commit | None,
                   tip: store.Commit, live: set[str], cache: records.Cache) -> None:
    """Old versions of record files that the tip no longer has (compressed, edited, deleted):
    each blob a commit replaced or deleted, against each of its parents, newest first.

    git lists the changes (plumbing/gitlog_changes.py): a cold build of a year's memory
    (100,000 commits) loaded both sides of every commit's month folder in process, for
    minutes. A merge whose changes git does not give for every parent (it leaves an empty
    diff out) is diffed here, parent by parent, as before."""
    out.flush()  # so the query sees every row written so far
    seen = {row[0] for row in out.db.execute("SELECT blob FROM docs WHERE kind = 'history'")}

    def keep(ref: str, path: str, blob: str | None) -> None:
        if blob is None or blob in live or blob in seen:
            return
        if model.is_session_path(path) or model.is_decision_path(path):
            try:
                data = store.blob_data(repo, blob)
            except KeyError:  # not in this clone (a partial one, a pruned object): nothing to search
                return
            seen.add(blob)
            out.insert("history", ref, path, blob, data, records.parse_blob(path, data))

    for commit, blocks in _blocks(repo, tip, old):
        if len(blocks) == len(commit.parents):
            for parent, block in zip(commit.parents, blocks):
                for path, replaced in _replaced(block):
                    keep(parent, path, replaced)
            continue
        whole = store.commit_at(repo, commit.id)  # a merge with a side git left out
        if whole is None:
            continue
        for p in whole.parents:
            for delta in store.deltas(p.tree, whole.tree):
                if delta.status != "A":
                    keep(str(p.id), delta.old_path, delta.old_oid)
    # Blobs that came back to life (a revert) are no longer history.
    for blob in live & seen:
        out.delete("kind = 'history' AND blob = ?", (blob,))


def _blocks(repo: store.Repo, tip: store.Commit, old: store.Commit | None) -> Iterator[tuple[
        gitlog_changes.Commit, list[list[tuple[str, str | None, str | None]]]]]:
    """Each commit since `old`, newest first, with its changes against each parent git listed."""
    with closing(gitlog_changes.changes(str(repo.path), str(tip.id), str(old.id) if old is not None else None,
                                        each_parent=True)) as log:
        last: gitlog_changes.Commit | None = None
        blocks: list[list[tuple[str, str | None, str | None]]] = []
        for c in log:
            if last is not None and c.id != last.id:
                yield last, blocks
                blocks = []
            last = c
            blocks.append(c.paths)
        if last is not None:
            yield last, blocks


def _replaced(block: list[tuple[str, str | None, str | None]]) -> Iterator[tuple[str, str | None]]:
    """(working-copy path, the blob the parent had there) of what a commit modified or deleted."""
    for path, before, _after in block:
        if before is not None:
            yield store.logical_path(path), before


class _Writer:
    """Writes `docs` rows, and their `fts` entries, in batches.

    One INSERT per row, each followed by a has_fts() query and an fts INSERT, was
    ~70,000 statements on a cold 10,000-session build. Rows are queued and written
    with one executemany each into docs and fts. Rows get the ids (which order
    equal-score hits) they got one by one: each delete flushes the queue first, so
    inserts and deletes still reach the table in their original order. The first
    rows written into an empty index choose the dictionary every row is deflated
    against (search.py: docs.data), ZDICT_SIZE bytes of them spread over the batch;
    a cold build's workers send the rest deflated against it, as the tables take them
    (add_packed), so that the parent, which alone writes, does little more per row
    than SQLite does.
    """

    BATCH = 1000  # rows queued at most: history texts can be large
    _COLS = "kind, ref, path, date, rev, blob, length, data"

    def __init__(self, db: sqlite3.Connection, fts: bool) -> None:
        self.db, self.fts = db, fts  # FTS5 availability, checked once per update
        self._rows: list[tuple[str | int, ...]] = []
        self._fields: list[list[str]] = []  # each queued row's [decided, summary, tags, body, text]
        self._pairs: list[tuple[int, str, str]] = []  # (row in the queue, short, long): the abbreviations it defines
        self._zdict: bytes | None = None

    def insert(self, kind: str, rev: str, path: str, blob: str, data: bytes,
               record: model.Session | list[model.Decision] | EnfError) -> None:
        self.add(kind, rev, path, blob, index_rows.row_of((path, data, index_rows.gist(path, record))))

    def add(self, kind: str, rev: str, path: str, blob: str, row: index_rows.Row) -> None:
        """Queue a row."""
        ref, date, decided, summary, tags, body, text, length, pairs = row
        self._rows.append((kind, ref, path, date, rev, blob, length))
        self._fields.append([decided, summary, tags, body, text])
        self._pairs += [(len(self._rows) - 1, short, long) for short, long in pairs]
        if len(self._rows) >= self.BATCH:
            self.flush()

    def flush(self) -> None:
        if not self._rows:
            return
        pack = search.packer(self._dictionary())
        self._write([(*row, pack(fields)) for row, fields in zip(self._rows, self._fields)],
                    [fields[:4] for fields in self._fields], self._pairs)
        self._rows.clear()
        self._fields.clear()
        self._pairs.clear()

    def add_packed(self, docs: list[tuple[str, str, str, str, str, str, int, bytes]],
                   fts: list[tuple[str, str, str, str]], pairs: list[tuple[int, str, str]]) -> None:
        """Write rows that come deflated against the index's dictionary (a cold build's, from
        its workers: index_cold.Packed), after those queued."""
        self.flush()
        self._write(docs, fts, pairs)

    def _write(self, docs: Sequence[Sequence[object]], fts: Sequence[Sequence[str]],
               pairs: list[tuple[int, str, str]]) -> None:
        """Insert docs rows (all but their id), their fts columns and their abbreviations
        ((row, short, long): a row of `docs` by its place)."""
        # New rows get ids above the current largest (INTEGER PRIMARY KEY): that range is theirs.
        (last,) = self.db.execute("SELECT coalesce(max(id), 0) FROM docs").fetchone()
        self.db.executemany(f"INSERT INTO docs ({self._COLS}) VALUES ({', '.join('?' * 8)})", docs)
        self.db.executemany("INSERT INTO abbrevs VALUES (?, ?, ?, ?)",
                            [(last + 1 + i, short, long, long.split()[0]) for i, short, long in pairs])
        if self.fts:
            self.db.executemany(f"INSERT INTO fts (rowid, {_FTS_COLS}) VALUES (?, ?, ?, ?, ?)",
                                [(last + 1 + i, *columns) for i, columns in enumerate(fts)])

    def zdict(self) -> bytes:
        """The dictionary rows are deflated against, once the first rows were written."""
        assert self._zdict is not None
        return self._zdict

    def _dictionary(self) -> bytes:
        """The index's dictionary; chosen from the queued rows when it has none."""
        if self._zdict is None:
            self._zdict = search.dictionary(self.db)
            if not self._zdict:
                texts = ["\n".join(f).encode("utf-8") for f in self._fields]
                step = 1 + sum(map(len, texts)) // ZDICT_SIZE
                self._zdict = b"".join(texts[::step])[-ZDICT_SIZE:]
                self.db.execute("INSERT OR REPLACE INTO meta VALUES ('zdict', ?), ('zdict_rows', ?)",
                                (self._zdict, len(texts)))
        return self._zdict

    def delete(self, where: str, args: tuple[str, ...]) -> None:
        self.flush()
        if self.fts:
            # A contentless FTS5 table forgets a row only when told its columns.
            zdict = self._zdict or search.dictionary(self.db)
            gone = [(rid, *search.unpack(zdict, data)[:4])
                    for rid, data in self.db.execute(f"SELECT id, data FROM docs WHERE {where}", args)]
            self.db.executemany(f"INSERT INTO fts (fts, rowid, {_FTS_COLS}) VALUES ('delete', ?, ?, ?, ?, ?)", gone)
        self.db.execute(f"DELETE FROM abbrevs WHERE doc IN (SELECT id FROM docs WHERE {where})", args)
        self.db.execute(f"DELETE FROM docs WHERE {where}", args)


ZDICT_SIZE = 32768  # deflate's window: a dictionary longer than this is never reached
ZDICT_ROWS = 64  # a dictionary sampled from fewer rows is taken again when the index has 4x as many (_outgrown)
_FTS_COLS = ", ".join(search.COLUMNS)
