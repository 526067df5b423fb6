"""Records written in another place: a repository copied (`cp -a`) or moved keeps its
`.git/enf/` records, whose paths name the folder it was set up in.

init's records (installed.json, mcp-installed.json) name each file by absolute path. In
a copy, those paths are the original's: uninstall would decide about the copy's files
from the original's, and doctor would look for the hooks in the original. Read here, an
entry whose folder (the one holding `.claude/` or `.mcp.json`) is neither this work tree,
the home folder, nor another worktree of this repository is the original's, and its paths
are read as this work tree's. The next write stores them so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

SETTINGS_NAMES = ("settings.json", "settings.local.json")


def rebase(data: dict[str, Any], top: Path, home: Path, common: Path) -> dict[str, Any]:
    """`data` (a record keyed by file path) with the original repository's paths read as `top`'s."""
    moved: dict[str, str] = {}
    for key in data:
        base = _base(Path(key))
        if base is None or base in (top, home) or str(base) in moved or _worktree_of(base, common):
            continue
        moved[str(base)] = str(top)
    return _replace(data, moved) if moved else data


def _base(path: Path) -> Path | None:
    """The folder a recorded file belongs to (a work tree, or home for user scope)."""
    if path.name in SETTINGS_NAMES and path.parent.name == ".claude":
        return path.parent.parent
    if path.name == ".mcp.json":
        return path.parent
    return None


def _worktree_of(folder: Path, common: Path) -> bool:
    """Whether `folder` is a work tree of the repository whose git dir is `common`."""
    dot_git = folder / ".git"
    try:
        if dot_git.is_dir():
            return dot_git.resolve() == common.resolve()
        text = dot_git.read_text(encoding="utf-8").strip()
    except OSError:
        return False  # gone (a moved repository): the record is this one's, from before
    if not text.startswith("gitdir:"):
        return False
    git_dir = (folder / text.removeprefix("gitdir:").strip()).resolve()
    return git_dir.parent.parent == common.resolve()  # <common>/worktrees/<name>


def _replace(value: Any, moved: dict[str, str]) -> Any:
    if isinstance(value, dict):
        return {_path(k, moved): _replace(v, moved) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace(v, moved) for v in value]
    return _path(value, moved) if isinstance(value, str) else value


def _path(text: str, moved: dict[str, str]) -> str:
    for old, new in moved.items():
        if text == old or text.startswith(old + "/"):
            return new + text[len(old):]
    return text
