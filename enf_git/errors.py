"""The error vocabulary. Core code raises these; the edges (CLI, hooks) turn them
into a message and an exit code. Every message says what happened and what to do next."""

from __future__ import annotations

import errno
import os

from . import paths


class EnfError(Exception):
    """Base class: something the user can act on. `hint` is the next thing to type."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message}\nhint: {self.hint}" if self.hint else self.message


class RepoError(EnfError):
    """No usable git repository (none at all, SHA-256, bare, unsafe owner)."""


class NotInitialized(EnfError):
    """The claude-memory branch does not exist yet."""


class ConcurrencyError(EnfError):
    """The branch kept moving under us for longer than the retry budget."""


class RecordError(EnfError):
    """A record file is malformed; carries where and why, and is never rewritten.

    `problems` holds every (line, reason) found in the file, first one first; `path`,
    `line` and `reason` are the first. Line 0 means the file as a whole (a folder where
    a file belongs). The message is one line: "path:line: reason; path:line: reason".
    """

    def __init__(self, path: str, line: int, reason: str,
                 problems: tuple[tuple[int, str], ...] | None = None) -> None:
        self.path = path
        self.problems = problems or ((line, reason),)
        self.line, self.reason = self.problems[0]
        super().__init__("; ".join(self.locations), hint="fix the file by hand, then run: git enf doctor")

    @property
    def locations(self) -> list[str]:
        """Each problem as "path:line: reason" (or "path: reason" for the whole file)."""
        return [f"{self.path}:{line}: {reason}" if line else f"{self.path}: {reason}" for line, reason in self.problems]


class SchemaTooNew(EnfError):
    """A record was written by a newer enf-git; we refuse rather than mangle it."""


class NotFound(EnfError):
    """A session, decision or path the user named does not exist."""


def interrupted_line(command: str | None) -> str:
    """What a Ctrl-C says, wherever it lands (entry.py before the CLI's boundary, cli/app.py in it)."""
    name = f"git enf {command}" if command else "git enf"
    return f"{name}: interrupted; what was done is kept, the rest was not started"


# What the file system says when it will not let us write: a `.git` owned by another
# user (a `sudo git …` once), a read-only mount. Not a bug of ours, so no traceback.
_REFUSALS = {errno.EACCES: "permission denied", errno.EPERM: "operation not permitted",
             errno.EROFS: "the file system is read-only"}


def is_refusal(exc: OSError) -> bool:
    """The file system would not let us (permissions, a read-only mount): for a cache,
    skip the write; for anything else, say so (refused_write)."""
    return exc.errno in _REFUSALS


def refused_write(exc: OSError) -> EnfError | None:
    """The file system's refusal as one line that names the path, or None for any other
    OSError (those are bugs or surprises: the traceback is what a report needs)."""
    why = _REFUSALS.get(exc.errno or 0)
    if why is None or not exc.filename:
        return None
    path = os.fsdecode(exc.filename)
    folder, name = os.path.split(path)
    if name.startswith(".") and name.endswith(".tmp"):
        path = folder  # atomic.write's temporary file: the folder is what refused it
    verb = "read" if os.path.exists(path) and not os.access(path, os.R_OK) else "write"
    return EnfError(f"cannot {verb} {path}: {why}", hint=access_hint(path if os.path.isdir(path) else folder or "."))


def access_hint(folder: str) -> str:
    return f"make {folder} writable by you again (ls -ld {folder} shows its owner; git enf writes its state there)"


def git_failure(exc: Exception) -> tuple[str, str]:
    """(message, hint) for an error libgit2 raised: its words, no traceback."""
    refused = refusal_hint(str(exc))
    if refused is not None:
        return f"git could not write to the repository: {exc}", refused
    # a corrupt object, an unreadable pack
    return f"git could not read the repository: {exc}", f"git fsck --no-dangling {paths.BRANCH}"


def refusal_hint(text: str) -> str | None:
    """For libgit2's words: the access hint when a write was refused (objects or refs
    owned by another user, a read-only mount: no damage, fsck would find none), else None."""
    lowered = text.lower()
    if "permission denied" not in lowered and "read-only file system" not in lowered:
        return None
    start = text.find("'")
    end = text.find("'", start + 1)
    quoted = text[start + 1:end] if 0 <= start < end else ""
    return access_hint(quoted if os.path.isdir(quoted) else os.path.dirname(quoted) or ".git")
