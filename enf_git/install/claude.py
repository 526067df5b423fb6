"""Register the hooks (and the skill and slash commands) with Claude Code; remove exactly what we added.

Scopes (docs/claude-code.md): `local` writes `.claude/settings.local.json` (per user,
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import EnfError
from ..paths import LAUNCH  # how settings call the hook (see there)
from ..plumbing import atomic
from . import copied, slash

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
# What `init --scope local` adds to .git/info/exclude: per-user files inside the repo
# (and one line per slash command it placed, slash.EXCLUDES: never a user's own command's).
LOCAL_EXCLUDES = ("/.claude/settings.local.json", f"/.claude/skills/{SKILL_NAME}/")
# What uninstall may take out of .git/info/exclude (only lines below our marker comment).
OWN_EXCLUDES = LOCAL_EXCLUDES + slash.EXCLUDES


@dataclass(frozen=True)
class Installed:
    settings: Path
    command: str
    skill: Path | None
    changed: bool
    created: tuple[Path, ...] = ()  # files and folders that did not exist before
    commands: tuple[Path, ...] = ()  # the slash commands in place, ours
    notes: tuple[str, ...] = ()  # what the user should know: their own files kept
    excludes: tuple[str, ...] = ()  # .git/info/exclude lines this scope needs (local only)


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
    """Write `data` in the style the file already has (one line stays one line, its indent
    stays), else indented by 2; False when the file already holds exactly that."""
    try:
        before: str | None = path.read_text(encoding="utf-8")
    except (FileNotFoundError, IsADirectoryError, UnicodeDecodeError):
        before = None
    text = dump_like(data, before)
    if before == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic.write(path, text.encode("utf-8"))
    return True


def dump_like(data: dict[str, Any], before: str | None) -> str:
    """`data` as JSON laid out like `before` (the file's text as the user left it)."""
    if before is None or not before.strip():
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    body, end = before.rstrip("\r\n"), before[len(before.rstrip("\r\n")):]
    if "\n" not in body.strip():  # a one-line file: compact, with its own separators
        tight = '":' in body and '": ' not in body
        return json.dumps(data, ensure_ascii=False, separators=(",", ":") if tight else None) + end
    indent: str | int = 2
    for line in body.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            lead = line[: len(line) - len(stripped)]
            indent = lead if "\t" in lead else len(lead)
            break
    return json.dumps(data, indent=indent, ensure_ascii=False) + (end or "")


def skill_source() -> Path:
    return Path(__file__).parent.parent / "skill" / "SKILL.md"


def skill_sources() -> list[Path]:
    """SKILL.md and the parts it sends the assistant to (analytics.md): one folder, as
    Claude Code reads a skill; only SKILL.md is loaded when the skill is used."""
    return sorted(skill_source().parent.glob("*.md"))


def copy_skill(folder: Path) -> list[Path]:
    """Every part of the shipped skill into `folder` (each client's skills folder takes the
    same files); the parts written, none when all were already as shipped."""
    written = []
    for source in skill_sources():
        target = folder / source.name
        data = source.read_bytes()
        if not target.is_file() or target.read_bytes() != data:
            folder.mkdir(parents=True, exist_ok=True)
            atomic.write(str(target), data)
            written.append(target)
    return written


def remove_skill_parts(folder: Path) -> tuple[list[Path], list[Path]]:
    """(removed, kept): each part of the skill in `folder` that is as shipped goes; one
    that differs (the user's edits) stays, and the caller says so."""
    removed, kept = [], []
    for source in skill_sources():
        part = folder / source.name
        if not part.is_file():
            continue
        if part.read_bytes() == source.read_bytes():
            part.unlink()
            removed.append(part)
        else:
            kept.append(part)
    return removed, kept


def skill_as_shipped(folder: Path) -> bool:
    """Whether every part of the shipped skill is in `folder`, unchanged."""
    return all((folder / s.name).is_file() and (folder / s.name).read_bytes() == s.read_bytes()
               for s in skill_sources())


def skill_path(scope: str, top: Path, home: Path) -> Path:
    base = home / ".claude" if scope == "user" else top / ".claude"
    return base / "skills" / SKILL_NAME / "SKILL.md"


def install(scope: str, top: Path, home: Path, record: Path | None = None) -> Installed:
    """Register our hooks and copy the skill; `record` (`.git/enf/installed.json`)
    remembers what this created and the settings file's text before, for uninstall."""
    path = settings_path(scope, top, home)
    skill = skill_path(scope, top, home)
    base = home if scope == "user" else top
    commands = slash.targets(scope, top, home).values()
    parts = [skill.parent / source.name for source in skill_sources()]
    candidates = (*_chain(path, base), *(p for part in parts for p in _chain(part, base)),
                  *(p for c in commands for p in _chain(c, base)))
    absent = [p for p in dict.fromkeys(candidates) if not p.exists() and not p.is_symlink()]
    before = path.read_text(encoding="utf-8") if path.is_file() else None
    program = hook_program(scope)
    changed = write_settings(path, merged(read_settings(path), program))
    skill.parent.mkdir(parents=True, exist_ok=True)
    changed = bool(copy_skill(skill.parent)) or changed
    placed = slash.place(scope, top, home, _recorded(record, top, home) if record is not None else {})
    changed = changed or bool(placed.written)
    created = tuple(p for p in absent if p.exists())  # what this run made (not a foreign file's folder)
    if record is not None and (created or changed or placed.foreign):
        _remember(record, path, created, before if changed else None, placed, top, home)
    excludes = (*LOCAL_EXCLUDES, *map(slash.exclude_line, placed.ours)) if scope == "local" else ()
    return Installed(path, program, skill, changed, created, placed.ours,
                     tuple(map(slash.kept_note, placed.foreign)), excludes)


def _chain(path: Path, base: Path) -> list[Path]:
    """`path` and its folders below `base`, outermost first."""
    out = [path]
    while out[-1].parent != base and base in out[-1].parents:
        out.append(out[-1].parent)
    return out[::-1]


# --- taking it away ---------------------------------------------------------------------

# The record: per settings file (absolute path; local scope has one per worktree), the
# paths init created and the file's text before we first changed it. Kept in the
# common git dir, never committed. Without it (an older init, or the user scope
# installed from another repository) uninstall decides by content alone.
RECORD = "installed.json"
EXCLUDE_MARK = "# added by enf-git"  # the comment plumbing.workcopy.ensure_excluded writes above each line


@dataclass
class Removed:
    """What uninstall did, as lines for the user, and what it left on purpose."""

    done: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)


