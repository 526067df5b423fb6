"""SessionStart's digest of the branch (pure/briefing.py Digest), kept per machine in
`.git/enf/startup.json` for the tip it describes.

Building it reads every record and folds the decision ledger: ~0.6 s on a
10,000-session branch, the bulk of a SessionStart. The next start finds either the
same sessions/ and decisions/ folders (the digest stands) or a few sessions changed
since (a Stop commit, a compression, a teammate's merge): those are parsed and
folded in (briefing.updated), and only what that cannot decide (a reversal, a
decision file) reads every record again. A pure accelerator, like records.json:
delete it and the next start rebuilds it.
"""

from __future__ import annotations

import json
from typing import Any

from ...errors import EnfError
from ...plumbing import atomic, record_index, store
from ...pure import briefing, model, render
from .. import records

FILE = "startup.json"
UNCHECKED_MARK = "digest-unchecked"  # beside it while it comes from the branch's digest, not checked yet
VERSION = 3  # bump whenever the Digest's fields or their meaning change (3: a decision line names its record)
MAX_CHANGED = 200  # changed sessions folded in one by one; more (a big merge) rebuild it


def current(repo: store.Repo, tip: store.Commit, cache: records.Cache) -> briefing.Digest:
    """The digest of `tip` (from the file, updated from it, or built), saved for the next start."""
    key = _key(repo, tip)
    path = store.state_dir(repo) / FILE
    saved = _read(path)
    digest = None
    if saved is not None and saved[1] == key:
        return saved[2]
    if saved is not None and saved[1][1] == key[1]:
        digest = _update(repo, saved[0], tip, saved[2])
    if digest is None:
        digest = carried_for_tip(repo, tip)  # a fresh clone's first start: the branch carries it
        if digest is not None:  # taken unchecked: the background refresh folds the true one
            (store.state_dir(repo) / UNCHECKED_MARK).touch()
    if digest is None:
        digest = build(repo, tip, cache)
    _write(path, str(tip.id), key, digest)
    return digest


def build(repo: store.Repo, tip: store.Commit, cache: records.Cache) -> briefing.Digest:
    """The digest from every record of `tip` (records.json makes that a read of one file)."""
    recs = records.load(repo, tip.tree, cache)
    cache.save()
    return briefing.digest_of(recs.all_sessions(), render.build_ledger(recs.all_sessions(), recs.extra_decisions()))


CARRIED = record_index.DERIVED + "digest.json"  # the digest the branch carries (written by carried_digest.py)


def carried_version() -> str:
    return f"{VERSION}.{records.CACHE_VERSION}"


def read_carried(repo: store.Repo, tree: store.Tree | None) -> tuple[tuple[str, str], briefing.Digest] | None:
    """(the folders' key it describes, the digest) of `tree`'s carried digest; None: none, or another version's."""
    data = store.read_path(repo, tree, CARRIED) if tree is not None else None
    if data is None:
        return None
    try:
        raw = json.loads(data)
        if raw.get("version") != carried_version():
            return None
        return (str(raw["folders"][0]), str(raw["folders"][1])), digest_of_json(raw["digest"])
    except (ValueError, KeyError, TypeError, AttributeError, IndexError, EnfError):
        return None


def carried_for_tip(repo: store.Repo, tip: store.Commit) -> briefing.Digest | None:
    """The digest the tip carries, when it describes the tip's records and enf.trust lets
    it stand for them (never under signed memory: records.index_refused)."""
    if records.index_refused(repo):
        return None
    found = read_carried(repo, tip.tree)
    return found[1] if found is not None and found[0] == key_of_tree(repo, tip.tree) else None


def saved_for(repo: store.Repo, key: tuple[str, str]) -> briefing.Digest | None:
    """This machine's digest (startup.json) when it describes the folders `key` names."""
    saved = _read(store.state_dir(repo) / FILE)
    return saved[2] if saved is not None and saved[1] == key else None


