"""Teammates' memory that git already fetched: merge it, and fetch more in the background.

`git pull`, `git fetch` and `git enf sync` leave the remote's branch in
`refs/remotes/<remote>/claude-memory`. The git hooks (post-merge, post-checkout,
post-rewrite) and SessionStart merge that ref into `claude-memory` with no network,
and so does every read (`catch_up`: log, show, recall, status, each MCP call): a fetch
that runs no hook (a no-op `git pull`, `git fetch`, an editor's background fetch) is
merged by whoever reads next. Its no-op path is two ref reads and one small file
(SEEN: the tracking ref as the last read left it), so a read pays for a merge only
when something new was fetched; entry.py's warm recall checks the same file without
pygit2. A git hook on every ref update (reference-transaction) was weighed instead and
measured (bench/fetched_reads.py): a shell start on every commit, checkout and ref
move of the user's git, for a fetch that usually did not touch memory.

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
from typing import TYPE_CHECKING, NamedTuple

from ... import errors, paths
from ...errors import EnfError
from ...plumbing import store
from ..workspace import Context

if TYPE_CHECKING:  # loaded where used: a start in a repository that shares no memory needs neither
    from ...plumbing import gitcli, gitclones, gitenv
    from . import sync_merge

AUTO_FETCH_KEY = "enf.autoFetch"
CI_KEY = "enf.ci"
FETCH_INTERVAL = 60  # seconds: several sessions starting at once fetch once
BACKGROUND_TIMEOUT = 30.0  # seconds: a hung transport ends here, never in the user's way
STAMP = "fetch.stamp"  # in .git/enf/: when the last background fetch started
SEEN = paths.FETCHED_SEEN  # in .git/enf/: "<tracking ref> <oid>" as the last read left it ("- -": not shared)
_FALSE = ("false", "no", "off", "0")


class BlobsUnavailable(EnfError):
    """A partial clone's missing memory blobs could not be fetched: nothing was merged."""


def merge_fetched(ctx: Context, now: int | None = None, fill_missing: bool = False,
                  env: gitenv.GitEnv | None = None) -> tuple[str, sync_merge.MergeResult] | None:
    """Merge the fetched remote branch into claude-memory: (remote label, what the merge
    did), or None when memory is not shared, nothing was fetched yet, or nothing moved.

    A partial clone's plain `git fetch` leaves memory's blobs out, and a merge cannot read
    them: `fill_missing` (a git hook, after a pull) fetches them first, the one network
    call here; without it (SessionStart, offline) the merge waits for the background
    fetch to bring them. The caller refreshes the working copy when the branch moved.
    `env`: the git config already read (gitenv.prepare), so that no `git config` runs again.
    """
    configured = ctx.settings.remote
    if not configured:
        return None
    from ...plumbing import gitcli, gitclones, gitenv
    from . import sync_merge

    env = env or gitenv.prepare(str(ctx.top))
    remote = gitcli.resolve_remote(str(ctx.top), configured, env)
    if fill_missing:
        filled = gitclones.fetch_missing(str(ctx.top), remote, [remote.tracking_ref], env)
        if not filled.ok:
            raise BlobsUnavailable(f"memory not merged: {filled.message}")
    theirs = store.commit_at(ctx.repo, store.ref_target(ctx.repo, remote.tracking_ref))
    ours = store.tip(ctx.repo)
    if theirs is None or ours is None or (not fill_missing and _blobs_missing(ctx, remote, env)):
        return None
    merged = sync_merge.merge_tips(ctx.repo, ours, theirs, ctx.cache(), now, env=ctx.ident)
    return None if merged.outcome == "up-to-date" else (remote.label, merged)


class Unmerged(NamedTuple):
    """Fetched memory the branch does not hold yet, and why it stays so."""

    label: str  # the remote's label
    theirs: str  # the fetched commit
    reason: str  # what stopped the merge ("" when nothing tried yet)
    fix: str = "git enf sync merges it"  # what to do about it


class CaughtUp(NamedTuple):
    """What a read's catch-up did: merged (label, result), or left unmerged and why."""

    merged: tuple[str, sync_merge.MergeResult] | None = None
    unmerged: Unmerged | None = None


def catch_up(ctx: Context, now: int | None = None) -> CaughtUp:
    """Before a read: merge what git fetched since the last read, refresh the working copy.

    Local only (a partial clone's missing blobs wait for a sync). The no-op path reads the
    tip, the tracking ref and SEEN (written only when what it says changed); the merge
    path reads git's config once (one process), then merges in-process. A merge that cannot be made (a
    read-only .git, a malformed remote setting, a lock held too long) never stops the
    read: it is returned as `unmerged`, for the edge to say, and tried again next read.
    """
    seen = seen_now(ctx)
    target = seen.partition(" ")[2]
    theirs = None if target == "-" else target
    if _read_seen(ctx) == seen:
        return CaughtUp()
    tip = store.tip(ctx.repo)
    if tip is None:
        return CaughtUp()  # init adopts or merges it; nothing is noted before the branch exists
    if theirs is None or str(tip.id) == theirs:
        if theirs is not None:
            _refresh(ctx)  # cheap when nothing is new; else a read killed before its refresh
        note_seen(ctx, seen)
        return CaughtUp()
    from ...plumbing import gitcli, gitenv

    label = gitcli.Remote(ctx.settings.remote or "", gitcli.looks_like_url(ctx.settings.remote or "")).label
    try:
        env = gitenv.prepare(str(ctx.top))
        remote = gitcli.resolve_remote(str(ctx.top), ctx.settings.remote or "", env)
        if _blobs_missing(ctx, remote, env):
            return CaughtUp(unmerged=Unmerged(label, theirs, "a partial clone: some of its objects are not here yet"))
        merged = merge_fetched(ctx, now, env=env)
        _refresh(ctx)  # also when up to date: an earlier read may have been killed before it
    except EnfError as exc:
        return CaughtUp(unmerged=_left(label, theirs, exc.message, exc.hint))
    except OSError as exc:
        refused = errors.refused_write(exc)
        if refused is None:
            return CaughtUp(unmerged=Unmerged(label, theirs, str(exc)))
        return CaughtUp(unmerged=_left(label, theirs, refused.message, refused.hint))
    except Exception as exc:
        if not store.is_git_error(exc):
            raise
        return CaughtUp(unmerged=_left(label, theirs, str(exc), errors.refusal_hint(str(exc))))
    note_seen(ctx, seen)
    return CaughtUp(merged=merged)


