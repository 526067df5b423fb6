"""What a merge of two tips tells people: whose version of a path is where.

A conflict copy, or an edit kept over a deletion, is only of use if the reader knows
whose text is in place and whose went aside. Each side's version of a path is named by
the author of the commit that wrote it (store_merge.author_of), and said from the reader's
side: the reader's own name (the identity this clone commits with) is "you". The merge
commit is read by everyone, so its message names both people instead.

The side that deleted a path learns that the edit stayed even when it never merges
(and the side whose edit conflicted, where its version went): when it pushed first,
the teammate's clone merged, and this clone only fast-forwards onto that merge
(`from_fast_forward`).
"""

from __future__ import annotations

from collections.abc import Mapping

from ... import paths
from ...plumbing import store, store_merge
from ...pure import render
from . import merge

MAX_MERGES = 20  # merge commits looked into on a fast-forward: a sync brings one or two


class Note:  # a plain class: see workspace.Settings
    """One path a merge could not settle silently: a conflict copy, or an edit over a deletion."""

    __slots__ = ("deleted_here", "ours_by", "ours_in_place", "path", "saved", "theirs_by", "why")

    def __init__(self, path: str, saved: str | None, ours_by: str, theirs_by: str, *,
                 ours_in_place: bool = False, deleted_here: bool = False, why: str = merge.SAME_LINES) -> None:
        self.path = path
        self.saved = saved  # the conflict copy's path; None: an edit kept over a deletion
        self.ours_by, self.theirs_by = ours_by, theirs_by  # authors' names ("": not found)
        self.ours_in_place = ours_in_place  # conflict: ours is the version the path keeps
        self.deleted_here = deleted_here  # kept: ours deleted it, theirs' edit stayed
        self.why = why  # conflict: why the edits were kept apart (merge.why_apart)

    def __repr__(self) -> str:
        return f"Note({self.path!r}, {self.saved!r}, {self.ours_by!r}, {self.theirs_by!r})"


def for_plan(repo: store.Repo, ours: store.Commit, theirs: store.Commit, conflicts: list[tuple[str, str]],
             ours_in_place: set[str], kept: list[str], deleted_here: set[str],
             why: Mapping[str, str] | None = None) -> list[Note]:
    """The notes of a merge of `theirs` into `ours`: each side's author of each path.
    `why`: conflicts kept apart for another reason than edits of the same lines."""
    def by(side: store.Commit, other: store.Commit, path: str) -> str:
        return store_merge.author_of(repo, side, path, hide=other) or ""

    notes = [Note(path, saved, by(ours, theirs, path), by(theirs, ours, path), ours_in_place=path in ours_in_place,
                  why=(why or {}).get(path, merge.SAME_LINES))
             for path, saved in conflicts]
    notes += [Note(path, None, by(ours, theirs, path), by(theirs, ours, path), deleted_here=path in deleted_here)
              for path in kept]
    return notes


def from_fast_forward(repo: store.Repo, ours: store.Commit, theirs: store.Commit) -> list[Note]:
    """A fast-forward from `ours` to `theirs`: what a teammate's merge in between did to
    ours' side, as if this clone had merged. Paths ours deleted and they had edited (still
    absent in ours, present in theirs: the fast-forward brings them back), and conflict
    copies of ours' edits against theirs."""
    notes: dict[str, Note] = {}
    merges = (c for c in store.walk(repo, theirs, hide=ours) if len(c.parents) == 2)
    for _, merge_commit in zip(range(MAX_MERGES), merges):
        mine = [p for p in merge_commit.parents if store.descends_from(repo, ours, p)]
        if len(mine) != 1:
            continue
        here = mine[0]
        there = next(p for p in merge_commit.parents if p.id != here.id)
        base: list[store.Commit | None] = []  # asked once per merge, and only if a path needs it
        for path, oid in store.changed_paths(here.tree, merge_commit.tree).items():
            if oid is None or render.is_view(path) or store.blob_oid(repo, theirs.tree, path) is None:
                continue
            note = _conflict_copy(repo, path, here, there, merge_commit) or _undone(repo, path, here, there, ours, base)
            if note is not None:
                notes.setdefault(note.path, note)
    return [notes[p] for p in sorted(notes)]


