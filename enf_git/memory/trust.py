"""Which records `enf.trust` lets reach the model, and why the others are withheld.

`git config enf.trust all|signed|authors` (default `all`):
- `all`: every record is shown.
- `signed`: a record is shown only when the commit that last changed it (authors.py) is
  signed by a key git trusts: what `git verify-commit` accepts (plumbing/verify.py). The
  reader's own records are no exception: an author name costs nothing to forge, a
  signature does.
- `authors`: a record is shown only when that commit's author email is listed in
  `enf.trustedAuthors` (emails, case-insensitive; the key may be given several times, or
  one value may list several, separated by commas or spaces) or is the reader's own.

What is withheld is data all the same: merges keep it, `git enf log` and `show` show it
to the person; only what reaches the model is gated. `git enf trust review` lists it.
A value of enf.trust git would not know how to read is refused, never taken as `all`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from ..errors import EnfError
from ..plumbing import store, verify
from . import authors
from .workspace import Context

TRUST_KEY = "enf.trust"
AUTHORS_KEY = "enf.trustedAuthors"
MODES = ("all", "signed", "authors")


class Policy(NamedTuple):
    mode: str  # all, signed, authors
    authors: frozenset[str]  # enf.trustedAuthors, lower-cased


class Withheld(NamedTuple):
    path: str
    change: authors.Change  # the commit that last changed it
    reason: str  # "unsigned", "bad signature", "author bob@example.com is not in enf.trustedAuthors", ...


def policy(ctx: Context, mode: str | None = None) -> Policy:
    """enf.trust (or `mode`, to preview another) and enf.trustedAuthors as git config has them."""
    raw = mode if mode is not None else store.config_value(ctx.repo, TRUST_KEY)
    chosen = (raw or "all").strip().lower()
    if chosen not in MODES:
        raise EnfError(f"enf.trust is '{raw}': it must be all, signed or authors",
                       hint="git config enf.trust signed (or all, authors)")
    listed = {word.lower() for value in store.config_values(ctx.repo, AUTHORS_KEY)
              for word in value.replace(",", " ").split()}
    return Policy(chosen, frozenset(listed))


class Gate:
    """The decision for each record under one policy at one tip: `reason(path)` is why it
    is withheld, or None when it is shown. Verdicts are asked for all the records' last
    commits at once (one `git log`, then cached per commit)."""

    def __init__(self, ctx: Context, rules: Policy, table: authors.Authors) -> None:
        self.rules = rules
        self.table = table
        self.verdicts: dict[str, verify.Verdict] = {}
        if rules.mode == "signed":
            commits = {change.commit for change in table.changes.values()}
            self.verdicts = verify.verdicts(str(ctx.top), commits, repo=ctx.repo, env=None)

    def reason(self, path: str) -> str | None:
        if self.rules.mode == "all":
            return None
        change = self.table.of(path)
        if change is None:
            return "no commit on the branch changed it"
        if self.rules.mode == "authors":
            if self.table.mine(change) or change.email.strip().lower() in self.rules.authors:
                return None
            return f"author {change.email or change.name or 'unknown'} is not in {AUTHORS_KEY}"
        verdict = self.verdicts.get(change.commit)
        if verdict is None:
            return "signature cannot be checked (git has no such commit)"
        return None if verdict.trusted else verdict.why


def gate(ctx: Context, tip: store.Commit | None = None, mode: str | None = None) -> Gate:
    """The gate for the branch tip (or `tip`) under enf.trust (or `mode`)."""
    return Gate(ctx, policy(ctx, mode), authors.load(ctx, tip))


def withheld(ctx: Context, tip: store.Commit | None = None, mode: str | None = None,
             paths: Iterable[str] | None = None) -> tuple[Gate, list[Withheld]]:
    """Every record (or those of `paths`) the gate withholds, oldest change first."""
    found = gate(ctx, tip, mode)
    if found.rules.mode == "all":
        return found, []
    out: list[Withheld] = []
    for path in sorted(found.table.changes if paths is None else paths):
        why = found.reason(path)
        change = found.table.of(path)
        if why is not None and change is not None:
            out.append(Withheld(path, change, why))
    out.sort(key=lambda w: (w.change.time, w.path))
    return found, out
