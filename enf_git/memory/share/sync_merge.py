"""Merging two tips of the memory branch (ours, and a teammate's fetched one) into one.

The data model: each tip's tree is bytes at paths, and the merge base (the newest
common ancestor; an empty tree when the two histories are unrelated, as when two
clones each ran init before either pushed) says which side changed what. Per path:

- changed on one side only: that side's version;
- changed on both sides to the same bytes: that version;
- deleted on one side, unchanged on the other: deleted;
- deleted on one side, edited on the other: the edit, reported in `kept` (to the side
  that deleted too: a fast-forward onto a teammate's merge that kept it says so, as it
  says where a conflict put this side's version);
- edited on both sides in different lines of a text file: both edits, merged line by
  line (merge.merge_lines: libgit2's three-way merge, made both ways and required to
  agree, and to parse as the record it is);
- edited on both sides in the same lines: a true conflict, both kept — the version
  with the smaller blob id in place, the other at `conflicts/<path>.<kept8>-<moved8>`,
  reported from the reader's side (whose version is where);
- an append-only file (`log.md`) edited on both sides: the union of its lines.

A path's rule is looked up in RULES, first match wins; the default is the list above.
Compression adds a rule there (a session compressed on one side and edited on the
other keeps the edit) without touching the rest.

Derived views (and the records index, record/records_index.py) are then made for the
merged records, never merged as text. Usually a
teammate brought a few new sessions: ours' views are patched with them (their lines
inserted where they sort, memory/views.py), and theirs' views with what ours brought;
when both patches succeed and agree, that is the result. Both sides are computed
whichever side merges, so the outcome is the same in every clone, in either direction
(and equal to a full render whenever either side's views were one). Otherwise, a full
render from every record. The change set is checked for conflict markers before
anything is written. The merge commit has both tips as parents; the branch moves by
compare-and-swap, and when a local commit lands in the meantime the merge is computed
again on the new tip.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Literal

from ... import paths
from ...errors import ConcurrencyError, EnfError
from ...plumbing import record_index, store, store_merge, store_write
from ...plumbing.workcopy import Manifest
from ...pure import model, render
from .. import records
from ..record import carried_digest, merge, merge_notes, records_index, views
from ..record.merge_rules import Plan, Rule, Sides, append_only, three_way  # noqa: F401 - re-exported

MAX_ATTEMPTS = 50
Outcome = Literal["up-to-date", "fast-forward", "merged"]




class MergeResult:  # a plain class: see workspace.Settings
    """What `merge_tips` did, for the edges to print."""

    def __init__(self, outcome: Outcome, tip: str, base: str | None = None, plan: Plan | None = None,
                 commit: store_write.CommitResult | None = None,
                 problems: dict[str, EnfError] | None = None,
                 notes: list[merge_notes.Note] | None = None, me: str = "") -> None:
        self.outcome = outcome
        self.tip = tip  # the branch's commit afterwards
        self.base = base  # the merge base (None: unrelated histories, or no merge made)
        self.commit = commit  # the merge commit (None unless outcome == "merged")
        self.conflicts = plan.conflicts if plan else []
        self.kept = plan.kept if plan else []
        self.skipped = plan.skipped if plan else []
        self.written: tuple[str, ...] = commit.paths if commit else ()  # paths the merge commit changed
        # path -> the bytes the merge commit put there: the working copy's refresh reuses them
        self.known: dict[str, bytes] = {p: d for p, d in plan.changes.items() if d is not None} if commit and plan else {}
        self.problems = problems or {}  # malformed records, left out of the views
        self.notes = notes or []  # conflicts and kept edits, with whose version is where
        self.me = me  # the name this clone commits with: "you" in what it reads

    def lines(self) -> list[str]:
        """What the conflicts and kept edits say to the person at this clone."""
        return merge_notes.reader_lines(self.notes, self.me)


def merge_tips(repo: store.Repo, ours: store.Commit | None, theirs: store.Commit, cache: records.Cache,
               now: int | None = None, synced: tuple[Path, Manifest] | None = None,
               env: Mapping[str, str] | None = None) -> MergeResult:
    """Bring `theirs` into the branch, whose tip was `ours` when the caller read it.

    If the branch moves meanwhile, the merge is redone onto where it points then.
    `synced` (working copy root, manifest): ours' views are read from the working copy
    where it holds the branch's bytes (views.synced_reader). `env`: git's identity
    variables the merge commit is signed with (Context.ident).
    """
    for _ in range(MAX_ATTEMPTS):
        result = _attempt(repo, ours, theirs, cache, now, synced, env)
        if result is not None:
            _judge(repo, ours, theirs, result)
            return result
        ours = store.tip(repo)
    raise ConcurrencyError(f"{paths.REF} kept moving while merging {str(theirs.id)[:8]}; gave up "
                           f"after {MAX_ATTEMPTS} attempts", hint="retry the command")


def _attempt(repo: store.Repo, ours: store.Commit | None, theirs: store.Commit, cache: records.Cache,
             now: int | None, synced: tuple[Path, Manifest] | None = None,
             env: Mapping[str, str] | None = None) -> MergeResult | None:
    """One try; None when the branch no longer points at `ours`."""
    if ours is None or store.descends_from(repo, theirs, ours):
        if ours is not None and ours.id == theirs.id:
            return MergeResult("up-to-date", str(ours.id))
        moved = store_merge.move_branch(repo, ours, str(theirs.id), f"enf: fast-forward to {str(theirs.id)[:8]}")
        if not moved:
            return None
        notes = merge_notes.from_fast_forward(repo, ours, theirs) if ours is not None else []
        return MergeResult("fast-forward", str(theirs.id), notes=notes, me=_me(repo, env) if notes else "")
    if store.descends_from(repo, ours, theirs):
        return MergeResult("up-to-date", str(ours.id))
    base = store_merge.merge_base(repo, ours, theirs)
    base_tree = base.tree if base else None
    mine, yours = _changed(repo, base_tree, ours.tree), _changed(repo, base_tree, theirs.tree)
    plan = _plan(repo, base_tree, mine, yours)
    read = views.synced_reader(repo, synced[0], synced[1], ours.tree) if synced else None
    rendered, problems = merged_views(repo, ours.tree, theirs.tree, plan.changes,
                                      lambda: _plan(repo, base_tree, yours, mine).changes, cache, read)
    plan.changes.update(rendered)
    merge.refuse_markers(plan.changes)
    notes = merge_notes.for_plan(repo, ours, theirs, plan.conflicts, plan.ours_in_place, plan.kept, plan.deleted_here,
                                 plan.why)
    done = store_merge.commit_merge(repo, ours, theirs, plan.changes, merge_message(ours, theirs, plan, notes), now,
                               env)
    cache.save()
    if done is None:
        return None
    return MergeResult("merged", done.oid, str(base.id) if base else None, plan, done, problems,
                       notes, _me(repo, env) if notes else "")


def _judge(repo: store.Repo, ours: store.Commit | None, theirs: store.Commit, result: MergeResult) -> None:
    """Note which records the merge brought read as instructions to the assistant
    (memory/flags.py): once here, so status and doctor need not read them again."""
    from .. import flags

    if result.commit is not None:
        flags.note(repo, result.commit.blobs, result.known)
    elif result.outcome == "fast-forward":
        flags.note_moved(repo, ours, theirs)


def _me(repo: store.Repo, env: Mapping[str, str] | None) -> str:
    return str(store_write.signature(repo, env=env).name)


def plan_merge(repo: store.Repo, base: store.Tree | None, ours: store.Tree, theirs: store.Tree) -> Plan:
    """The per-path merge of two trees against `base` (None: an empty tree)."""
    return _plan(repo, base, _changed(repo, base, ours), _changed(repo, base, theirs))


def _plan(repo: store.Repo, base: store.Tree | None, mine: dict[str, str | None], yours: dict[str, str | None]) -> Plan:
    """plan_merge from what each side changed since `base` (path -> blob id, None: deleted)."""
    plan = Plan()

    def read(oid: str | None) -> bytes:
        return store.blob_data(repo, oid) if oid else b""

    for path in sorted(yours):
        if render.is_view(path) or record_index.is_index_path(path):
            continue  # rendered from the merged records afterwards
        if not _is_blob(repo, yours[path]) or not _is_blob(repo, mine.get(path)):
            plan.skipped.append(path)  # a submodule or folder from a hand-made push: leave ours as it is
            continue
        if path not in mine:
            plan.changes[path] = read(yours[path]) if yours[path] else None
        elif mine[path] != yours[path]:
            sides = Sides(path, store.blob_oid(repo, base, path), mine[path], yours[path], read, repo)
            rule_for(path)(sides, plan)
    return plan


def _is_blob(repo: store.Repo, oid: str | None) -> bool:
    """Absent, or a blob this repository holds (a gitlink's commit is not in it)."""
    return oid is None or store_merge.is_blob(repo, oid)


def _changed(repo: store.Repo, base: store.Tree | None, tree: store.Tree) -> dict[str, str | None]:
    """Path -> blob id in `tree` (None: deleted) for every path that differs from `base`."""
    if base is None:
        return dict(store.list_files(repo, tree))
    return store.changed_paths(base, tree)


# First match wins; three_way when none matches.
def _instinct_union(sides: Sides, plan: Plan) -> None:
    """instincts.union_rule, loaded when a merge meets an instinct (its derivation is ~8 ms to import)."""
    from ..lifecycle import instincts

    instincts.union_rule(sides, plan)


def _keep_edit(sides: Sides, plan: Plan) -> None:
    """compress.keep_edit, loaded when both sides changed one session (compress and what it
    imports are ~7 ms, on the path of every sync that merges)."""
    from ..lifecycle import compress

    compress.keep_edit(sides, plan)


RULES: tuple[tuple[Callable[[str], bool], Rule], ...] = (
    (lambda path: path in paths.APPEND_ONLY, append_only),
    (model.is_session_path, _keep_edit),  # a compression against an edit keeps the edit
    (paths.is_instinct_path, _instinct_union),  # one lesson learned on both sides: the union
)


def rule_for(path: str) -> Rule:
    return next((rule for matches, rule in RULES if matches(path)), three_way)


def merged_views(repo: store.Repo, ours: store.Tree, theirs: store.Tree, changes: dict[str, bytes | None],
                 their_changes: Callable[[], dict[str, bytes | None]], cache: records.Cache,
                 read: Callable[[str], bytes | None] | None = None
                 ) -> tuple[dict[str, bytes | None], dict[str, EnfError]]:
    """The views of the merged records (ours + `changes`), as changes to ours' tree.

    Patched only when patching ours' views with `changes` and theirs' views with
    `their_changes()` (what makes theirs the merge) gives the same bytes for every view:
    the answer then depends on neither the direction of the merge nor the clone. Else a
    full render. `read(path)`: ours' views (default: from the object store).
    """
    keys: dict[str, render.Key | None] = {}  # the two patches probe mostly the same sessions
    mine = views.patched_views(repo, ours, changes, read, keys)
    if mine is not None:
        other = their_changes()
        yours = views.patched_views(repo, theirs, other, keys=keys)
        if yours is not None and _same_views(repo, ours, mine, theirs, yours):
            # The records index of each day either side changed, rewritten for the merged records.
            return (mine | records_index.changes_for(repo, ours, changes, cache, also=other)
                    | carried_digest.merged(repo, ours, changes, theirs, other)), {}
    return render_views(repo, ours, changes, cache)


def _same_views(repo: store.Repo, ours: store.Tree, mine: dict[str, bytes | None],
                theirs: store.Tree, yours: dict[str, bytes | None]) -> bool:
    """Whether ours' tree patched with `mine` and theirs' with `yours` hold the same views."""
    months = {*views.month_files(repo, ours), *views.month_files(repo, theirs)}
    for view in (*render.VIEWS, *sorted(months | {p for p in (*mine, *yours) if render.is_month_file(p)})):
        if view in mine and view in yours:
            same = mine[view] == yours[view]  # both rewritten (the archives: megabytes): compare, never hash
        else:
            same = _view_oid(repo, ours, mine, view) == _view_oid(repo, theirs, yours, view)
        if not same:
            return False
    return True


def _view_oid(repo: store.Repo, tree: store.Tree, patched: dict[str, bytes | None], view: str) -> str | None:
    if view not in patched:
        return store.blob_oid(repo, tree, view)
    data = patched[view]
    return store.hash_bytes(data) if data is not None else None


def render_views(repo: store.Repo, tree: store.Tree, overlay: dict[str, bytes | None],
                 cache: records.Cache) -> tuple[dict[str, bytes | None], dict[str, EnfError]]:
    """(every view whose full render from `tree` + `overlay` differs from `tree`'s, malformed records)."""
    recs = records.load(repo, tree, cache, overlay)
    out = views.rendered(repo, tree, overlay, recs)
    out |= records_index.changes_for(repo, tree, overlay, cache, every=True)
    from ..record import fact_stores  # only a full render needs it: not on the path of a patched merge

    return out | fact_stores.memories_view(repo, tree, overlay), recs.problems


def merge_message(ours: store.Commit, theirs: store.Commit, plan: Plan, notes: list[merge_notes.Note]) -> str:
    """`enf: merge <theirs> into <ours>`, then what needs a person's eye, naming whose version is where."""
    head = f"enf: merge {str(theirs.id)[:8]} into {str(ours.id)[:8]}"
    body = merge_notes.commit_lines(notes, plan.line_merged)
    return f"{head}\n\n" + "\n".join(body) + "\n" if body else head + "\n"
