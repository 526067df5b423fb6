"""pygit2 plumbing for the memory branch: open the repository, read trees, and
commit path changes onto `refs/heads/claude-memory`.

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

import os
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Literal, NamedTuple

import pygit2

from ..errors import ConcurrencyError, NotFound, RepoError

BRANCH = "claude-memory"
REF = f"refs/heads/{BRANCH}"
FALLBACK_NAME = "enf-git"
FALLBACK_EMAIL = "enf-git@localhost"
TREE_CACHE_LIMIT = 64 << 20  # bytes: a 100,000-session folder's tree is ~6 MB

# A change set: path -> new bytes, or None to delete the path.
Changes = Mapping[str, "bytes | None"]
# Called once per attempt with the tip commit (None before the first commit).
ChangeBuilder = Callable[["pygit2.Commit | None"], Changes]
# A change set as a folder tree: name -> subfolder, new bytes, or None (delete).
_Nested = dict[str, "_Nested | bytes | None"]


class CommitResult(NamedTuple):  # not a dataclass: ~1 ms less on every commit's import
    oid: str
    parent: str | None
    attempts: int
    paths: tuple[str, ...]
    # path -> hex OID of the blob this commit put there (None: deleted), so callers
    # need not look paths up again in a large tree (~1 ms each at 10,000 entries).
    blobs: Mapping[str, str | None] = {}


def open_repo(start: str | os.PathLike[str] = ".") -> pygit2.Repository:
    """Open the repository containing `start` the way git would, or explain why not."""
    path = pygit2.discover_repository(str(start))
    if path is None:
        raise RepoError(
            f"not a git repository: {os.path.abspath(start)}",
            hint="cd into your project, or run: git init",
        )
    _refuse_sha256(Path(path))
    # libgit2 caches parsed trees only up to 4 KB by default, so every lookup by path
    # under sessions/ re-parsed the whole folder's tree (~6 ms at 10,000 sessions).
    pygit2.settings.cache_object_limit(pygit2.enums.ObjectType.TREE, TREE_CACHE_LIMIT)
    try:
        return pygit2.Repository(path)
    except pygit2.GitError as exc:
        text = str(exc)
        if "not owned by current user" in text or "owner" in text:
            top = Path(path).parent if Path(path).name == ".git" else Path(path)
            raise RepoError(
                f"git refuses to open {top}: it is owned by another user",
                hint=f"if you trust it: git config --global --add safe.directory {top}",
            ) from exc
        raise RepoError(f"cannot open the repository at {path}: {text}") from exc


def _refuse_sha256(git_dir: Path) -> None:
    # pygit2 wheels are built without SHA-256 support and fail with an obscure
    # error, so read the format from the config before libgit2 does.
    config = common_dir_of(git_dir) / "config"
    try:
        text = config.read_text(encoding="utf-8", errors="replace").lower()
    except OSError:
        return
    if "objectformat" in text and "sha256" in text.replace(" ", ""):
        raise RepoError(
            "this repository uses SHA-256 object names, which enf-git (pygit2) cannot read",
            hint="use enf-git in a SHA-1 repository (the git default)",
        )


def common_dir_of(git_dir: Path) -> Path:
    """The common dir of a (possibly linked-worktree) git dir: where refs live."""
    pointer = git_dir / "commondir"
    if pointer.is_file():
        target = pointer.read_text(encoding="utf-8").strip()
        return (git_dir / target).resolve()
    return git_dir.resolve()


def common_dir(repo: pygit2.Repository) -> Path:
    return common_dir_of(Path(repo.path))


def state_dir(repo: pygit2.Repository) -> Path:
    """Per-machine state shared by all worktrees (`.git/enf`), created on demand."""
    path = common_dir(repo) / "enf"
    path.mkdir(parents=True, exist_ok=True)
    return path


def worktree_state_dir(repo: pygit2.Repository) -> Path:
    """Per-worktree state (the working copy's manifest) in this worktree's git dir."""
    path = Path(repo.path) / "enf"
    path.mkdir(parents=True, exist_ok=True)
    return path


def tip(repo: pygit2.Repository) -> pygit2.Commit | None:
    ref = repo.references.get(REF)
    if ref is None:
        return None
    obj = repo.get(ref.target)
    return obj if isinstance(obj, pygit2.Commit) else None


def resolve(repo: pygit2.Repository, rev: str) -> pygit2.Commit:
    """A revision expression (`claude-memory~3`, an OID, a tag) as a commit."""
    try:
        obj = repo.revparse_single(rev)
        commit = obj.peel(pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError) as exc:
        raise NotFound(f"no such revision: {rev}", hint=f"git log {BRANCH} --oneline") from exc
    return commit


def blob_data(repo: pygit2.Repository, oid: str | pygit2.Oid) -> bytes:
    """The content of the blob `oid`; KeyError if there is no such object, TypeError if it is no blob."""
    obj = repo[oid]
    if not isinstance(obj, pygit2.Blob):
        raise TypeError(f"{oid} is a {obj.type_str}, not a blob")
    return obj.data


def _subtree(repo: pygit2.Repository, oid: pygit2.Oid) -> pygit2.Tree:
    """The tree `oid` (a tree entry whose type_str is "tree")."""
    obj = repo[oid]
    if not isinstance(obj, pygit2.Tree):
        raise TypeError(f"{oid} is a {obj.type_str}, not a tree")
    return obj


def list_files(repo: pygit2.Repository, tree: pygit2.Tree | None, prefix: str = "") -> dict[str, str]:
    """Every blob under `tree` as path -> hex OID."""
    out: dict[str, str] = {}
    if tree is None:
        return out
    for entry in tree:
        path = f"{prefix}{entry.name}"
        if entry.type_str == "tree":
            out.update(list_files(repo, _subtree(repo, entry.id), f"{path}/"))
        elif entry.type_str == "blob":
            out[path] = str(entry.id)
    return out


def read_path(repo: pygit2.Repository, tree: pygit2.Tree | None, path: str) -> bytes | None:
    if tree is None:
        return None
    try:
        entry = tree[path]
    except KeyError:
        return None
    obj = repo[entry.id]
    return obj.data if isinstance(obj, pygit2.Blob) else None


def blob_oid(repo: pygit2.Repository, tree: pygit2.Tree | None, path: str) -> str | None:
    if tree is None:
        return None
    try:
        return str(tree[path].id)
    except KeyError:
        return None


def hash_bytes(data: bytes) -> str:
    """The blob OID git would give `data`, without writing it."""
    return str(pygit2.hash(data))


def signature(repo: pygit2.Repository, when: int | None = None) -> pygit2.Signature:
    """Author from git config (user.name/user.email), else a fixed fallback."""
    try:
        sig = repo.default_signature
        name, email = sig.name, sig.email
    except (KeyError, pygit2.GitError):
        name, email = FALLBACK_NAME, FALLBACK_EMAIL
    if when is None:
        return pygit2.Signature(name, email)
    return pygit2.Signature(name, email, when, 0)


def checked_out_in(repo: pygit2.Repository) -> list[str]:
    """Git dirs whose HEAD is the memory branch (someone ran `git checkout claude-memory`)."""
    common = common_dir(repo)
    candidates = [common] + sorted((common / "worktrees").glob("*"))
    hits = []
    for git_dir in candidates:
        try:
            head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
        except OSError:
            continue
        if head == f"ref: {REF}":
            hits.append(str(git_dir))
    return hits


def commit(
    repo: pygit2.Repository,
    build: ChangeBuilder,
    message: str,
    *,
    max_attempts: int = 200,
    when: int | None = None,
) -> CommitResult | None:
    """Commit what `build(tip)` returns on top of the current tip; None if nothing changed.

    `build` is called again on every retry, with the new tip, so callers that derive
    content from the tree (views, merges) stay correct under concurrency.
    """
    for attempt in range(1, max_attempts + 1):
        with _writer_lock(repo):
            result = _attempt(repo, build, message, attempt, when)
        if result is not False:
            return result
        import random  # only after a lost race: not on every commit's import path

        time.sleep(random.uniform(0.001, 0.004) * min(attempt, 10))
    raise ConcurrencyError(
        f"{REF} kept moving; gave up after {max_attempts} attempts",
        hint="retry the command; if it persists, look for a runaway writer",
    )


def _attempt(
    repo: pygit2.Repository, build: ChangeBuilder, message: str, attempt: int, when: int | None
) -> CommitResult | None | Literal[False]:
    """One try. Returns the result, None (nothing to commit) or False (lost the race)."""
    ref = repo.references.get(REF)
    parent = repo.get(ref.target) if ref is not None else None
    if parent is not None and not isinstance(parent, pygit2.Commit):
        raise RepoError(f"{REF} points at a {parent.type_str}, not a commit",
                        hint=f"find its last commit with: git reflog {BRANCH}")
    base_tree = parent.tree if parent is not None else None
    try:
        changes = build(parent)
        blobs: dict[str, str | None] = {}
        new_tree = write_tree(repo, base_tree, changes, blobs)
        if base_tree is not None and new_tree == base_tree.id:
            return None
        if parent is None and not changes:
            return None
        sig = signature(repo, when)
        parents: list[pygit2.Oid] = [parent.id] if parent is not None else []
        oid = repo.create_commit(None, sig, sig, message, new_tree, parents)
        reflog = f"enf: {message.splitlines()[0] if message else 'commit'}"
        if ref is None:
            repo.create_reference_direct(REF, oid, False, message=reflog)
        else:
            ref.set_target(oid, reflog)
    except (pygit2.GitError, pygit2.AlreadyExistsError, OSError, ValueError) as exc:
        if _is_race(exc, attempt):
            return False
        raise
    return CommitResult(str(oid), str(parent.id) if parent else None, attempt, tuple(sorted(changes)), blobs)


def _is_race(exc: Exception, attempt: int) -> bool:
    """Lost CAS, ref lock held by another writer, or an object dir removed by gc."""
    text = str(exc).lower()
    markers = ("old reference value", "already exists", "lock", "exists", "no such file", "failed to")
    return any(m in text for m in markers) or isinstance(exc, OSError)


def write_tree(repo: pygit2.Repository, base: pygit2.Tree | None, changes: Changes,
               blobs: dict[str, str | None] | None = None) -> pygit2.Oid:
    """A tree: `base` with `changes` applied, reusing every untouched subtree by OID.

    `blobs`, when given, receives path -> hex OID of each blob written (None: deleted).
    """
    nested: _Nested = {}
    for path, data in changes.items():
        parts = _split(path)
        node = nested
        for part in parts[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                # A path is both a file and a folder: bad input, and callers catch ValueError.
                raise ValueError(f"path conflict at {path}")  # noqa: TRY004
            node = child
        node[parts[-1]] = data
    # Strict object creation makes libgit2 look up every entry of a tree it writes:
    # ~15 ms for a 10,000-entry folder, to confirm objects that this very function
    # just read from the tree or created. Off while we build; on again for the rest.
    pygit2.option(pygit2.enums.Option.ENABLE_STRICT_OBJECT_CREATION, False)
    try:
        oid = _write_level(repo, base, nested, "", blobs if blobs is not None else {})
        return oid if oid is not None else repo.TreeBuilder().write()
    finally:
        pygit2.option(pygit2.enums.Option.ENABLE_STRICT_OBJECT_CREATION, True)


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
def _writer_lock(repo: pygit2.Repository, wait: float = 10.0) -> Iterator[None]:
    """Advisory lock so local writers queue instead of racing; best effort by design
    (a stuck holder must not wedge us: after `wait` the CAS alone protects the ref)."""
    with file_lock(state_dir(repo) / "write.lock", wait):
        yield


@contextmanager
def file_lock(path: Path, wait: float) -> Iterator[bool]:
    """An exclusive flock on `path`, waiting at most `wait` seconds; yields whether it
    was taken (False: the holder seems stuck, go on without it or skip the work).

    Not re-entrant: flock locks belong to the open file, so taking it again in the
    same process waits for itself. Without fcntl (Windows) it yields True at once.
    """
    try:
        import fcntl
    except ImportError:
        yield True
        return
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                taken = True
                break
            except OSError:
                if time.monotonic() > deadline:
                    taken = False
                    break
                time.sleep(0.002)
        yield taken
    finally:
        os.close(fd)  # closing releases the flock
