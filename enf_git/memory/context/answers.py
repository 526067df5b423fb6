"""What the read commands answer, as JSON-ready rows, for every edge that answers them.

`git enf log/show --json` (cli/read.py) and the MCP server's `log`, `show` and
`decisions` tools (mcp/tools.py) give the same rows, built here once: a session, a
decision, a reversal chain (the standing decision with each one it superseded), an
open disagreement. The CLI wraps them in its envelope; the server in its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...pure import model
from ..workspace import Context

if TYPE_CHECKING:  # annotations only: the ledger is imported by what builds one
    from ...plumbing.store import Commit
    from ...pure.ledger import Chain, Disagreement


def session_row(s: model.Session, authors: dict[str, str]) -> dict[str, Any]:
    return {"session": s.stem, "path": s.path, "session_id": s.session_id, "date": s.date,
            "start_time": s.start_time, "status": s.status, "tags": list(s.tags), "summary": s.summary,
            "author": authors.get(s.path, ""), "decisions": [d.id for d in s.decisions]}


def decision_row(d: model.Decision, authors: dict[str, str], **extra: Any) -> dict[str, Any]:
    return {"id": d.id, "topic": d.topic, "date": d.date, "time": d.time, "decided": d.decided, "over": d.over,
            "confidence": d.confidence, "source": d.source, "text": d.text, "author": authors.get(d.source, ""),
            **extra}


def chain_row(c: Chain, authors: dict[str, str]) -> dict[str, Any]:
    """A chain as JSON: the standing decision, and each one it superseded with what replaced it."""
    replaced_by = [c.current, *c.superseded]
    return decision_row(c.current, authors, status="standing", supersedes=[
        decision_row(d, authors, status="superseded", superseded_by=replaced_by[i].id,
                     reversed_on=r.date, reversed_because=r.reason)
        for i, (d, r) in enumerate(zip(c.superseded, c.reversals))])


def superseded_row(chain: Chain, decision: model.Decision, authors: dict[str, str]) -> dict[str, Any]:
    """`decision` (one `chain` superseded) as its chain row lists it, naming the standing one."""
    row = chain_row(chain, authors)
    for old in row["supersedes"]:
        if old["id"] == decision.id:
            return {**old, "standing": chain.current.id}
    return row


def decision_answer(chain: Chain, decision: model.Decision, authors: dict[str, str]) -> dict[str, Any]:
    """The row `show` gives for a decision: its chain if it stands, else its superseded row."""
    return chain_row(chain, authors) if decision.id == chain.current.id else superseded_row(chain, decision, authors)


def unresolved_row(r: model.Reversal) -> dict[str, Any]:
    return {"source": r.source, "ref": r.ref, "date": r.date}


def disagreement_row(d: Disagreement, authors: dict[str, str]) -> dict[str, Any]:
    return {"decision": decision_row(d.decision, authors),
            "replacements": [decision_row(r, authors) for r in d.replacements]}


def note_asked(ctx: Context, tip: Commit, session_paths: list[str]) -> None:
    """Recall returning a session, or show showing it, is an ask of its temporary pin
    (memory/pins.py); the pins machinery loads only when something is pinned."""
    from ...plumbing import store
    from ...pure.pins import PINS_DIR

    if store.folder_entries(ctx.repo, tip.tree, PINS_DIR):
        from ..lifecycle import pins

        pins.note_asked(ctx, session_paths)
