"""What every health check returns: a Problem (how bad, what, and the command or edit
that fixes it), and what a doctor run covered. Its own module, so the checks and the
doctor that runs them import it, not each other."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    severity: str  # error | warning
    what: str
    fix: str


@dataclass(frozen=True)
class Checked:
    checks: tuple[str, ...]  # what was looked at, in order
    problems: tuple[Problem, ...]

    @property
    def errors(self) -> bool:
        return any(p.severity == "error" for p in self.problems)
