"""Merging two tips of the memory branch (pygit2): their base, a merge commit moved by
compare-and-swap, a three-way merge of one file's lines, and who last changed a path.
"""

from __future__ import annotations

from collections.abc import Mapping

import pygit2

from ..errors import RepoError, refusal_hint
from .store import BRANCH, REF, blob_oid, commit_at, walk
from .store_write import (Changes, CommitResult, _clear_stale_ref_lock, _is_race, _signatures, _writer_lock,
                          create_commit, write_tree)

# --- merging two tips (team sharing): the base, and moving the branch by CAS ---------

def merge_base(repo: pygit2.Repository, a: pygit2.Commit, b: pygit2.Commit) -> pygit2.Commit | None:
    """The best common ancestor of `a` and `b`; None when their histories are unrelated
    (two clones that each ran init before either pushed).

    Asked with the two ids in a fixed order: after a criss-cross merge there are several
    best ancestors, and which one comes back must not depend on the merge's direction.
    """
    first, second = sorted((a.id, b.id), key=str)
    oid = repo.merge_base(first, second)
    return commit_at(repo, str(oid)) if oid is not None else None


def move_branch(repo: pygit2.Repository, expected: pygit2.Commit | None, target: str, message: str) -> bool:
    """Point the memory branch at `target` if it still points at `expected` (None: if it
    does not exist yet). False when another writer moved it first: the caller re-reads
    the tip and decides again. A fast-forward is this with `target` = their tip."""
    oid = pygit2.Oid(hex=target)
    with _writer_lock(repo) as ours:
        for _ in range(2):
            try:
                return _move(repo, expected, oid, message)
            except (pygit2.GitError, OSError) as exc:
                if not _is_race(exc):
                    raise RepoError(f"could not move {BRANCH}: {exc}",
                                    hint=refusal_hint(str(exc)) or f"git fsck --no-dangling {BRANCH}; then retry") from exc
            # The ref's lock is held: by a writer killed mid-update (its leftover goes
            # and we try once more), or by a live one (the caller re-reads the tip).
            if not (ours and _clear_stale_ref_lock(repo, [])):
                return False
    return False


def _move(repo: pygit2.Repository, expected: pygit2.Commit | None, oid: pygit2.Oid, message: str) -> bool:
    ref = repo.references.get(REF)
    if ref is None:
        if expected is not None:
            return False
        repo.create_reference_direct(REF, oid, False, message=message)
        return True
    if expected is None or ref.target != expected.id:
        return False
    ref.set_target(oid, message)  # libgit2 compares against the value `ref` was read with
    return True


def commit_merge(repo: pygit2.Repository, ours: pygit2.Commit, theirs: pygit2.Commit, changes: Changes,
                 message: str, when: int | None = None, env: Mapping[str, str] | None = None) -> CommitResult | None:
    """A commit whose parents are `ours` then `theirs` and whose tree is ours + `changes`,
    put on the branch only if the branch still points at `ours`.

    None: the branch moved (a local commit landed meanwhile); nothing was lost, and the
    caller merges again onto the new tip. Unlike `commit`, there is no retry here: the
    change set was computed against `ours`, so only the caller can recompute it.
    """
    blobs: dict[str, str | None] = {}
    try:
        tree = write_tree(repo, ours.tree, changes, blobs)
        author, committer = _signatures(repo, when, env)
        oid = create_commit(repo, author, committer, message, tree, [ours.id, theirs.id])
    except (pygit2.GitError, OSError) as exc:
        raise RepoError(f"could not write the merge onto {BRANCH}: {exc}",
                        hint=refusal_hint(str(exc)) or f"git fsck --no-dangling {BRANCH}; then retry") from exc
    reflog = f"enf: {message.splitlines()[0] if message else 'merge'}"
    if not move_branch(repo, ours, str(oid), reflog):
        return None
    return CommitResult(str(oid), str(ours.id), 1, tuple(sorted(changes)), blobs)


def is_blob(repo: pygit2.Repository, oid: str) -> bool:
    """Whether this repository holds `oid` as a blob (a submodule's commit id is not held)."""
    try:
        return isinstance(repo.get(oid), pygit2.Blob)
    except (ValueError, pygit2.GitError):
        return False


# --- merging one file's lines (a path both sides changed) -----------------------------

def merge_text(repo: pygit2.Repository, base: bytes, ours: bytes, theirs: bytes) -> bytes | None:
    """libgit2's three-way merge of one file, line by line (git merge-file's rules: hunks
    that overlap or touch conflict): the merged bytes, or None when a hunk conflicts.

    The three versions are written as blobs (libgit2 merges blobs by id; most are on the
    branch already). Whether the bytes are text the merge may touch is the caller's to
    decide: the result comes back decoded as UTF-8 by pygit2.
    """
    try:
        old, mine, yours = (pygit2.IndexEntry("file", repo.create_blob(data), pygit2.enums.FileMode.BLOB)
                            for data in (base, ours, theirs))
        result: object = repo.merge_file_from_index(old, mine, yours)
    except (pygit2.GitError, OSError, UnicodeDecodeError):
        return None
    except RuntimeError:
        return None  # an empty merge: pygit2 1.21 cannot read libgit2's NULL buffer (no record is empty)
    if isinstance(result, str):  # pygit2 before 1.15 returns the text alone, markers and all
        return None if "<<<<<<< " in result else result.encode("utf-8")
    contents = getattr(result, "contents", None)
    if getattr(result, "automergeable", False) is not True or not isinstance(contents, str):
        return None
    return contents.encode("utf-8")


def author_of(repo: pygit2.Repository, tip: pygit2.Commit, path: str, hide: pygit2.Commit | None = None,
              limit: int = 500) -> str | None:
    """Who wrote `tip`'s version of `path` (or deleted it): the author's name on the newest
    commit reachable from `tip` (not from `hide`) where `path` is as in `tip` and in no
    parent. None when no such commit is within `limit` commits: the message then names
    the side, not the person."""
    commit = last_change(repo, tip, path, hide, limit)
    return str(commit.author.name) if commit is not None else None


def last_change(repo: pygit2.Repository, tip: pygit2.Commit, path: str, hide: pygit2.Commit | None = None,
                limit: int = 500) -> pygit2.Commit | None:
    """The newest commit reachable from `tip` (not from `hide`, within `limit`) that
    wrote `tip`'s version of `path` (or deleted it): as in `tip` and in no parent."""
    want = blob_oid(repo, tip.tree, path)
    for seen, commit in enumerate(walk(repo, tip, hide=hide)):
        if seen >= limit:
            break
        if blob_oid(repo, commit.tree, path) != want or (want is None and not commit.parents):
            continue
        if all(blob_oid(repo, parent.tree, path) != want for parent in commit.parents):
            return commit
    return None
