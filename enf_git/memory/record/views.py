"""The derived views of a commit: re-rendered from the records, or patched line by line.

A routine commit edits sessions in place or adds new ones (and a merge brings a
teammate's few); the views are then the current views with those lines swapped or
inserted where they sort (pure/render.py proves each patch equal to a full render in
its tests). Anything else (a removal, a decision file, a new session with decisions)
renders every view from the records cache. Only views whose bytes differ are
returned, so a commit with no real change makes none (invariant 8). The records
index's day files (records_index.py) come with them: derived the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from ... import paths
from ...errors import EnfError
from ...plumbing import store, store_write
from ...plumbing.workcopy import Manifest
from ...pure import model, render
from .. import records
from . import carried_digest, records_index


def views_for(repo: store.Repo, tip: store.Commit | None, overlay: dict[str, bytes | None], cache: records.Cache,
              synced: tuple[Path, Manifest] | None = None) -> tuple[dict[str, bytes | None], dict[str, EnfError]]:
    """(views re-rendered from the records of tip + overlay where they differ,
    malformed records left out of them).

    `synced` (working copy root, manifest) lets a patch read a view from the working
    copy when its stat proves it equals the tip's, instead of inflating it from a pack.
    """
    tree = tip.tree if tip is not None else None
    reader = synced_reader(repo, synced[0], synced[1], tree) if synced else None
    patched = patched_views(repo, tree, overlay, reader)
    if patched is not None:
        derived = records_index.changes_for(repo, tree, overlay, cache) | carried_digest.changes_for(repo, tree, overlay)
        return patched | _memories(repo, tree, overlay) | derived, {}
    recs = records.load(repo, tree, cache, overlay)
    out = rendered(repo, tree, overlay, recs)
    # Every record is loaded: the whole records index is checked against its folders too.
    index = records_index.changes_for(repo, tree, overlay, cache, every=True)
    return out | _memories(repo, tree, overlay) | index, recs.problems


def rendered(repo: store.Repo, tree: store.Tree | None, overlay: dict[str, bytes | None],
             recs: records.Records) -> dict[str, bytes | None]:
    """Every view that differs from `tree`'s, and the digest the branch carries, from every
    record (one fold of the ledger serves both)."""
    from ...pure import briefing

    project = project_of(repo, tree, overlay)
    ledger = render.build_ledger(recs.all_sessions(), recs.extra_decisions())
    out = changed_views(repo, tree, render.render_all(project, recs.all_sessions(), recs.extra_decisions(), ledger))
    return out | carried_digest.changes_for(repo, tree, overlay, briefing.digest_of(recs.all_sessions(), ledger))


def changed_views(repo: store.Repo, tree: store.Tree | None,
                  rendered: Mapping[str, bytes | None]) -> dict[str, bytes | None]:
    """The views of a full render that differ from `tree`'s, and None (remove it) for each
    archive month file `tree` holds that the render no longer has."""
    out: dict[str, bytes | None] = {}
    for path, data in rendered.items():
        if store.blob_oid(repo, tree, path) != (store.hash_bytes(data) if data is not None else None):
            out[path] = data
    for path in month_files(repo, tree):
        if path not in rendered:
            out[path] = None
    return out


def month_files(repo: store.Repo, tree: store.Tree | None) -> list[str]:
    """The archive month files `tree` holds."""
    listed = (f"{render.ARCHIVE_DIR}/{name}" for name, _oid, kind in store.folder_entries(repo, tree, render.ARCHIVE_DIR)
              if kind == "blob")
    return [path for path in listed if render.is_month_file(path)]


def _memories(repo: store.Repo, tree: store.Tree | None, overlay: Mapping[str, bytes | None]) -> dict[str, bytes]:
    """memories.md when the overlay touches a remembered fact (imported only then: a
    routine session commit never loads the facts machinery)."""
    if not any(p.startswith("memories/") for p in overlay):
        return {}
    from .fact_stores import memories_view

    return memories_view(repo, tree, overlay)


def patched_views(repo: store.Repo, tree: store.Tree | None, overlay: Mapping[str, bytes | None],
                  read: Callable[[str], bytes | None] | None = None,
                  keys: dict[str, render.Key | None] | None = None) -> dict[str, bytes | None] | None:
    """The views of `tree` + `overlay` by patching `tree`'s lines, when the overlay only
    edits sessions in place and adds sessions without decisions; None: render all.

    `read(path)` gives a view's bytes at `tree` (default: from the object store).
    `keys`: session order keys by "blob id:path", shared between calls (a merge patches
    both sides' views, which mostly probe the same sessions).
    """
    if tree is None or paths.META in overlay or store_write.has_flat_sessions(repo, tree):
        return None  # flat sessions: written by an older enf-git, whose views may not list them all
    pairs: list[tuple[model.Session, model.Session]] = []
    added: list[model.Session] = []
    for path, data in overlay.items():
        if model.is_decision_path(path):
            return None
        if not model.is_session_path(path):
            continue
        if data is None:
            return None  # a session removed: counts and positions move
        old = store.read_path(repo, tree, path)
        try:
            if old is None:
                added.append(model.parse_session(path, data))
            else:
                pairs.append((model.parse_session(path, old), model.parse_session(path, data)))
        except EnfError:
            return None
    if not pairs and not added:
        # No record changed (log.md, conflict copies): the views stand, if they exist.
        return {} if all(store.blob_oid(repo, tree, v) for v in (render.INDEX, render.TOPICS)) else None
    read = read or (lambda v: store.read_path(repo, tree, v))
    current = _LazyViews(read, month_files(repo, tree))
    touched = render.patch_views(current, pairs) if pairs else {}
    if touched is None:
        return None
    if added:
        inserted = render.patch_insert(_Patched(current, touched), sorted(added, key=render.order_key),
                                       _key_reader(repo, tree, overlay, {} if keys is None else keys))
        if inserted is None:
            return None
        touched.update(inserted)
    return {v: text.encode("utf-8") for v, text in touched.items() if text != current.get(v)}


def _key_reader(repo: store.Repo, tree: store.Tree, overlay: Mapping[str, bytes | None],
                keys: dict[str, render.Key | None]) -> render.KeyOf:
    """The order key of a session by stem, read from `overlay` or `tree`: the few sessions
    a patch bisects over, parsed on demand (memoized in `keys` by blob and path) instead of
    loading every record."""

    def key_of(stem: str) -> render.Key | None:
        path = f"{model.SESSIONS_DIR}/{stem}.md"
        data = overlay.get(path)
        oid = store.hash_bytes(data) if data is not None else store.blob_oid(repo, tree, path)
        if oid is None or path in overlay and data is None:
            return None
        seen = f"{oid}:{path}"  # the key holds the name: one blob under two names has two
        if seen not in keys:
            try:
                raw = data if data is not None else store.blob_data(repo, oid)
                keys[seen] = render.order_key(model.parse_session(path, raw))
            except (EnfError, KeyError, TypeError):  # malformed, or no blob there (a folder, a submodule)
                keys[seen] = None
        return keys[seen]

    return key_of


class _LazyViews(Mapping[str, "str | None"]):
    """The patchable views' texts (month files too), each read on first use: a routine
    edit of a recent session finds its lines in index.md and topics.md and never reads
    the archives, and a line moving into the archive reads one month's file."""

    def __init__(self, read: Callable[[str], bytes | None], months: list[str]) -> None:
        self._read = read
        self._texts: dict[str, str | None] = {}
        self._months = months  # the tree's archive month files: iterated, never read for that

    def __getitem__(self, view: str) -> str | None:
        if not render.is_patchable(view):
            raise KeyError(view)
        if view not in self._texts:
            self._texts[view] = (self._read(view) or b"").decode("utf-8", "replace") or None
        return self._texts[view]

    def __iter__(self) -> Iterator[str]:
        return iter((*render.PATCHABLE, *self._months))

    def __len__(self) -> int:
        return len(render.PATCHABLE) + len(self._months)


class _Patched(Mapping[str, "str | None"]):
    """`base` with the views a first patch rewrote (`texts`) in their new state."""

    def __init__(self, base: Mapping[str, str | None], texts: Mapping[str, str]) -> None:
        self._base, self._texts = base, texts

    def __getitem__(self, view: str) -> str | None:
        return self._texts[view] if view in self._texts else self._base[view]

    def __iter__(self) -> Iterator[str]:
        return iter(self._base)

    def __len__(self) -> int:
        return len(self._base)


def synced_reader(repo: store.Repo, root: Path, manifest: Manifest,
                  tree: store.Tree | None) -> Callable[[str], bytes | None]:
    """A file's bytes at `tree`: from the working copy when it holds that blob, else from
    the object store, where libgit2 inflates and hash-checks (~8 ms for a 480 KB
    topics-archive.md, against ~0.1 ms to read the file). The file's stat proves it, or,
    for a file written too recently for its stat to count (the commit a sync makes just
    before it merges), its hash (~3 ms there)."""
    def read(path: str) -> bytes | None:
        oid = store.blob_oid(repo, tree, path)
        if oid is None:
            return None
        if manifest.files.get(path) == oid:
            proven = manifest.verified(root, path) == oid
            try:
                data = (root / path).read_bytes()
            except OSError:
                data = None
            if data is not None and (proven or store.hash_bytes(data) == oid):
                return data
        return store.read_path(repo, tree, path)
    return read


def project_name(repo: store.Repo) -> str:
    """A name for the project: origin's repository name, else the work tree's folder."""
    url = store.remote_url(repo, "origin")
    if url:
        return url.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1].removesuffix(".git") or "project"
    top = Path(repo.workdir or repo.path).resolve()
    return (top.name if repo.workdir else top.parent.name) or "project"


def project_of(repo: store.Repo, tree: store.Tree | None, overlay: Mapping[str, bytes | None]) -> str:
    """The project name recorded on the branch (meta.json), so every clone renders the same."""
    import json  # only a full render needs it: kept off the routine commit's imports

    raw = overlay.get(paths.META) or store.read_path(repo, tree, paths.META)
    try:
        return str(json.loads(raw or b"{}").get("project") or project_name(repo))
    except (ValueError, AttributeError):
        return project_name(repo)
