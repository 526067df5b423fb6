"""An estimated cost of a session's tokens: a dated table of public list prices.

US dollars per million tokens (input, output, cache write, cache read) by model family,
as Anthropic's pricing page listed them on AS_OF (cache writes at the 5-minute rate).
A model is matched by its id less a release date (`claude-sonnet-4-5-20250929`
is `claude-sonnet-4-5`, but `claude-opus-4-6` is no `claude-opus-4`); a model no family matches gets no cost, never a guess.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

AS_OF = "2025-11-24"
_DATED = re.compile(r"-(?:[0-9]{8}|latest)\Z")  # a release date or alias after the family
DISCLAIMER = (f"Estimated from public list prices as of {AS_OF} (per million tokens; cache writes at the "
              "5-minute rate); discounts, batch, long-context surcharges and subscription plans are not "
              "reflected. Models the table does not know get no cost.")

# family prefix -> (input, output, cache write, cache read), USD per million tokens
TABLE: dict[str, tuple[float, float, float, float]] = {
    "claude-opus-4-5": (5.0, 25.0, 6.25, 0.50),
    "claude-opus-4-1": (15.0, 75.0, 18.75, 1.50),
    "claude-opus-4": (15.0, 75.0, 18.75, 1.50),
    "claude-3-opus": (15.0, 75.0, 18.75, 1.50),
    "claude-sonnet-4-5": (3.0, 15.0, 3.75, 0.30),
    "claude-sonnet-4": (3.0, 15.0, 3.75, 0.30),
    "claude-3-7-sonnet": (3.0, 15.0, 3.75, 0.30),
    "claude-3-5-sonnet": (3.0, 15.0, 3.75, 0.30),
    "claude-haiku-4-5": (1.0, 5.0, 1.25, 0.10),
    "claude-3-5-haiku": (0.80, 4.0, 1.0, 0.08),
    "claude-3-haiku": (0.25, 1.25, 0.30, 0.03),
}


def family(model: str) -> str | None:
    """The table's family for a model id (`[1m]` and the date suffix ignored), or None."""
    base = _DATED.sub("", model.split("[", 1)[0].strip().lower())
    return base if base in TABLE else None


def cost(models: Mapping[str, Mapping[str, int]]) -> float | None:
    """USD for tokens by model (`input`, `output`, `cache_creation`, `cache_read`); None when
    any model that used tokens is unknown to the table (no partial figure that looks whole)."""
    total = 0.0
    for model, counts in models.items():
        if not any(counts.values()):
            continue
        fam = family(model)
        if fam is None:
            return None
        p_in, p_out, p_write, p_read = TABLE[fam]
        total += (counts.get("input", 0) * p_in + counts.get("output", 0) * p_out
                  + counts.get("cache_creation", 0) * p_write + counts.get("cache_read", 0) * p_read) / 1e6
    return round(total, 6)
