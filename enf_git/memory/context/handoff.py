"""The session handoff's I/O: take the snapshot at Stop, print it at the next SessionStart.

What a snapshot holds and how it reads is pure/handoff.py's. Here: two `git` calls in
the work tree, each with a timeout (`status --porcelain=v2 --branch`, then `log` of the
two hours before the stop), both with `--no-optional-locks` so that neither takes
`.git/index.lock` (a plain `git status` refreshes the index under that lock, and one
killed at its timeout would leave the lock behind and block every commit of the user's);
the stopping session's file; the tail of the scratchpad. Every text is redacted before
it is stored. The file lives in this work tree's git dir (`<git dir>/enf/handoff.json`):
per machine and per worktree, never on the branch or in the working copy.

Settings (git config): `enf.handoff` (default true; false neither writes nor prints it),
`enf.scratchpad` (a path relative to the work tree; default `.claude-sessions/scratchpad.md`,
which is local-only like raw/: never committed, so one person's notes stay in their work
tree; a path elsewhere is the user's own file, to commit or not).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

from ... import fastjson, paths
from ...errors import EnfError
from ...plumbing import atomic, store
from ...pure import handoff as ph
from ...pure import model
from ...redact import redact
from ..workspace import Context

HANDOFF_KEY = "enf.handoff"
SCRATCHPAD_KEY = "enf.scratchpad"
GIT_TIMEOUT = 3.0  # seconds per git call: Stop has 25 s, and the commit comes first
SCRATCH_READ = 16 * 1024  # bytes read from the scratchpad's end: its tail is all we show
MAX_FILE = 256 * 1024  # a handoff file is a few KiB; a bigger one is not ours to parse
_FALSE = ("false", "no", "off", "0")
# Read-only git: no optional locks, paths as UTF-8 rather than octal escapes.
_GIT = ["--no-optional-locks", "-c", "core.quotePath=false"]


def enabled(repo: store.Repo) -> bool:
    return (store.config_value(repo, HANDOFF_KEY) or "true").strip().lower() not in _FALSE


def location(repo: store.Repo) -> Path:
    """This work tree's handoff file (its folder is created on demand)."""
    return store.worktree_state_dir(repo) / paths.HANDOFF


def write(repo: store.Repo, session_id: str, session_file: str | None, now: int, env: Mapping[str, str],
          timeout: float = GIT_TIMEOUT) -> Path | None:
    """Take this work tree's snapshot for `session_id` (its file: `session_file`, absolute)
    and store it; None when there is nothing to do (enf.handoff off, no memory branch here,
    a bare repository)."""
    if not enabled(repo) or repo.workdir is None or store.tip(repo) is None:
        return None
    top = os.path.normpath(repo.workdir)
    scratchpad = (store.config_value(repo, SCRATCHPAD_KEY) or paths.SCRATCHPAD).strip()
    snap = capture(top, session_id, session_file, scratchpad, now, env, timeout)
    target = location(repo)
    atomic.write(target, fastjson.dumps(ph.to_record(snap)).encode("utf-8"))
    return target


def capture(top: str, session_id: str, session_file: str | None, scratchpad: str, now: int,
            env: Mapping[str, str], timeout: float = GIT_TIMEOUT) -> ph.Snapshot:
    """The snapshot of the work tree at `top`, redacted; what could not be read is in its notes."""
    notes: list[str] = []
    status = _status(top, env, timeout, notes)
    commits: tuple[str, ...] = ()
    total = 0
    if status is None or status.head:  # before the first commit there is no log to read
        commits, total = _commits(top, now, env, timeout, notes)
    items = _items(top, session_file, notes)
    scratch_tail = _scratch_tail(top, scratchpad, notes) if scratchpad else ""
    rel = _relative(session_file, top) if session_file else ""
    return ph.Snapshot(now, session_id, rel, _redacted_status(status), tuple(redact(c) for c in commits), total,
                       tuple(redact(i) for i in items), scratchpad if scratch_tail else "", redact(scratch_tail),
                       tuple(notes))


def _git(top: str, args: list[str], env: Mapping[str, str], timeout: float, notes: list[str]) -> str | None:
    """git's output, or None (and a note) when it failed or ran out of time."""
    from ...plumbing import gitenv  # Stop's snapshot only: a start never runs git here

    try:
        run = gitenv.run_local(top, [*_GIT, *args], env, timeout)
    except OSError as exc:  # no git binary on PATH
        notes.append(f"git {args[0]} could not run: {exc.strerror or exc}")
        return None
    if run.timed_out:
        notes.append(f"git {args[0]} took longer than {timeout:g} s and was stopped")
        return None
    if run.code != 0:
        first = run.err.strip().splitlines()[:1]
        notes.append(f"git {args[0]} failed: {first[0] if first else f'exit code {run.code}'}")
        return None
    return run.out


