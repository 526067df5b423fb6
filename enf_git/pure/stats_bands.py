"""Bands for the figures a person acts on, with what each band suggests: what `/stats`
relays (as the Elephants Never Forget plugin's session-analytics skill does), kept here
rather than in a prompt so they are tested and cost no context. Pure: the report in, a
list out; a figure that was not measured (null) gets no band.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# figure -> (where in the report, [(upper bound, band, advice)] in rising order, last one open)
Band = tuple[float, str, str]
_TABLE: dict[str, tuple[Callable[[dict[str, Any]], float | None], list[Band]]] = {
    "cache_hit_rate": (lambda r: r["transcripts"]["cache_hit_rate"], [
        (0.5, "poor", "the prompt cache keeps expiring: pauses over 5 minutes, /clear, model switches or a "
                      "changing CLAUDE.md or tool list start it again"),
        (0.8, "fair", "some prompts miss the cache; fewer long pauses and model switches would help"),
        (float("inf"), "good", "the prompt cache is doing its work")]),
    "cost_per_session": (lambda r: r["transcripts"]["cost"]["per_session_median"], [
        (1.0, "light", "sessions are cheap"),
        (5.0, "typical", "a usual cost for working sessions"),
        (float("inf"), "heavy", "smaller sessions, /compact at breakpoints and a cheaper model for routine work "
                                "would cut it")]),
    "context_utilisation": (lambda r: r["transcripts"]["context_pressure"]["median"], [
        (0.5, "comfortable", "sessions leave plenty of room in the context window"),
        (0.8, "watch", "sessions come near the window; compact at natural breakpoints"),
        (float("inf"), "high", "sessions run at the window's edge: narrower sessions and earlier compaction")]),
    "reversal_rate": (lambda r: r["decisions"]["reversal_rate"], [
        (0.15, "healthy", "decisions mostly stand"),
        (0.30, "watch", "look at the tags with the highest reversal rate"),
        (float("inf"), "high", "decisions come before the requirements are clear: record low confidence, and "
                               "ask before deciding")]),
    "pointers_followed": (lambda r: r["memory"]["pointers"]["followed_rate"], [
        (0.2, "rarely used", "pointers injected before prompts are seldom opened: memory's context is overhead "
                             "here (enf.brainFirst false turns them off)"),
        (float("inf"), "used", "the assistant opens or cites what memory points at")]),
}


def bands(report: dict[str, Any]) -> list[dict[str, Any]]:
    """`{"figure", "value", "band", "advice"}` for each banded figure that was measured."""
    out = []
    for figure, (value_of, table) in _TABLE.items():
        value = value_of(report)
        if value is None:
            continue
        _bound, band, advice = next(row for row in table if value < row[0])
        out.append({"figure": figure, "value": value, "band": band, "advice": advice})
    return out
