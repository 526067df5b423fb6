"""A cold build of the recall index: what an interrupted one leaves, and what its workers keep.

A cold build is written into a file of its own (search.db.build-<pid>) that replaces the
index only when whole and on disk: a build killed or interrupted midway leaves no index
that is later trusted, and the next build finishes the job. Real repositories, the real
`git enf`, a real SIGKILL.
"""

from __future__ import annotations

import gc
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from gitfixtures import COST, SCALE, search_sessions, session_text, write_session


write = write_session  # the shared helper, under this file's short name


def sessions(enf, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    search_sessions(repo_dir)
    enf("commit", "-m", "sessions")


def state(repo_dir: Path) -> Path:
    return repo_dir / ".git" / "enf"


def stale_index(enf, repo_dir: Path) -> bytes:  # type: ignore[no-untyped-def]
    """An index of another schema (so the next recall builds it anew); its bytes."""
    enf("recall", "postgres")
    db_file = state(repo_dir) / "search.db"
    with sqlite3.connect(db_file) as db:
        db.execute("UPDATE meta SET value = '1' WHERE key = 'schema'")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # all of it in the file, whose bytes say it is untouched
    db.close()
    return db_file.read_bytes()


def leftovers(repo_dir: Path) -> list[str]:
    return sorted(p.name for p in state(repo_dir).glob("search.db.build-*"))


def first_hit(enf, query: str) -> str:  # type: ignore[no-untyped-def]
    return str(json.loads(enf("recall", "--json", query))["results"][0]["path"])


# Builds the index in a process that kills itself (SIGKILL: no handler, no cleanup) once
# the first rows are written into the build's file.
KILLED = """
import os, signal, sys
from enf_git import memory
from enf_git.memory.context import indexer
real = indexer._Writer.flush
def flush(self):
    real(self)
    os.kill(os.getpid(), signal.SIGKILL)
indexer._Writer.flush = flush
ctx = memory.Context.open(sys.argv[1])
indexer.ensure(ctx.repo, ctx.cache())
"""


def test_a_cold_build_killed_midway_leaves_the_old_index_untouched_and_is_done_again(
        enf, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    sessions(enf, repo_dir)
    before = stale_index(enf, repo_dir)
    run = subprocess.run([sys.executable, "-c", KILLED, str(repo_dir)], capture_output=True, text=True)
    assert run.returncode == -9, run.stderr[-500:]
    assert leftovers(repo_dir)  # it was killed midway, its rows in a file of its own
    assert (state(repo_dir) / "search.db").read_bytes() == before  # the index it would replace, as it was
    assert first_hit(enf, "postgres full-text search") == "sessions/2026-04-20-postgres-fts.md"
    assert leftovers(repo_dir) == []  # the next build removed what the killed one left
    with sqlite3.connect(state(repo_dir) / "search.db") as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        (tip,) = db.execute("SELECT value FROM meta WHERE key = 'tip'").fetchone()
    db.close()
    assert tip == subprocess.run(["git", "rev-parse", "claude-memory"], cwd=repo_dir, capture_output=True,
                                 text=True, check=True).stdout.strip()


def test_a_cold_build_killed_with_no_index_before_leaves_none(enf, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    sessions(enf, repo_dir)
    (state(repo_dir) / "search.db").unlink(missing_ok=True)
    run = subprocess.run([sys.executable, "-c", KILLED, str(repo_dir)], capture_output=True, text=True)
    assert run.returncode == -9, run.stderr[-500:]
    with sqlite3.connect(state(repo_dir) / "search.db") as db:  # the empty file opened under the lock
        assert db.execute("SELECT name FROM sqlite_master").fetchall() == []  # never half an index under its name
    db.close()
    assert first_hit(enf, "postgres full-text search") == "sessions/2026-04-20-postgres-fts.md"
    assert leftovers(repo_dir) == []


def test_an_interrupted_cold_build_removes_its_file_and_keeps_the_old_index(
        enf, repo_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from enf_git import memory
    from enf_git.memory.context import indexer

    sessions(enf, repo_dir)
    before = stale_index(enf, repo_dir)

    def interrupted(self: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(indexer._Writer, "flush", interrupted)
    ctx = memory.Context.open(repo_dir)
    with pytest.raises(KeyboardInterrupt):
        indexer.ensure(ctx.repo, ctx.cache())
    assert gc.isenabled()  # off during the build (index_cold.py), on again however it ended
    assert leftovers(repo_dir) == []
    assert (state(repo_dir) / "search.db").read_bytes() == before


def test_records_the_workers_parse_are_kept_in_the_cache(
        enf, repo_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """The workers load records from the cache the parent read; one it lacks is parsed in the
    worker, and kept in records.json as a build in one process kept it."""
    from enf_git import memory
    from enf_git.memory.context import index_cold, index_rows, indexer

    sessions(enf, repo_dir)
    (state(repo_dir) / "search.db").unlink(missing_ok=True)
    (state(repo_dir) / "records.json").unlink()
    monkeypatch.setattr(index_rows, "PARALLEL_MIN", 1)
    monkeypatch.setattr(index_cold.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(indexer._Writer, "BATCH", 2)  # most rows deflated in the workers
    forked: list[bool] = []
    real_enter = index_cold.Workers.__enter__
    monkeypatch.setattr(index_cold.Workers, "__enter__", lambda self: (real_enter(self), forked.append(self.parallel))[0])
    ctx = memory.Context.open(repo_dir)
    indexer.ensure(ctx.repo, ctx.cache()).close()
    assert forked == [True]
    assert gc.isenabled()
    entries = json.loads((state(repo_dir) / "records.json").read_text())["entries"]
    listed = subprocess.run(["git", "ls-tree", "-r", "claude-memory", "sessions"], cwd=repo_dir,
                            capture_output=True, text=True, check=True).stdout.splitlines()
    blobs = {line.split()[2] for line in listed}
    assert len(blobs) == 6 and blobs <= {key.split(":")[0] for key in entries}
    assert first_hit(enf, "postgres full-text search") == "sessions/2026-04-20-postgres-fts.md"


def test_an_old_version_missing_from_the_clone_is_left_out_and_the_rest_indexed(
        enf, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    """History is searched when its blobs are here; a partial clone (or a pruned object)
    lacks some, and the index is built without them rather than not at all."""
    path = write(repo_dir, "2026-04-20-postgres-fts", session_text(session_id="b2c3d4e5", date="2026-04-20",
                                                                  summary="Moved search to Postgres", body=COST))
    enf("commit", "-m", "first")
    path.write_text(path.read_text().replace("Moved search to Postgres", "Moved search to Elasticsearch"))
    enf("commit", "-m", "edited")
    listed = subprocess.run(["git", "ls-tree", "-r", "claude-memory~1"], cwd=repo_dir, capture_output=True,
                            text=True, check=True).stdout.splitlines()
    (old,) = [line.split()[2] for line in listed if line.endswith("2026-04-20-postgres-fts.md")]
    loose = repo_dir / ".git" / "objects" / old[:2] / old[2:]
    assert loose.is_file()
    enf("recall", "postgres")  # an index with the old version as history
    with sqlite3.connect(state(repo_dir) / "search.db") as db:
        assert db.execute("SELECT count(*) FROM docs WHERE kind = 'history'").fetchone() == (1,)
    db.close()
    loose.unlink()
    for name in ("search.db", "search.db-wal", "search.db-shm"):
        (state(repo_dir) / name).unlink(missing_ok=True)
    assert first_hit(enf, "elasticsearch") == "sessions/2026-04-20-postgres-fts.md"
    with sqlite3.connect(state(repo_dir) / "search.db") as db:
        assert db.execute("SELECT count(*) FROM docs WHERE kind = 'history'").fetchone() == (0,)
        assert db.execute("SELECT count(*) FROM docs WHERE kind = 'session'").fetchone() == (1,)
    db.close()


DECISION_FILE = ("---\ndate: 2026-05-10\n---\n- [10:00] Y: In the context of caching, facing load, decided Redis "
                 "over Memcached, to achieve persistence, accepting memory cost. Confidence: high\n")
RECORD_FILES = {
    "sessions/2026-04-13-search-api.md": session_text(body=SCALE),
    "sessions/2026-04-20-postgres-fts.md": session_text(session_id="b2c3d4e5", date="2026-04-20", body=COST),
    "sessions/2026-04-21-broken.md": "---\nsession_id: [\n---\nnot a session\n",
    "decisions/2026-05-10-redis.md": DECISION_FILE,
    "decisions/2026-05-11-empty.md": "---\ndate: 2026-05-11\n---\nno decision here\n",
}


@pytest.mark.parametrize("path", sorted(RECORD_FILES))
def test_a_rows_facts_read_off_the_records_cache_are_the_records(path: str) -> None:
    """The workers take a row's facts from the cache entry, not from the record made of it."""
    from enf_git.memory import records
    from enf_git.memory.context import index_rows

    data = RECORD_FILES[path].encode()
    entry = records.parsed_entry(path, data)
    facts = index_rows.gist_of_entry(path, entry)
    assert facts == index_rows.gist(path, records.parse_blob(path, data))
    assert (facts is None) == (path.endswith("broken.md"))  # the cases hold both kinds and a file that does not parse


def test_a_cold_builds_ledger_is_the_ledger_of_the_records(
        enf, repo_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """The ledger worker makes decisions and reversals of the cache's entries (a record it lacks
    is parsed): the decisions table is the ledger render.build_ledger makes of the records."""
    from enf_git import memory
    from enf_git.memory import records
    from enf_git.memory.context import index_cold, index_rows, indexer
    from enf_git.plumbing import store
    from enf_git.pure import render

    sessions(enf, repo_dir)
    (repo_dir / ".claude-sessions" / "decisions").mkdir(exist_ok=True)
    (repo_dir / ".claude-sessions" / "decisions" / "2026-05-10-redis.md").write_text(DECISION_FILE)
    enf("commit", "-m", "a decision file")
    for missing in (False, True):  # every record in the cache; none (each parsed where it is read)
        (state(repo_dir) / "search.db").unlink(missing_ok=True)
        if missing:
            (state(repo_dir) / "records.json").unlink()
        monkeypatch.setattr(index_rows, "PARALLEL_MIN", 1)
        monkeypatch.setattr(index_cold.os, "cpu_count", lambda: 2)
        ctx = memory.Context.open(repo_dir)
        with indexer.ensure(ctx.repo, ctx.cache()) as db:
            built = db.execute("SELECT * FROM decisions ORDER BY rowid").fetchall()
        db.close()
        recs = records.load(ctx.repo, store.tip(ctx.repo).tree, records.Cache(None))
        want = index_rows.decision_rows(render.build_ledger(recs.all_sessions(), recs.extra_decisions()), {})
        assert built == [tuple(r) for r in want]
        # The corpus's three decisions, one superseded by another, one from a decision file.
        assert sorted((r[3].split(" decided ")[1].split(" over ")[0], r[5]) for r in built) == [
            ("Elasticsearch", "superseded"), ("Postgres FTS", "standing"), ("Redis", "standing")]


def test_a_cold_build_leaves_every_index_and_fts5_merging_as_an_update_expects(
        enf, repo_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """A cold build makes the ledger's indexes once its rows are in, and keeps FTS5 from merging
    while it writes: the file it leaves has every index, whole, and FTS5's default merging."""
    from enf_git.memory.context import index_cold, index_rows

    sessions(enf, repo_dir)
    monkeypatch.setattr(index_rows, "PARALLEL_MIN", 1)
    monkeypatch.setattr(index_cold.os, "cpu_count", lambda: 2)
    for name in ("search.db", "search.db-wal", "search.db-shm"):
        (state(repo_dir) / name).unlink(missing_ok=True)
    assert first_hit(enf, "postgres full-text search") == "sessions/2026-04-20-postgres-fts.md"
    with sqlite3.connect(state(repo_dir) / "search.db") as db:
        names = {n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")}
        assert names == {"docs_path", "docs_length", "docs_blob", "decisions_path", "decisions_id", "abbrevs_doc",
                         "abbrevs_short", "abbrevs_first"}
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert db.execute("SELECT v FROM fts_config WHERE k = 'automerge'").fetchall() in ([], [(4,)])
        # The planner finds a row by path through its index, as it did when the file was built with them.
        plan = " ".join(str(r) for r in db.execute("EXPLAIN QUERY PLAN SELECT id FROM docs WHERE path = ? AND "
                                                   "kind != 'history'", ("x",)))
        assert "docs_path" in plan
    db.close()


def _history_by_walking(repo_dir: Path) -> set[tuple[str, str]]:
    """(blob, path) of every record version the tip no longer has, as the in-process walk
    found them: each commit diffed against each parent, what a change replaced or deleted."""
    from enf_git.plumbing import store
    from enf_git.pure import model

    repo = store.open_repo(repo_dir)
    tip = store.tip(repo)
    assert tip is not None
    live = {d.new_oid for d in store.deltas(None, tip.tree)}
    out: set[tuple[str, str]] = set()
    for c in store.walk(repo, tip):
        for parent in c.parents:
            for delta in store.deltas(parent.tree, c.tree):
                path = delta.old_path
                if delta.status != "A" and delta.old_oid not in live and (
                        model.is_session_path(path) or model.is_decision_path(path)):
                    out.add((delta.old_oid, path))
    return out


def test_history_from_git_s_list_is_what_walking_every_commit_found(enf, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    """Edits, a deletion, a merge whose both sides changed, and one where a side changed
    nothing (git leaves that parent's empty diff out): the same old versions indexed."""
    from test_authors import _history

    _history(repo_dir)  # Bob's edit and a deleted session, merged with Alice's own session
    edited = repo_dir / ".claude-sessions" / "sessions" / "2026-04-14-other.md"
    edited.write_text(edited.read_text() + "\nOne more line.\n")
    enf("commit", "-m", "edited after the merge")
    expected = _history_by_walking(repo_dir)
    assert len(expected) >= 3  # the base of S, the deleted session, the edited one
    enf("recall", "postgres")  # a cold build
    with sqlite3.connect(state(repo_dir) / "search.db") as db:
        rows = db.execute("SELECT blob, path, rev FROM docs WHERE kind = 'history'").fetchall()
    db.close()
    assert {(blob, path) for blob, path, _ in rows} == expected
    for blob, path, rev in rows:  # each named where it can be read back
        stored = subprocess.run(["git", "rev-parse", f"{rev}:{path}"], cwd=repo_dir, capture_output=True, text=True)
        month = path.replace("sessions/", f"sessions/{path[9:13]}/{path[14:16]}/", 1)
        stored_month = subprocess.run(["git", "rev-parse", f"{rev}:{month}"], cwd=repo_dir, capture_output=True,
                                      text=True)
        assert blob in (stored.stdout.strip(), stored_month.stdout.strip()), (path, rev)
