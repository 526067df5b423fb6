"""Setting a repository up: the branch (adopting a teammate's), the exclude entry,
the working copy's folders, and its first materialization. Idempotent, and safe
when two processes (two sessions starting at once) run it at the same moment.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ... import paths
from ...errors import EnfError
from ...plumbing import store, store_write, workcopy
from . import views
from ..report import Report
from .working_set import ensure_folders, materialize
from ..workspace import REMOTE_KEY, Context

if TYPE_CHECKING:
    from ...plumbing import gitcli, gitclones

ORIGIN_BRANCH = f"refs/remotes/origin/{paths.BRANCH}"
CONFIG_RECORD = "config-set.json"  # in .git/enf/: each git config key init set, and to what
INIT_FETCH_TIMEOUT = 120.0  # seconds: a hung server must not hang init; sync merges the remote's later


def init(ctx: Context, now: int | None = None, online: bool = False) -> Report:
    """Branch (adopting the remote's), exclude entry, working copy; restores what is missing.

    `online` (`git enf init`, never a hook): fetch the remote's memory first, so that a
    shallow, single-branch or partial clone adopts it too, and make the user's own
    `git fetch` bring memory in a clone whose remote fetches only some branches.
    """
    report = Report()
    _elect_remote(ctx, report)
    if store.tip(ctx.repo) is None and not _adopt(ctx, report, online):
        report.commit = _create(ctx, now)
    if online:
        _track(ctx, report)
    if workcopy.ensure_excluded(store.common_dir(ctx.repo)):
        report.warnings.append(f"added {paths.EXCLUDE_LINE} to .git/info/exclude")
    lost = _vanished(ctx)
    ensure_folders(ctx)
    with ctx.lock() as locked:
        if locked:
            report.materialized = materialize(ctx, prune=True, also=lost)
            gone = set(lost)
            report.restored = [p for p in report.materialized if p in gone]
        else:
            report.warnings.append("the working copy is busy (a commit in this worktree holds its lock): "
                                   "not refreshed now; the next commit refreshes it")
    return report


def _vanished(ctx: Context) -> list[str]:
    """Files that went with their folder (`rm -rf .claude-sessions`, `git clean -xfd`): log.md,
    meta.json and the facts are neither views nor sessions, so only this brings them back,
    as a commit does. A folder that is still the one we marked costs no scan."""
    manifest = ctx.manifest()
    if not manifest.files or ctx.root.is_dir() and not any(manifest.replaced(ctx.root, f) for f in ("", *manifest.marked)):
        return []
    from .commits import pending

    return pending(ctx, manifest).vanished


def _elect_remote(ctx: Context, report: Report) -> None:
    if ctx.settings.remote is None and "origin" in store.remote_names(ctx.repo):
        # Memory travels with the code's own remote unless told otherwise (enf.remote).
        store.set_config(ctx.repo, REMOTE_KEY, "origin")
        _record_config(ctx, REMOTE_KEY, "origin")
        ctx.settings.remote = "origin"
        report.warnings.append(f"memory will be shared through origin (git config {REMOTE_KEY} to change it)")


def _record_config(ctx: Context, key: str, value: str) -> None:
    """Remember that init set `key`, so `uninstall --purge` takes back only what it set."""
    import json

    from ...plumbing import atomic

    record = store.state_dir(ctx.repo) / CONFIG_RECORD
    data = {**_recorded_config(record), key: value}
    try:
        record.parent.mkdir(parents=True, exist_ok=True)
        atomic.write(record, (json.dumps(data, indent=2, sort_keys=True) + "\n").encode("utf-8"))
    except OSError:
        pass  # a record we cannot write only means purge leaves the key for the user


def _recorded_config(record: Path) -> dict[str, str]:
    import json

    try:
        data = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def unset_config(ctx: Context) -> list[str]:
    """`uninstall --purge`: unset each git config key init set that still holds what it
    set (a value the user changed since is theirs and stays). Before the record existed,
    init set `enf.remote = origin` and nothing else."""
    from ...plumbing import gitclones

    record = store.state_dir(ctx.repo) / CONFIG_RECORD
    keys = _recorded_config(record) if record.exists() else {REMOTE_KEY: "origin"}
    done = [f"unset {key} ({value}), which git enf init had set" for key, value in sorted(keys.items())
            if gitclones.unset_local(str(ctx.top), key, value)]
    try:
        record.unlink(missing_ok=True)
    except OSError:
        pass  # purge deletes the state folder next, or says why it could not
    return done


def _memory_remote(ctx: Context, report: Report) -> gitcli.Remote | None:
    from ...plumbing import gitcli  # not on a commit's import path: a commit never needs it

    if not ctx.settings.remote:
        return None
    try:
        return gitcli.resolve_remote(str(ctx.top), ctx.settings.remote)
    except EnfError as exc:
        report.warnings.append(f"{exc} ({exc.hint})" if exc.hint else str(exc))
        return None


def _adopt(ctx: Context, report: Report, online: bool) -> bool:
    """Point the new branch at the remote's memory, so the team keeps one history."""
    from ...plumbing import gitcli, gitclones

    remote = _memory_remote(ctx, report)
    ref = remote.tracking_ref if remote is not None else ORIGIN_BRANCH
    complete = False
    if online and remote is not None:
        fetched = gitcli.fetch(str(ctx.top), remote, timeout=INIT_FETCH_TIMEOUT)
        complete = fetched.ok
        if not fetched.ok:
            report.warnings.append(f"could not fetch {remote.label}'s memory ({fetched.outcome.value}), so memory "
                                   "starts here on its own; git enf sync merges the two later")
    oid = store.ref_target(ctx.repo, ref)
    if oid is None:
        return False
    if not complete and gitclones.is_partial_clone(str(ctx.top)):
        return False  # its blobs may be on the server only, where pygit2 cannot reach them
    if store_write.create_branch(ctx.repo, oid, f"enf: adopt {_short(ref)}"):
        report.warnings.append(f"adopted {_short(ref)}")
    return True


def _short(ref: str) -> str:
    return ref.removeprefix("refs/remotes/")


def _track(ctx: Context, report: Report) -> None:
    """In a single-branch or shallow clone, make `git fetch` (and so `git pull`) bring memory."""
    from ...plumbing import gitcli, gitclones

    name = ctx.settings.remote
    if not name or not gitcli.remote_exists(str(ctx.top), name) or gitclones.tracks(str(ctx.top), name):
        return
    spec = gitclones.track(str(ctx.top), name)
    _note_tracked(ctx, name)
    report.warnings.append(f"{name} fetches only some branches (a single-branch or shallow clone): added {spec} "
                           f"to remote.{name}.fetch, so git fetch and git pull bring memory too")


TRACKED = "fetch-refspecs"  # in .git/enf/: the remotes whose remote.<name>.fetch got our refspec


def _note_tracked(ctx: Context, name: str) -> None:
    """Remember which remote's fetch refspecs we added to, so that uninstall takes it back
    even after enf.remote names another remote."""
    path = store.state_dir(ctx.repo) / TRACKED
    names = tracked(ctx)
    if name in names:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{n}\n" for n in [*names, name]), encoding="utf-8")


def tracked(ctx: Context) -> list[str]:
    """The remotes `git enf init` added the memory refspec to (uninstall's list)."""
    try:
        text = (store.state_dir(ctx.repo) / TRACKED).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    return [line.strip() for line in text.splitlines() if line.strip()]


def forget_tracked(ctx: Context) -> None:
    try:
        (store.state_dir(ctx.repo) / TRACKED).unlink()
    except OSError:
        pass


def _create(ctx: Context, now: int | None) -> store_write.CommitResult | None:
    """The branch's first commit. Two processes creating it at once both succeed: the
    second finds the first's identical commit and has nothing to add."""
    import json

    meta = json.dumps({"project": views.project_name(ctx.repo), "schema": 1}, indent=2, sort_keys=True) + "\n"
    base: dict[str, bytes | None] = {
        paths.META: meta.encode(), paths.LOG: b"# Log\n\nAppend-only record of sessions (written by hooks).\n"}
    cache = ctx.cache()

    def build(tip: store.Commit | None) -> dict[str, bytes | None]:
        if tip is not None:
            return {}  # another process created it first: adopt theirs, add nothing
        rendered, _ = views.views_for(ctx.repo, tip, base, cache)
        return {**base, **rendered}

    return store_write.commit(ctx.repo, build, "enf: initialize memory", when=now, env=ctx.ident)
