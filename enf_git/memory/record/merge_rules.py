"""The merge rule protocol: what one path's merge sees (Sides: the base's and both tips'
blob ids, a reader) and what it decides (Plan: changes and what to report), and the two
rules every kind of record can fall back on: three_way (a deletion yields to an edit;
edits of different lines merge; edits of the same lines are both kept) and append_only
(log.md: the union of both sides' lines). A record kind with a rule of its own
(compression, instincts) builds on these; sync_merge looks the rules up by path.
Its own module, so the kinds and the merger import it, not each other.
"""

from __future__ import annotations

from collections.abc import Callable

from ... import paths
from ...plumbing import store
from . import merge


class Sides:
    """One path's blob ids in the base and both tips (None: absent), and a blob reader."""

    __slots__ = ("base", "ours", "path", "read", "repo", "theirs")

    def __init__(self, path: str, base: str | None, ours: str | None, theirs: str | None,
                 read: Callable[[str | None], bytes], repo: store.Repo) -> None:
        self.path, self.base, self.ours, self.theirs, self.read = path, base, ours, theirs, read
        self.repo = repo  # for the line merge's blobs


class Plan:
    """What merging `theirs` into `ours` changes in ours' tree, and what it must report."""

    def __init__(self) -> None:
        self.changes: dict[str, bytes | None] = {}  # path -> bytes (None: delete), relative to ours
        self.conflicts: list[tuple[str, str]] = []  # (path, where the version not in place went)
        self.ours_in_place: set[str] = set()  # conflicts whose version in place is ours
        self.why: dict[str, str] = {}  # conflicts not said to be "in the same lines": why kept apart
        self.kept: list[str] = []  # deleted on one side, edited on the other: the edit stayed
        self.deleted_here: set[str] = set()  # kept paths that ours deleted
        self.line_merged: list[str] = []  # edited on both sides, in different lines: merged
        self.skipped: list[str] = []  # not a file on one side (a submodule): ours left as it is


Rule = Callable[[Sides, Plan], None]  # called only for paths both sides changed, differently


def three_way(sides: Sides, plan: Plan) -> None:
    """The default rule: a deletion yields to an edit; edits of different lines merge;
    edits of the same lines are both kept."""
    if sides.ours is None or sides.theirs is None:
        kept = sides.ours or sides.theirs
        if kept != sides.ours:
            plan.changes[sides.path] = sides.read(kept)
            plan.deleted_here.add(sides.path)
        plan.kept.append(sides.path)
        return
    base, ours, theirs = _base_bytes(sides), sides.read(sides.ours), sides.read(sides.theirs)
    merged = merge.merge_lines(sides.repo, sides.path, base, ours, theirs)
    if merged is not None:
        if store.hash_bytes(merged) != sides.ours:
            plan.changes[sides.path] = merged
        plan.line_merged.append(sides.path)
        return
    keep, move = sorted((sides.ours, sides.theirs))  # by blob id: the same in either direction
    if keep != sides.ours:
        plan.changes[sides.path] = sides.read(keep)
    else:
        plan.ours_in_place.add(sides.path)
    saved = f"{paths.CONFLICTS}{sides.path}.{keep[:8]}-{move[:8]}"
    plan.changes[saved] = sides.read(move)
    plan.conflicts.append((sides.path, saved))
    if (why := merge.why_apart(sides.path, base, ours, theirs)) != merge.SAME_LINES:
        plan.why[sides.path] = why


def _base_bytes(sides: Sides) -> bytes | None:
    """The base's version; None when there is none, or a partial clone lacks its blob
    (both versions are then kept: nothing to line them up against)."""
    try:
        return sides.read(sides.base) if sides.base is not None else None
    except KeyError:
        return None


def append_only(sides: Sides, plan: Plan) -> None:
    """log.md and its kind: the union of both sides' lines (a deletion is a plain three-way)."""
    if sides.ours is None or sides.theirs is None:
        three_way(sides, plan)
        return
    merged = merge.union_of(sides.read(sides.ours), sides.read(sides.theirs))
    if store.hash_bytes(merged) != sides.ours:
        plan.changes[sides.path] = merged
