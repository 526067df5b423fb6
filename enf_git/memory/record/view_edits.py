"""Hand edits to derived views: import what can be imported, keep the rest visibly.

Views are regenerated on every commit, so an edit made to one would vanish. Instead:
a new Y-statement line added to decisions.md becomes a decision record of its own
(`decisions/<date>-<id>.md`), unless the same decision already exists (the seed tells
the assistant to write it to both its session file and decisions.md). Any other edit
(to index.md, topics.md, an archive, or a non-decision line) is saved whole under
`.claude-sessions/.rejected/` and reported with what to do instead.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from ...pure import fm, model, render

from ... import paths
from ...plumbing import store, workcopy
from ...plumbing.workcopy import Manifest
from .. import records


class ViewEdits:  # a plain class: see workspace.Settings
    """What the hand edits of views came to."""

    def __init__(self) -> None:
        self.changes: dict[str, bytes | None] = {}  # new decision records to commit
        self.imported: list[str] = []
        self.rejected: list[tuple[str, str, str]] = []  # (view, saved copy, why)


def import_views(repo: store.Repo, root: Path, edited: dict[str, bytes], manifest: Manifest,
                 base: store.Commit | None, now: int | None, cache: records.Cache) -> ViewEdits:
    out = ViewEdits()
    for view, data in sorted(edited.items()):
        previous = _previous(repo, manifest.files.get(view))
        if view == render.DECISIONS:
            new_records, leftovers = _decisions(repo, base, previous, data, now, cache)
            out.changes.update(new_records)
            out.imported += sorted(new_records)
            if not leftovers:
                continue
            why = "only new Y-statement lines can be imported; other edits to decisions.md were not applied"
        elif view == render.MEMORIES:
            why = "memories.md is generated from memories/*.md; use git enf remember TEXT or git enf forget ID"
        else:
            why = f"{view} is generated from session files; edit the session file's summary or tags instead"
        saved = _save_rejected(root, view, data, now)
        out.rejected.append((view, saved, why))
    return out


def _previous(repo: store.Repo, oid: str | None) -> str:
    if not oid:
        return ""
    try:
        return store.blob_data(repo, oid).decode("utf-8", "replace")
    except KeyError:
        return ""


def _decisions(repo: store.Repo, base: store.Commit | None, previous: str, data: bytes,
               now: int | None, cache: records.Cache) -> tuple[dict[str, bytes], list[str]]:
    """(new decision records, lines that could not be imported)."""
    text = data.decode("utf-8", "replace")
    before = set(previous.splitlines())
    existing = _known_decided(repo, base, cache)
    today = _date(now)
    new: dict[str, bytes] = {}
    leftovers = []
    for line in text.splitlines():
        if line in before or not line.strip() or line.startswith(("#", ">", "<!--")):
            continue
        decision = model.parse_y_statement(line, source="decisions.md", date=today, session_id="", stem="decisions-md")
        if decision is None or "(d" in line.rsplit(" ", 1)[-1]:
            leftovers.append(line)  # not a Y-statement, or an edit of an existing (id-tagged) one
            continue
        if decision.decided.casefold() in existing:
            continue
        existing.add(decision.decided.casefold())
        path = f"{model.DECISIONS_DIR}/{decision.date}-{decision.id}.md"
        # The file is named by the decision's id and records it: a decision file's
        # own name would give it another id when parsed (ids hash the file stem).
        meta = {"schema": model.SCHEMA, "date": decision.date, "decision_id": decision.id,
                "source": "decisions.md hand edit"}
        if decision.session_id:
            meta["session_id"] = decision.session_id
        new[path] = fm.dump(meta, f"\n## Decisions\n{line.strip()}\n").encode("utf-8")
    before_lines = [ln for ln in previous.splitlines() if ln.lstrip().startswith("- [")]
    removed = [ln for ln in before_lines if ln not in set(text.splitlines())]
    return new, leftovers + removed


def _known_decided(repo: store.Repo, base: store.Commit | None, cache: records.Cache) -> set[str]:
    recs = records.load(repo, base.tree if base is not None else None, cache)
    sessions = recs.all_sessions()
    return {d.decided.casefold() for s in sessions for d in s.decisions} | {
        d.decided.casefold() for d in recs.extra_decisions()}


def _save_rejected(root: Path, view: str, data: bytes, now: int | None) -> str:
    stamp = dt.datetime.fromtimestamp(now if now is not None else dt.datetime.now().timestamp(), dt.timezone.utc)
    rel = f"{paths.REJECTED_DIR}/{view}.{stamp.strftime('%Y%m%dT%H%M%S')}"
    workcopy.write_file(root, rel, data)
    return f"{workcopy.WC_DIR}/{rel}"


def _date(now: int | None) -> str:
    moment = dt.datetime.fromtimestamp(now, dt.timezone.utc) if now is not None else dt.datetime.now()
    return moment.date().isoformat()
