"""Transcript figures kept per session: numbers only, on this machine unless shared.

Stop hands over the payload's `transcript_path`; `update` reads what was appended since
the last read (whole lines, at most MAX_READ bytes at a Stop, so one Stop stays within its
budget however long the session) and folds it into the session's running `Usage`,
saved as `.git/enf/transcripts/<id8>.json` with the path and the offset reached. `git
enf stats` calls `refresh` to read what the last Stop left, then `local`. Nothing of
the transcript's text is kept.

With `enf.stats.share` true, Stop also writes the totals (no path, no offset, no text)
to the working copy's `stats/<id8>.json`, which the commit puts on the branch, one file
per session so teammates never edit the same one; `shared` reads them back.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ...plumbing import atomic, store
from ...pure import usage as pu

FOLDER = "transcripts"  # under .git/enf/
SHARED_DIR = "stats"  # on the branch and in the working copy: stats/<id8>.json
SHARE_KEY = "enf.stats.share"
# Bytes of a transcript one Stop reads (~60 ms on a busy 2-core machine, measured; a turn
# adds far less): a long resumed session's backlog is read over several Stops, or by stats.
MAX_READ = 2 << 20
STATS_READ = 256 << 20  # what `git enf stats` reads of each transcript at most
MAX_STATE = 1 << 20  # a state file past this is not ours


def _state_path(state_dir: str | Path, id8: str) -> Path:
    return Path(state_dir) / FOLDER / f"{id8}.json"


def _load(path: Path) -> dict[str, Any] | None:
    try:
        if path.stat().st_size > MAX_STATE:
            return None
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return raw if isinstance(raw, dict) else None


def update(state_dir: str | Path, id8: str, transcript: str, date: str, reader: str = "claude-code",
           max_read: int = MAX_READ) -> pu.Usage | None:
    """Fold the new lines of `transcript` into session `id8`'s totals; None when there is
    nothing to read (no such file, not a regular file, an unknown reader)."""
    fold = pu.READERS.get(reader)
    if fold is None or not id8 or not os.path.isfile(transcript):
        return None
    path = _state_path(state_dir, id8)
    saved = _load(path) or {}
    same = saved.get("path") == transcript and saved.get("reader") == reader
    offset = saved["offset"] if same and isinstance(saved.get("offset"), int) else 0
    totals = pu.Usage.from_json(saved.get("usage")) if same else pu.Usage()
    try:
        with open(transcript, "rb") as f:
            if os.fstat(f.fileno()).st_size < offset:
                offset, totals = 0, pu.Usage()  # rewritten from the start: count it again
            f.seek(offset)
            data = f.read(max_read)
    except OSError:
        return None
    end = data.rfind(b"\n") + 1  # a line still being written waits for the next read
    if end == 0 and len(data) >= max_read:
        end = len(data)  # one line longer than a read is no line we count: step over it
    fold.fold(totals, data[:end].splitlines())
    record = {"reader": reader, "path": transcript, "offset": offset + end,
              "date": saved.get("date") if same and isinstance(saved.get("date"), str) else date,
              "usage": totals.as_json()}
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic.write(path, json.dumps(record, sort_keys=True).encode("utf-8"))
    return totals


def refresh(state_dir: str | Path, budget: int = STATS_READ) -> None:
    """Read what each known transcript gained since its last read (stats calls it first),
    MAX_READ at a time, at most `budget` bytes of each."""
    folder = Path(state_dir) / FOLDER
    if not folder.is_dir():
        return
    for entry in sorted(folder.glob("*.json")):
        for _ in range(max(budget // MAX_READ, 1)):
            saved = _load(entry)
            if not saved or not isinstance(saved.get("path"), str) or not isinstance(saved.get("reader"), str):
                break
            update(state_dir, entry.stem, saved["path"], str(saved.get("date", "")), saved["reader"])
            after = _load(entry)
            if after is None or after.get("offset") == saved.get("offset"):
                break  # nothing more to read


def local(state_dir: str | Path) -> dict[str, tuple[str, pu.Usage]]:
    """id8 -> (date of its first read, totals) of every session this machine read."""
    folder = Path(state_dir) / FOLDER
    out: dict[str, tuple[str, pu.Usage]] = {}
    for entry in sorted(folder.glob("*.json")) if folder.is_dir() else ():
        saved = _load(entry)
        if saved is not None:
            out[entry.stem] = (str(saved.get("date", ""))[:10], pu.Usage.from_json(saved.get("usage")))
    return out


def shared_bytes(totals: pu.Usage, date: str) -> bytes:
    """What goes on the branch: the totals only, canonical bytes (same totals, same blob)."""
    public = {k: v for k, v in totals.as_json().items() if not k.startswith("last_")}
    return (json.dumps({"schema": 1, "date": date, "usage": public}, sort_keys=True, indent=1) + "\n").encode()


def write_shared(root: str | Path, id8: str, totals: pu.Usage, date: str) -> None:
    """`stats/<id8>.json` in the working copy, for the commit to take (enf.stats.share)."""
    path = Path(root) / SHARED_DIR / f"{id8}.json"
    data = shared_bytes(totals, date)
    try:
        if path.read_bytes() == data:
            return  # no change, no commit
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic.write(path, data)


def shared(repo: store.Repo, tip: store.Commit) -> dict[str, tuple[str, pu.Usage]]:
    """id8 -> (date, totals) of the sessions whose totals are on the branch."""
    out: dict[str, tuple[str, pu.Usage]] = {}
    for name, oid, kind in store.folder_entries(repo, tip.tree, SHARED_DIR):
        if kind != "blob" or not name.endswith(".json"):
            continue
        try:
            raw = json.loads(store.blob_data(repo, oid)[:MAX_STATE])
        except (ValueError, UnicodeDecodeError):
            continue  # a teammate's broken file costs that file only
        if isinstance(raw, dict):
            out[name.removesuffix(".json")] = (str(raw.get("date", ""))[:10], pu.Usage.from_json(raw.get("usage")))
    return out
