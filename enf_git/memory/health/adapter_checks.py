"""`git enf doctor` for the clients installed from their documented hooks (Cursor,
Copilot CLI, Qwen Code: install/cursor.py, install/copilot.py, install/gemini.py's
QWEN): in every scope that registers ours, each event is there and the interpreter
the hooks call still exists. A client with nothing registered is not checked."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from ...install import copilot, cursor, gemini
from ..workspace import Context
from .problem import Problem


def _registered(name: str, scope: str, top: Path, home: Path) -> list[str]:
    if name == "cursor":
        return cursor.registered(scope, top, home)
    if name == "copilot":
        return copilot.registered(scope, top, copilot.copilot_home(os.environ, home))
    return gemini.registered(gemini.QWEN, scope, top, home)


def _expected(name: str) -> set[str]:
    if name == "cursor":
        return {arg for _e, _t, arg in cursor.EVENTS}
    if name == "copilot":
        return {arg for _e, _t, arg in copilot.EVENTS}
    return {arg for _e, _m, _t, arg in gemini.QWEN.events}


TITLES = {"cursor": "Cursor", "copilot": "Copilot CLI", "qwen": "Qwen Code"}


def adapters_install(ctx: Context, home: Path) -> list[Problem]:
    return [p for name in TITLES for p in _install(name, ctx, home)]


def _install(name: str, ctx: Context, home: Path) -> list[Problem]:
    problems: list[Problem] = []
    for scope in ("user", "project"):
        commands = _registered(name, scope, ctx.top, home)
        if commands:
            problems += _scope(name, TITLES[name], scope, commands)
    return problems


def cursor_install(ctx: Context, home: Path) -> list[Problem]:
    return _install("cursor", ctx, home)


def copilot_install(ctx: Context, home: Path) -> list[Problem]:
    return _install("copilot", ctx, home)


def qwen_install(ctx: Context, home: Path) -> list[Problem]:
    return _install("qwen", ctx, home)


def _scope(name: str, title: str, scope: str, commands: list[str]) -> list[Problem]:
    fix = f"git enf init --assistant {name} --scope {scope}"
    problems: list[Problem] = []
    missing = sorted(_expected(name) - {c.rsplit(" ", 1)[-1] for c in commands})
    if missing:
        problems.append(Problem("warning", f"{title}'s {scope} hooks lack enf-git's {', '.join(missing)} hook(s)",
                                fix))
    program = shlex.split(commands[0])[0]
    if os.path.isabs(program) and not os.access(program, os.X_OK):
        problems.append(Problem("error", f"the {title} hooks ({scope} scope) call {program}, which is gone: every "
                                "hook fails and the gate is off", fix))
    return problems


CHECKS = (("cursor install", cursor_install), ("copilot install", copilot_install), ("qwen install", qwen_install))
