"""`git enf status`, `git enf commit`, `git enf restore`: the working copy against the branch."""

from __future__ import annotations

import sys
from typing import Any

import click

from .. import paths
from ..memory.workspace import Context
from .base import CONTEXT, JSON_OPTION, emit, reading, workspace
from .text import envelope, plural


@click.command(context_settings=CONTEXT)
@JSON_OPTION
def status(as_json: bool) -> None:
    """What would be committed, and what needs attention."""
    from .. import memory
    from ..memory.record import working_set
    from ..plumbing import signing, store

    ctx = reading()
    tip = memory.require_branch(ctx)
    found = memory.pending(ctx, tip=tip)
    manifest = ctx.manifest()
    # A file deleted on purpose is a change to commit, not one to restore.
    lacking = [p for p in working_set.missing(ctx, tip) if p not in found.changes]
    # A conflict copy deleted in the working copy is done with: its deletion is listed as a change.
    files = store.list_files(ctx.repo, tip.tree)
    conflicts = sorted(p for p in files
                       if p.startswith(paths.CONFLICTS) and not (p in found.changes and found.changes[p] is None))
    refused = memory.would_refuse(ctx, found.changes)
    taken = {p: d for p, d in found.changes.items() if p not in dict(refused)}  # what a commit would take
    remote = _remote_state(ctx, str(tip.id))
    from ..memory.record import queries

    disagreements = queries.open_disagreements(queries.load(ctx.repo, tip, ctx.cache()))
    from ..memory import flags

    flagged, unjudged = flags.flagged_within(ctx.repo, tip.tree, files, flags.STATUS_BUDGET)
    state: dict[str, Any] = {
        "branch": paths.BRANCH, "tip": str(tip.id),
        "working_set_floor": manifest.floor, "behind": bool(manifest.base and manifest.base != str(tip.id)),
        "changes": [{"path": p, "state": "deleted" if d is None else "changed" if p in manifest.files else "new"}
                    for p, d in sorted(taken.items())],
        "refused": [{"path": p, "why": why} for p, why in refused],
        "edited_views": sorted(found.views), "missing": lacking, "conflicts": conflicts, "remote": remote,
        "disagreements": [_disagreement_row(d) for d in disagreements],
        "signing_failed": signing.noted_failure(str(store.state_dir(ctx.repo))),
        "flagged": [f.as_dict() for f in flagged], "unjudged": unjudged,
    }
    if as_json:
        click.echo(envelope("status", **state))
        return
    emit(ctx, "\n".join(_status_lines(state, found.views)))


def _disagreement_row(d: Any) -> dict[str, Any]:
    return {"decision": d.decision.id, "decided": d.decision.decided,
            "replacements": [{"id": r.id, "decided": r.decided, "source": r.source} for r in d.replacements]}


def _remote_state(ctx: Context, tip: str) -> dict[str, Any] | None:
    """Where the branch stands against what was last fetched from its remote (no network)."""
    from ..errors import EnfError
    from ..plumbing import gitcli, gitseen, store

    configured = ctx.settings.remote
    if configured is None:
        return None
    try:  # a URL (a repository kept for memory) is tracked under a name of our own
        remote = gitcli.resolve_remote(str(ctx.top), configured)
    except EnfError as exc:
        return {"name": configured, "fetched": False, "ahead": None, "behind": None, "error": exc.message}
    theirs = store.ref_target(ctx.repo, remote.tracking_ref)
    seen = gitseen.seen(str(ctx.top), remote)
    if seen is not None:  # the tracking ref speaks for the URL we last talked to: is it still this one?
        now = gitseen.push_url(str(ctx.top), remote)
        if now and gitseen.without_credentials(now) != gitseen.without_credentials(seen.url):
            return {"name": remote.label, "fetched": False, "ahead": None, "behind": None,
                    "moved": {"from": gitcli.masked(seen.url), "to": gitcli.masked(now)}}
        if seen.remote is None and theirs == seen.tracking:
            return {"name": remote.label, "fetched": False, "ahead": None, "behind": None, "absent": True}
    if theirs is None:
        return {"name": remote.label, "fetched": False, "ahead": None, "behind": None}
    ahead, behind = store.ahead_behind(ctx.repo, tip, theirs)
    state: dict[str, Any] = {"name": remote.label, "fetched": True, "ahead": ahead, "behind": behind}
    if behind:  # the read's catch-up could not merge it (it said why): name what will
        state["unmerged"] = theirs
    return state


