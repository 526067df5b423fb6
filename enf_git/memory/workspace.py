"""One repository + worktree, opened once by an edge, with its settings read once.

Every operation in memory/ takes a Context: the repository, the working copy
folder, where this worktree's manifest and the shared records cache live, and the
`enf.*` settings. Nothing below the edges reads git config or the environment.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from contextlib import AbstractContextManager
from pathlib import Path

from .. import paths
from ..errors import NotInitialized, RepoError
from ..plumbing import ident, locks, store
from ..plumbing.workcopy import Manifest
from . import records

WORKTREE_LOCK_WAIT = 30.0  # seconds; a commit that renders every view at 10,000 sessions takes ~1-6 s
WORKING_SET_KEY = "enf.workingSet"
WORKING_SET_DEFAULT = 500
AUTOINIT_KEY = "enf.autoinit"
REMOTE_KEY = "enf.remote"  # the one remote memory is pushed to: a remote's name or a URL
_FALSE = ("false", "no", "off", "0")


# Plain classes, not dataclasses, on the commit's import path: creating a dataclass
# costs ~1 ms at import, and every `git enf commit` (each Stop hook) pays it.
class Settings:
    """The `enf.*` configuration, as read once when the workspace is opened."""

    __slots__ = ("autoinit", "remote", "working_set")

    def __init__(self, working_set: int | None = WORKING_SET_DEFAULT, autoinit: bool = True,
                 remote: str | None = None) -> None:
        # How many of the newest sessions the working copy holds (None: all). Older
        # ones stay on the branch, where `git enf show` and `recall` read them: every
        # commit checks each working-copy file for edits, and at 10,000 files that
        # check alone costs more than the rest of a commit.
        self.working_set = working_set
        self.autoinit = autoinit  # SessionStart may set up a repository that lacks the branch
        self.remote = remote  # enf.remote: where memory is shared (None: not shared)

    @classmethod
    def read(cls, repo: store.Repo) -> Settings:
        remote = (store.config_value(repo, REMOTE_KEY) or "").strip() or None
        return cls(_working_set(store.config_value(repo, WORKING_SET_KEY)),
                   (store.config_value(repo, AUTOINIT_KEY) or "true").strip().lower() not in _FALSE, remote)


def _working_set(raw: str | None) -> int | None:
    """`git config enf.workingSet N` (default 500), or `all` (or 0)."""
    if raw is None:
        return WORKING_SET_DEFAULT
    raw = raw.strip().lower()
    if raw in ("all", "0"):
        return None
    return int(raw) if raw.isdigit() else WORKING_SET_DEFAULT


class Context:
    """Where everything is for one repository + worktree."""

    __slots__ = ("_cache", "cache_path", "ident", "manifest_path", "repo", "root", "settings")

    def __init__(self, repo: store.Repo, root: Path, manifest_path: Path, cache_path: Path,
                 settings: Settings | None = None, ident_env: Mapping[str, str] | None = None) -> None:
        self.repo = repo
        # git's identity variables (GIT_AUTHOR_NAME, GIT_COMMITTER_DATE, EMAIL, ...) of the
        # edge's environment: every memory commit is signed as git would sign it under them.
        self.ident: Mapping[str, str] = ident_env or {}
        self.root = root  # the working copy folder
        self.manifest_path = manifest_path
        self.cache_path = cache_path
        self.settings = settings if settings is not None else Settings.read(repo)
        self._cache: records.Cache | None = None

    def __repr__(self) -> str:
        return f"Context(root={str(self.root)!r})"

    @classmethod
    def open(cls, start: str | Path = ".", environ: Mapping[str, str] | None = None) -> Context:
        """The workspace at `start`; `environ` is the edge's environment (default: this
        process's), read here once for git's identity variables."""
        repo = store.open_repo(start)
        if repo.workdir is None:
            raise RepoError("this is a bare repository: the working copy needs a work tree",
                            hint="run git enf in a clone or worktree that has files checked out")
        top = Path(repo.workdir)
        return cls(repo, top / paths.WC_DIR, store.worktree_state_dir(repo) / paths.MANIFEST,
                   store.state_dir(repo) / paths.RECORDS_CACHE,
                   ident_env=ident.from_environ(os.environ if environ is None else environ))

    @property
    def top(self) -> Path:
        """The work tree's top folder (the working copy's parent)."""
        return self.root.parent

    def cache(self) -> records.Cache:
        """The records cache, one per Context: a SessionStart that ranks sessions for
        compression and then builds the digest reads records.json (10 MB at 10,000
        sessions, ~75 ms to parse) once, not twice. Its entries are keyed by blob id, so
        one loaded earlier is never wrong, only missing what another process added since."""
        if self._cache is None:
            self._cache = records.Cache(self.cache_path)
        return self._cache

    def manifest(self) -> Manifest:
        return Manifest.load(self.manifest_path)

    def lock(self) -> AbstractContextManager[bool]:
        """This worktree's working-copy lock: one commit or materialize at a time;
        yields whether it was taken within WORKTREE_LOCK_WAIT.

        A commit loads the manifest, scans, commits and saves the manifest; a prune
        (SessionStart's init) removing files in between would make those files look
        deleted by the user, and the commit would delete them from the branch. So
        init never prunes without the lock; a commit goes on without it (a stuck
        holder must not stop memory from being saved).
        """
        return locks.file_lock(self.manifest_path.with_name(paths.WORKTREE_LOCK), WORKTREE_LOCK_WAIT)


def require_branch(ctx: Context) -> store.Commit:
    tip = store.tip(ctx.repo)
    if tip is None:
        raise NotInitialized(f"no {paths.BRANCH} branch in this repository yet", hint="git enf init")
    return tip
