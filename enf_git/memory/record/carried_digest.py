"""The startup digest the branch carries: `.derived/digest.json`.

SessionStart's digest (pure/briefing.py Digest: the newest sessions, the interrupted
ones, the standing decisions' count and the lines the context can show, the open
disagreements) is what the decision ledger gives the start. Kept only per machine
(`.git/enf/startup.json`, digests.py), a fresh clone's first start folded it from every
record: ~7 s at 100,000 sessions (every entry turned into a record, the ledger folded
from 100,000 decisions). The branch now carries it beside the records index, keyed by
the sessions/ and decisions/ folders it describes (their tree ids), so a start whose
tip it describes reads one small file instead.

Written by every commit and merge that changes a record: from the previous tip's digest
(the branch's, or this machine's startup.json for that tip) with the changed sessions
folded in (briefing.updated), or, on a full render, from the ledger that render folds
anyway. When neither is at hand (a reversal on a patched commit: never, patched commits
change no decision) the file is left as it was: its key no longer matches, readers
skip it, and the next full render or commit from a machine that has the digest writes
it again.

Trust: like the records index, it is derived and unsigned. Under `enf.trust signed`
the start never reads it. Otherwise the background refresh folds the true digest
(records_verify.check_digest) and, when the carried one would show something else,
keeps the true one in startup.json (which the start prefers) and tells doctor.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from ...plumbing import store, store_write
from ...pure import briefing, model
from ...pure.frozen import replace
from .. import records
from . import digests

PATH = digests.CARRIED
Key = tuple[str, str]
read = digests.read_carried  # the start reads it (digests.current); writers here


def encode(key: Key, digest: briefing.Digest) -> bytes:
    """The file's bytes: a function of the records alone, whether folded whole or brought
    up to date commit by commit (the newest sessions as many as a start needs, no more:
    the local digest keeps a margin past them, which depends on its history)."""
    digest = replace(digest, newest=digest.newest[:briefing.NEED])
    return json.dumps({"version": digests.carried_version(), "folders": list(key), "digest": digests.digest_to_json(digest)},
                      ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")


def changes_for(repo: store.Repo, tree: store.Tree | None, overlay: Mapping[str, bytes | None],
                built: briefing.Digest | None = None) -> dict[str, bytes | None]:
    """The digest file of `tree` + `overlay` ({} when no record changed or it cannot be
    had without folding every record). `built`: the digest of every record after the
    overlay, when a full render has them."""
    changed = _records_of(overlay)
    if not changed and built is None:
        return {}
    digest = built if built is not None else _updated(repo, tree, changed)
    if digest is None:
        return {}
    key = _key_after(repo, tree, changed)
    if key is None:
        return {}
    new = encode(key, digest)
    return {} if store.read_path(repo, tree, PATH) == new else {PATH: new}


def merged(repo: store.Repo, ours: store.Tree, changes: Mapping[str, bytes | None], theirs: store.Tree,
           their_changes: Mapping[str, bytes | None]) -> dict[str, bytes | None]:
    """A patched merge's digest file: ours' brought up to date with `changes` and theirs'
    with `their_changes`, written only when the two agree, else removed (the next commit
    of a clone that has it writes it again): either way the same bytes, whichever side
    merges, as for the views."""
    mine = _updated(repo, ours, _records_of(changes))
    yours = _updated(repo, theirs, _records_of(their_changes))
    key = _key_after(repo, ours, _records_of(changes))
    if key is None:
        return {}
    if mine is not None and yours is not None and encode(key, mine) == encode(key, yours):
        new: bytes | None = encode(key, mine)
    else:
        new = None
    return {} if store.read_path(repo, ours, PATH) == new else {PATH: new}


def _records_of(overlay: Mapping[str, bytes | None]) -> dict[str, bytes | None]:
    return {p: d for p, d in overlay.items() if model.is_session_path(p) or model.is_decision_path(p)}


def _updated(repo: store.Repo, tree: store.Tree | None, changed: Mapping[str, bytes | None]) -> briefing.Digest | None:
    if tree is None or any(model.is_decision_path(p) for p in changed):
        return None
    base = _base(repo, tree)
    if base is None:
        return None
    removed, added = [], []
    for path, data in changed.items():
        old = store.read_path(repo, tree, path)
        removed += _session(path, old)
        added += _session(path, data)
    return briefing.updated(base, removed, added)


def _base(repo: store.Repo, tree: store.Tree) -> briefing.Digest | None:
    """The digest of `tree`: this machine's (built or checked here) before the branch's."""
    key = digests.key_of_tree(repo, tree)
    local = digests.saved_for(repo, key)
    if local is not None:
        return local
    found = read(repo, tree)
    return found[1] if found is not None and found[0] == key else None


def _session(path: str, data: bytes | None) -> list[model.Session]:
    if data is None:
        return []
    record = records.parse_blob(path, data)
    return [record] if isinstance(record, model.Session) else []


def _key_after(repo: store.Repo, tree: store.Tree | None, changed: Mapping[str, bytes | None]) -> Key | None:
    """The sessions/ and decisions/ tree ids once `changed` is written (objects only: the
    commit writes the same ones again, deduplicated by id); None when they cannot be
    written (objects not writable: the commit's own write reports it, with its hint)."""
    if not changed:
        return digests.key_of_tree(repo, tree)
    try:
        after = repo[store_write.write_tree(repo, tree, dict(changed))]
    except Exception:  # noqa: BLE001 - pygit2.GitError or OSError: the memory rooms do not import pygit2
        return None
    assert isinstance(after, store.Tree)
    return digests.key_of_tree(repo, after)


