"""Three-way merging, path by path: the working copy onto the branch tip
(`merge_onto`), and one tip onto another (`merge_tips`, for team sharing).

Records are one file per thing, so different paths never conflict. The same text
file changed on both sides merges line by line (`merge_lines`: libgit2's three-way
merge) when the two edits touch different lines; edits that overlap keep both
versions: one in place, the other under `conflicts/`, reported, never dropped.
Append-only files (`log.md`) merge as a union of lines. Derived views are never merged as text: a merge of tips renders
them again from the merged records. Pure apart from reading blobs (and, in
`merge_tips`, writing the result).

Merging tips is symmetric: which version stays in place, the conflict copy's name
and the order of a union's lines depend on blob ids and line text, never on which
tip is "ours", so two clones merging the same two tips in either direction get the
same tree (the commits differ: parents, time).
"""

from __future__ import annotations

from collections.abc import Mapping

import json
import re

from ... import paths
from ...errors import EnfError
from ...plumbing import store, store_merge
from ...pure import fm, model


Kept = list[tuple[str, bool]]  # (path, deleted here): deleted on one side, edited on the other; the edit stays


def merge_onto(repo: store.Repo, tree: store.Tree | None, bases: Mapping[str, str], changes: Mapping[str, bytes | None]
               ) -> tuple[dict[str, bytes | None], list[tuple[str, str]], Kept]:
    """(the change set to commit onto `tree`, conflicts as (path, where ours went), edits kept over a deletion)."""
    out: dict[str, bytes | None] = {}
    conflicts: list[tuple[str, str]] = []
    kept: Kept = []
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
        elif ours is None or theirs is None:
            # A deletion yields to an edit, as in a merge of tips, and the one who deleted is told.
            if ours is not None:
                out[path] = ours
            kept.append((path, ours is None))
        elif (merged := merge_lines(repo, path, _blob_or_none(repo, base), ours, _blob(repo, theirs))) is not None:
            out[path] = merged  # edits that do not overlap: both land
        else:
            saved = f"{paths.CONFLICTS}{path}.{ours_oid[:8]}" if ours_oid else f"{paths.CONFLICTS}{path}"
            out[saved] = ours
            conflicts.append((path, saved))
    return out, conflicts, kept


def merge_lines(repo: store.Repo, path: str, base: bytes | None, ours: bytes, theirs: bytes) -> bytes | None:
    """Two edits of one text file merged line by line, or None: keep both versions.

    libgit2's three-way merge (git merge-file's rules) does the merging; this decides
    whether its answer may stand. Only text (UTF-8, no NUL) is merged, never bytes we
    cannot read. The merge is made both ways and must agree, so the result never
    depends on which side merges. A result holding a conflict marker, or a record that
    no longer parses (a session's frontmatter, a decision, any YAML header or JSON file),
    is no merge: a conflict copy says more than a broken file.
    """
    if base is None or not all(map(_is_text, (base, ours, theirs))):
        return None  # two files born apart have no common lines to line up against
    merged = store_merge.merge_text(repo, base, ours, theirs)
    if merged is None or merged != store_merge.merge_text(repo, base, theirs, ours):
        return None
    if marker_line(merged) is not None or not _still_parses(path, merged):
        return None
    return merged


def _is_text(data: bytes) -> bool:
    if b"\x00" in data:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


_HEADER_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)\s*:")


def _still_parses(path: str, data: bytes) -> bool:
    """Whether a merged file reads as what its path holds."""
    return _parse_problem(path, data) is None


def _parse_problem(path: str, data: bytes) -> str | None:
    """Why `data` does not read as what its path holds (None: it does)."""
    try:
        if model.is_session_path(path):
            model.parse_session(path, data)
        elif model.is_decision_path(path):
            model.parse_decision_file(path, data)
        elif path.endswith(".json"):
            json.loads(data)
            return None
        parts = fm.split(data.decode("utf-8"))
        if parts is not None:
            fm.parse(data.decode("utf-8"))
            keys = [m.group(1) for line in parts[0] if (m := _HEADER_KEY.match(line))]
            if len(keys) != len(set(keys)):
                return "a header field is set twice"  # both sides added it, in two places
    except EnfError as exc:  # RecordError, FrontmatterError
        return exc.message.removeprefix(f"{path}: ")
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
        return str(exc)
    return None