def _status(top: str, env: Mapping[str, str], timeout: float, notes: list[str]) -> ph.Status | None:
    # No --untracked-files: the user's status.showUntrackedFiles stands. Set to "no" in a
    # big repository, it is what keeps status fast; overriding it cost seconds per Stop.
    out = _git(top, ["status", "--porcelain=v2", "--branch"], env, timeout, notes)
    return ph.parse_status(out) if out is not None else None


def _commits(top: str, now: int, env: Mapping[str, str], timeout: float,
             notes: list[str]) -> tuple[tuple[str, ...], int]:
    # `@<epoch>` rather than "2.hours.ago": the window is relative to this stop's clock.
    since = f"--since=@{now - ph.RECENT_COMMITS}"
    out = _git(top, ["log", "-n", "100", since, "--format=%h%x09%s", "HEAD", "--"], env, timeout, notes)
    return ph.parse_log(out) if out is not None else ((), 0)


def _items(top: str, session_file: str | None, notes: list[str]) -> tuple[str, ...]:
    """The stopping session's open items, from its file in the working copy."""
    if not session_file:
        return ()
    rel = _relative(session_file, top)
    try:
        with open(session_file, "rb") as f:
            data = f.read(model.MAX_RECORD_BYTES + 1)
        return ph.open_items(model.parse_session(rel, data))
    except OSError as exc:
        notes.append(f"{rel} could not be read: {exc.strerror or exc}")
    except EnfError as exc:  # a malformed file: its problems, each with its line
        notes.append(f"the open items could not be read: {exc.message}")
    return ()


def _relative(path: str, top: str) -> str:
    # Both resolved: the hook's work tree path and libgit2's may differ by a symlink (/tmp on macOS).
    return os.path.relpath(os.path.realpath(path), os.path.realpath(top)).replace(os.sep, "/")


def _scratch_tail(top: str, scratchpad: str, notes: list[str]) -> str:
    """The tail of the scratchpad; "" when it does not exist. A path outside the work tree,
    a symlink out of it, a folder or a FIFO is never read (a FIFO would block Stop)."""
    path = _confined(top, scratchpad)
    if path is None:
        notes.append(f"enf.scratchpad {scratchpad!r} is not a path inside the work tree: not read "
                     f"(git config enf.scratchpad {paths.SCRATCHPAD})")
        return ""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return ""
    except OSError as exc:
        notes.append(f"the scratchpad {scratchpad} could not be read: {exc.strerror or exc}")
        return ""
    with os.fdopen(fd, "rb") as f:
        size = os.fstat(f.fileno())
        if not stat.S_ISREG(size.st_mode):
            return ""
        start = max(size.st_size - SCRATCH_READ, 0)
        f.seek(start)
        data = f.read(SCRATCH_READ)
    if b"\0" in data:
        return ""  # not text
    text = data.decode("utf-8", "replace")
    if start:
        text = text.partition("\n")[2]  # the first line was cut by the seek
    return ph.tail(text)


def _confined(top: str, rel: str) -> str | None:
    """`top/rel` when it stays inside `top` once symlinks are resolved, else None."""
    if os.path.isabs(rel) or "\0" in rel:
        return None
    real_top = os.path.realpath(top)
    path = os.path.realpath(os.path.join(top, rel))
    if path == real_top or os.path.commonpath([path, real_top]) != real_top:
        return None
    return path


def _redacted_status(status: ph.Status | None) -> ph.Status | None:
    if status is None:
        return None
    return status._replace(branch=redact(status.branch), upstream=redact(status.upstream),
                           files=tuple(redact(f) for f in status.files))


def read(repo: store.Repo) -> ph.Snapshot | None:
    """The stored snapshot of this work tree (None: none, or unreadable)."""
    try:
        with open(location(repo), "rb") as f:
            data = f.read(MAX_FILE + 1)
    except OSError:
        return None
    if len(data) > MAX_FILE:
        return None
    try:
        return ph.from_record(fastjson.loads(data.decode("utf-8", "replace")))
    except ValueError:
        return None


def session_start_block(ctx: Context, now: int, current: str = "") -> str:
    """The handoff block of SessionStart's context ("" when off, absent, over 48 hours old,
    or left by `current`, the starting session's first 8 characters, itself)."""
    if not enabled(ctx.repo):
        return ""
    return ph.block(read(ctx.repo), now, current=current)
