"""`git enf doctor`: every check, each problem with the command or edit that fixes it.

Checks come in four groups: the installation (every scope's hook commands run,
one scope only, the skill, the exclude entries: install_checks), the machine-local
state (locks, the recall index, the manifest, the branch's objects: state_checks),
the working copy against the branch (this module), and the records on the branch
(record_checks). `run` says which checks it ran, so a clean bill names what it
covered; a branch whose objects are damaged stops the run there, since every
later check reads them.
"""

from __future__ import annotations

from pathlib import Path

from ... import paths
from ...plumbing import store
from .. import records
from ..workspace import Context
from .problem import Checked, Problem


def run(ctx: Context, home: Path, user_dir: str | None = None) -> Checked:
    """Every check, in order; `home` is where the user scope's settings live (~),
    `user_dir` the user's enf-git config folder (its toolsets.yaml)."""
    from . import (adapter_checks, codex_checks, gemini_checks, install_checks, mcp_checks, record_checks,
                   state_checks)

    checks: list[str] = []
    problems: list[Problem] = []
    for name, install_check in (install_checks.CHECKS + mcp_checks.CHECKS + codex_checks.CHECKS
                                + gemini_checks.CHECKS + adapter_checks.CHECKS):
        checks.append(name)
        problems += install_check(ctx, home)
    checks.append("toolset profiles")
    problems += _toolsets(ctx, user_dir or str(home / ".config" / paths.USER_DIR_NAME))
    for name, local_check in state_checks.LOCAL:
        checks.append(name)
        problems += local_check(ctx)
    checks.append("memory branch")
    if store.ref_target(ctx.repo, paths.REF) is None:
        problems.append(Problem("error", f"no {paths.BRANCH} branch", "git enf init"))
        return Checked(tuple(checks), tuple(problems))
    # Before anything reads the branch: a damaged object would stop those reads.
    checks.append("branch objects")
    damaged = state_checks.branch_objects(ctx)
    problems += damaged
    tip = store.tip(ctx.repo) if not damaged else None
    if tip is None:
        return Checked(tuple(checks), tuple(problems))
    checks += ["manifest", "working copy"]
    problems += state_checks.manifest(ctx)
    problems += _working_copy(ctx, tip)
    recs = records.load(ctx.repo, tip.tree, ctx.cache())
    for name, record_check in record_checks.CHECKS:
        checks.append(name)
        problems += record_check(ctx, tip, recs)
    return Checked(tuple(checks), tuple(problems))


def _toolsets(ctx: Context, user_dir: str) -> list[Problem]:
    """Every problem in the toolsets files, and a project default that names no profile:
    each leaves a built-in in force, which is safe but not what the file meant."""
    from ..context import toolsets

    places = toolsets.Places(str(ctx.top), str(ctx.root), str(store.state_dir(ctx.repo)), user_dir)
    found = toolsets.active(places, "")
    out = [Problem("warning", f"toolsets file {p}", "fix that line; until then the built-in of that name "
                   "(or none) is in force: git enf toolset list shows what is") for p in found.problems]
    out += [Problem("warning", f"{line}; build is used", "git enf toolset NAME --default, or fix the file")
            for line in found.missing]
    return out


def _working_copy(ctx: Context, tip: store.Commit) -> list[Problem]:
    from ..record.working_set import missing

    out = []
    for git_dir in store.checked_out_in(ctx.repo):
        out.append(Problem("warning", f"{paths.BRANCH} is checked out in {git_dir}",
                           "switch that worktree to another branch; enf-git writes the branch itself"))
    if not ctx.root.is_dir():
        out.append(Problem("error", f"no working copy at {ctx.root}", "git enf restore"))
        return out
    from ..record.commits import pending, would_refuse

    found = pending(ctx, tip=tip)
    # A file deleted on purpose is a change for the next commit (status lists it), not a loss to restore.
    lacking = [p for p in missing(ctx, tip) if p not in found.changes]
    if lacking:
        out.append(Problem("error", f"the working copy lacks {len(lacking)} file(s) the branch has, e.g. {lacking[0]}",
                           "git enf restore"))
    for path, why in would_refuse(ctx, found.changes):
        what, _, fix = why.partition("; left as it is: ")
        out.append(Problem("error", f"{path} cannot be committed: {what}", fix or "see git enf commit"))
    return out + _not_files(ctx)


def _not_files(ctx: Context) -> list[Problem]:
    """Links and specials in the working copy: commits pass over them without a word, so
    what a link points to is in nobody's memory (and a link out of the repository, to
    /etc say, must never be read into it)."""
    from ...plumbing import workcopy

    out = []
    for path, what in workcopy.not_files(ctx.root):
        here = f"{paths.WC_DIR}/{path}"
        if "link" not in what:
            out.append(Problem("error", f"{path} is {what}: enf-git never reads nor commits one", f"rm {here}"))
            continue
        fix = f"rm {here}"
        if "(a file" in what:
            fix += f" (or, to keep that text in memory, copy it in: cp --remove-destination \"$(readlink -f {here})\" {here})"
        out.append(Problem("error", f"{path} is {what}: enf-git never follows nor commits a link, so what it points "
                           "to is not in memory", fix))
    return out
