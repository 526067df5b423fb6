"""Doctor's checks of the machine-local state: locks, the recall index, the manifest,
and the branch's objects.

None of these is shared with the team and all of them repair themselves in the
common case (a stale ref lock is removed by the next writer, the recall index is
rebuilt), so most findings are warnings; damaged objects of the branch are an
error, because memory would be lost with them.
"""

from __future__ import annotations

import marshal
import os
import sqlite3
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from ... import paths
from ...errors import access_hint
from ...plumbing import locks, search, store, store_write
from .problem import Problem
from ..workspace import Context

LOCK_PATIENCE = 2.0  # seconds: a commit holds the writer lock ~1-6 s at 10,000 sessions, usually ms
VERIFY_TIMEOUT = 120.0  # seconds for git to read every object of the branch
# What the object check keeps of the caller's GIT_* variables: where config lives,
# never anything that points git at another repository or object store.
KEEP_GIT_ENV = ("GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM")


def _state(ctx: Context) -> Path:
    return Path(paths.state_dir(str(store.common_dir(ctx.repo))))  # not store.state_dir: doctor creates nothing


def access(ctx: Context) -> list[Problem]:
    """The folders every commit writes to are writable by this user: a `.git` left owned
    by another (one `sudo git …`) fails every commit, remember and compress."""
    common = store.common_dir(ctx.repo)
    folders = dict.fromkeys([common / paths.STATE_DIR, Path(ctx.repo.path) / paths.STATE_DIR, common / "objects",
                             common / "refs" / "heads"])
    denied = [str(f) for f in folders if f.is_dir() and not os.access(f, os.W_OK)]
    if not denied:
        return []
    return [Problem("error", f"{', '.join(denied)} {'is' if len(denied) == 1 else 'are'} not writable by you: "
                    "commit, remember, compress, pin and restore fail, and recall rebuilds its index at every call",
                    access_hint(denied[0] if len(denied) == 1 else str(common)))]


def writer_lock(ctx: Context) -> list[Problem]:
    """`.git/enf/write.lock` held for longer than any commit takes: a stuck writer.

    Writers give up waiting after 10 s and go on without it (the compare-and-swap
    still protects the branch), so a stuck holder slows every commit, loses nothing.
    """
    lock = _state(ctx) / paths.WRITE_LOCK
    if not lock.is_file() or not os.access(lock, os.W_OK):
        return []  # none, or not ours to take (the access check says so)
    with locks.file_lock(lock, LOCK_PATIENCE) as taken:
        if taken:
            return []
    holder = lock_holder(lock)
    who = f"process {holder[0]} ({holder[1]})" if holder else "another process"
    fix = f"if no git enf command or Claude Code session is running, end it: kill {holder[0]}" if holder else \
        "end the git enf or enf-hook process that hangs (every commit waits 10 s for it)"
    return [Problem("warning", f"{lock} is held by {who} for more than {LOCK_PATIENCE:g} s: "
                    "every commit waits 10 s for it, then goes on without it", fix)]


def lock_holder(path: Path) -> tuple[int, str] | None:
    """(pid, command line) of the process holding a flock on `path`, from Linux's /proc/locks."""
    try:
        inode = path.stat().st_ino
        with open("/proc/locks", encoding="ascii", errors="replace") as f:
            rows = [line.split() for line in f]
    except OSError:
        return None
    for row in rows:
        # "1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF"; waiters show "->" after the number
        if len(row) >= 6 and row[1] == "FLOCK" and row[5].rsplit(":", 1)[-1] == str(inode) and row[4].isdigit():
            return int(row[4]), _cmdline(int(row[4]))
    return None


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            words = f.read().split(b"\0")
    except OSError:
        return "?"
    text = " ".join(w.decode("utf-8", "replace") for w in words if w)
    return text if len(text) <= 80 else text[:77] + "..."


def ref_lock(ctx: Context) -> list[Problem]:
    """`refs/heads/claude-memory.lock` older than any live git update: its writer died,
    and plain git (fetch, branch -D, push's tracking update) fails until it is gone."""
    lock = store.common_dir(ctx.repo) / f"{paths.REF}.lock"
    try:
        age = time.time() - lock.stat().st_mtime
    except OSError:
        return []
    if age < store_write.STALE_REF_LOCK:
        return []
    return [Problem("warning", f"{lock} was left {int(age)} s ago by a git process that did not finish: "
                    f"git cannot update {paths.BRANCH} while it exists",
                    f"if no git command is running: rm {lock} (the next git enf commit also removes it)")]


