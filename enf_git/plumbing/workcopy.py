"""The working copy: `.claude-sessions/` in the work tree, materialized from the branch.

The assistant edits plain files here. A per-worktree manifest (in this worktree's
git dir) remembers the blob OID each file had when we last wrote or committed it,
which gives every path a merge base: "changed since materialized" is
`hash(file) != manifest[path]`, and a branch-side change is `tip[path] !=
manifest[path]`. Local-only folders (raw event logs, markers, rejected view edits)
and files (the scratchpad) are never committed. Symlinks are never followed, so nothing outside the folder is
read or written through this module.
"""

from __future__ import annotations

import marshal
import os
import stat
import time
from collections.abc import Callable
from pathlib import Path

from .. import paths
from . import atomic

WC_DIR = paths.WC_DIR
EXCLUDE_LINE = paths.EXCLUDE_LINE
LOCAL_ONLY = paths.LOCAL_ONLY
# Folders prefix-match ("raw/" holds "raw/x.jsonl"); a file matches only itself, so that
# "scratchpad.md" does not also take "scratchpad.md.bak" or a folder "scratchpad.md.d/".
LOCAL_DIRS = tuple(e for e in LOCAL_ONLY if e.endswith("/"))
LOCAL_FILES = frozenset(e for e in LOCAL_ONLY if not e.endswith("/"))
RACY_NS = 100_000_000  # well above a kernel timestamp tick (jiffies: 1-10 ms)
IN_FLIGHT_NS = 2_000_000_000  # an empty record this fresh is a write in progress


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="ascii")
    except (OSError, ValueError):
        return None