def _load_record(record: Path, top: Path | None = None, home: Path | None = None) -> dict[str, Any]:
    """The record; with `top` and `home`, an original's paths (a `cp -a` copy) read as this work tree's."""
    try:
        data = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return copied.rebase(data, top, home, record.parent.parent) if top is not None and home is not None else data


def _save_record(record: Path, data: dict[str, Any]) -> None:
    if not data:
        record.unlink(missing_ok=True)
        return
    record.parent.mkdir(parents=True, exist_ok=True)
    atomic.write(record, (json.dumps(data, indent=2, sort_keys=True) + "\n").encode("utf-8"))


def _remember(record: Path, settings: Path, created: tuple[Path, ...], before: str | None,
              placed: slash.Placed, top: Path, home: Path) -> None:
    """Add to what an earlier init recorded: the first init's creations and text stand.
    `foreign`: the user's own files with a command's name, which uninstall never deletes."""
    data = _load_record(record, top, home)
    entry = data.setdefault(str(settings), {"created": [], "before": None})
    entry["created"] = sorted(set(entry.get("created", [])) | {str(p) for p in created})
    if entry.get("before") is None and before is not None and str(settings) not in entry["created"]:
        entry["before"] = before
    wrote = entry.get("commands") if isinstance(entry.get("commands"), dict) else {}
    entry["commands"] = {**wrote, **{str(p): slash.digest(p.read_bytes()) for p in placed.ours}}
    foreign = (set(entry.get("foreign", [])) - {str(p) for p in placed.ours}) | {str(p) for p in placed.foreign}
    entry["foreign"] = sorted(foreign)
    _save_record(record, data)


def recorded_settings(record: Path, top: Path, home: Path) -> set[Path]:
    """The settings files an init registered our hooks in (and no uninstall took back)."""
    return {Path(p) for p in _load_record(record, top, home)}


def _recorded(record: Path, top: Path, home: Path) -> dict[Path, str]:
    """Every command file an init wrote (path -> digest of its text), in any scope: local
    and project scope share .claude/commands/."""
    out: dict[Path, str] = {}
    for entry in _load_record(record, top, home).values():
        wrote = entry.get("commands") if isinstance(entry, dict) else None
        if isinstance(wrote, dict):
            out.update({Path(p): d for p, d in wrote.items() if isinstance(p, str) and isinstance(d, str)})
    return out


