"""What the other clients' installs share (codex.py, gemini.py, cursor.py, copilot.py):
the lines a run reports, finding our entries in a hooks file, taking them out again, and
the skill folder. Each client's module keeps what is really its own: where its files
live, its events and their entry shape, and its words to the user.

Two hooks-file shapes: Claude Code's grouped one (`hooks: {Event: [{matcher?, hooks:
[entry]}]}`: Codex, Gemini CLI, Qwen Code; claude.add_groups writes it) and a flat one
(`hooks: {event: [entry]}`: Cursor, Copilot CLI). An entry is ours by its command
(claude.is_ours), so every step here is idempotent.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import EnfError
from . import claude

Data = dict[str, Any]


@dataclass
class Done:
    """What install or uninstall did, as lines for the user."""

    lines: list[str] = field(default_factory=list)
    changed: bool = False

    def add(self, other: Done) -> None:
        self.lines += other.lines
        self.changed = self.changed or other.changed


def client_home(env: "dict[str, str] | os._Environ[str]", variable: str, home: Path, folder: str) -> Path:
    """`$VARIABLE`, else `~/FOLDER`: how Codex (CODEX_HOME) and Copilot CLI (COPILOT_HOME) find theirs."""
    value = env.get(variable)
    return Path(value) if value else home / folder


def registered_grouped(path: Path) -> list[str]:
    """The commands of our entries in a grouped hooks file (none: not registered). An
    unreadable file registers nothing: doctor and status only ask."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    hooks = data.get("hooks") if isinstance(data, dict) else None
    found = []
    for groups in hooks.values() if isinstance(hooks, dict) else ():
        for group in groups if isinstance(groups, list) else ():
            for entry in group.get("hooks", []) if isinstance(group, dict) else ():
                if claude.is_ours(entry):
                    found.append(str(entry["command"]))
    return found


def registered_flat(path: Path, key: str, ours: Callable[[object], bool]) -> list[str]:
    """The `key` (the command's field) of our entries in a flat hooks file."""
    try:
        data = claude.read_settings(path)
    except EnfError:
        return []
    hooks = data.get("hooks")
    return [str(e[key]) for entries in (hooks.values() if isinstance(hooks, dict) else ())
            for e in (entries if isinstance(entries, list) else ()) if ours(e)]


def flat_removed(data: Data, ours: Callable[[object], bool], keep_empty: bool) -> Data:
    """`data` (a flat hooks file) without our entries, and without the events we emptied.
    `keep_empty`: an event list that was already empty stays (Cursor's file is shared with
    the user's own hooks); without it, every empty list goes (Copilot's file is ours)."""
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return {**data}
    kept: Data = {}
    for event, entries in hooks.items():
        if not isinstance(entries, list):
            kept[event] = entries
            continue
        left = [e for e in entries if not ours(e)]
        if left or (keep_empty and not entries):
            kept[event] = left
    return {**data, "hooks": kept}


def nothing_left(data: Data) -> bool:
    """A settings file with no key left: the file goes."""
    return not data


def only_version_left(data: Data) -> bool:
    """A versioned hooks file with no hook and no other key left: only what we wrote was in it."""
    return not data.get("hooks") and not set(data) - {"version", "hooks"}


def write_hooks(path: Path, data: Data, title: str, scope: str, calling: str) -> Done:
    """Write the hooks file and say so; `calling` is the command an event runs, EVENT for its argument."""
    done = Done(changed=claude.write_settings(path, data))
    verb = "registered" if done.changed else "already registered"
    done.lines.append(f"{title} hooks {verb} in {path} (scope {scope}), calling: {calling} EVENT")
    return done


def take_out(path: Path, strip: Callable[[Data], Data], empty: Callable[[Data], bool], said: str) -> Done:
    """`path` without what `strip` removes; the file goes when `empty` says nothing of the
    user's is left in it. `said` is the line reported when anything was removed."""
    done = Done()
    if not path.is_file():
        return done
    before = claude.read_settings(path)
    after = strip(before)
    if after == before:
        return done
    if empty(after):
        path.unlink()
    else:
        claude.write_settings(path, after)
    done.changed = True
    done.lines.append(said)
    return done


def install_skill(skill: Path, title: str, done: Done) -> None:
    """Every part of the shipped skill beside `skill` (its SKILL.md)."""
    if claude.copy_skill(skill.parent):
        done.changed = True
        done.lines.append(f"{title} skill written to {skill}")


def uninstall_skill(skill: Path, title: str, done: Done) -> None:
    """The parts of the skill as shipped; a part the user edited stays, and the line says so."""
    removed, kept = claude.remove_skill_parts(skill.parent)
    if removed:
        rmdir_if_empty(skill.parent)
        done.changed = True
        done.lines.append(f"removed the {title} skill {skill}")
    done.lines += [f"kept {part}: it differs from enf-git's skill (your edits?); delete it by hand" for part in kept]


def rmdir_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:
        pass  # not empty (the user's files), or already gone
