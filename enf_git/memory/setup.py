"""Setting a repository up: the branch (adopting a teammate's), the exclude entry,
the working copy's folders, and its first materialization. Idempotent, and safe
when two processes (two sessions starting at once) run it at the same moment.
"""

from __future__ import annotations

from .. import paths
from ..plumbing import store, workcopy
from . import views
from .report import Report
from .working_set import ensure_folders, materialize
from .workspace import REMOTE_KEY, Context

ORIGIN_BRANCH = f"refs/remotes/origin/{paths.BRANCH}"


def init(ctx: Context, now: int | None = None) -> Report:
    """Branch (adopting origin's), exclude entry, working copy; restores what is missing."""
    report = Report()
    if store.tip(ctx.repo) is None:
        remote = store.ref_target(ctx.repo, ORIGIN_BRANCH)
        if remote is not None:
            if store.create_branch(ctx.repo, remote, "enf: adopt origin/claude-memory"):
                report.warnings.append(f"adopted origin/{paths.BRANCH}")
        else:
            report.commit = _create(ctx, now)
    if ctx.settings.remote is None and "origin" in store.remote_names(ctx.repo):
        # Memory travels with the code's own remote unless told otherwise (enf.remote).
        store.set_config(ctx.repo, REMOTE_KEY, "origin")
        ctx.settings.remote = "origin"
        report.warnings.append(f"memory will be shared through origin (git config {REMOTE_KEY} to change it)")
    if workcopy.ensure_excluded(store.common_dir(ctx.repo)):
        report.warnings.append(f"added {paths.EXCLUDE_LINE} to .git/info/exclude")
    ensure_folders(ctx)
    with ctx.lock() as locked:
        if locked:
            report.materialized = materialize(ctx, prune=True)
        else:
            report.warnings.append("the working copy is busy (a commit in this worktree holds its lock): "
                                   "not refreshed now; the next commit refreshes it")
    return report


def _create(ctx: Context, now: int | None) -> store.CommitResult | None:
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

    return store.commit(ctx.repo, build, "enf: initialize memory", when=now)
