"""`git enf doctor` for a Codex install (install/codex.py): every event registered, the
interpreter the hooks call still there, the skill as shipped, and whether Codex has
recorded trust for the entries, without which it skips them without a word.

Trust is judged from `$CODEX_HOME/config.toml`: Codex stores it as a table
`[hooks.state."<hooks.json path>:<event>:<group>:<handler>"]` with a `trusted_hash`.
The hash itself is Codex's to compute, so a changed entry that Codex would treat as
untrusted again is not caught here; a missing one is.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from ...install import claude, codex
from ..workspace import Context
from .problem import Problem


def codex_install(ctx: Context, home: Path) -> list[Problem]:
    folder = codex.codex_home(os.environ, home)
    problems: list[Problem] = []
    for scope in codex.SCOPES:
        commands = codex.registered(scope, ctx.top, folder)
        if commands:
            problems += _scope(ctx, scope, folder, commands)
    return problems


def _scope(ctx: Context, scope: str, folder: Path, commands: list[str]) -> list[Problem]:
    fix = f"git enf init --assistant codex --scope {scope}"
    path = codex.hooks_path(scope, ctx.top, folder)
    problems: list[Problem] = []
    events = {c.rsplit(" ", 1)[-1] for c in commands}
    missing = [arg for _e, _m, _t, arg in codex.EVENTS if arg not in events]
    if missing:
        problems.append(Problem("warning", f"{path} lacks enf-git's {', '.join(missing)} hook(s)", fix))
    program = shlex.split(commands[0])[0]
    if os.path.isabs(program) and not os.access(program, os.X_OK):
        problems.append(Problem("error", f"the Codex hooks in {path} call {program}, which is gone: every hook "
                                "fails and the gate is off", fix))
    skill = codex.skill_path(scope, ctx.top, folder)
    if not claude.skill_as_shipped(skill.parent):
        problems.append(Problem("warning", f"the Codex skill {skill} is missing or differs from the shipped one", fix))
    if not _trusted(folder / "config.toml", path):
        problems.append(Problem("warning", f"Codex has recorded no trust for the hooks in {path}: it skips "
                                "untrusted hooks silently", codex.TRUST_NOTE))
    return problems


def _trusted(config: Path, hooks: Path) -> bool:
    try:
        text = config.read_text(encoding="utf-8")
    except OSError:
        return False
    return f'[hooks.state."{hooks}:' in text and "trusted_hash" in text


CHECKS = (("codex install", codex_install),)
