"""Build and update the recall index (search.py) from the branch.

Updates are incremental: the tree diff between the indexed tip and the new tip
says which record files to re-index, and the commits in between say which old
blobs became history. A missing, corrupt or other-schema index is rebuilt.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from .. import paths
from ..pure import model, render

from . import records

from ..plumbing import search, store

_VIEW_KINDS = {render.INDEX: "index", render.INDEX_ARCHIVE: "index", render.TOPICS: "topics",
               render.TOPICS_ARCHIVE: "topics"}


def db_path(repo: store.Repo) -> Path:
    return store.state_dir(repo) / paths.SEARCH_DB


def ensure(repo: store.Repo, cache: records.Cache) -> sqlite3.Connection:
    """An index whose tip is the branch tip (built or updated as needed)."""
    tip = store.tip(repo)
    path = db_path(repo)
    try:
        db = search.connect(path)
        have = search.indexed_tip(db)
    except sqlite3.DatabaseError:
        path.unlink(missing_ok=True)
        db, have = search.connect(path), None
    if tip is None or have == str(tip.id):
        return db
    old = store.commit_at(repo, have)
    if old is None or not store.descends_from(repo, tip, old):
        db.close()
        path.unlink(missing_ok=True)
        db, old = search.connect(path), None
    with db:
        search.create(db)
        _update(repo, db, old, tip, cache)
        db.execute("INSERT OR REPLACE INTO meta VALUES ('tip', ?), ('schema', ?)", (str(tip.id), str(search.SCHEMA)))
    return db


def _update(repo: store.Repo, db: sqlite3.Connection, old: store.Commit | None,
            tip: store.Commit, cache: records.Cache) -> None:
    out = _Writer(db, search.has_fts(db))
    old_files = store.list_files(repo, old.tree) if old is not None else {}
    new_files = store.list_files(repo, tip.tree)
    for path in sorted(set(old_files) | set(new_files)):
        if old_files.get(path) == new_files.get(path):
            continue
        # The index holds the old tip, so a path it lacked has no rows to delete: a cold
        # build (no old tip) deletes nothing and its inserts stay in a few batches.
        if path in old_files:
            out.delete("path = ? AND kind != 'history'", (path,))
        if path in new_files:
            _index_file(repo, out, path, new_files[path])
    _reindex_decisions(repo, out, tip, cache)
    _index_history(repo, out, old, tip, set(new_files.values()))
    out.flush()


def _index_file(repo: store.Repo, out: _Writer, path: str, oid: str) -> None:
    text = store.blob_data(repo, oid).decode("utf-8", "replace")
    if path in _VIEW_KINDS:
        # One document per line: a hit points at the session it names.
        for line in text.splitlines():
            if line.startswith("- ["):
                ref = line[3 : line.find("]")] if "]" in line else path
                out.insert(_VIEW_KINDS[path], ref, path, ref[:10], "", oid, line)
    elif model.is_session_path(path):
        stem = path[len("sessions/") : -3]
        out.insert("session", stem, path, stem[:10], "", oid, text)


def _reindex_decisions(repo: store.Repo, out: _Writer, tip: store.Commit, cache: records.Cache) -> None:
    out.delete("kind = 'decision'", ())
    recs = records.load(repo, tip.tree, cache)
    ledger = render.build_ledger(recs.all_sessions(), recs.extra_decisions())
    for chain in ledger.chains:
        for depth, d in enumerate((chain.current, *chain.superseded)):
            label = "" if depth == 0 else "SUPERSEDED: "
            out.insert("decision", d.id, d.source, d.date, "", "", f"{label}{render.decision_line(d)}")
    cache.save()


def _index_history(repo: store.Repo, out: _Writer, old: store.Commit | None,
                   tip: store.Commit, live: set[str]) -> None:
    """Old versions of record files that the tip no longer has (compressed, edited, deleted)."""
    walker = store.walk(repo, tip, hide=old)
    out.flush()  # so the query sees every row written so far
    seen = {row[0] for row in out.db.execute("SELECT blob FROM docs WHERE kind = 'history'")}
    for c in walker:
        for parent in c.parents:
            for delta in store.deltas(parent.tree, c.tree):
                path, blob = delta.old_path, delta.old_oid
                if delta.status == "A" or blob in live or blob in seen:
                    continue
                if model.is_session_path(path) or model.is_decision_path(path):
                    seen.add(blob)
                    stem = path.rsplit("/", 1)[-1][:-3]
                    out.insert("history", stem, path, stem[:10], str(parent.id), blob,
                               store.blob_data(repo, blob).decode("utf-8", "replace"))
    # Blobs that came back to life (a revert) are no longer history.
    for blob in live & seen:
        out.delete("kind = 'history' AND blob = ?", (blob,))


class _Writer:
    """Writes `docs` rows, and their `fts` entries, in batches.

    One INSERT per row, each followed by a has_fts() query and an fts INSERT, was
    ~70,000 statements on a cold 10,000-session build. Rows are queued and written
    with one executemany, then indexed with one INSERT … SELECT. Rows get the ids
    (which order equal-score hits) they got one by one: each delete flushes the queue
    first, so inserts and deletes still reach the table in their original order.
    """

    _BATCH = 1000  # rows queued at most: history texts can be large

    def __init__(self, db: sqlite3.Connection, fts: bool) -> None:
        self.db, self._fts = db, fts  # FTS5 availability, checked once per update
        self._rows: list[tuple[str, str, str, str, str, str, str]] = []

    def insert(self, kind: str, ref: str, path: str, date: str, rev: str, blob: str, text: str) -> None:
        self._rows.append((kind, ref, path, date, rev, blob, text))
        if len(self._rows) >= self._BATCH:
            self.flush()

    def flush(self) -> None:
        if not self._rows:
            return
        # New rows get ids above the current largest (INTEGER PRIMARY KEY): that range is theirs.
        (last,) = self.db.execute("SELECT coalesce(max(id), 0) FROM docs").fetchone()
        self.db.executemany("INSERT INTO docs (kind, ref, path, date, rev, blob, text) VALUES (?, ?, ?, ?, ?, ?, ?)",
                            self._rows)
        if self._fts:
            self.db.execute("INSERT INTO fts (rowid, text) SELECT id, text FROM docs WHERE id > ?", (last,))
        self._rows.clear()

    def delete(self, where: str, args: tuple[str, ...]) -> None:
        self.flush()
        if self._fts:
            # An external-content FTS5 table forgets a row only when told its old text.
            self.db.execute(f"INSERT INTO fts (fts, rowid, text) SELECT 'delete', id, text FROM docs WHERE {where}", args)
        self.db.execute(f"DELETE FROM docs WHERE {where}", args)
