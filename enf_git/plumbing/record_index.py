"""The records index the branch carries: what each session blob parses to, one file a day.

Data model. Beside the month folders of sessions (`sessions/YYYY/MM/<name>.md`), the
branch holds `.derived/records/YYYY/MM/DD.jsonl`: one line per session of that day, in
name order, `<name> <blob id> <entry>`, where the entry is the JSON that
`.git/enf/records.json` keeps for that blob (the parse minus section text, plus the
tier facts compression ranks it by). The first line names the format and the parser
versions that wrote it; a file of another version is not read.

It is derived, like the views: every commit that changes a session rewrites that day's
file from the records, and a merge rewrites it for the merged records (never merged as
text). It is never trusted over the records: a reader asks it only for a session the
month folder lists, and takes an entry only when its blob id is the one listed, so a
teammate's tampered or stale file can neither hide nor invent a session; a mismatch
costs a parse of that one blob. Why a file a day, not a month: at 100,000 sessions a
month holds ~3,000 (3 MB of entries, ~0.1 s to compress on every commit); a day ~100.

The leading dot keeps it out of the working copy (workcopy.is_local_only): it is for
enf-git, not for the assistant. Bytes and paths only: memory/records.py gives meaning.
"""

from __future__ import annotations

from . import store
from .. import paths

FOLDER = ".derived/records"
VERSION = "1"  # bump when the line format changes (the entry's own versions are in the header)
_SESSIONS = paths.SESSIONS_DIR + "/"
_DIGITS = frozenset("0123456789")


def header(versions: str) -> bytes:
    """The first line of a day file written by parsers of `versions`."""
    return f"# enf-git records index {VERSION} {versions}\n".encode()


def day_of(path: str) -> str | None:
    """"YYYY/MM/DD" of a dated session's working-copy path, else None (not indexed)."""
    if not path.startswith(_SESSIONS) or path.count("/") != 1 or not path.endswith(".md"):
        return None
    name = path[len(_SESSIONS):]
    if len(name) < 15 or name[4] != "-" or name[7] != "-" or name[10] != "-":
        return None
    if not set(name[:4] + name[5:7] + name[8:10]) <= _DIGITS:
        return None
    return f"{name[:4]}/{name[5:7]}/{name[8:10]}"


def file_of(day: str) -> str:
    """The branch path of a day's index file."""
    return f"{FOLDER}/{day}.jsonl"


DERIVED = ".derived/"  # the derived files the branch carries: this index, the digest (memory/record/carried_digest.py)


def is_index_path(path: str) -> bool:
    """A path of the branch's derived files (.derived/): rewritten from the records, never merged as text."""
    return path.startswith(DERIVED)


def encode(versions: str, rows: list[tuple[str, str, bytes]]) -> bytes:
    """A day file from (name, blob id, entry JSON) rows, in name order."""
    return header(versions) + b"".join(b"%s %s %s\n" % (n.encode(), o.encode(), e) for n, o, e in sorted(rows))


def decode(data: bytes, versions: str) -> dict[str, tuple[str, bytes]] | None:
    """name -> (blob id, entry JSON) of a day file; None when another version wrote it.
    A line that does not have the shape is skipped: its session is parsed instead."""
    head = header(versions)
    if not data.startswith(head):
        return None
    out: dict[str, tuple[str, bytes]] = {}
    for line in data[len(head):].split(b"\n"):
        parts = line.split(b" ", 2)
        if len(parts) == 3 and len(parts[1]) == 40:
            out[parts[0].decode("utf-8", "replace")] = (parts[1].decode("ascii", "replace"), parts[2])
    return out


class Reader:
    """The index of one tree, a day file read when a session of that day is first asked for."""

    def __init__(self, repo: store.Repo, tree: store.Tree | None, versions: str) -> None:
        self.repo, self.tree, self.versions = repo, tree, versions
        self.days: dict[str, dict[str, tuple[str, bytes]] | None] = {}
        self.read = 0  # day files read (tests count them)

    def entry(self, path: str, oid: str) -> bytes | None:
        """The entry JSON for session `path` at blob `oid`, when the index has that blob there."""
        day = day_of(path)
        if day is None or self.tree is None:
            return None
        if day not in self.days:
            self.days[day] = self.day(day)
        found = (self.days[day] or {}).get(path[len(_SESSIONS):])
        return found[1] if found is not None and found[0] == oid else None

    def day(self, day: str) -> dict[str, tuple[str, bytes]] | None:
        """A day file's lines (None: no file, or another version's)."""
        data = store.read_path(self.repo, self.tree, file_of(day))
        if data is None:
            return None
        self.read += 1
        return decode(data, self.versions)
