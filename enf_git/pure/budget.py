"""Token budgets for remembered facts, and the block SessionStart injects.

Each scope has a budget (seed 003: session 50, project 300, user 150 tokens; config
can change them). Facts over a budget are cut in seed 003's order, for the
injection only (the records stay as they are):

1. expired facts go;
2. exact duplicates go (one is kept);
3. the lowest-priority categories go (General, then Action Item; oldest first);
4. the most verbose entries are shortened (longest first, to SHORT_CHARS);
5. then a warning says what still did not fit, and those facts are left out, so the
   block never outgrows its budget (SessionStart's whole context is capped).

Before budgets, tiers are reconciled: when two scopes say something about the same
subject (the same text, or the same `Subject:` label before a colon), the one that
takes precedence (session > project > user) is the one shown.

Tokens are estimated as characters / 4 (the estimate briefing.py uses).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .facts import ACTION, GENERAL, SCOPES, Fact, duplicates, norm, ordered
from .frozen import replace

CHARS_PER_TOKEN = 4
DEFAULT_BUDGETS: Mapping[str, int] = {"session": 50, "project": 300, "user": 150}
DROPPABLE = (GENERAL, ACTION)  # step 3, in this order; the others are shortened, never dropped for room
SHORT_CHARS = 80  # step 4 cuts an entry to this many characters
SUBJECT_MAX = 40  # a `Subject:` label longer than this is part of a sentence, not a label
TITLES = {"session": "This session", "project": "Project (shared with the team on claude-memory)",
          "user": "User (yours, in every project)"}


def tokens(text: str) -> int:
    """Estimated tokens of `text` (at least 1 for any non-empty text)."""
    return -(-len(text) // CHARS_PER_TOKEN)


def line(fact: Fact) -> str:
    """A fact as the injection shows it: its category, then its text."""
    if fact.text.lower().startswith(f"{fact.category.lower()}:"):
        return f"- {fact.text}"  # "Gotcha: the port is taken" needs no second "Gotcha:"
    return f"- {fact.category}: {fact.text}"


def cost(facts: Sequence[Fact]) -> int:
    return sum(tokens(line(f)) for f in facts)


class Fitted:  # a plain class: a dataclass costs its creation at every SessionStart's import
    """One scope's facts after its budget: what is shown, and what was cut and why."""

    __slots__ = ("budget", "dropped", "kept", "scope", "shortened", "warning")

    def __init__(self, scope: str, budget: int) -> None:
        self.scope = scope
        self.budget = budget
        self.kept: list[Fact] = []
        self.dropped: list[tuple[Fact, str]] = []  # (fact, why)
        self.shortened: list[str] = []  # ids of facts shown cut short
        self.warning = ""

    @property
    def tokens(self) -> int:
        return cost(self.kept)


def fit(facts: Sequence[Fact], budget: int, today: str, scope: str = "project") -> Fitted:
    """`facts` cut to `budget` tokens in seed 003's order (see the module's docstring)."""
    out = Fitted(scope, budget)
    live = [f for f in facts if not f.expired(today)]
    out.dropped += [(f, "expired") for f in facts if f.expired(today)]
    doubles = {id(dup): keep for dup, keep in duplicates(live)}
    out.dropped += [(f, f"duplicate of {doubles[id(f)].id}") for f in live if id(f) in doubles]
    kept = ordered(f for f in live if id(f) not in doubles)
    kept = _drop_low_priority(kept, budget, out)
    kept = _shorten(kept, budget, out)
    out.kept = _cut_rest(kept, budget, out)
    return out


def _drop_low_priority(kept: list[Fact], budget: int, out: Fitted) -> list[Fact]:
    for category in DROPPABLE:
        victims = sorted((f for f in kept if f.category == category), key=lambda f: (f.date, f.id))
        for fact in victims:
            if cost(kept) <= budget:
                return kept
            kept = [f for f in kept if f is not fact]
            out.dropped.append((fact, f"over the {budget}-token budget ({fact.category}: lowest priority)"))
    return kept


def _shorten(kept: list[Fact], budget: int, out: Fitted) -> list[Fact]:
    while cost(kept) > budget:
        longest = max(kept, key=lambda f: (len(f.text), f.id), default=None)
        if longest is None or len(longest.text) <= SHORT_CHARS:
            break
        short = replace(longest, text=shorten(longest.text))
        kept = [short if f is longest else f for f in kept]
        out.shortened.append(longest.id)
    return kept


