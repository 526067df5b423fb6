"""Build and update the recall index (search.py) from the branch.

Updates are incremental: the tree diff between the indexed tip and the new tip
says which record files to re-index, and the commits in between say which old
blobs became history. A missing, corrupt or other-schema index is rebuilt.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pygit2

from . import model, records, render, search, store

_VIEW_KINDS = {render.INDEX: "index", render.INDEX_ARCHIVE: "index", render.TOPICS: "topics"}


def db_path(repo: pygit2.Repository) -> Path:
    return store.state_dir(repo) / "search.db"


def ensure(repo: pygit2.Repository, cache: records.Cache) -> sqlite3.Connection:
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
    old = repo.get(have) if have else None
    if not isinstance(old, pygit2.Commit) or not repo.descendant_of(tip.id, old.id):
        db.close()
        path.unlink(missing_ok=True)
        db, old = search.connect(path), None
    with db:
        search.create(db)
        _update(repo, db, old, tip, cache)
        db.execute("INSERT OR REPLACE INTO meta VALUES ('tip', ?), ('schema', ?)", (str(tip.id), str(search.SCHEMA)))
    return db


def _update(repo: pygit2.Repository, db: sqlite3.Connection, old: pygit2.Commit | None,
            tip: pygit2.Commit, cache: records.Cache) -> None:
    old_files = store.list_files(repo, old.tree) if old is not None else {}
    new_files = store.list_files(repo, tip.tree)
    for path in sorted(set(old_files) | set(new_files)):
        if old_files.get(path) == new_files.get(path):
            continue
        _delete(db, "path = ? AND kind != 'history'", (path,))
        if path in new_files:
            _index_file(repo, db, path, new_files[path])
    _reindex_decisions(repo, db, tip, cache)
    _index_history(repo, db, old, tip, set(new_files.values()))


def _index_file(repo: pygit2.Repository, db: sqlite3.Connection, path: str, oid: str) -> None:
    text = store.blob_data(repo, oid).decode("utf-8", "replace")
    if path in _VIEW_KINDS:
        # One document per line: a hit points at the session it names.
        for line in text.splitlines():
            if line.startswith("- ["):
                ref = line[3 : line.find("]")] if "]" in line else path
                _insert(db, _VIEW_KINDS[path], ref, path, ref[:10], "", oid, line)
    elif model.is_session_path(path):
        stem = path[len("sessions/") : -3]
        _insert(db, "session", stem, path, stem[:10], "", oid, text)


def _reindex_decisions(repo: pygit2.Repository, db: sqlite3.Connection, tip: pygit2.Commit, cache: records.Cache) -> None:
    _delete(db, "kind = 'decision'", ())
    recs = records.load(repo, tip.tree, cache)
    ledger = render.build_ledger(recs.all_sessions(), recs.extra_decisions())
    for chain in ledger.chains:
        for depth, d in enumerate((chain.current, *chain.superseded)):
            label = "" if depth == 0 else "SUPERSEDED: "
            _insert(db, "decision", d.id, d.source, d.date, "", "", f"{label}{render.decision_line(d)}")
    cache.save()


def _index_history(repo: pygit2.Repository, db: sqlite3.Connection, old: pygit2.Commit | None,
                   tip: pygit2.Commit, live: set[str]) -> None:
    """Old versions of record files that the tip no longer has (compressed, edited, deleted)."""
    walker = repo.walk(tip.id, pygit2.enums.SortMode.TOPOLOGICAL)
    if old is not None:
        walker.hide(old.id)
    seen = {row[0] for row in db.execute("SELECT blob FROM docs WHERE kind = 'history'")}
    for c in walker:
        for parent in c.parents:
            for delta in parent.tree.diff_to_tree(c.tree).deltas:
                path, blob = delta.old_file.path, str(delta.old_file.id)
                if delta.status_char() == "A" or blob in live or blob in seen:
                    continue
                if model.is_session_path(path) or model.is_decision_path(path):
                    seen.add(blob)
                    stem = path.rsplit("/", 1)[-1][:-3]
                    _insert(db, "history", stem, path, stem[:10], str(parent.id), blob,
                            store.blob_data(repo, blob).decode("utf-8", "replace"))
    # Blobs that came back to life (a revert) are no longer history.
    for blob in live & seen:
        _delete(db, "kind = 'history' AND blob = ?", (blob,))


def _insert(db: sqlite3.Connection, kind: str, ref: str, path: str, date: str, rev: str, blob: str, text: str) -> None:
    cur = db.execute("INSERT INTO docs (kind, ref, path, date, rev, blob, text) VALUES (?, ?, ?, ?, ?, ?, ?)",
                     (kind, ref, path, date, rev, blob, text))
    if search.has_fts(db):
        db.execute("INSERT INTO fts (rowid, text) VALUES (?, ?)", (cur.lastrowid, text))


def _delete(db: sqlite3.Connection, where: str, args: tuple[str, ...]) -> None:
    if search.has_fts(db):
        rows = db.execute(f"SELECT id, text FROM docs WHERE {where}", args).fetchall()
        db.executemany("INSERT INTO fts (fts, rowid, text) VALUES ('delete', ?, ?)", rows)
    db.execute(f"DELETE FROM docs WHERE {where}", args)
