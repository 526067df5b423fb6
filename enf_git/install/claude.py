"""Register the hooks (and the skill) with Claude Code; remove exactly what we added.

Scopes (CLAUDE-CODE.md): `local` writes `.claude/settings.local.json` (per user,
not committed) and `user` writes `~/.claude/settings.json`; both call the
interpreter by absolute path (`python -c "...; from enf_git.hook import main; main()"`),
the fastest form. `project` writes
`.claude/settings.json`, which the team shares, so it calls plain `enf-hook` from
PATH: one machine's absolute paths would break every teammate's hooks.

Our entries are recognized by their command's program name (`enf-hook`), so
install is idempotent (old entries replaced, e.g. after moving the venv) and
uninstall leaves every other hook, matcher and setting exactly as it was.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import EnfError
from ..paths import LAUNCH  # how settings call the hook (see there)
from ..plumbing import atomic

PROGRAM = "enf-hook"
SCOPES = ("project", "local", "user")
# (event, matcher or None, timeout seconds, our event argument)
EVENTS = (
    ("SessionStart", None, 30, "session-start"),
    ("UserPromptSubmit", None, 10, "user-prompt-submit"),
    ("PreToolUse", "*", 10, "pre-tool-use"),
    ("PostToolUse", "*", 10, "post-tool-use"),
    ("PostToolUseFailure", "*", 10, "post-tool-use-failure"),
    ("PreCompact", None, 30, "pre-compact"),
    ("Stop", None, 30, "stop"),
    ("SessionEnd", None, 5, "session-end"),
)
SKILL_NAME = "enf-git"
# What `init --scope local` adds to .git/info/exclude: per-user files inside the repo.
LOCAL_EXCLUDES = ("/.claude/settings.local.json", f"/.claude/skills/{SKILL_NAME}/")


@dataclass(frozen=True)
class Installed:
    settings: Path
    command: str
    skill: Path | None
    changed: bool


def settings_path(scope: str, top: Path, home: Path) -> Path:
    if scope == "project":
        return top / ".claude" / "settings.json"
    if scope == "local":
        return top / ".claude" / "settings.local.json"
    if scope == "user":
        return home / ".claude" / "settings.json"
    raise EnfError(f"unknown scope {scope!r}", hint=f"use one of: {', '.join(SCOPES)}")


def hook_program(scope: str) -> str:
    """How settings call us: by name from PATH (project) or this interpreter by path.

    Not pip's `enf-hook` wrapper for local/user: it imports `re` before our code runs,
    which alone costs a third of a bare interpreter start on every tool call.
    """
    if scope == "project":
        return PROGRAM
    return f"{shlex.quote(sys.executable)} -c {shlex.quote(LAUNCH)}"


def is_ours(entry: object) -> bool:
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return False
    command = entry["command"].strip()
    first = command.split()[0] if command else ""
    return os.path.basename(first.strip("\"'")) == PROGRAM or "enf_git.hook" in command


def merged(settings: dict[str, Any], program: str) -> dict[str, Any]:
    """`settings` with our hooks (re)placed and everything else untouched."""
    out = removed(settings)
    hooks = out.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise EnfError("the settings file's \"hooks\" is not an object", hint="fix it by hand, then rerun git enf init")
    for event, matcher, timeout, arg in EVENTS:
        group: dict[str, Any] = {} if matcher is None else {"matcher": matcher}
        group["hooks"] = [{"type": "command", "command": f"{program} {arg}", "timeout": timeout}]
        hooks.setdefault(event, []).append(group)
    return out


def removed(settings: dict[str, Any]) -> dict[str, Any]:
    """`settings` without any of our hook entries (and without groups we emptied)."""
    out: dict[str, Any] = json.loads(json.dumps(settings))
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                inner = [h for h in group["hooks"] if not is_ours(h)]
                if not inner and group["hooks"]:
                    continue  # the group held only our entries
                group["hooks"] = inner
            kept.append(group)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if not hooks:
        del out["hooks"]
    return out


def read_settings(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise EnfError(f"{path} is not valid JSON ({exc}); left it untouched",
                       hint=f"fix {path}, then rerun the command") from exc
    if not isinstance(data, dict):
        raise EnfError(f"{path} is not a JSON object; left it untouched", hint=f"fix {path}, then rerun")
    return data


def write_settings(path: Path, data: dict[str, Any]) -> bool:
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic.write(path, text.encode("utf-8"))
    return True


def skill_source() -> Path:
    return Path(__file__).parent.parent / "skill" / "SKILL.md"


def skill_path(scope: str, top: Path, home: Path) -> Path:
    base = home / ".claude" if scope == "user" else top / ".claude"
    return base / "skills" / SKILL_NAME / "SKILL.md"


def install(scope: str, top: Path, home: Path) -> Installed:
    path = settings_path(scope, top, home)
    program = hook_program(scope)
    changed = write_settings(path, merged(read_settings(path), program))
    skill = skill_path(scope, top, home)
    skill.parent.mkdir(parents=True, exist_ok=True)
    text = skill_source().read_text(encoding="utf-8")
    if not skill.is_file() or skill.read_text(encoding="utf-8") != text:
        skill.write_text(text, encoding="utf-8")
        changed = True
    return Installed(path, program, skill, changed)


def uninstall(scope: str, top: Path, home: Path) -> list[Path]:
    """Remove our hook entries and skill; returns the files changed."""
    changed = []
    path = settings_path(scope, top, home)
    if path.is_file():
        data = read_settings(path)
        if write_settings(path, removed(data)):
            changed.append(path)
    skill = skill_path(scope, top, home)
    if skill.is_file() and skill.read_text(encoding="utf-8") == skill_source().read_text(encoding="utf-8"):
        skill.unlink()
        try:
            skill.parent.rmdir()
        except OSError:
            pass
        changed.append(skill)
    return changed
