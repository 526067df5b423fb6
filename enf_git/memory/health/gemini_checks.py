"""`git enf doctor` for a Gemini CLI install (install/gemini.py): every event registered,
the interpreter the hooks call still there, and the skill as shipped. Gemini runs user
hooks without a trust step, so there is no trust to check (a project's hooks need a
trusted folder, which Gemini asks for itself)."""

from __future__ import annotations

from pathlib import Path

from ...install import gemini
from ..workspace import Context
from .hook_checks import hook_problems, skill_problems
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
    problems = hook_problems(commands, [arg for _e, _m, _t, arg in client.events], fix, f"{path} lacks",
                             f"the {client.title} hooks in {path}")
    return problems + skill_problems(client.title, gemini.skill_path(client, scope, ctx.top, home), fix)


CHECKS = (("gemini install", gemini_install),)
