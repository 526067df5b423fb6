"""Writing the records index the branch carries (plumbing/record_index.py: what it is).

A commit rewrites the day file of each day whose sessions it changes; a full render
(init, a removal, a decision file, a merge that could not patch its views) rewrites
every day file that disagrees with its month folder, and removes those of days with
no session left. A day file is a function of that day's sessions alone (names and
blobs), so two clones that merge the same records write the same bytes, and a merge
never merges it as text: it is rewritten for the merged records, like the views.

A line whose blob id is still the one listed is kept as it is (a routine commit at
100,000 sessions must not load `.git/enf/records.json` to rewrite the ~100 other
lines of today); any other session of the day is taken from the records cache when
it is loaded already, else parsed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ... import paths
from ...plumbing import record_index, store
from .. import records

Listing = dict[str, str]  # session name -> blob id


def changes_for(repo: store.Repo, tree: store.Tree | None, overlay: Mapping[str, bytes | None],
                cache: records.Cache, every: bool = False, also: Iterable[str] = ()) -> dict[str, bytes | None]:
    """The index files of `tree` + `overlay` that differ from `tree`'s (None: remove it):
    the days the overlay's sessions (and the sessions `also` names) are in, or, with
    `every`, every day. A merge names what the other side changed in `also`: a day both
    sides changed is rewritten whichever side merges, so both directions agree even when
    one side's file was stale."""
    from . import records_verify

    # Lines the background refresh found not to be their session's parse: written again
    # from the true parse by the next commit, whichever day it changes.
    wrong = {d.session for d in records_verify.in_force(repo)}
    days = {d for d in map(record_index.day_of, [*overlay, *also, *wrong]) if d is not None}
    listed = _listing(repo, tree, days, every)
    index = records.index_reader(repo, tree)
    if every:
        days |= set(listed) | set(index_days(repo, tree))
    out: dict[str, bytes | None] = {}
    for day in sorted(days):
        names = dict(listed.get(day, {}))
        for path, data in overlay.items():
            if record_index.day_of(path) == day:
                _apply(names, path, data)
        new = _day_file(day, names, overlay, index, cache, lambda oid: store.blob_data(repo, oid), wrong)
        path = record_index.file_of(day)
        if store.blob_oid(repo, tree, path) != (store.hash_bytes(new) if new is not None else None):
            out[path] = new
    return out


def _apply(names: Listing, path: str, data: bytes | None) -> None:
    name = path.rsplit("/", 1)[1]
    if data is None:
        names.pop(name, None)
    else:
        names[name] = store.hash_bytes(data)


def _listing(repo: store.Repo, tree: store.Tree | None, days: set[str], every: bool) -> dict[str, Listing]:
    """day -> its sessions on `tree` (every day's with `every`, else only `days`')."""
    out: dict[str, Listing] = {}
    if every:
        entries = store.folder_entries(repo, tree, paths.SESSIONS_DIR)
    else:
        entries = [e for month in sorted({d[:7] for d in days}) for e in store.month_sessions(repo, tree, month)]
    for name, oid, kind in entries:
        day = record_index.day_of(f"{paths.SESSIONS_DIR}/{name}")
        if day is not None and kind == "blob" and (every or day in days):
            out.setdefault(day, {})[name] = oid
    return out


def index_days(repo: store.Repo, tree: store.Tree | None) -> list[str]:
    """"YYYY/MM/DD" of each day file the index of `tree` holds."""
    out = []
    for year, _o, kind in store.folder_entries(repo, tree, record_index.FOLDER):
        for month, _m, mkind in store.folder_entries(repo, tree, f"{record_index.FOLDER}/{year}") if kind == "tree" else ():
            folder = f"{record_index.FOLDER}/{year}/{month}"
            out += [f"{year}/{month}/{n.removesuffix('.jsonl')}"
                    for n, _d, dkind in (store.folder_entries(repo, tree, folder) if mkind == "tree" else ())
                    if dkind == "blob" and n.endswith(".jsonl")]
    return out


def _day_file(day: str, names: Listing, overlay: Mapping[str, bytes | None], index: record_index.Reader,
              cache: records.Cache, blob: Callable[[str], bytes], wrong: set[str]) -> bytes | None:
    if not names:
        return None
    old = index.day(day) or {}
    rows = []
    for name, oid in names.items():
        if " " in name or "\n" in name:
            continue  # the line format cannot hold it: that session is parsed by its readers
        kept = old.get(name)
        path = f"{paths.SESSIONS_DIR}/{name}"
        if kept is not None and kept[0] == oid and path not in wrong:
            rows.append((name, oid, kept[1]))
            continue
        rows.append((name, oid, _entry_json(cache, path, oid, _reader(overlay.get(path), oid, blob))))
    return record_index.encode(records.index_versions(), rows)


def _reader(data: bytes | None, oid: str, blob: Callable[[str], bytes]) -> Callable[[], bytes]:
    """The session's bytes: the overlay's, else its blob's (read only on a parse)."""
    return (lambda: data) if data is not None else (lambda: blob(oid))


def _entry_json(cache: records.Cache, path: str, oid: str, data_of: Callable[[], bytes]) -> bytes:
    """A session's entry: the records cache's when loaded already, else parsed."""
    key = f"{oid}:{path}"
    entry: Any = cache.entries.get(key) if cache.loaded else None
    if entry is None:
        entry = records.parsed_entry(path, data_of())
        if cache.loaded:
            cache.entries[key] = entry
            cache.dirty = True
    return json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def stale_days(repo: store.Repo, tree: store.Tree | None) -> list[str]:
    """The days whose index file disagrees with the month folder (a session missing, one
    too many, a blob id that differs, another version's file): doctor names them."""
    listed = _listing(repo, tree, set(), every=True)
    index = records.index_reader(repo, tree)
    out = []
    for day in sorted(set(listed) | set(index_days(repo, tree))):
        lines = index.day(day)
        have = {n: o for n, (o, _e) in (lines or {}).items()}
        want = {n: o for n, o in listed.get(day, {}).items() if " " not in n and "\n" not in n}
        if have != want or (lines is None and want):
            out.append(day)
    return out
