"""The working copy: `.claude-sessions/` in the work tree, materialized from the branch.

The assistant edits plain files here. A per-worktree manifest (in this worktree's
git dir) remembers the blob OID each file had when we last wrote or committed it,
which gives every path a merge base: "changed since materialized" is
`hash(file) != manifest[path]`, and a branch-side change is `tip[path] !=
manifest[path]`. Local-only folders (raw event logs, markers, rejected view edits)
are never committed. Symlinks are never followed, so nothing outside the folder is
read or written through this module.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

WC_DIR = ".claude-sessions"
EXCLUDE_LINE = f"/{WC_DIR}/"
# Machine-local: event logs, session markers, refused view edits. Never committed.
LOCAL_ONLY = ("raw/", ".active/", ".opt-out/", ".rejected/", ".enf/")


@dataclass
class Manifest:
    base: str | None = None
    files: dict[str, str] = field(default_factory=dict)  # path -> blob OID last synced

    @classmethod
    def load(cls, path: Path) -> Manifest:
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            return cls(raw.get("base"), dict(raw.get("files", {})))
        except (OSError, ValueError, AttributeError):
            return cls()

    def save(self, path: Path) -> None:
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"base": self.base, "files": self.files}, sort_keys=True, indent=0), encoding="utf-8")
        os.replace(tmp, path)


def is_local_only(path: str) -> bool:
    return path.startswith(LOCAL_ONLY) or any(part.startswith(".") for part in path.split("/"))


def confine(root: Path, rel: str) -> Path:
    """`root/rel`, refusing anything that could land outside `root` (.., absolute, symlinks)."""
    parts = rel.replace("\\", "/").split("/")
    if not rel or rel.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise ValueError(f"refusing unsafe path {rel!r}")
    target = root.joinpath(*parts)
    probe = root
    for part in parts:
        probe = probe / part
        if probe.is_symlink():
            raise ValueError(f"refusing to follow symlink {probe}")
    return target


def scan(root: Path) -> dict[str, bytes]:
    """Every synced file under `root` (local-only folders and symlinks skipped)."""
    out: dict[str, bytes] = {}
    if not root.is_dir():
        return out
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
        prefix = "" if rel_dir == "." else f"{rel_dir}/"
        dirnames[:] = sorted(d for d in dirnames if not (prefix + d + "/").startswith(LOCAL_ONLY) and not d.startswith("."))
        for name in sorted(filenames):
            full = Path(dirpath) / name
            if name.startswith(".") or name.endswith((".tmp", "~")) or full.is_symlink():
                continue
            try:
                out[prefix + name] = full.read_bytes()
            except OSError:
                continue
    return out


def write_file(root: Path, rel: str, data: bytes) -> None:
    target = confine(root, rel)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, target)


def remove_file(root: Path, rel: str) -> None:
    target = confine(root, rel)
    try:
        target.unlink()
    except FileNotFoundError:
        return
    parent = target.parent
    while parent != root and parent.is_dir() and not any(parent.iterdir()):
        parent.rmdir()
        parent = parent.parent


def ensure_excluded(common_git_dir: Path, entry: str = EXCLUDE_LINE) -> bool:
    """Add `entry` (default `/.claude-sessions/`) to info/exclude (shared by all worktrees); True if added."""
    exclude = common_git_dir / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    try:
        text = exclude.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    bare = entry.strip("/")
    if any(line.strip().strip("/") == bare for line in text.splitlines()):
        return False
    sep = "" if not text or text.endswith("\n") else "\n"
    exclude.write_text(f"{text}{sep}# added by enf-git\n{entry}\n", encoding="utf-8")
    return True
