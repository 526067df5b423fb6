"""Teammates' memory that git already fetched: merge it, and fetch more in the background.

`git pull`, `git fetch` and `git enf sync` leave the remote's branch in
`refs/remotes/<remote>/claude-memory`. The git hooks (post-merge, post-checkout,
post-rewrite) and SessionStart merge that ref into `claude-memory` with no network.

SessionStart also starts a detached `git fetch` of that one ref, so the next session
(or the next git hook) finds what teammates pushed since. It never delays the session:
the process is detached, bounded by BACKGROUND_TIMEOUT, started at most once per
FETCH_INTERVAL per repository, and silent (its failures change nothing: memory
travels with the next `git push` or `git enf sync` anyway). It only fetches; a merge
happens where the user can see it (SessionStart, a git hook, `git enf sync`).

Off with `git config enf.autoFetch false`, and in CI (`CI=true`) unless `enf.ci` is set,
like the git hooks.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from pathlib import Path

from ..errors import EnfError
from ..plumbing import detached, gitcli, store
from . import sync_merge
from .workspace import Context

AUTO_FETCH_KEY = "enf.autoFetch"
CI_KEY = "enf.ci"
FETCH_INTERVAL = 60  # seconds: several sessions starting at once fetch once
BACKGROUND_TIMEOUT = 30.0  # seconds: a hung transport ends here, never in the user's way
STAMP = "fetch.stamp"  # in .git/enf/: when the last background fetch started
_FALSE = ("false", "no", "off", "0")


class BlobsUnavailable(EnfError):
    """A partial clone's missing memory blobs could not be fetched: nothing was merged."""


def merge_fetched(ctx: Context, now: int | None = None,
                  fill_missing: bool = False) -> tuple[str, sync_merge.MergeResult] | None:
    """Merge the fetched remote branch into claude-memory: (remote label, what the merge
    did), or None when memory is not shared, nothing was fetched yet, or nothing moved.

    A partial clone's plain `git fetch` leaves memory's blobs out, and a merge cannot read
    them: `fill_missing` (a git hook, after a pull) fetches them first, the one network
    call here; without it (SessionStart, offline) the merge waits for the background
    fetch to bring them. The caller refreshes the working copy when the branch moved.
    """
    configured = ctx.settings.remote
    if not configured:
        return None
    remote = gitcli.resolve_remote(str(ctx.top), configured)
    if fill_missing:
        filled = gitcli.fetch_missing(str(ctx.top), remote, [remote.tracking_ref])
        if not filled.ok:
            raise BlobsUnavailable(f"memory not merged: {filled.message}")
    theirs = store.commit_at(ctx.repo, store.ref_target(ctx.repo, remote.tracking_ref))
    ours = store.tip(ctx.repo)
    if theirs is None or ours is None or (not fill_missing and _blobs_missing(ctx, remote)):
        return None
    merged = sync_merge.merge_tips(ctx.repo, ours, theirs, ctx.cache(), now)
    return None if merged.outcome == "up-to-date" else (remote.label, merged)


def _blobs_missing(ctx: Context, remote: gitcli.Remote) -> bool:
    """Whether a partial clone lacks blobs the fetched branch needs (only there are objects listed)."""
    top = str(ctx.top)
    if not gitcli.is_partial_clone(top):
        return False
    return gitcli.missing_objects(top, [remote.tracking_ref]) != []


def wanted(ctx: Context, environ: Mapping[str, str]) -> bool:
    """Whether SessionStart should start a background fetch here (`environ`: the edge's)."""
    if not ctx.settings.remote or _off(store.config_value(ctx.repo, AUTO_FETCH_KEY)):
        return False
    in_ci = environ.get("CI", "").strip().lower() not in ("", *_FALSE)
    return not in_ci or (store.config_value(ctx.repo, CI_KEY) or "").strip().lower() == "true"


def _off(raw: str | None) -> bool:
    return raw is not None and raw.strip().lower() in _FALSE


def start_background_fetch(ctx: Context, environ: Mapping[str, str], now: float | None = None) -> bool:
    """Start the detached fetch unless one started less than FETCH_INTERVAL ago; True if started."""
    if not wanted(ctx, environ):
        return False
    stamp = store.state_dir(ctx.repo) / STAMP
    moment = time.time() if now is None else now
    try:
        if moment - stamp.stat().st_mtime < FETCH_INTERVAL:
            return False
    except OSError:
        pass  # never fetched from here: go
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.touch()
    os.utime(stamp, (moment, moment))
    detached.start("background-fetch", str(ctx.top))
    return True


def background_fetch(top: str) -> None:
    """The detached process: fetch the memory branch into its remote-tracking ref, no more."""
    ctx = Context.open(Path(top))
    if not ctx.settings.remote:
        return
    try:
        remote = gitcli.resolve_remote(str(ctx.top), ctx.settings.remote)
    except EnfError:
        return  # a misconfigured remote is reported by sync and doctor, not from here
    gitcli.fetch(str(ctx.top), remote, timeout=BACKGROUND_TIMEOUT)