class Manifest:
    """What this worktree's working copy was last synced to (a plain class: see memory.Context)."""

    __slots__ = ("base", "files", "floor", "marked", "stats")

    def __init__(self, base: str | None = None, files: dict[str, str] | None = None,
                 stats: dict[str, list[int]] | None = None, floor: str | None = None,
                 marked: list[str] | None = None) -> None:
        self.base = base
        self.files: dict[str, str] = files if files is not None else {}  # path -> blob OID last synced
        # path -> [size, mtime_ns, inode] when that OID was last verified: like git's index,
        # an unchanged stat means an unchanged file, so 10,000 files need no re-hashing.
        self.stats: dict[str, list[int]] = stats if stats is not None else {}
        # The oldest session path of the working set when it was last computed (None: the
        # working copy holds every session). Sessions older than this that are not here
        # already are left on the branch; see memory.working_set_size.
        self.floor = floor
        # The folders ("" = the working copy itself, else a top-level folder) that got a
        # FOLDER_MARK file when they held every file of ours they should. A folder deleted
        # and made again (`git clean -xfd`, then the assistant writes its session file)
        # lacks it, so the files it lacks vanished with it and are never deletions to
        # commit. A mark, not the folder's inode: ext4 hands a new folder the inode of
        # the one just deleted.
        self.marked: list[str] = marked if marked is not None else []

    # Stored with marshal, not JSON: it is read and written on every commit and holds
    # two entries per file (~1.5 MB as JSON at 10,000 sessions; json.dumps alone took
    # ~25 ms). It is a local cache of this machine's Python: anything unreadable
    # (another Python version, corruption) just means "no manifest", which is safe.
    @classmethod
    def load(cls, path: Path) -> Manifest:
        try:
            raw = marshal.loads(path.read_bytes())
            base, files, stats, floor = raw["base"], raw["files"], raw["stats"], raw.get("floor")
            marked = raw.get("marked")
            if (base is None or isinstance(base, str)) and isinstance(files, dict) and isinstance(stats, dict):
                return cls(base, files, stats, floor if isinstance(floor, str) else None,
                           marked if isinstance(marked, list) else None)
        except (OSError, ValueError, EOFError, TypeError, KeyError):
            pass
        return cls()

    def save(self, path: Path) -> None:
        atomic.write(path, marshal.dumps({"base": self.base, "files": self.files, "stats": self.stats,
                                         "floor": self.floor, "marked": self.marked}))
        # The git hooks (a shell, no Python) compare this with the branch after a checkout:
        # equal, and this worktree's copy is current; else another worktree committed.
        marker = path.with_name(paths.MATERIALIZED)
        if self.base is not None and _read_text(marker) != self.base:
            atomic.write(marker, self.base.encode())

    def replaced(self, root: Path, folder: str) -> bool:
        """Whether `folder` ("" = the working copy) is another folder than the one that
        last held all our files there (deleted and made again since: its mark is gone),
        or, for the working copy, was emptied (`rm -rf .claude-sessions/*` keeps the
        folder and its mark, and takes everything of ours in it)."""
        if folder in self.marked and not os.path.isfile(_mark(root, folder)):
            return True
        return folder == "" and bool(self.files) and not any(os.path.lexists(root / top) for top in self._tops())

    def note_folders(self, root: Path, complete: Callable[[str], bool]) -> bool:
        """Mark the working copy and its top-level folders. One never marked is marked as
        it is; one whose mark is gone (made again) only once `complete(folder)` says it
        holds every file it should again, so what it lacks until then stays "vanished".
        Returns whether the manifest changed."""
        changed = False
        for folder in ("", *_folders(root)):
            mark = _mark(root, folder)
            if not os.path.isfile(mark):
                if not os.path.isdir(mark.parent) or folder in self.marked and not complete(folder):
                    continue
                try:
                    mark.write_text(MARK_TEXT, encoding="utf-8")
                except OSError:
                    continue  # a read-only folder: it stays unmarked, and is judged as before
            if folder not in self.marked:
                self.marked.append(folder)
                changed = True
        return changed

    def _tops(self) -> set[str]:
        """The top-level names of our files (asked only when some of them are gone)."""
        return {p.partition("/")[0] for p in self.files}

    def record(self, root: Path, path: str, oid: str) -> None:
        """`path` holds `oid` now (we wrote or verified it)."""
        self.files[path] = oid
        self._stat(root, path)

    def forget(self, path: str) -> None:
        self.files.pop(path, None)
        self.stats.pop(path, None)

    def verified(self, root: Path, path: str) -> str | None:
        """The manifest's OID for `path` if the file's stat still proves it, else None."""
        try:
            st = os.lstat(root / path)
        except OSError:
            return None
        if path in self.files and self.stats.get(path) == [st.st_size, st.st_mtime_ns, st.st_ino]:
            return self.files[path]
        return None

    def local_oid(self, root: Path, path: str, hasher: Callable[[bytes], str]) -> str | None:
        """The blob OID of the working-copy file (None if absent), re-hashing only on a stat change."""
        known = self.verified(root, path)
        if known is not None:
            return known
        target = root / path
        if target.is_symlink() or not target.is_file():
            return None
        return hasher(target.read_bytes())

    def _stat(self, root: Path, path: str) -> None:
        try:
            st = os.lstat(root / path)
        except OSError:
            self.stats.pop(path, None)
            return
        # A file written within one clock tick of now could change again without its
        # mtime moving: never trust such a stat ("racily clean", as git says). File
        # systems with whole-second stamps get a two-second window.
        window = RACY_NS if st.st_mtime_ns % 1_000_000_000 else 2_000_000_000
        if time.time_ns() - st.st_mtime_ns < window:
            self.stats.pop(path, None)
        else:
            self.stats[path] = [st.st_size, st.st_mtime_ns, st.st_ino]


def is_local_only(path: str) -> bool:
    """Never committed, never written from the branch (a branch that holds it from an older
    version keeps it: see memory.commits.pending and working_set.materialize)."""
    return path.startswith(LOCAL_DIRS) or path in LOCAL_FILES or any(part.startswith(".") for part in path.split("/"))


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


MARK_TEXT = ("enf-git keeps this file here to tell a folder that was deleted and made again from files "
             "deleted one by one (the first are restored, the second committed as deletions). Leave it.\n")


def _folders(root: Path) -> list[str]:
    """The working copy's top-level folders, as they are now: a few entries to list,
    where the manifest's 10,000 paths would take ~2 ms to go through on every commit."""
    try:
        return sorted(e.name for e in os.scandir(root) if e.is_dir(follow_symlinks=False) and not e.name.startswith("."))
    except OSError:
        return []


def _mark(root: Path, folder: str) -> Path:
    return (root / folder if folder else root) / paths.FOLDER_MARK