def save(repo: store.Repo, tip: store.Commit, digest: briefing.Digest) -> None:
    """Keep `digest` as this machine's for `tip` (the refresh's checked one, say)."""
    _write(store.state_dir(repo) / FILE, str(tip.id), _key(repo, tip), digest)


def key(repo: store.Repo, tip: store.Commit) -> tuple[str, str]:
    """What the digest (and whatever else is derived from the same records) is a function of."""
    return _key(repo, tip)


def _key(repo: store.Repo, tip: store.Commit) -> tuple[str, str]:
    return key_of_tree(repo, tip.tree)


def key_of_tree(repo: store.Repo, tree: store.Tree | None) -> tuple[str, str]:
    """What the digest is a function of: the sessions/ and decisions/ folders."""
    return (store.blob_oid(repo, tree, model.SESSIONS_DIR) or "",
            store.blob_oid(repo, tree, model.DECISIONS_DIR) or "")


def _update(repo: store.Repo, since: str, tip: store.Commit, digest: briefing.Digest) -> briefing.Digest | None:
    """`digest` (of the commit `since`) brought to `tip` session by session; None: rebuild."""
    old = store.commit_at(repo, since)
    if old is None:
        return None
    changed = [d for d in store.deltas(old.tree, tip.tree)
               if model.is_session_path(d.old_path) or model.is_session_path(d.new_path)]
    if len(changed) > MAX_CHANGED:
        return None
    removed, added = [], []
    for delta in changed:
        if delta.status != "A" and model.is_session_path(delta.old_path):
            removed += _parsed(repo, delta.old_path, delta.old_oid)
        if delta.status != "D" and model.is_session_path(delta.new_path):
            added += _parsed(repo, delta.new_path, delta.new_oid)
    return briefing.updated(digest, removed, added)


def _parsed(repo: store.Repo, path: str, oid: str) -> list[model.Session]:
    """The session in a blob, as records.load sees it ([]: it does not parse, so it is in no view)."""
    try:
        record = records.parse_blob(path, store.blob_data(repo, oid))
    except (KeyError, TypeError):
        return []
    return [record] if isinstance(record, model.Session) else []


def _read(path: Any) -> tuple[str, tuple[str, str], briefing.Digest] | None:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        if raw.get("version") != f"{VERSION}.{records.CACHE_VERSION}":
            return None
        return str(raw["tip"]), (str(raw["key"][0]), str(raw["key"][1])), digest_of_json(raw["digest"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError, EnfError):
        return None


def _write(path: Any, tip: str, key: tuple[str, str], digest: briefing.Digest) -> None:
    data = {"version": f"{VERSION}.{records.CACHE_VERSION}", "tip": tip, "key": list(key),
            "digest": digest_to_json(digest)}
    try:
        atomic.write(path, json.dumps(data).encode("utf-8"))  # whole files only: starts may race
    except OSError:
        pass  # a read-only state dir costs the next start a rebuild, never this one


def digest_to_json(d: briefing.Digest) -> dict[str, Any]:
    return {"count": d.count, "newest": [records.session_to_json(s) for s in d.newest],
            "interrupted": [records.session_to_json(s) for s in d.interrupted], "standing": d.standing,
            "lines": [[x.date, x.time, x.id, x.text, x.source] for x in d.lines], "disagreements": list(d.disagreements),
            "fixed": sorted(d.fixed), "last_reversal": list(d.last_reversal)}


def digest_of_json(raw: dict[str, Any]) -> briefing.Digest:
    last = raw["last_reversal"]
    return briefing.Digest(
        int(raw["count"]), tuple(records.session_from_json(s) for s in raw["newest"]),
        tuple(records.session_from_json(s) for s in raw["interrupted"]), int(raw["standing"]),
        tuple(briefing.DecisionLine(str(a), str(b), str(c), str(t), str(p)) for a, b, c, t, p in raw["lines"]),
        tuple(str(x) for x in raw["disagreements"]), frozenset(str(x) for x in raw["fixed"]),
        (str(last[0]), str(last[1]), str(last[2])))
