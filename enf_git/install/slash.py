"""The slash commands enf-git ships (/remember, /forget, /memories, /pin, /toolset, /stats), placed beside the skill.

Each is a markdown file (enf_git/commands/<name>.md; the plugin's copy is hooks/commands/)
that Claude Code expands into a prompt telling the assistant which `git enf` command to run.
`git enf init` copies them into the scope's commands folder: `.claude/commands/` (project and
local scope share it) or `~/.claude/commands/` (user scope).

A command folder is the user's too, and names like `remember.md` are common, so a file is
ours only if it holds our bytes, or the bytes an earlier init wrote there (the record keeps
their digest: our older version, updated or removed). Anything else with our name is the
user's own command, or our file they edited: never overwritten, never deleted, and said so.
A symlink is never written through.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..plumbing import atomic

NAMES = ("remember", "forget", "memories", "pin", "toolset", "stats")
# What `init --scope local` adds to .git/info/exclude for each command it placed.
EXCLUDES = tuple(f"/.claude/commands/{name}.md" for name in NAMES)


@dataclass(frozen=True)
class Placed:
    """What `place` did: files written (created or updated), and the user's files it kept."""

    written: tuple[Path, ...]
    foreign: tuple[Path, ...]
    ours: tuple[Path, ...]  # every target that now holds our text


def source(name: str) -> Path:
    return Path(__file__).parent.parent / "commands" / f"{name}.md"


def folder(scope: str, top: Path, home: Path) -> Path:
    return (home if scope == "user" else top) / ".claude" / "commands"


def targets(scope: str, top: Path, home: Path) -> dict[str, Path]:
    base = folder(scope, top, home)
    return {name: base / f"{name}.md" for name in NAMES}


def exclude_line(path: Path) -> str:
    return f"/.claude/commands/{path.name}"


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _ours(path: Path, recorded: Mapping[Path, str]) -> bool | None:
    """True: our text (current, or what an init wrote); False: someone else's; None: no file."""
    if path.is_symlink() or (path.exists() and not path.is_file()):
        return False
    if not path.is_file():
        return None
    data = path.read_bytes()
    return data == source(path.stem).read_bytes() or recorded.get(path) == digest(data)


def place(scope: str, top: Path, home: Path, recorded: Mapping[Path, str]) -> Placed:
    """Copy each shipped command into the scope's folder unless a foreign file has its name.

    `recorded`: path -> digest of the text an earlier init wrote there."""
    written, foreign, ours = [], [], []
    for name, path in targets(scope, top, home).items():
        text = source(name).read_bytes()
        if _ours(path, recorded) is False:
            foreign.append(path)
            continue
        if not path.is_file() or path.read_bytes() != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic.write(path, text)
            written.append(path)
        ours.append(path)
    return Placed(tuple(written), tuple(foreign), tuple(ours))


def kept_note(path: Path) -> str:
    return (f"kept {path}: it is not enf-git's /{path.stem} (your own command, or edited), so enf-git's "
            f"is not installed there; move yours aside and rerun git enf init to get it")


def take_away(scope: str, top: Path, home: Path, recorded: Mapping[Path, str],
              foreign: set[Path]) -> tuple[list[str], list[str]]:
    """Delete the commands that hold our text, except files recorded as the user's own.

    Returns (lines said for what was done, lines for what was kept on purpose)."""
    gone, kept = [], []
    for path in targets(scope, top, home).values():
        found = _ours(path, recorded)
        if found is None or path.is_symlink():
            continue
        if found and path not in foreign:
            path.unlink()
            gone.append(f"/{path.stem}")
        elif not found and path in recorded:
            kept.append(f"kept {path}: it differs from the /{path.stem} enf-git wrote (your edits?); "
                        "delete it if unwanted")
    done = [f"deleted the slash commands {', '.join(gone)} from {folder(scope, top, home)}"] if gone else []
    return done, kept


def missing(scope: str, top: Path, home: Path) -> list[str]:
    """The commands with no file at all in the scope's folder (a foreign file counts as there)."""
    return [f"/{name}" for name, path in targets(scope, top, home).items()
            if not path.exists() and not path.is_symlink()]