def scan(root: Path, manifest: Manifest | None = None) -> tuple[dict[str, bytes], set[str]]:
    """(synced files whose content may differ from the manifest, every synced path present).

    Files whose stat matches the manifest are neither read nor returned (the manifest's
    OID stands for them); local-only folders, dot-files and symlinks are always skipped.
    """
    changed: dict[str, bytes] = {}
    present: set[str] = set()
    if root.is_dir():
        _scan_dir(str(root), "", manifest, changed, present)
    return changed, present


def _scan_dir(folder: str, prefix: str, manifest: Manifest | None, changed: dict[str, bytes], present: set[str]) -> None:
    # os.scandir, not os.walk + lstat: one syscall per entry and no path re-joining,
    # which matters with 10,000 session files on every commit.
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if name.startswith(".") or name.endswith((".tmp", "~")):
            continue
        path = prefix + name
        if entry.is_dir(follow_symlinks=False):
            if not (path + "/").startswith(LOCAL_DIRS):
                _scan_dir(entry.path, path + "/", manifest, changed, present)
            continue
        if path in LOCAL_FILES:
            continue  # not read, and not "present": its absence is no deletion either
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode):
            continue  # symlinks and specials are never followed or committed
        present.add(path)
        if manifest is not None and path in manifest.files and \
                manifest.stats.get(path) == [st.st_size, st.st_mtime_ns, st.st_ino]:
            continue
        data = _read_settled(entry.path, st)
        if data is not None:
            changed[path] = data


def not_files(root: Path) -> list[tuple[str, str]]:
    """(path, what it is) for each entry of the working copy that scan() passes over
    without a word: symbolic links (to a file or a folder, inside the working copy or
    out of it, dangling) and specials (FIFOs, sockets, devices). Never followed: a link
    to /etc is named, not read. Dot-names and local-only folders, as scan() skips them."""
    found: list[tuple[str, str]] = []
    _not_files(root, str(root), "", found)
    return found


def _not_files(root: Path, folder: str, prefix: str, found: list[tuple[str, str]]) -> None:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        path = prefix + entry.name
        if entry.name.startswith(".") or entry.name.endswith((".tmp", "~")) or path in LOCAL_FILES:
            continue
        if entry.is_dir(follow_symlinks=False):
            if not (path + "/").startswith(LOCAL_DIRS):
                _not_files(root, entry.path, path + "/", found)
            continue
        try:
            mode = entry.stat(follow_symlinks=False).st_mode
        except OSError:
            continue
        if stat.S_ISLNK(mode):
            found.append((path, _link(root, entry.path)))
        elif not stat.S_ISREG(mode):
            found.append((path, "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
                          else "a device file"))


def _link(root: Path, link: str) -> str:
    """What a symbolic link is, in words: where it points and whether that is ours."""
    try:
        target = os.readlink(link)
    except OSError:
        return "a symbolic link"
    resolved, top = os.path.realpath(link), os.path.realpath(root)
    if not os.path.exists(resolved):
        return f"a symbolic link to {target}, which does not exist"
    kind = "folder" if os.path.isdir(resolved) else "file"
    where = "inside" if os.path.commonpath([resolved, top]) == top else "outside"
    return f"a symbolic link to {target} (a {kind} {where} the working copy)"


def _read_settled(path: str, before: os.stat_result) -> bytes | None:
    """The file's bytes, or None while it is being written (the next commit takes it).

    Another process may be writing the file as we read it: a writer that truncates
    then writes leaves it empty for a moment, and a read can straddle a write. An
    empty file touched just now, or one whose stat moved during the read, is skipped.
    """
    if before.st_size == 0 and time.time_ns() - before.st_mtime_ns < IN_FLIGHT_NS:
        return None
    try:
        with open(path, "rb") as f:
            data = f.read()
        after = os.lstat(path)
    except OSError:
        return None
    if (after.st_size, after.st_mtime_ns, after.st_ino) != (before.st_size, before.st_mtime_ns, before.st_ino):
        return None
    return data


def write_file(root: Path, rel: str, data: bytes) -> None:
    target = confine(root, rel)
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic.write(target, data)


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
