"""Commit path changes onto `refs/heads/claude-memory` (pygit2).

The data model is bytes at paths. A commit is built from the branch tip *as it is
at the moment of the attempt* plus exactly the paths a caller changed, then the ref
is moved by compare-and-swap. If another writer moved the ref in between, the whole
attempt (including object writes: a concurrent `git gc` may remove an object folder
under us) is redone on the new tip. Writers on one machine also queue on an advisory
lock file, which turns most CAS failures into a short wait; the CAS stays the safety
net for writers that do not take the lock (another machine's `git push` into a
shared repo, older versions, plain `git update-ref`).

Nothing here touches HEAD, the index or any work tree.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Literal, NamedTuple

import pygit2

from .. import paths
from . import ident, signing
from .locks import file_lock
from ..errors import ConcurrencyError, RepoError, refusal_hint
from .store import (BRANCH, REF, _SESSIONS_PREFIX, _month_folder, _subtree, common_dir, config_value, logical_path,
                    state_dir, stored_path)

FALLBACK_NAME = "enf-git"
FALLBACK_EMAIL = "enf-git@localhost"

# A change set: path -> new bytes, or None to delete the path.
Changes = Mapping[str, "bytes | None"]
# Called once per attempt with the tip commit (None before the first commit).
ChangeBuilder = Callable[["pygit2.Commit | None"], Changes]
# A change set as a folder tree: name -> subfolder, new bytes, or None (delete).
_Nested = dict[str, "_Nested | bytes | pygit2.Oid | None"]


class CommitResult(NamedTuple):  # not a dataclass: ~1 ms less on every commit's import
    oid: str
    parent: str | None
    attempts: int
    paths: tuple[str, ...]
    # path -> hex OID of the blob this commit put there (None: deleted), so callers
    # need not look paths up again in a large tree (~1 ms each at 10,000 entries).
    blobs: Mapping[str, str | None] = {}
    warnings: tuple[str, ...] = ()  # what the commit repaired on its way (a stale ref lock)

def signature(repo: pygit2.Repository, when: int | None = None, env: Mapping[str, str] | None = None,
              role: ident.Role = "author") -> pygit2.Signature:
    """The author (or committer) git would record: the identity variables in `env` (the
    edge's environment, `ident.from_environ`), then git config, else a fixed fallback.
    `when` is the commit's clock, used unless `env` sets the date."""
    who = ident.person(role, env or {}, lambda key: config_value(repo, key))
    name, email = who.name or FALLBACK_NAME, who.email or FALLBACK_EMAIL
    if who.when is not None:
        return pygit2.Signature(name, email, who.when[0], who.when[1])
    if when is None:
        return pygit2.Signature(name, email)
    # The machine's UTC offset at that moment, as git would record it.
    return pygit2.Signature(name, email, when, time.localtime(when).tm_gmtoff // 60)


def _signatures(repo: pygit2.Repository, when: int | None,
                env: Mapping[str, str] | None) -> tuple[pygit2.Signature, pygit2.Signature]:
    return signature(repo, when, env, "author"), signature(repo, when, env, "committer")


def create_commit(repo: pygit2.Repository, author: pygit2.Signature, committer: pygit2.Signature, message: str,
                  tree: pygit2.Oid, parents: list[pygit2.Oid]) -> pygit2.Oid:
    """Write a commit object (no ref moves), signed when git would sign it (`commit.gpgSign`:
    see signing). A signing failure raises signing.SigningError and writes nothing."""
    how = signing.signer(lambda key: config_value(repo, key))
    if how is None:
        return repo.create_commit(None, author, committer, message, tree, parents)
    # pygit2's stub says Oid; it returns the commit object's text (the bytes git signs)
    buffer = str(repo.create_commit_string(author, committer, message, tree, list[str | pygit2.Oid](parents)))
    signature = signing.sign(how, buffer.encode("utf-8"), f"{committer.name} <{committer.email}>")
    return repo.create_commit_with_signature(buffer, signature, "gpgsig")


def commit(
    repo: pygit2.Repository,
    build: ChangeBuilder,
    message: str | Callable[[], str],
    *,
    max_attempts: int = 200,
    when: int | None = None,
    env: Mapping[str, str] | None = None,
) -> CommitResult | None:
    """Commit what `build(tip)` returns on top of the current tip; None if nothing changed.

    `build` is called again on every retry, with the new tip, so callers that derive
    content from the tree (views, merges) stay correct under concurrency. `message` may
    be a function, called after `build`: a message that says what that attempt kept. Only a lost
    race is retried (the compare-and-swap found another tip, or another writer holds
    the ref lock); any other error (a corrupt object, a full disk) surfaces at once.
    """
    warnings: list[str] = []
    for attempt in range(1, max_attempts + 1):
        with _writer_lock(repo) as ours:
            try:
                result = _attempt(repo, build, message, attempt, when, env)
            except (pygit2.GitError, OSError) as exc:
                # Not a lost race (those come back as False): a corrupt object, a full
                # disk, a permission. Retrying cannot help; say what git said.
                raise RepoError(f"could not write {BRANCH}: {exc}",
                                hint=refusal_hint(str(exc)) or f"git fsck --no-dangling {BRANCH}; then retry the command") from exc
            if result is False and ours and _clear_stale_ref_lock(repo, warnings):
                continue  # a dead writer's leftover, gone now: try again at once
        if result is not False:
            return result._replace(warnings=tuple(warnings)) if result is not None and warnings else result
        import random  # only after a lost race: not on every commit's import path

        time.sleep(random.uniform(0.001, 0.004) * min(attempt, 10))
    lock = _ref_lock_path(repo)
    if lock.exists():
        raise ConcurrencyError(
            f"{lock} is held by another program, so {BRANCH} cannot move (gave up after {max_attempts} attempts)",
            hint=f"if no git command is running in this repository, remove it: rm {lock}",
        )
    raise ConcurrencyError(
        f"{REF} kept moving; gave up after {max_attempts} attempts",
        hint="retry the command; if it persists, look for a runaway writer",
    )


STALE_REF_LOCK = 10.0  # seconds: git holds a ref lock for milliseconds; older means its holder died


def _ref_lock_path(repo: pygit2.Repository) -> Path:
    return common_dir(repo) / f"{REF}.lock"


def _clear_stale_ref_lock(repo: pygit2.Repository, warnings: list[str]) -> bool:
    """Remove `refs/heads/claude-memory.lock` when a killed writer left it behind.

    Called only while we hold enf's own writer lock, so no enf writer is mid-update;
    a lock file older than STALE_REF_LOCK is then no live git command's either.
    """
    lock = _ref_lock_path(repo)
    try:
        age = time.time() - lock.stat().st_mtime
    except OSError:
        return False
    if age < STALE_REF_LOCK:
        return False
    try:
        lock.unlink()
    except OSError:
        return False
    warnings.append(f"removed {lock}, left {int(age)} s ago by a writer that did not finish")
    return True


def _attempt(
    repo: pygit2.Repository, build: ChangeBuilder, told: str | Callable[[], str], attempt: int, when: int | None,
    env: Mapping[str, str] | None,
) -> CommitResult | None | Literal[False]:
    """One try. Returns the result, None (nothing to commit) or False (lost the race)."""
    ref = repo.references.get(REF)
    parent = repo.get(ref.target) if ref is not None else None
    if parent is not None and not isinstance(parent, pygit2.Commit):
        raise RepoError(f"{REF} points at a {parent.type_str}, not a commit",
                        hint=f"find its last commit with: git reflog {BRANCH}")
    base_tree = parent.tree if parent is not None else None
    changes = build(parent)
    message = told if isinstance(told, str) else told()
    blobs: dict[str, str | None] = {}
    new_tree = write_tree(repo, base_tree, changes, blobs)
    if base_tree is not None and new_tree == base_tree.id:
        return None
    if parent is None and not changes:
        return None
    author, committer = _signatures(repo, when, env)
    parents: list[pygit2.Oid] = [parent.id] if parent is not None else []
    oid = create_commit(repo, author, committer, message, new_tree, parents)
    reflog = f"enf: {message.splitlines()[0] if message else 'commit'}"
    try:
        if ref is None:
            repo.create_reference_direct(REF, oid, False, message=reflog)
        else:
            ref.set_target(oid, reflog)
    except (pygit2.GitError, OSError) as exc:
        if _is_race(exc):
            return False
        raise
    return CommitResult(str(oid), str(parent.id) if parent else None, attempt, tuple(sorted(changes)), blobs)


def _is_race(exc: Exception) -> bool:
    """A lost compare-and-swap, or the ref lock held by another writer: retry.

    The three shapes libgit2 gives them: AlreadyExistsError (the first commit found a
    branch), "old reference value does not match" (set_target found another tip), an
    OSError "failed to lock file '…claude-memory.lock'" (a writer is mid-update).
    """
    if isinstance(exc, pygit2.AlreadyExistsError):
        return True
    text = str(exc)
    if "old reference value does not match" in text:
        return True
    return isinstance(exc, OSError) and "failed to lock file" in text and f"{BRANCH}.lock" in text


def write_tree(repo: pygit2.Repository, base: pygit2.Tree | None, changes: Changes,
               blobs: dict[str, str | None] | None = None) -> pygit2.Oid:
    """A tree: `base` with `changes` applied, reusing every untouched subtree by OID.

    `blobs`, when given, receives path -> hex OID of each blob written (None: deleted).
    """
    nested: _Nested = {}
    stored: dict[str, bytes | pygit2.Oid | None] = {}
    for path, data in changes.items():
        if logical_path(path) != path:
            raise ValueError(f"refusing {path}: that is where the branch keeps {logical_path(path)}")
        where = stored_path(path)
        if where != path:
            stored[path] = None  # its flat copy goes: an older layout, or an older enf-git's write
            stored.update(_displaced(repo, base, path, where))
        stored[where] = data
    for name, moved in _flat_sessions(repo, base):  # a branch from before the month folders: move them
        path = _SESSIONS_PREFIX + name
        if path not in changes:
            stored[path] = None
            stored.update(_displaced(repo, base, path, stored_path(path)))
            stored[stored_path(path)] = moved
    written: dict[str, str | None] = {}
    for path, value in stored.items():
        parts = _split(path)
        node = nested
        for part in parts[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                # A path is both a file and a folder: bad input, and callers catch ValueError.
                raise ValueError(f"path conflict at {path}")  # noqa: TRY004
            node = child
        node[parts[-1]] = value
    # Strict object creation makes libgit2 look up every entry of a tree it writes:
    # ~15 ms for a 10,000-entry folder, to confirm objects that this very function
    # just read from the tree or created. Off while we build; on again for the rest.
    pygit2.option(pygit2.enums.Option.ENABLE_STRICT_OBJECT_CREATION, False)
    try:
        oid = _write_level(repo, base, nested, "", written)
    finally:
        pygit2.option(pygit2.enums.Option.ENABLE_STRICT_OBJECT_CREATION, True)
    if blobs is not None:
        for path in changes:  # reported under the working copy's names
            blobs[path] = written.get(stored_path(path))
    return oid if oid is not None else repo.TreeBuilder().write()


def _displaced(repo: pygit2.Repository, base: pygit2.Tree | None, flat: str,
               monthly: str) -> dict[str, bytes | pygit2.Oid | None]:
    """When `base` holds a session both flat and in its month folder with different blobs
    (an older enf-git's merge kept its edit flat next to a newer one's), the flat copy wins
    and the month folder's copy is kept at conflicts/<path>.<flat8>-<month8>, the name a
    merge conflict copy has, so status, doctor and SessionStart report it."""
    if base is None:
        return {}
    try:
        kept, other = base[flat].id, base[monthly].id
    except KeyError:
        return {}
    if kept == other:
        return {}
    return {f"{paths.CONFLICTS}{flat}.{str(kept)[:8]}-{str(other)[:8]}": other}


def has_flat_sessions(repo: pygit2.Repository, tree: pygit2.Tree | None) -> bool:
    """Whether `tree` keeps dated sessions flat under sessions/ (a branch from before the
    month folders, or an older enf-git's write since): the next tree written moves them."""
    return bool(_flat_sessions(repo, tree))


def _flat_sessions(repo: pygit2.Repository, base: pygit2.Tree | None) -> list[tuple[str, pygit2.Oid]]:
    """The dated session files directly under sessions/ in `base` (a flat branch): cheap
    when the branch is already by month (sessions/ then holds a few year folders)."""
    if base is None:
        return []
    try:
        sub = repo[base[paths.SESSIONS_DIR].id]
    except KeyError:
        return []
    if not isinstance(sub, pygit2.Tree):
        return []
    return [(e.name, e.id) for e in sub
            if e.name is not None and e.type_str == "blob" and _month_folder(e.name) and e.name.endswith(".md")]


def _write_level(repo: pygit2.Repository, base: pygit2.Tree | None, nested: _Nested, prefix: str,
                 blobs: dict[str, str | None]) -> pygit2.Oid | None:
    builder = repo.TreeBuilder(base) if base is not None else repo.TreeBuilder()
    for name, value in nested.items():
        existing = builder.get(name)
        if isinstance(value, dict):
            sub = _subtree(repo, existing.id) if existing is not None and existing.type_str == "tree" else None
            oid = _write_level(repo, sub, value, f"{prefix}{name}/", blobs)
            _set(builder, name, oid, pygit2.GIT_FILEMODE_TREE)
        elif value is None:
            _set(builder, name, None, 0)
            blobs[prefix + name] = None
        elif isinstance(value, pygit2.Oid):  # an existing blob moved (the month folders)
            _set(builder, name, value, pygit2.GIT_FILEMODE_BLOB)
            blobs[prefix + name] = str(value)
        else:
            blob = repo.create_blob(value)
            _set(builder, name, blob, pygit2.GIT_FILEMODE_BLOB)
            blobs[prefix + name] = str(blob)
    if len(builder) == 0:
        return None
    return builder.write()


def _set(builder: pygit2.TreeBuilder, name: str, oid: pygit2.Oid | None, mode: int) -> None:
    if oid is None:
        if builder.get(name) is not None:
            builder.remove(name)
        return
    builder.insert(name, oid, mode)


def _split(path: str) -> list[str]:
    parts = path.split("/")
    if not path or any(p in ("", ".", "..", ".git") for p in parts):
        raise ValueError(f"refusing unsafe path {path!r}")
    return parts


@contextmanager
def _writer_lock(repo: pygit2.Repository, wait: float = 10.0) -> Iterator[bool]:
    """Advisory lock so local writers queue instead of racing; best effort by design
    (a stuck holder must not wedge us: after `wait` the CAS alone protects the ref).
    Yields whether it was taken."""
    with file_lock(state_dir(repo) / paths.WRITE_LOCK, wait) as taken:
        yield taken

def create_branch(repo: pygit2.Repository, oid: str, message: str) -> bool:
    """Point the memory branch at `oid` if it does not exist yet (compare-and-swap
    against "absent"); False when another process created it first, which is fine."""
    try:
        repo.create_reference_direct(REF, oid, False, message=message)
    except pygit2.AlreadyExistsError:
        return False
    except (pygit2.GitError, OSError) as exc:
        if _is_race(exc):
            return False
        raise
    return True
