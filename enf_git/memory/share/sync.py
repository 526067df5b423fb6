"""`git enf sync`: share memory with its remote (fetch, merge, push), never forcing.

One round: commit the working copy; fetch the remote's `claude-memory` into its
remote-tracking ref (plumbing/gitcli, the `git` binary, so the user's ssh config and
credential helpers apply); merge it into the local branch (memory/sync_merge, pure
apart from reading blobs); push the local branch as a fast-forward of what was
fetched, refreshing the working copy meanwhile (git transfers, this process writes
files: the refresh no longer waits before the push). A push rejected because the remote moved meanwhile
starts another round, a bounded number of times with a growing pause. Every other
failure (no rights, offline, no such remote) ends the sync with gitcli's message;
memory always stays committed locally, and goes with the next sync.

The console script's plain `git enf sync` first asks memory/share/sync_light whether git
alone can make the sync (the working copy committed, and only this side moved, or
neither); when it cannot, the sync is made here, with the fetch it already waited for.

The branch is created on the remote only when the remote certainly lacks it, and only
when the remote already has some of the code's branches (memory must not become the
default branch of an empty repository); a remote dedicated to memory (a URL, or
`git config enf.memoryOnly true`) is exempt.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

from ... import paths
from ...errors import EnfError
from ...plumbing import gitcli, gitenv, store
from ...pure.model import stable_id
from . import sync_merge
from ..record.commits import commit, pending
from ..report import Report
from .sync_light import Synced as Synced  # re-exported: the edges name it here
from ..record.working_set import materialize
from ..workspace import REMOTE_KEY, Context

MAX_ROUNDS = 5  # fetch-merge-push rounds when the remote keeps moving under us
MEMORY_ONLY_KEY = "enf.memoryOnly"


def sync(ctx: Context, remote_arg: str | None = None, *, dry_run: bool = False, now: int | None = None,
         progress: IO[str] | None = None, in_hook: bool = False, allow_secrets: bool = False) -> Synced:
    """Fetch, merge and push memory with `remote_arg` or the configured enf.remote."""
    configured = remote_arg or ctx.settings.remote
    if not configured:
        raise EnfError("memory is not shared with any remote yet",
                       hint=f"git config {REMOTE_KEY} origin  (or name one: git enf sync REMOTE)")
    top = str(ctx.top)
    early = None if dry_run or remote_arg else gitcli.claim_early(top, configured)  # started by entry.py
    env = early.env if early else gitenv.prepare(top)  # the config every git call needs, read once
    remote = early.remote if early else gitcli.resolve_remote(top, configured, env)
    out = Synced(remote.label)
    if dry_run:
        out.plan = gitcli.plan(top, remote, env)
        found = pending(ctx)
        out.would_commit = sorted({*found.changes, *found.views})
        return out
    fetched: gitcli.FetchResult | None = _fetch_while_committing(ctx, remote, env, out, now, progress, early)
    for out.rounds in range(1, MAX_ROUNDS + 1):
        if not _round(ctx, remote, env, out, now, progress, in_hook, allow_secrets, fetched):
            return out
        fetched = None
        import random  # only a sync the remote raced needs it

        time.sleep(random.uniform(0.2, 0.5) * out.rounds)  # the remote moved: let it settle, then again
    said = f" (the last refusal: {out.pushed.summary})" if out.pushed and out.pushed.summary else ""
    return out.fail(f"{remote.label} kept moving while memory was pushed ({MAX_ROUNDS} rounds){said}: "
                    "memory stays committed here; run git enf sync again")


def _fetch_while_committing(ctx: Context, remote: gitcli.Remote, env: gitenv.GitEnv, out: Synced,
                            now: int | None, progress: IO[str] | None,
                            early: gitcli.Fetching | None = None) -> gitcli.FetchResult:
    """The first fetch, with the working copy's commit running meanwhile in a thread.

    They move different refs (the remote-tracking one, the local branch), and while git
    transfers this process only waits, so the commit's ~50 ms no longer add to the
    fetch's. The fetch keeps the main thread, so Ctrl-C still kills git; the commit is
    short and lands or not as a whole (compare-and-swap), so it is always waited for.
    `early`: the same fetch, started before this process imported pygit2 (entry.py).
    """
    done: list[Report] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            done.append(commit(ctx, None, now))  # the subject names what changed, as git enf commit's
        except BaseException as exc:  # re-raised below, in the caller's thread
            failed.append(exc)

    worker = threading.Thread(target=run, name="enf-sync-commit")
    worker.start()
    try:
        fetched = early.result() if early else gitcli.fetch(str(ctx.top), remote, env=env, progress=progress)
    finally:
        worker.join()
    if failed:
        raise failed[0]
    out.local = done[0]
    return fetched


def _round(ctx: Context, remote: gitcli.Remote, env: gitenv.GitEnv, out: Synced, now: int | None,
           progress: IO[str] | None, in_hook: bool, allow_secrets: bool = False,
           fetched: gitcli.FetchResult | None = None) -> bool:
    """One fetch-merge-push (`fetched`: that fetch, already made); False when the sync is
    over (done or failed), True to go again."""
    top = str(ctx.top)
    fetched = out.fetched = fetched or gitcli.fetch(top, remote, env=env, progress=progress)
    if not fetched.ok:
        out.fail(fetched.message)
        return False
    absent = fetched.outcome is gitcli.Outcome.ABSENT
    refresh = _Later(_merge(ctx, fetched.after, out, now) if not absent and fetched.after else None)
    try:
        return _push_round(ctx, remote, env, out, progress, in_hook, allow_secrets, fetched, refresh)
    finally:
        refresh.finish()


def _push_round(ctx: Context, remote: gitcli.Remote, env: gitenv.GitEnv, out: Synced, progress: IO[str] | None,
                in_hook: bool, allow_secrets: bool, fetched: gitcli.FetchResult, refresh: _Later) -> bool:
    """The push half of `_round`, once the fetched branch is merged; the working copy's
    `refresh` runs while git pushes (this process only waits for git then)."""
    top = str(ctx.top)
    absent = fetched.outcome is gitcli.Outcome.ABSENT
    if absent and not _may_create(ctx, remote, env, out):
        return False
    tip = store.tip(ctx.repo)
    if tip is None or (not absent and str(tip.id) == fetched.after):
        out.pushed = None
        out.messages.append(f"{remote.label} has all of memory")
        return False
    if not allow_secrets and not _scanned(ctx, remote, out):
        return False
    expect = "" if absent else fetched.after
    pushed = out.pushed = gitcli.push(top, remote, str(tip.id), expect=expect, no_verify=in_hook, env=env,
                                      progress=progress, meanwhile=refresh.start)
    if pushed.ok:
        out.messages.append(pushed.message)
        _scan_marker(ctx, remote).touch()
        return False
    if pushed.outcome is gitcli.Outcome.NON_FAST_FORWARD:
        return True
    out.fail(pushed.message)
    return False


def _scan_marker(ctx: Context, remote: gitcli.Remote) -> Path:
    """Where this machine notes that memory went to `remote` once (the scan ran then)."""
    folder = store.state_dir(ctx.repo) / paths.SCANNED_DIR
    folder.mkdir(exist_ok=True)
    return folder / stable_id("r", remote.label)


def _scanned(ctx: Context, remote: gitcli.Remote, out: Synced) -> bool:
    """Before memory first goes to a remote: nothing secret-shaped anywhere in its history."""
    if _scan_marker(ctx, remote).exists():
        return True
    from ..record.scan import scan

    findings = scan(ctx)
    if not findings:
        return True
    shown = "; ".join(f"{f.path} in {f.commit[:12]} ({f.spans} span{'s' if f.spans != 1 else ''})"
                      for f in findings[:5])
    more = f" and {len(findings) - 5} more" if len(findings) > 5 else ""
    out.fail(f"memory was not pushed to {remote.label}: its history holds what looks like secrets: {shown}{more}. "
             "Review them with git enf scan; when they are not secrets, run git enf sync --allow; when they "
             "are, rotate them and remove them from the history first (docs/sharing.md: Secrets)")
    return False


class _Later:
    """A job (the working copy's refresh) run in a thread from `start()` on, or in the
    caller's thread at `finish()` if it never started; `finish()` waits for it and raises
    what it raised. The caller always finishes it: the job holds the working-copy lock,
    and another round merges again."""

    def __init__(self, job: Callable[[], object] | None) -> None:
        self.job = job
        self.failed: list[BaseException] = []
        self.worker: threading.Thread | None = None

    def start(self) -> None:
        if self.job is not None and self.worker is None:
            self.worker = threading.Thread(target=self._run, name="enf-sync-refresh")
            self.worker.start()

    def finish(self) -> None:
        if self.job is None:
            return
        if self.worker is None:
            self.job()
        else:
            self.worker.join()
        self.job = None
        if self.failed:
            raise self.failed[0]

    def _run(self) -> None:
        try:
            if self.job is not None:
                self.job()
        except BaseException as exc:  # re-raised by finish(), in the caller's thread
            self.failed.append(exc)


def _merge(ctx: Context, theirs_oid: str, out: Synced, now: int | None) -> Callable[[], object] | None:
    """Merge the fetched `theirs_oid` into the branch; returns the working copy's refresh
    to run next (None: nothing moved), for the caller to overlap with the push: the
    refresh only writes the working copy, the push only reads the branch's objects."""
    theirs = store.commit_at(ctx.repo, theirs_oid)
    if theirs is None:
        raise EnfError(f"the fetched {paths.BRANCH} ({theirs_oid[:12]}) is not in this repository",
                       hint="git enf sync again; if it persists: git fsck")
    # The manifest is read without the lock: it only lets ours' views be read from files
    # whose stat or hash proves them the branch's (anything else: the object store).
    merged = sync_merge.merge_tips(ctx.repo, store.tip(ctx.repo), theirs, ctx.cache(), now,
                                   synced=(ctx.root, ctx.manifest()), env=ctx.ident)
    out.merges.append(merged)
    if merged.outcome == "up-to-date":
        return None
    return lambda: _refresh(ctx, merged)


def _refresh(ctx: Context, merged: sync_merge.MergeResult) -> None:
    """The working copy brought to the branch after a merge or a fast-forward."""
    with ctx.lock():
        manifest = ctx.manifest()
        made = merged.commit
        if made is None or made.parent != manifest.base:
            materialize(ctx, manifest=manifest)  # a fast-forward, or the working copy was behind: diff the trees
            return
        # The merge commit sits on what the working copy holds: its own change set is the
        # delta, and its bytes are at hand (no tree diff, no blob read back).
        materialize(ctx, store.commit_at(ctx.repo, made.oid), manifest=manifest, known=merged.known, changed=made.blobs)


def _may_create(ctx: Context, remote: gitcli.Remote, env: gitenv.GitEnv, out: Synced) -> bool:
    """The remote lacks claude-memory: create it there only next to the code."""
    if remote.is_url or (store.config_value(ctx.repo, MEMORY_ONLY_KEY) or "").strip().lower() == "true":
        return True
    code = gitcli.remote_has_code_branches(str(ctx.top), remote, env)
    if code.state is gitcli.State.PRESENT:
        return True
    if code.state is gitcli.State.ABSENT:
        out.waiting = (f"{remote.label} has none of the code's branches yet, so memory was not pushed there "
                       "(it would become the default branch): it goes with the next push or sync once the "
                       "code is there")
        out.messages.append(out.waiting)
        return False
    out.fail(code.message or f"could not tell whether {remote.label} has the code's branches; memory was not pushed")
    return False