def _conflict_copy(repo: store.Repo, saved: str, here: store.Commit, there: store.Commit,
                   merged: store.Commit) -> Note | None:
    """The note of a conflict copy the merge `merged` of `here` and `there` made, or None."""
    if not saved.startswith(paths.CONFLICTS) or store.blob_oid(repo, here.tree, saved):
        return None
    path = saved[len(paths.CONFLICTS):].rpartition(".")[0]  # conflicts/<path>.<kept8>-<moved8>
    if not path or store.blob_oid(repo, merged.tree, path) is None:
        return None
    in_place = store.blob_oid(repo, merged.tree, path) == store.blob_oid(repo, here.tree, path)
    return Note(path, saved, store_merge.author_of(repo, here, path, hide=there) or "",
                store_merge.author_of(repo, there, path, hide=here) or "", ours_in_place=in_place,
                why=_why_apart(repo, path, here, there))


def _why_apart(repo: store.Repo, path: str, here: store.Commit, there: store.Commit) -> str:
    """What the merge of `here` and `there` found about `path`'s two versions (merge.why_apart)."""
    ours, theirs = store.read_path(repo, here.tree, path), store.read_path(repo, there.tree, path)
    if ours is None or theirs is None:
        return merge.SAME_LINES
    base = store_merge.merge_base(repo, here, there)
    return merge.why_apart(path, store.read_path(repo, base.tree, path) if base else None, ours, theirs)


def _undone(repo: store.Repo, path: str, here: store.Commit, there: store.Commit, ours: store.Commit,
           base_of: list[store.Commit | None]) -> Note | None:
    """The note of a deletion on `here`'s side that the merge with `there` undid, or None.
    `base_of`: the merge base of the two, once found (most paths a merge brings are new
    sessions, which need it: one question per merge, not one per path)."""
    if store.blob_oid(repo, here.tree, path) or store.blob_oid(repo, ours.tree, path):
        return None
    if not base_of:
        base_of.append(store_merge.merge_base(repo, here, there))
    base = base_of[0]
    if base is None or store.blob_oid(repo, base.tree, path) is None:
        return None
    return Note(path, None, store_merge.author_of(repo, here, path, hide=there) or "",
                store_merge.author_of(repo, there, path, hide=here) or "", deleted_here=True)


def reader_lines(notes: list[Note], me: str) -> list[str]:
    """What the person at this clone reads (sync, the git hooks): "you" is them."""
    return [_reader_line(n, _Names(n, me)) for n in notes]


class _Names:
    """The two sides of a note as the reader says them."""

    def __init__(self, note: Note, me: str) -> None:
        self.ours = "you" if not note.ours_by or note.ours_by == me else note.ours_by
        self.theirs = ("your other clone" if note.theirs_by == me else note.theirs_by) or "the other side"


def _reader_line(n: Note, who: _Names) -> str:
    if n.saved is not None:
        aside, here = (who.theirs, who.ours) if n.ours_in_place else (who.ours, who.theirs)
        return (f"conflict: {n.path} changed on both sides, {n.why}; {_whose(aside)} version is at "
                f"{n.saved}; the working copy has {_whose(here, alone=True)} (merge what you need into "
                f"{paths.WC_DIR}/{n.path}, delete the copy, then git enf commit)")
    deleter, editor = (who.ours, who.theirs) if n.deleted_here else (who.theirs, who.ours)
    line = (f"kept: {n.path}: {deleter} deleted it, but {editor} edited it meanwhile, "
            f"so {_whose(editor)} edit stays")
    if n.deleted_here:
        line += f"; to delete it still: rm {paths.WC_DIR}/{n.path}, then git enf commit"
    return line


def commit_lines(notes: list[Note], line_merged: list[str]) -> list[str]:
    """The merge commit's body: names, never "you" (everyone reads the commit)."""
    out = []
    for n in notes:
        ours, theirs = n.ours_by or "this side", n.theirs_by or "the other side"
        if n.saved is not None:
            here, aside = (ours, theirs) if n.ours_in_place else (theirs, ours)
            out.append(f"conflict: {n.path} changed on both sides, {n.why}; {_whose(here)} version "
                       f"stays in place, {_whose(aside)} is at {n.saved}")
        else:
            deleter, editor = (ours, theirs) if n.deleted_here else (theirs, ours)
            out.append(f"kept: {n.path}: deleted by {deleter}, edited by {editor}; the edit stays")
    out += [f"merged: {path}: edited on both sides, in different lines; both edits kept" for path in line_merged]
    return out


def _whose(name: str, alone: bool = False) -> str:
    """`your` / `yours` for the reader, `Alice's` (or `the other side's`) for anyone else."""
    if name == "you":
        return "yours" if alone else "your"
    return f"{name}'s"
