"""Bringing the branch into the working copy: materialize, the working set, restore.

The working copy holds every view, decision record and `log.md`, plus the newest
`enf.workingSet` sessions (default 500). A file the working copy already holds
follows the branch even below that floor. Nothing here overwrites a local edit
that is not committed yet: the next commit merges it instead.

A working copy that lost files it was synced with (`rm -rf .claude-sessions`, a
`git clean -xfd`, a deleted `sessions/`) is restored from the branch, never taken
for deletions (docs/design.md, invariant 10): see commits.pending for that half.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from ... import paths
from ...errors import NotFound
from ...plumbing import store, workcopy
from ...plumbing.workcopy import Manifest
from ...pure import model, render
from ..workspace import Context, require_branch


def materialize(ctx: Context, tip: store.Commit | None = None, also: Iterable[str] = (),
                manifest: Manifest | None = None, known: Mapping[str, bytes] | None = None,
                changed: Mapping[str, str | None] | None = None, prune: bool = False) -> list[str]:
    """Bring the branch into the working copy without clobbering local edits.

    Only paths that differ between the last materialized commit and `tip` are looked
    at (a tree diff, or `changed`: path -> blob OID when the caller knows the delta
    from the manifest's base to `tip`), so a commit that touched one file costs one
    file here; plus `also` and the views that went missing. `known` maps paths to the
    bytes `tip` holds there, when the caller has them already. `prune` recomputes the
    working set, removes (unedited) files that fell out of it, and restores every
    file of the set that is missing. Returns the paths written or removed.
    """
    tip = tip or require_branch(ctx)
    manifest = manifest or ctx.manifest()
    base = store.commit_at(ctx.repo, manifest.base) if ctx.root.is_dir() else None
    held: dict[str, str] = {}
    if base is None or prune:
        manifest.floor, held = _working_set(ctx, tip.tree)
    if base is None:  # never materialized here (or the folder is gone): everything
        wanted = _first_listing(ctx, manifest, tip.tree, held)
    else:
        wanted = dict(changed) if changed is not None else store.changed_paths(base.tree, tip.tree)
        for path in _missing_views(ctx, manifest) | set(also):
            wanted.setdefault(path, store.blob_oid(ctx.repo, tip.tree, path))
    wanted.update(_month_copies(ctx, manifest, tip))
    wanted = _in_working_copy(ctx, manifest, wanted, held if prune else None)
    # A local-only path on the branch (a scratchpad an older version committed) stays there
    # and never lands here: it would show one person's notes in another's work tree.
    wanted = {p: oid for p, oid in wanted.items() if not workcopy.is_local_only(p)}
    written = [p for p in sorted(wanted) if _sync_path(ctx, manifest, wanted[p], p, known or {})]
    manifest.base = str(tip.id)
    manifest.note_folders(ctx.root, _complete(ctx.root, manifest))  # a folder made whole again is marked again
    manifest.save(ctx.manifest_path)
    return written


def _first_listing(ctx: Context, manifest: Manifest, tree: store.Tree, held: dict[str, str]) -> dict[str, str | None]:
    """What a first materialization looks at: every file of the branch but the sessions
    outside the working set (`held`), except those the manifest lists or the folder
    holds (they follow the branch). Listing every session, then asking the disk about
    each, cost a fresh clone's `git enf init` seconds at 100,000 sessions."""
    wanted: dict[str, str | None] = {p: None for p in manifest.files}
    wanted |= store.files_but_dated_sessions(ctx.repo, tree)
    wanted |= held
    for path in [*manifest.files, *_sessions_here(ctx.root)]:
        if model.is_session_path(path) and wanted.get(path) is None:
            wanted[path] = store.blob_oid(ctx.repo, tree, path)
    return wanted


def _sessions_here(root: Path) -> list[str]:
    """The session files the working copy's sessions/ holds (none: no folder)."""
    try:
        return [f"{model.SESSIONS_DIR}/{e.name}" for e in os.scandir(root / model.SESSIONS_DIR)
                if e.name.endswith(".md")]
    except OSError:
        return []


def _working_set(ctx: Context, tree: store.Tree) -> tuple[str | None, dict[str, str]]:
    """(the oldest session path in the working set of `tree`, or None when it holds them
    all; path -> blob OID of each session in it)."""
    size = ctx.settings.working_set
    if not size:  # None or 0: every session
        kept = sorted((name, oid) for name, oid, kind in store.folder_entries(ctx.repo, tree, model.SESSIONS_DIR)
                      if name.endswith(".md") and kind == "blob")
        more = False
    else:
        kept, more = store.newest_sessions(ctx.repo, tree, size)  # the newest months only
    floor = f"{model.SESSIONS_DIR}/{kept[0][0]}" if more and kept else None
    return floor, {f"{model.SESSIONS_DIR}/{name}": oid for name, oid in kept}


def _in_working_copy(ctx: Context, manifest: Manifest, wanted: dict[str, str | None],
                     held: dict[str, str] | None) -> dict[str, str | None]:
    """`wanted` cut to what the working copy holds; with `held` (the recomputed set), also
    its changes: files that fell out of the set go, files that joined it or went
    missing come (back)."""
    floor = manifest.floor
    # Outside the set, only files the working copy already has follow the branch (one
    # created here with an old date, say); the rest stay on the branch.
    out = {p: oid for p, oid in wanted.items()
           if p in manifest.files or in_working_set(p, floor) or os.path.lexists(ctx.root / p)}
    if held is not None:
        out.update({p: None for p in manifest.files if not in_working_set(p, floor) and os.path.lexists(ctx.root / p)})
        # A file the manifest knows but the folder lacks is a deletion not committed
        # yet (the next commit makes it), unless its whole folder went: then it is lost,
        # and comes back.
        gone: dict[str, bool] = {}  # top-level folder -> vanished: one check per folder, not per file
        for path, oid in held.items():
            if path not in manifest.files or _vanished(ctx.root, path, gone, manifest):
                out.setdefault(path, oid)
    return out


def _vanished(root: Path, path: str, seen: dict[str, bool], manifest: Manifest) -> bool:
    top = path.partition("/")[0]
    if top not in seen:
        seen[top] = folder_vanished(root, path, manifest)
    return seen[top]


def folder_vanished(root: Path, path: str, manifest: Manifest | None = None) -> bool:
    """The working copy, or the top-level folder that holds `path`, no longer exists, or
    is another folder than the one that held our files (its `.enf-folder` mark is gone):
    `rm -rf .claude-sessions`, `git clean -xfd`, a deleted `sessions/`, and any of those
    followed by a new file written there (the assistant's session file)."""
    if not root.is_dir():
        return True
    top, sep, _ = path.partition("/")
    if sep and not (root / top).is_dir():
        return True
    return manifest is not None and (manifest.replaced(root, "") or bool(sep) and manifest.replaced(root, top))


def in_working_set(path: str, floor: str | None) -> bool:
    # Session names start with their date, so name order is age order.
    return floor is None or path >= floor or not model.is_session_path(path)


def _month_copies(ctx: Context, manifest: Manifest, tip: store.Commit) -> dict[str, str | None]:
    """Files an older enf-git wrote at sessions/YYYY/MM/<name> (it took the branch's month
    folders for folders of the working copy): each is the session sessions/<name>, so it
    goes (unless edited since: then the next commit says what to do) and the session comes
    back at its own name."""
    out: dict[str, str | None] = {}
    # A month path has three slashes: counting them costs a quarter of asking
    # logical_path about each of 10,000 flat sessions at every commit.
    for path in [p for p in manifest.files if p.count("/") == 3]:
        flat = store.logical_path(path)
        if flat != path:
            out[path] = None
            out.setdefault(flat, store.blob_oid(ctx.repo, tip.tree, flat))
    return out


def _missing_views(ctx: Context, manifest: Manifest) -> set[str]:
    """Derived views deleted locally: never committed as deletions, so restore them."""
    return {p for p in manifest.files if render.is_view(p) and not (ctx.root / p).is_file()}


def _sync_path(ctx: Context, manifest: Manifest, want: str | None, path: str, known: Mapping[str, bytes]) -> bool:
    """Make one working-copy path hold blob `want` (None: absent) unless it has local edits; True if written."""
    have = manifest.local_oid(ctx.root, path, store.hash_bytes)
    if have == want:
        if want is not None:
            manifest.record(ctx.root, path, want)
        else:
            manifest.forget(path)
        return False
    if have is not None and have != manifest.files.get(path):
        return False  # edited locally and not committed yet: the next commit merges it
    if want is None:
        workcopy.remove_file(ctx.root, path)
        manifest.forget(path)
    else:
        data = known.get(path)
        workcopy.write_file(ctx.root, path, data if data is not None else store.blob_data(ctx.repo, want))
        manifest.record(ctx.root, path, want)
    return True


def ensure_folders(ctx: Context) -> None:
    for folder in paths.WC_FOLDERS:
        (ctx.root / folder).mkdir(parents=True, exist_ok=True)


def missing(ctx: Context, tip: store.Commit) -> list[str]:
    """Paths of the working set that the branch has and the working copy lacks."""
    manifest = ctx.manifest()
    floor, _ = _working_set(ctx, tip.tree)
    return sorted(p for p in store.list_files(ctx.repo, tip.tree)
                  if (in_working_set(p, floor) or p in manifest.files) and not os.path.lexists(ctx.root / p)
                  and not workcopy.is_local_only(p))


class Restored:  # a plain class: see workspace.Settings
    def __init__(self) -> None:
        self.written: list[str] = []  # brought back from the branch
        self.kept: list[str] = []  # differ from the branch; left alone (no --force)


def restore(ctx: Context, names: Iterable[str] = (), force: bool = False, *, paths_on_branch: bool = False) -> Restored:
    """Rebuild the working copy (or the named paths) from the branch.

    A missing file is written; a file equal to the branch's is only re-recorded; a
    file that differs is a local edit and is kept unless `force`. Named paths may be
    below the working set's floor. Files the branch lacks are never touched. Names are
    what a user typed (relative to the current folder or the working copy), or, with
    `paths_on_branch`, exact paths on the branch (callers inside enf-git).
    """
    tip = require_branch(ctx)
    ensure_folders(ctx)
    with ctx.lock():
        manifest = ctx.manifest()
        files = store.list_files(ctx.repo, tip.tree)
        floor, _ = _working_set(ctx, tip.tree)
        if paths_on_branch:
            wanted = {p: files[p] for p in names if p in files}
        elif names:
            wanted = _named(ctx, files, list(names))
        else:
            wanted = {p: oid for p, oid in files.items()
                      if (in_working_set(p, floor) or p in manifest.files) and not workcopy.is_local_only(p)}
        out = _write_back(ctx, manifest, wanted, force)
        if manifest.base is None:
            manifest.base, manifest.floor = str(tip.id), floor
        manifest.note_folders(ctx.root, _complete(ctx.root, manifest))  # only a folder made whole again
        manifest.save(ctx.manifest_path)
    return out


def _complete(root: Path, manifest: Manifest) -> Callable[[str], bool]:
    """Whether a folder ("" = the working copy) holds every file the manifest has there;
    asked only of a folder whose mark is gone, so the files are looked at only then."""

    def complete(folder: str) -> bool:
        inside = (p for p in manifest.files if folder == "" or p.startswith(f"{folder}/"))
        return all(os.path.lexists(root / p) for p in inside)

    return complete


def _write_back(ctx: Context, manifest: Manifest, wanted: Mapping[str, str], force: bool) -> Restored:
    out = Restored()
    for path, oid in sorted(wanted.items()):
        have = manifest.local_oid(ctx.root, path, store.hash_bytes)
        if have == oid:
            manifest.record(ctx.root, path, oid)
            continue
        if have is not None and not force:
            out.kept.append(path)
            continue
        workcopy.write_file(ctx.root, path, store.blob_data(ctx.repo, oid))
        manifest.record(ctx.root, path, oid)
        out.written.append(path)
    return out


def _named(ctx: Context, files: Mapping[str, str], names: list[str]) -> dict[str, str]:
    """The branch files the user named: paths relative to the working copy, to the
    current folder or absolute; a folder names everything under it."""
    out: dict[str, str] = {}
    for name in names:
        rel = _relative(ctx, name)
        hits = {p: oid for p, oid in files.items() if p == rel or p.startswith(rel.rstrip("/") + "/") or rel == ""}
        if not hits:
            raise NotFound(f"{name}: no such file on {paths.BRANCH}",
                           hint=f"git enf restore with no path restores everything; git ls-tree -r --name-only {paths.BRANCH}")
        out.update(hits)
    return out


def _relative(ctx: Context, name: str) -> str:
    """`name` as a path inside the working copy ('' for the whole working copy)."""
    root = os.path.abspath(ctx.root)
    absolute = os.path.abspath(name)
    if absolute == root or absolute.startswith(root + os.sep):
        rel = os.path.relpath(absolute, root).replace(os.sep, "/")
        return "" if rel == "." else rel
    prefix = paths.WC_DIR + "/"
    return name.replace(os.sep, "/").removeprefix("./").removeprefix(prefix)
