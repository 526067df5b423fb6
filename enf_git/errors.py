"""The error vocabulary. Core code raises these; the edges (CLI, hooks) turn them
into a message and an exit code. Every message says what happened and what to do next."""

from __future__ import annotations


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