def _left(label: str, theirs: str, reason: str, hint: str | None) -> Unmerged:
    """A merge that could not be made: when the file system refused it (`hint` says how to
    give the folder back), a sync would be refused too, so the fix is the hint."""
    if hint and hint.startswith("make "):
        return Unmerged(label, theirs, reason, f"{hint.split(' (')[0]}, then any git enf command merges it")
    return Unmerged(label, theirs, reason)


def merge_lines(label: str, result: sync_merge.MergeResult) -> list[str]:
    """What a merge of `label`'s fetched memory did, in the git hooks' words."""
    verb = "fast-forwarded to" if result.outcome == "fast-forward" else "merged"
    return [f"{paths.BRANCH} {verb} {label}'s memory; {paths.WC_DIR}/ refreshed", *result.lines()]


def said(done: CaughtUp) -> list[str]:
    """The lines a read prints (on stderr) for its catch-up."""
    lines = merge_lines(*done.merged) if done.merged else []
    return lines + ([unmerged_line(done.unmerged)] if done.unmerged else [])


def unmerged_line(left: Unmerged) -> str:
    why = f" ({left.reason})" if left.reason else ""
    return f"{left.label}'s fetched memory ({left.theirs[:12]}) is not merged yet{why}: {left.fix}"


def _refresh(ctx: Context) -> None:
    from ..record.working_set import materialize

    with ctx.lock() as locked:
        if locked:  # else a commit runs here now, and refreshes the working copy itself
            materialize(ctx)


def _tracking_ref(ctx: Context) -> str | None:
    """The configured remote's tracking ref, read in-process (gitcli.resolve_remote asks
    `git config`: a process start on every read); None when memory is not shared."""
    configured = ctx.settings.remote
    if not configured:
        return None
    from ...plumbing import gitcli

    if configured in store.remote_names(ctx.repo) or not gitcli.looks_like_url(configured):
        return gitcli.tracking_ref(configured)
    return gitcli.tracking_ref(paths.URL_REMOTE_NAME)


def seen_now(ctx: Context) -> str:
    """What `note_seen` records once the caller merged and refreshed: the tracking ref and
    where it points now (read before the merge, so a fetch landing meanwhile is not skipped)."""
    ref = _tracking_ref(ctx)
    theirs = store.ref_target(ctx.repo, ref) if ref else None
    return f"{ref or '-'} {theirs or '-'}"


def _holds(ctx: Context, oid: str) -> bool:
    tip, theirs = store.tip(ctx.repo), store.commit_at(ctx.repo, oid)
    return tip is not None and theirs is not None and store.descends_from(ctx.repo, tip, theirs)


def _seen_file(ctx: Context) -> Path:
    return store.state_dir(ctx.repo) / SEEN


def _read_seen(ctx: Context) -> str:
    try:
        return _seen_file(ctx).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return ""


def note_seen(ctx: Context, seen: str) -> None:
    """Record that fetched memory up to `seen` (from `seen_now`) is merged and in the working
    copy, if the branch holds it: a merge that was not made (a partial clone's missing
    blobs, a refused write) leaves the note as it was, for the next read to try again.
    Best effort: a read-only .git only means the next read checks again."""
    theirs = seen.partition(" ")[2]
    if theirs != "-" and not _holds(ctx, theirs):
        return
    path = _seen_file(ctx)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{SEEN}.{os.getpid()}.tmp")
        tmp.write_text(seen + "\n", encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass


def _blobs_missing(ctx: Context, remote: gitcli.Remote, env: gitenv.GitEnv) -> bool:
    """Whether a partial clone lacks blobs the fetched branch needs (only there are objects listed)."""
    from ...plumbing import gitclones

    top = str(ctx.top)
    if not gitclones.is_partial_clone(top, env):
        return False
    return gitclones.missing_objects(top, [remote.tracking_ref], env) != []


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
    from ...plumbing import detached

    detached.start("background-fetch", str(ctx.top))
    return True


def background_fetch(top: str) -> None:
    """The detached process: fetch the memory branch into its remote-tracking ref, no more."""
    ctx = Context.open(Path(top))
    if not ctx.settings.remote:
        return
    from ...plumbing import gitcli

    try:
        remote = gitcli.resolve_remote(str(ctx.top), ctx.settings.remote)
    except EnfError:
        return  # a misconfigured remote is reported by sync and doctor, not from here
    gitcli.fetch(str(ctx.top), remote, timeout=BACKGROUND_TIMEOUT)
