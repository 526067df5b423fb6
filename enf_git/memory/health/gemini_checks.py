"""`git enf doctor` for a Gemini CLI install (install/gemini.py): every event registered,
the interpreter the hooks call still there, and the skill as shipped. Gemini runs user
hooks without a trust step, so there is no trust to check (a project's hooks need a
trusted folder, which Gemini asks for itself)."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from ...install import claude, gemini
from ..workspace import Context
from .problem import Problem


def gemini_install(ctx: Context, home: Path) -> list[Problem]:
    problems: list[Problem] = []
    for scope in gemini.SCOPES:
        commands = gemini.registered(gemini.GEMINI, scope, ctx.top, home)
        if commands:
            problems += _scope(ctx, home, scope, commands)
    return problems


def _scope(ctx: Context, home: Path, scope: str, commands: list[str]) -> list[Problem]:
    client = gemini.GEMINI
    fix = f"git enf init --assistant {client.name} --scope {scope}"
    path = gemini.settings_path(client, scope, ctx.top, home)
    problems: list[Problem] = []
    events = {c.rsplit(" ", 1)[-1] for c in commands}
    missing = [arg for _e, _m, _t, arg in client.events if arg not in events]
    if missing:
        problems.append(Problem("warning", f"{path} lacks enf-git's {', '.join(missing)} hook(s)", fix))
    program = shlex.split(commands[0])[0]
    if os.path.isabs(program) and not os.access(program, os.X_OK):
        problems.append(Problem("error", f"the {client.title} hooks in {path} call {program}, which is gone: every "
                                "hook fails and the gate is off", fix))
    skill = gemini.skill_path(client, scope, ctx.top, home)
    if not claude.skill_as_shipped(skill.parent):
        problems.append(Problem("warning", f"the {client.title} skill {skill} is missing or differs from the "
                                "shipped one", fix))
    return problems


CHECKS = (("gemini install", gemini_install),)