def shorten(text: str, limit: int = SHORT_CHARS) -> str:
    """`text` cut at a word boundary to at most `limit` characters, with an ellipsis."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut[limit // 2:]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:.") + "…"


def _cut_rest(kept: list[Fact], budget: int, out: Fitted) -> list[Fact]:
    """Step 5: warn, and leave out the lowest-priority facts that still do not fit."""
    if cost(kept) <= budget:
        return kept
    shown = list(kept)
    while shown and cost(shown) > budget:
        fact = shown.pop()  # `ordered`: the last is the lowest priority, newest
        out.dropped.append((fact, f"still over the {budget}-token budget after shortening"))
    left = len(kept) - len(shown)
    out.warning = (f"{out.scope} facts need ≈{cost(kept)} tokens, over their {budget}-token budget: "
                   f"{left} not shown here (git enf memories list shows all; git enf forget ID or "
                   f"git config enf.budget.{out.scope} N)")
    return shown


# --- tiers -----------------------------------------------------------------------------

def subject(text: str) -> str | None:
    """The subject a fact names with a leading label (`Indentation: tabs`), if any."""
    label, sep, rest = text.partition(":")
    if not sep or not rest.strip() or len(label) > SUBJECT_MAX or len(label.split()) > 5:
        return None
    return norm(label)


def reconcile(by_scope: Mapping[str, Sequence[Fact]]) -> tuple[dict[str, list[Fact]], list[tuple[Fact, Fact]]]:
    """Each scope's facts less those a higher-precedence scope overrides (same text, or the
    same subject label); also (overridden, the fact that wins) pairs."""
    seen_text: dict[str, Fact] = {}
    seen_subject: dict[str, Fact] = {}
    out: dict[str, list[Fact]] = {}
    overridden: list[tuple[Fact, Fact]] = []
    for scope in SCOPES:
        out[scope] = []
        for fact in by_scope.get(scope, ()):
            key, topic = norm(fact.text), subject(fact.text)
            winner = seen_text.get(key) or (seen_subject.get(topic) if topic else None)
            if winner is not None and winner.scope != fact.scope:
                overridden.append((fact, winner))
                continue
            out[scope].append(fact)
        for fact in out[scope]:
            seen_text.setdefault(norm(fact.text), fact)
            topic = subject(fact.text)
            if topic:
                seen_subject.setdefault(topic, fact)
    return out, overridden


# --- the SessionStart block --------------------------------------------------------------

MAX_BLOCK_CHARS = 3000  # the facts' share of SessionStart's 9,000 characters, whatever the facts hold


def block(fitted: Sequence[Fitted], pruned: Sequence[Fact] = (), overridden: Sequence[tuple[Fact, Fact]] = (),
          history_hint: str = "") -> str:
    """The facts part of SessionStart's context: one sub-block per scope, each with its
    token cost against its budget; what was pruned is said, never dropped silently.
    Empty when there is nothing to say; never longer than MAX_BLOCK_CHARS."""
    shown = [f for f in fitted if f.kept or f.warning]
    if not shown and not pruned:
        return ""
    parts = []
    for tier in shown:
        lines = [f"### {TITLES.get(tier.scope, tier.scope)} (≈{tier.tokens} of {tier.budget} tokens)"]
        lines += [line(f) for f in tier.kept]
        if tier.warning:
            lines.append(f"(warning: {tier.warning})")
        parts.append("\n".join(lines))
    if overridden:
        parts.append("\n".join(["Overridden by a higher-precedence scope (not shown above):"]
                               + [f"- {lost.scope} \"{_clip(lost.text)}\" by {won.scope} \"{_clip(won.text)}\""
                                  for lost, won in overridden[:5]]))
    if pruned:
        parts.append(_pruned_lines(pruned, history_hint))
    body = "\n\n".join(parts)
    intro = "Facts people asked to keep (git enf remember). When scopes disagree: this session > project > user."
    head = f"## Remembered facts (≈{tokens(intro + body) + 8} tokens)"  # + 8: this heading itself
    return _capped(f"{head}\n{intro}\n\n{body}")


def _capped(text: str, limit: int = MAX_BLOCK_CHARS) -> str:
    """`text` cut at a line to `limit` characters (budgets raised in config, say)."""
    if len(text) <= limit:
        return text
    more = "\n- … more than fits here: git enf memories list"
    cut = text[: limit - len(more)]
    return cut[: cut.rindex("\n")] + more if "\n" in cut else cut + more


def _pruned_lines(pruned: Sequence[Fact], history_hint: str) -> str:
    first = pruned[:5]
    rest = f" and {len(pruned) - len(first)} more" if len(pruned) > len(first) else ""
    what = "; ".join(f"{f.scope} {f.category} \"{_clip(f.text)}\" (expired {f.expires})" for f in first)
    return f"Pruned at session start ({len(pruned)} expired): {what}{rest}.{' ' + history_hint if history_hint else ''}"


def _clip(text: str) -> str:
    return shorten(text, 60)


def budgets(overrides: Mapping[str, int] | None = None) -> dict[str, int]:
    return {**DEFAULT_BUDGETS, **(overrides or {})}