def uninstall(scope: str, top: Path, home: Path, record: Path | None = None) -> Removed:
    """Remove our hook entries and skill, and whatever init created that is empty now."""
    out = Removed()
    path = settings_path(scope, top, home)
    data = _load_record(record, top, home) if record is not None else {}
    entry = data.pop(str(path), None)
    created = {Path(p) for p in entry.get("created", [])} if isinstance(entry, dict) else None
    before = entry.get("before") if isinstance(entry, dict) else None
    foreign = {Path(p) for p in entry.get("foreign", [])} if isinstance(entry, dict) else set()
    wrote = _recorded(record, top, home) if record is not None else {}  # read before this scope's entry is dropped
    if path.is_file():
        _clean_settings(path, created, before if isinstance(before, str) else None, out)
    sharing = _sharing_scope(scope, top, home)
    if sharing is not None and isinstance(entry, dict):
        _hand_over(data, settings_path(sharing, top, home), entry, path)
    if sharing is None:
        _remove_skill(skill_path(scope, top, home), out)
        done, kept = slash.take_away(scope, top, home, wrote, foreign | _foreign_elsewhere(data, path))
        out.done += done
        out.kept += kept
    # Deepest first, so a folder emptied by its child's removal goes too. Without a
    # record, only the skill's own folder, which is ours by its name.
    folders = {p for p in (created or ()) if p != path} | {skill_path(scope, top, home).parent}
    for folder in sorted(folders, key=lambda p: (-len(p.parts), str(p))):
        if folder.is_dir() and not folder.is_symlink():
            _rmdir_if_empty(folder, out)
    if record is not None:
        _save_record(record, data)
    return out


def _clean_settings(path: Path, created: set[Path] | None, before: str | None, out: Removed) -> None:
    data = read_settings(path)
    left = removed(data)
    if left == data:
        return  # none of ours
    if not left and (created is None or path in created):
        path.unlink()  # it held nothing but our entries
        out.done.append(f"deleted {path} (enf-git created it; nothing else was in it)")
        return
    if before is not None and _parsed(before) == left:
        atomic.write(path, before.encode("utf-8"))  # byte for byte as it was before init
    else:
        write_settings(path, left)
    out.done.append(f"removed enf-git entries from {path}")


def _parsed(text: str) -> object:
    try:
        return json.loads(text) if text.strip() else {}
    except ValueError:
        return None


def _foreign_elsewhere(data: dict[str, Any], settings: Path) -> set[Path]:
    """The user's own command files that another scope's init recorded (the folder is shared)."""
    out: set[Path] = set()
    for key, entry in data.items():
        if key != str(settings) and isinstance(entry, dict) and isinstance(entry.get("foreign"), list):
            out |= {Path(p) for p in entry["foreign"] if isinstance(p, str)}
    return out


def _sharing_scope(scope: str, top: Path, home: Path) -> str | None:
    """Local and project scope share one skill and one commands folder: the other scope
    of the two while it still has our hooks (keep them for it), else None."""
    others = [s for s in SCOPES if s != scope and skill_path(s, top, home) == skill_path(scope, top, home)]
    for other in others:
        try:
            settings = read_settings(settings_path(other, top, home))
        except EnfError:
            continue
        if removed(settings) != settings:
            return other
    return None


def _hand_over(data: dict[str, Any], heir: Path, entry: dict[str, Any], settings: Path) -> None:
    """What this scope's init created and still stands (skill, commands, their folders) is
    the other scope's to remove now: without this, the last uninstall would leave it."""
    inherited = [p for p in entry.get("created", []) if isinstance(p, str) and p != str(settings)]
    target = data.setdefault(str(heir), {"created": [], "before": None})
    target["created"] = sorted(set(target.get("created", [])) | set(inherited))
    commands = entry.get("commands")
    if isinstance(commands, dict):
        target["commands"] = {**commands, **(target.get("commands") or {})}


def _remove_skill(skill: Path, out: Removed) -> None:
    removed, kept = remove_skill_parts(skill.parent)
    out.done += [f"deleted the skill {part}" if part == skill else f"deleted the skill's {part}" for part in removed]
    out.kept += [f"kept {part}: it differs from the skill enf-git ships (your edits?); delete it if unwanted"
                 for part in kept]


def _rmdir_if_empty(folder: Path, out: Removed) -> None:
    try:
        folder.rmdir()
    except OSError:
        return  # not empty (someone else's files), or already gone
    out.done.append(f"deleted the empty folder {folder}")


def remove_excluded(exclude: Path, entries: tuple[str, ...]) -> list[str]:
    """Remove the lines we added to info/exclude: each of `entries` right below our
    comment. A user's own copy of the same line (no comment above it) stays."""
    try:
        lines = exclude.read_text(encoding="utf-8").splitlines(keepends=True)
    except OSError:
        return []
    kept, gone = [], []
    i = 0
    while i < len(lines):
        if lines[i].rstrip("\r\n") == EXCLUDE_MARK and i + 1 < len(lines) and lines[i + 1].strip() in entries:
            gone.append(lines[i + 1].strip())
            i += 2
            continue
        kept.append(lines[i])
        i += 1
    if gone:
        atomic.write(exclude, "".join(kept).encode("utf-8"))
    return gone