def recall_index(ctx: Context) -> list[Problem]:
    """The index opens and has the current schema (else recall rebuilds it: slower once)."""
    db_path = _state(ctx) / paths.SEARCH_DB
    if not db_path.is_file():
        return []  # built at the first recall
    if _being_updated(_state(ctx) / paths.SEARCH_LOCK):
        return []  # a recall or the background refresh is building it: half a database is no problem
    try:
        db = sqlite3.connect(f"{db_path.as_uri()}?mode=ro", uri=True, timeout=5)
        try:
            row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        finally:
            db.close()
    except sqlite3.Error as exc:
        return [Problem("warning", f"the recall index {db_path} cannot be read ({exc})",
                        "none needed: git enf recall rebuilds it (or delete the file)")]
    if row is None or row[0] != str(search.SCHEMA):
        have = "no schema" if row is None else f"schema {row[0]}"
        return [Problem("warning", f"the recall index {db_path} has {have}, this version reads schema {search.SCHEMA}",
                        "none needed: the next git enf recall rebuilds it")]
    return []


def _being_updated(lock: Path) -> bool:
    if not lock.exists() or not os.access(lock, os.W_OK):
        return False
    with locks.file_lock(lock, wait=0) as free:
        return not free


def manifest(ctx: Context) -> list[Problem]:
    """What the working copy was last synced to: without it, a commit cannot tell the
    assistant's edits from the branch's changes."""
    path = ctx.manifest_path
    if not ctx.root.is_dir():
        return []  # the working-copy check names that
    try:
        raw = marshal.loads(path.read_bytes())
        base = raw["base"]
    except FileNotFoundError:
        return [Problem("warning", f"no manifest ({path}): the working copy's last sync is unknown",
                        "git enf restore (writes it)")]
    except (OSError, ValueError, EOFError, TypeError, KeyError) as exc:
        return [Problem("warning", f"the manifest {path} cannot be read ({type(exc).__name__}): "
                        "the working copy's last sync is unknown", "git enf restore (rewrites it)")]
    if base is not None and store.commit_at(ctx.repo, str(base)) is None:
        return [Problem("warning", f"the manifest's base commit {str(base)[:12]} is not in this repository",
                        "git enf commit (any commit re-records it)")]
    return []


def branch_objects(ctx: Context) -> list[Problem]:
    """Every object the branch reaches is present and reads back to its own hash.

    Not `git fsck <ref>`: whatever refs it is given, fsck reads every object of the
    repository (the user's too: minutes on a large one) and reports their damage as
    ours; `--connectivity-only` never reads blobs, so it misses a corrupt one.
    `rev-list --objects --verify-objects` walks only the branch and hashes each tree
    and blob it reaches. It reports some hash mismatches on stderr with exit code 0,
    so any error line counts as a failure.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k in KEEP_GIT_ENV}
    env["GIT_TERMINAL_PROMPT"] = "0"
    argv = ["git", "--git-dir", str(Path(ctx.repo.path)), "rev-list", "--objects", "--verify-objects", "--quiet",
            "--missing=allow-promisor", paths.REF]  # a partial clone's absent blobs are not damage, and are not fetched
    command = f"git rev-list --objects --verify-objects {paths.BRANCH}"
    try:
        proc = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              errors="replace", timeout=VERIFY_TIMEOUT)
    except subprocess.TimeoutExpired:
        return [Problem("warning", f"{command} took over {VERIFY_TIMEOUT:g} s: the branch's objects were not verified",
                        f"git fsck --no-dangling {paths.BRANCH}")]
    except OSError as exc:
        return [Problem("warning", f"could not run git to verify the branch's objects ({exc.strerror})",
                        "install git, then git enf doctor")]
    lines = proc.stderr.splitlines()
    # fatal: first, since it names the damaged file; each message once (git repeats them)
    errors = list(dict.fromkeys([line for line in lines if line.startswith("fatal:")] +
                                [line for line in lines if line.startswith("error:")]))
    if proc.returncode == 0 and not errors:
        return []
    first = "; ".join((errors or [line for line in lines if line.strip()] or [f"exit code {proc.returncode}"])[:3])
    return [Problem("error", f"the {paths.BRANCH} branch has damaged or missing objects ({command}: {first})",
                    "git fsck --no-dangling names each one; if a remote has the branch, move the damaged files "
                    "out of .git/objects and run git fetch origin, then git enf doctor")]


LOCAL: tuple[tuple[str, Callable[[Context], list[Problem]]], ...] = (
    ("write access", access),
    ("writer lock", writer_lock),
    ("ref lock", ref_lock),
    ("recall index", recall_index),
)