def _status_lines(state: dict[str, Any], views: dict[str, bytes]) -> list[str]:
    from .. import memory

    lines = [f"branch {paths.BRANCH} at {str(state['tip'])[:12]}"]
    if state["signing_failed"]:  # a hook's commit failed at git's signing step: the person must hear of it
        lines.append(f"a hook could not commit memory: {state['signing_failed']} (commit.gpgSign is on); "
                     "the changes below wait here: git enf commit shows why")
    remote = state["remote"]
    if remote is not None and remote["fetched"]:
        lines.append(f"{remote['ahead']} ahead, {remote['behind']} behind {remote['name']}/{paths.BRANCH} "
                     "(as last fetched)")
        if remote.get("unmerged"):
            lines.append(f"fetched memory not merged yet: {plural(remote['behind'], 'commit')} of {remote['name']}'s "
                         f"(at {remote['unmerged'][:12]}): git enf sync merges them")
    elif remote is not None and remote.get("error"):
        lines.append(f"memory remote: {remote['error']}")
    elif remote is not None and remote.get("moved"):
        moved = remote["moved"]
        lines.append(f"{remote['name']} is now {moved['to']}; memory was last fetched from or pushed to "
                     f"{moved['from']}, so where {moved['to']} stands is not known yet: the next git push "
                     "or git enf sync sends memory there")
    elif remote is not None and remote.get("absent"):
        lines.append(f"{remote['name']} has no {paths.BRANCH} yet (as last fetched): the next git push or "
                     "git enf sync creates it there")
    elif remote is not None:
        lines.append(f"{remote['name']} has no {paths.BRANCH} fetched yet")
    floor = state["working_set_floor"]
    if isinstance(floor, str):
        since = floor.removeprefix("sessions/").removesuffix(".md")
        lines.append(f"working set: sessions from {since} on; older ones are on the branch "
                     f"(git enf show NAME, or git config {memory.WORKING_SET_KEY} all)")
    if state["behind"]:
        lines.append("working copy is behind the branch: git enf commit (or any hook) will refresh it")
    changes = state["changes"]
    assert isinstance(changes, list)
    lines += [f"  {c['state']}: {c['path']}" for c in changes]
    lines += [f"  not committable: {r['path']}: {r['why']}" for r in state["refused"]]
    lines += [f"  hand-edited view: {p} (imported or set aside at the next commit)" for p in sorted(views)]
    if not changes and not views:
        lines.append("nothing to commit" + (" (git enf commit refuses the files above)" if state["refused"] else ""))
    missing = state["missing"]
    assert isinstance(missing, list)
    if missing:
        lines.append(f"working copy lacks {plural(len(missing), 'file')} the branch has "
                     f"(e.g. {missing[0]}): git enf restore brings them back")
    conflicts = state["conflicts"]
    assert isinstance(conflicts, list)
    lines += [f"  conflict copy: {p} (merge it into the original, then delete it)" for p in conflicts]
    for d in state["disagreements"]:
        a, b = d["replacements"]
        lines.append(f"  open disagreement: {d['decision']} ({d['decided']}) was reversed twice, to {a['decided']} "
                     f"({a['id']}) and to {b['decided']} ({b['id']}): git enf log --decisions")
    flagged = {row["path"] for row in state["flagged"]}
    if flagged:
        from ..memory import flags

        lines.append(f"{flags.summary(len(flagged))}: git enf scan lists {'it' if len(flagged) == 1 else 'them'}")
    if state["unjudged"]:
        lines.append(f"{plural(state['unjudged'], 'record')} not yet read for instructions to the assistant: "
                     "git enf scan reads them")
    return lines


@click.command(context_settings=CONTEXT)
@click.option("-m", "--message", help="Commit message (default: names what changed).")
@click.option("--allow-deletions", is_flag=True,
              help="Delete files from the branch even when that removes most of what it holds.")
def commit(message: str | None, allow_deletions: bool) -> None:
    """Commit the working copy's changes to claude-memory."""
    from .. import memory

    report = memory.commit(workspace(), message, allow_deletions=allow_deletions)
    for is_err, line in memory.report_lines(report):
        click.echo(line, err=is_err)
    if report.failed:
        sys.exit(1)


@click.command(context_settings=CONTEXT)
@click.argument("names", nargs=-1, metavar="[PATH]...")
@click.option("--force", is_flag=True, help="Also overwrite files you edited (their edits are lost).")
@JSON_OPTION
def restore(names: tuple[str, ...], force: bool, as_json: bool) -> None:
    """Rebuild the working copy (or the PATHs named) from the branch; never overwrites your edits unless --force."""
    from .. import memory

    ctx = workspace()
    done = memory.restore(ctx, names, force=force)
    if as_json:
        click.echo(envelope("restore", restored=done.written, kept=done.kept))
    else:
        _print_restored(ctx, done.written, done.kept)
    if names and done.kept:  # a file asked for by name was not restored: not done as asked
        sys.exit(1)


def _print_restored(ctx: Context, written: list[str], kept: list[str]) -> None:
    for path in written:
        click.echo(f"restored: {path}")
    for path in kept:
        click.echo(f"kept your edit: {path} (git enf restore --force {path} takes the branch's)", err=True)
    if not written and not kept:
        click.echo(f"the working copy in {ctx.root} already matches the branch")


COMMANDS = (status, commit, restore)
