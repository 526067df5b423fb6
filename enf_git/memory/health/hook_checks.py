"""What doctor checks alike in every client's hooks (codex_checks.py, gemini_checks.py,
adapter_checks.py): each of our events registered, the program the hooks call still
there, and the skill as shipped. Each caller words where the hooks are its own way."""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterable
from pathlib import Path

from ...install import claude
from .problem import Problem


def hook_problems(commands: list[str], expected: Iterable[str], fix: str, lacking: str,
                  calling: str) -> list[Problem]:
    """`commands`: our registered ones (at least one); `expected`: every event argument, in
    the order to name them. `lacking` is the subject of "lack(s) enf-git's … hook(s)",
    `calling` that of "call PROGRAM, which is gone"."""
    problems: list[Problem] = []
    present = {c.rsplit(" ", 1)[-1] for c in commands}
    missing = [arg for arg in expected if arg not in present]
    if missing:
        problems.append(Problem("warning", f"{lacking} enf-git's {', '.join(missing)} hook(s)", fix))
    program = shlex.split(commands[0])[0]
    if os.path.isabs(program) and not os.access(program, os.X_OK):
        problems.append(Problem("error", f"{calling} call {program}, which is gone: every hook fails and the gate "
                                "is off", fix))
    return problems


def skill_problems(title: str, skill: Path, fix: str) -> list[Problem]:
    if claude.skill_as_shipped(skill.parent):
        return []
    return [Problem("warning", f"the {title} skill {skill} is missing or differs from the shipped one", fix)]