SAME_LINES = "in the same lines"


def why_apart(path: str, base: bytes | None, ours: bytes, theirs: bytes) -> str:
    """Why two edits of `path` were kept apart rather than merged line by line, as a
    conflict line says it after "changed on both sides, ". Edits far apart are kept apart
    too when the file is no text to merge or a version does not read as its record; the
    reader should not look for an overlap that is not there."""
    if base is None:
        return "each from nothing (no version in common to merge from)"
    if not all(map(_is_text, (base, ours, theirs))):
        return "in a file that is not UTF-8 text (never merged line by line)"
    for data in (ours, theirs):
        problem = _parse_problem(path, data)
        if problem is not None:
            return f"and one version does not read as a record ({problem}), so it is not merged line by line"
    return SAME_LINES


def _blob(repo: store.Repo, oid: str | None) -> bytes:
    return store.blob_data(repo, oid) if oid else b""


def _blob_or_none(repo: store.Repo, oid: str | None) -> bytes | None:
    """The base's bytes; None when there is none, or it is gone from the object store."""
    try:
        return store.blob_data(repo, oid) if oid else None
    except (KeyError, TypeError):
        return None


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


def union_of(a: bytes, b: bytes) -> bytes:
    """Append-only merge of two tips' versions, the same bytes whichever comes first.

    The lines both files start with stay as they are (the shared history: the header,
    everything up to where they diverged); after them come the remaining lines of
    both, each once, blank lines dropped, sorted. log.md lines start with their time
    (`- 2026-04-13T14:30 …`) and each flush appends them sorted, so sorting keeps
    time order where it matters and makes the result independent of merge direction.
    """
    if a == b:
        return a
    la, lb = _bare_lines(a), _bare_lines(b)
    shared = 0
    while shared < min(len(la), len(lb)) and la[shared] == lb[shared]:
        shared += 1
    head = la[:shared]
    known = set(head)
    tail = sorted({line for line in (*la[shared:], *lb[shared:]) if line.strip() and line not in known})
    return b"".join(line + b"\n" for line in (*head, *tail))


def _bare_lines(data: bytes) -> list[bytes]:
    return [line.rstrip(b"\r") for line in data.split(b"\n")[:-1 if data.endswith(b"\n") else None]]


_FENCES = (b"```", b"~~~")


def marker_line(data: bytes) -> int | None:
    """The line number of an unresolved git conflict (a `<<<<<<<` line closed by a later
    `>>>>>>>` line), or None. Lines inside a fenced code block are quoted text, not a
    failed merge: a session about resolving a conflict may show one."""
    if b"<<<<<<<" not in data or b"\x00" in data:
        return None  # the common case costs one scan; binary files hold no text markers
    fenced = False
    opened = 0
    for number, line in enumerate(data.split(b"\n"), 1):
        if line.lstrip().startswith(_FENCES):
            fenced = not fenced
        elif fenced:
            continue
        elif _is_marker(line, b"<<<<<<<"):
            opened = opened or number
        elif opened and _is_marker(line, b">>>>>>>"):
            return opened
    return None


def _is_marker(line: bytes, marker: bytes) -> bool:
    line = line.rstrip(b"\r")
    return line == marker or line.startswith(marker + b" ")


def refuse_markers(changes: Mapping[str, bytes | None]) -> None:
    """Raise EnfError if the change set would put a git conflict marker on the branch.

    Every commit through enf calls this on its change set (merges of tips included):
    nothing enf writes contains one, so a marker can only come from a hand-resolved
    `git merge` or a teammate's push, and the branch is where everyone reads from.
    """
    for path in sorted(changes):
        data = changes[path]
        line = marker_line(data) if data is not None else None
        if line is not None:
            raise EnfError(
                f"refusing to commit {path}: line {line} starts an unresolved git conflict (<<<<<<< … >>>>>>>)",
                hint=f"edit {path}: keep the text you want, delete the <<<<<<<, ======= and >>>>>>> lines, "
                     "then run the command again")
