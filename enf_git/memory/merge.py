"""Three-way merging of working-copy changes onto the branch tip, path by path.

The merge base of each path is the blob the working copy last synced from the
branch (the manifest). Records are one file per thing, so different paths never
conflict; the same path changed on both sides keeps both versions: the branch's
stays in place, ours is stored under `conflicts/` and reported, never dropped.
Append-only files (`log.md`) merge as a union of lines. Pure apart from reading
blobs.
"""

from __future__ import annotations

from collections.abc import Mapping

from .. import paths
from ..plumbing import store


def merge_onto(repo: store.Repo, tree: store.Tree | None, bases: Mapping[str, str],
               changes: Mapping[str, bytes | None]) -> tuple[dict[str, bytes | None], list[tuple[str, str]]]:
    """(the change set to commit onto `tree`, conflicts as (path, where ours went))."""
    out: dict[str, bytes | None] = {}
    conflicts: list[tuple[str, str]] = []
    for path, ours in changes.items():
        base, theirs = bases.get(path), store.blob_oid(repo, tree, path)
        ours_oid = store.hash_bytes(ours) if ours is not None else None
        if path in paths.APPEND_ONLY and ours is not None:
            # Always a union, even when the branch did not move: a log.md that was
            # recreated from nothing (its folder was deleted) must not replace the
            # branch's history with the few lines written since.
            out[path] = union(_blob(repo, base), _blob(repo, theirs), ours)
        elif theirs == base or theirs == ours_oid:
            out[path] = ours
        elif ours is None:
            continue  # deleted here, changed there: keep their newer text
        else:
            saved = f"{paths.CONFLICTS}{path}.{ours_oid[:8]}" if ours_oid else f"{paths.CONFLICTS}{path}"
            out[saved] = ours
            conflicts.append((path, saved))
    return out, conflicts


def _blob(repo: store.Repo, oid: str | None) -> bytes:
    return store.blob_data(repo, oid) if oid else b""


def union(base: bytes, theirs: bytes, ours: bytes) -> bytes:
    """Append-only merge: their file plus the lines we appended since the base, each once."""
    if ours.startswith(base) and base:
        added = ours[len(base):]
    else:
        added = ours
    known = set(theirs.splitlines())
    fresh: list[bytes] = []
    for line in added.splitlines(keepends=True):
        bare = line.rstrip(b"\r\n")
        if bare not in known:
            known.add(bare)
            fresh.append(line if line.endswith(b"\n") else line + b"\n")
    if fresh and theirs and not theirs.endswith(b"\n"):
        theirs += b"\n"
    return theirs + b"".join(fresh)
