"""`git enf sync` when only this side moved, or neither: git alone, no pygit2.

Importing pygit2 and the merge costs a sync ~100 ms before it can do anything, yet most
syncs merge nothing: the Stop hook committed memory already, and either the remote has
it (nothing to do) or the remote did not move (a push). So the console script's plain
`git enf sync` (entry.py) asks here first, with its fetch already running:

- the working copy holds nothing to commit: the manifest's base is the branch tip,
  every file it lists is there with the stat it noted, and nothing else is (the stdlib
  scan a commit starts with, workcopy.scan);
- the fetch brought the remote's branch, and the branch is it (nothing moved), or
  descends from it (`git merge-base --is-ancestor`): then `git push` with the lease
  of what was fetched, as memory.sync pushes.

Anything else returns None and memory.sync makes the sync, with the same fetch (its
answer is kept): a commit to make, a remote that moved (a fast-forward or a merge, in
process, with the working copy refreshed), a remote that lacks the branch, a fetch
that failed (its message is the full path's to give), a first push to a remote (the
history's secret scan), the branch checked out in a worktree (a warning to print).
A push refused because the remote moved meanwhile goes to the full path too, which
fetches again and merges. The output is the full path's, line for line.
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path
from typing import IO, TYPE_CHECKING, Protocol

from ... import paths
from ...plumbing import gitcli, gitdirs, workcopy
from ...pure.ids import stable_id

if TYPE_CHECKING:
    from ..record.merge_notes import Note
    from ..report import Report


class Merged(Protocol):
    """What a sync's merge did, as the edges print it (sync_merge.MergeResult, UpToDate)."""

    @property
    def outcome(self) -> str: ...

    @property
    def tip(self) -> str: ...

    @property
    def notes(self) -> list[Note]: ...

    def lines(self) -> list[str]: ...


class UpToDate:
    """The branch already holds what was fetched: a merge that had nothing to do."""

    outcome = "up-to-date"

    def __init__(self, tip: str) -> None:
        self.tip = tip
        self.notes: list[Note] = []

    def lines(self) -> list[str]:
        return []


class Synced:  # a plain class: see workspace.Settings
    """What a sync did, for the edges to print."""

    def __init__(self, remote: str) -> None:
        self.remote = remote  # the remote's label (a URL's credentials masked)
        self.local: Report | None = None  # the commit of the working copy first
        self.fetched: gitcli.FetchResult | None = None
        self.merges: list[Merged] = []
        self.pushed: gitcli.PushResult | None = None
        self.plan: gitcli.Plan | None = None  # --dry-run
        self.would_commit: list[str] = []  # --dry-run: the working copy's changes sync commits first
        self.rounds = 0
        self.messages: list[str] = []
        self.waiting = ""  # why memory was held back though nothing failed (the remote has no code yet)
        self.ok = True

    def fail(self, message: str) -> Synced:
        self.ok = False
        self.messages.append(message)
        return self


def sync(start: str, progress: IO[str] | None = None) -> Synced | None:
    """The sync of the work tree at `start` made with git alone, or None: memory.sync
    makes it (the early fetch is left for it to claim, unless a refused push used it up)."""
    dirs = gitdirs.find(start)
    early = gitcli.peek_early(dirs[0]) if dirs is not None else None
    if dirs is None or early is None:
        return None
    top, git_dir, common = dirs
    tip = gitdirs.read_ref(common, paths.REF)
    if tip is None or _checked_out(common) or not _clean(Path(top), Path(git_dir), tip):
        return None
    fetched = early.result()
    theirs = fetched.after
    if not fetched.ok or fetched.outcome is gitcli.Outcome.ABSENT or theirs is None:
        return None
    remote, env = early.remote, early.env
    out = Synced(remote.label)
    out.fetched, out.rounds = fetched, 1
    if theirs == tip:
        out.merges.append(UpToDate(tip))
        out.messages.append(f"{remote.label} has all of memory")
        return out
    marker = _scan_marker(common, remote)
    if not marker.exists() or gitcli.is_ancestor(top, theirs, tip, env) is not True:
        return None  # a first push (the scan), or the remote moved: the full path
    out.merges.append(UpToDate(tip))
    pushed = out.pushed = gitcli.push(top, remote, tip, expect=theirs, env=env, progress=progress)
    if pushed.ok:
        out.messages.append(pushed.message)
        return out
    if pushed.outcome is gitcli.Outcome.NON_FAST_FORWARD:
        gitcli.abandon_early()  # that fetch is stale now: the full path fetches again
        time.sleep(random.uniform(0.2, 0.5))  # as memory.sync between rounds: let the remote settle
        return None
    return out.fail(pushed.message)


def _clean(top: Path, git_dir: Path, tip: str) -> bool:
    """Whether the working copy holds nothing a commit would take, and is the tip's: what
    commits.pending finds empty, judged by stat alone (any doubt: the full path)."""
    manifest = workcopy.Manifest.load(git_dir / paths.STATE_DIR / paths.MANIFEST)
    if manifest.base != tip or not manifest.files:
        return False
    changed, present = workcopy.scan(top / paths.WC_DIR, manifest)
    # A file written moments ago has a stat the manifest does not vouch for (git's racy
    # case): its bytes decide, as in commits.pending.
    if any(not workcopy.is_local_only(path) and manifest.files.get(path) != _blob_id(data)
           for path, data in changed.items()):
        return False
    return all(path in present or workcopy.is_local_only(path) for path in manifest.files)


def _blob_id(data: bytes) -> str:
    """git's object id of a blob holding `data` (SHA-1: gitdirs reads no other refs)."""
    try:  # CPython's built-in SHA-1: hashlib would load OpenSSL first (pure/ids.py)
        from _sha1 import sha1  # type: ignore[import-not-found]
    except ImportError:  # other interpreters
        from hashlib import sha1
    return str(sha1(b"blob %d\0" % len(data) + data).hexdigest())


def _checked_out(common: str) -> bool:
    """Whether some worktree has the memory branch checked out (the commit warns of it:
    store.checked_out_in)."""
    folders = [common]
    try:
        folders += [os.path.join(common, "worktrees", name) for name in os.listdir(os.path.join(common, "worktrees"))]
    except OSError:
        pass
    for folder in folders:
        try:
            with open(os.path.join(folder, "HEAD"), encoding="utf-8") as f:
                if f.read().strip() == f"ref: {paths.REF}":
                    return True
        except OSError:
            continue
    return False


def _scan_marker(common: str, remote: gitcli.Remote) -> Path:
    """memory.sync's note that memory went to `remote` once (its history scanned then)."""
    return Path(paths.state_dir(common)) / paths.SCANNED_DIR / stable_id("r", remote.label)
