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

from ...errors import EnfError
from ...plumbing import store, verify
from . import authors
from ..workspace import Context

TRUST_KEY = "enf.trust"
AUTHORS_KEY = "enf.trustedAuthors"
MODES = ("all", "signed", "authors")


REVIEW = "git enf trust review"


class Policy(NamedTuple):
    mode: str  # all, signed, authors
    authors: frozenset[str]  # enf.trustedAuthors, lower-cased

    @property
    def gates(self) -> bool:
        return self.mode != "all"


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
    """The decision for each record under one policy at one tip: `reasons(paths)` says why
    each is withheld (None: shown). Under `signed`, the verdicts of the paths' last commits
    are asked at once (one `git log` for those not cached yet, then kept per commit), and
    only for the paths asked about: a start that shows ten records reads ten."""

    def __init__(self, ctx: Context, rules: Policy, table: authors.Authors) -> None:
        self._ctx = ctx
        self.rules = rules
        self.table = table
        self._verdicts: dict[str, verify.Verdict] = {}

    def reasons(self, paths: Iterable[str]) -> dict[str, str | None]:
        wanted = list(paths)
        if self.rules.mode == "signed":
            changes = (self.table.of(p) for p in wanted)
            todo = {c.commit for c in changes if c is not None and c.commit not in self._verdicts}
            if todo:
                self._verdicts.update(verify.verdicts(str(self._ctx.top), todo, repo=self._ctx.repo))
        return {path: self._reason(path) for path in wanted}

    def reason(self, path: str) -> str | None:
        return self.reasons([path])[path]

    @property
    def table_repo(self) -> store.Repo:
        return self._ctx.repo

    def withheld(self, paths: Iterable[str]) -> dict[str, str]:
        """path -> why, for those of `paths` the model must not see ({} under `all`)."""
        if not self.rules.gates:
            return {}
        return {p: why for p, why in self.reasons(dict.fromkeys(paths)).items() if why is not None}

    def _reason(self, path: str) -> str | None:
        if self.rules.mode == "all":
            return None
        change = self.table.of(path)
        if change is None:
            return "no commit on the branch changed it"
        if self.rules.mode == "authors":
            if self.table.mine(change) or change.email.strip().lower() in self.rules.authors:
                return None
            return f"author {change.email or change.name or 'unknown'} is not in {AUTHORS_KEY}"
        verdict = self._verdicts.get(change.commit)
        if verdict is None:
            return "signature cannot be checked (git has no such commit)"
        return None if verdict.trusted else verdict.why


def gate(ctx: Context, tip: store.Commit | None = None, mode: str | None = None) -> Gate:
    """The gate for the branch tip (or `tip`) under enf.trust (or `mode`)."""
    return Gate(ctx, policy(ctx, mode), authors.load(ctx, tip))


def shown_gate(ctx: Context, table: authors.Authors | None = None) -> Gate:
    """The gate of what reaches a model (a hook, a pointer, an MCP result). A value of
    enf.trust it cannot read withholds like `signed` (fail closed: the person's commands
    refuse it and say how to fix it); under `all` no record's author is even read."""
    try:
        rules = policy(ctx)
    except EnfError:
        listed = frozenset(w.lower() for v in store.config_values(ctx.repo, AUTHORS_KEY)
                           for w in v.replace(",", " ").split())
        rules = Policy("signed", listed)
    if not rules.gates:
        return Gate(ctx, rules, table or authors.Authors("", None, ("", "")))
    if table is not None:
        return Gate(ctx, rules, table)
    # One start asks from several places (the sections, facts, pins, instincts): one gate
    # per repository, tip, reader and trust setting serves them all, its verdicts and
    # author shards read once. Anything it depends on changing makes a new one.
    tip = store.tip(ctx.repo)
    probe = Gate(ctx, rules, authors.Authors("", None, ("", "")))
    key = (str(ctx.repo.path), str(tip.id) if tip is not None else "", authors.reader(ctx), tuple(cache_key(probe)))
    found = _GATES.get(key)
    if found is None:
        _GATES.clear()
        found = _GATES[key] = Gate(ctx, rules, authors.load(ctx, tip))
    return found


_GATES: dict[tuple[object, ...], Gate] = {}


def cache_key(gate: Gate) -> list[str]:
    """What a cached block shown to the model depends on besides the records: the policy,
    and under `signed` everything git's verdicts depend on (plumbing/verify.py)."""
    rules = gate.rules
    if rules.mode == "all":
        return ["all"]
    if rules.mode == "authors":
        return ["authors", *sorted(rules.authors)]
    import os

    return ["signed", verify.trust_digest(gate.table_repo, os.environ)]


def withheld_line(count: int, kind: str = "record") -> str:
    """What a model is told instead of what it was not shown."""
    plural = "s" if count != 1 else ""
    return f"{count} {kind}{plural} from unverified authors withheld (enf.trust): {REVIEW}"


def withheld_line_template() -> str:
    """withheld_line with `{count}` left for the context to fill in (pure/briefing.py)."""
    return f"{{count}} record(s) from unverified authors withheld (enf.trust): {REVIEW}"


class Review(NamedTuple):
    gate: Gate
    records: int  # how many records the branch holds
    withheld: list[Withheld]  # oldest change first


def review(ctx: Context, tip: store.Commit | None = None, mode: str | None = None) -> Review:
    """Every record the gate withholds (reads every record's author: for the person's
    command, not for a hook)."""
    found = gate(ctx, tip, mode)
    changes = dict(found.table.all())
    if found.rules.mode == "all":
        return Review(found, len(changes), [])
    held = [Withheld(path, changes[path], why) for path, why in found.reasons(sorted(changes)).items()
            if why is not None]
    held.sort(key=lambda w: (w.change.time, w.path))
    return Review(found, len(changes), held)
