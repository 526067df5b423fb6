"""`git enf toolset`: the toolset profile a session works in, and the switch, from a
terminal (inside Claude Code the user types `/toolset …`, which the hook acts on)."""

from __future__ import annotations

import os

import click

from ..errors import EnfError
from .base import CONTEXT, JSON_OPTION, workspace
from .text import envelope

SESSION_ENV = "CLAUDE_CODE_SESSION_ID"  # set by Claude Code for the tools it runs
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..memory.context.toolsets import Active, Places
    from ..pure.toolsets import Profile


@click.command(context_settings=CONTEXT)
@click.argument("what", required=False, default="status", metavar="[NAME|status|list|reset]")
@click.option("--session", "session_id", metavar="ID",
              help=f"The session (its id or first 8 characters; default: ${SESSION_ENV}).")
@click.option("--default", "project_default", is_flag=True,
              help="Set (NAME) or remove (reset) the project's default for new sessions: .claude/active-toolset.")
@JSON_OPTION
def toolset(what: str, session_id: str | None, project_default: bool, as_json: bool) -> None:
    """Show or switch the toolset profile (plan, build, review, explore, deploy, debug,
    docs, or one of toolsets.yaml). `status` shows the session's profile (without a
    session: the one new sessions get); `list` every profile; NAME switches the session
    (or, with --default, the project); `reset` forgets the session's choice."""
    from ..memory.context import toolsets as sessions

    places = _places()
    sid = (session_id or os.environ.get(SESSION_ENV, "")).strip()
    if what == "list":
        _list(places, as_json)
        return
    if what != "status":
        if project_default:
            _set_default(places, None if what == "reset" else what)
        else:
            _switch(places, sid, what)
    found = sessions.active(places, sid)
    if as_json:
        click.echo(envelope("toolset", session=sid[:8] or None, **_active_row(found)))
    else:
        whose = f"session {sid[:8]}" if sid else "a new session"
        click.echo(sessions.status_line(found).replace("this session", whose, 1))


def _places() -> Places:
    from .. import paths
    from ..memory.context import toolsets as sessions
    from ..plumbing import store

    ctx = workspace()
    return sessions.Places(str(ctx.top), str(ctx.root), str(store.state_dir(ctx.repo)),
                           paths.user_config_dir(os.environ))


def _switch(places: Places, sid: str, what: str) -> None:
    from ..memory.context import toolsets as sessions

    if not sid:
        raise EnfError("which session? a profile belongs to one session, and none is named here",
                       hint=f"git enf toolset {what} --session ID (the id in the session's enf-git context), "
                            f"or git enf toolset {what} --default for new sessions")
    try:
        before, now = sessions.switch(places, sid, None if what == "reset" else what)
    except KeyError:
        raise _no_such(places, what) from None
    click.echo(f"session {sid[:8]}: {before} -> {now.profile.name}", err=True)


def _set_default(places: Places, name: str | None) -> None:
    from ..memory.context import toolsets as sessions
    from ..plumbing import atomic, toolset_files

    path = os.path.join(places.top, toolset_files.DEFAULT_FILE)
    if name is None:
        if os.path.exists(path):
            os.unlink(path)
        click.echo(f"removed {toolset_files.DEFAULT_FILE}: new sessions work in build", err=True)
        return
    if name not in sessions.load(places)[0]:
        raise _no_such(places, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    atomic.write(path, f"{name}\n".encode())
    click.echo(f"wrote {toolset_files.DEFAULT_FILE}: new sessions work in {name} "
               f"(commit it to make it the team's default)", err=True)


def _no_such(places: Places, name: str) -> click.UsageError:
    from ..memory.context import toolsets as sessions

    table = sessions.load(places)[0]
    return click.UsageError(f"no toolset profile named {name!r}; profiles: {', '.join(table)} "
                            f"(git enf toolset list shows what each allows)")


def _list(places: Places, as_json: bool) -> None:
    from ..memory.context import toolsets as sessions

    table, problems = sessions.load(places)
    if as_json:
        click.echo(envelope("toolset list", profiles=[_profile_row(p) for p in table.values()],
                            problems=[str(p) for p in problems]))
        return
    for profile in table.values():
        click.echo(f"{profile.name:<10} {sessions.describe(profile).split(' (', 1)[1][:-1]}  [{profile.source}]")
    for problem in problems:
        click.echo(f"warning: toolsets file {problem}", err=True)


def _profile_row(p: Profile) -> dict[str, object]:
    from ..pure import toolsets as ts

    return {"name": p.name, "source": p.source, "restriction": p.restriction,
            "classes": [c for c in ts.CLASSES if c in p.classes], "shell": p.shell, "writes": p.writes,
            "paths": list(p.paths), "allow": sorted(p.allow), "deny": sorted(p.deny), "deny_bash": list(p.deny_shell)}


def _active_row(found: Active) -> dict[str, object]:
    return {"profile": _profile_row(found.profile), "why": found.why, "missing": found.missing,
            "problems": [str(p) for p in found.problems]}


COMMANDS = (toolset,)
