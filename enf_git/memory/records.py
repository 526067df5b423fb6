"""Loading every record of a tree, with a per-machine cache keyed by blob OID.

Parsing 10,000 session files on every commit would dominate its cost, and a blob
never changes, so each parse result (minus the section text, which views do not
need) is cached in `.git/enf/records.json` under its blob OID. A session's entry also
keeps the facts compression ranks it by (`tier_facts`), so a clone's first ranking
needs no blob. The cache is a pure accelerator: delete it and the next run rebuilds it.

A miss is looked up in the records index the branch carries (plumbing/record_index.py:
the same entries, one file a day, taken only for the blob id the month folder lists)
before the blob is parsed, so a fresh clone fills this cache from a few hundred day
files instead of parsing every session.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..pure import frozen, model

from ..plumbing import atomic, record_index, store
from ..errors import EnfError, RecordError

CACHE_VERSION = 4  # bump whenever parsing results change for the same bytes
UNVERIFIED_MARK = "records-unverified"  # beside records.json while it holds entries not checked yet


class Records:
    """Every record of a tree, by path (a plain class: see memory.Context)."""

    def __init__(self) -> None:
        self.sessions: dict[str, model.Session] = {}  # path -> session
        self.decisions: dict[str, list[model.Decision]] = {}  # path -> decisions
        self.problems: dict[str, EnfError] = {}  # path -> why it is left out of the views

    def all_sessions(self) -> list[model.Session]:
        return list(self.sessions.values())

    def extra_decisions(self) -> list[model.Decision]:
        return [d for ds in self.decisions.values() for d in ds]


class Cache:
    """Loaded on first use: most commits patch the views and never need it."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._entries: dict[str, Any] | None = None
        self.dirty = False
        # Keys of entries taken from the branch's records index, not parsed here: the
        # background refresh parses them and replaces any that disagree (records_verify.py).
        # Saved with the entries, so an entry taken unchecked stays marked until checked.
        self.unverified: set[str] = set()

    @property
    def entries(self) -> dict[str, Any]:
        if self._entries is None:
            self._entries = {}
            if self.path is not None:
                import json  # here, not at the top: most commits never load the cache

                try:
                    raw = json.loads(self.path.read_text(encoding="utf-8"))
                    if raw.get("version") == CACHE_VERSION:
                        self._entries = raw["entries"]
                        self.unverified |= set(raw.get("unverified", ()))
                except (OSError, ValueError, KeyError, AttributeError, TypeError):
                    self._entries = {}
        return self._entries

    @property
    def loaded(self) -> bool:
        """Whether `entries` was read already (a routine commit never asks it)."""
        return self._entries is not None

    def save(self) -> None:
        if self.path is None or not self.dirty:
            return
        import json

        # Atomic: concurrent writers each leave a whole file.
        saved: dict[str, Any] = {"version": CACHE_VERSION, "entries": self.entries}
        if self.unverified:
            saved["unverified"] = sorted(self.unverified)
        atomic.write(self.path, json.dumps(saved).encode("utf-8"))
        # A stat tells the refresh's starter that entries await their check (loading
        # records.json to ask would cost a hook ~1 s at 100,000 sessions).
        mark = self.path.with_name(UNVERIFIED_MARK)
        if self.unverified:
            mark.touch()
        else:
            mark.unlink(missing_ok=True)
        self.dirty = False


def load_blob_record(cache: Cache, path: str, oid: str, data_of: Any,
                     index: record_index.Reader | None = None) -> model.Session | list[model.Decision] | EnfError:
    """The record in one blob, from the cache, the branch's records index (`index`, for
    the tree that lists `path` at `oid`), or parsed; then cached, with a session's tier
    facts (see `tier_facts`)."""
    key = f"{oid}:{path}"
    hit = cache.entries.get(key)
    if hit is not None:
        return _from_json(hit)
    found = _indexed(index, path, oid)
    if found is not None:
        cache.entries[key] = found[0]
        cache.unverified.add(key)
        cache.dirty = True
        return found[1]
    entry = parsed_entry(path, data_of())
    cache.entries[key] = entry
    cache.dirty = True
    return _from_json(entry)


def parsed_entry(path: str, data: bytes) -> dict[str, Any]:
    """The cache entry of a blob, parsed: its record's JSON, with a session's tier facts."""
    entry = _to_json(parse_blob(path, data))
    if model.is_session_path(path):
        from ..pure import tiers  # here: only a parse pays its import

        entry[TIER_FACTS] = [tiers.FACTS_VERSION, *tiers.facts_of(data)]
    return entry


def index_versions() -> str:
    """What a records index entry depends on besides the bytes: this cache's version and
    the tier facts' (a day file written by other versions is not read)."""
    from ..pure import tiers  # here: only a miss pays its import

    return f"{CACHE_VERSION} {tiers.FACTS_VERSION}"


def index_reader(repo: store.Repo, tree: store.Tree | None, reading: bool = False) -> record_index.Reader:
    """The records index of `tree`. `reading`: to take its entries as records, which
    under `enf.trust signed` (or a value git config cannot read: fail closed) it never
    gives: a team that asks for signatures gets attribution proven by them, never by an
    unsigned derived file. Writers read it to keep the lines that still stand."""
    return record_index.Reader(repo, None if reading and index_refused(repo) else tree, index_versions())


TRUST_KEY = "enf.trust"  # record/trust.py's key; read here without its imports (a hook path)


def index_refused(repo: store.Repo) -> bool:
    """Whether enf.trust asks for signed memory, so that nothing derived and unsigned
    (the records index, the carried digest) may stand for a record."""
    mode = (store.config_value(repo, TRUST_KEY) or "all").strip().lower()
    return mode not in ("all", "authors")


def _indexed(index: record_index.Reader | None, path: str,
             oid: str) -> tuple[dict[str, Any], model.Session | list[model.Decision] | EnfError] | None:
    """(entry, record) from the branch's index, when it holds a well-formed entry for this
    blob at this path; None: parse the blob (a teammate's file can hold anything)."""
    raw = index.entry(path, oid) if index is not None else None
    if raw is None:
        return None
    import json

    try:
        entry = json.loads(raw)
        record = _from_json(entry)
        facts = entry.get(TIER_FACTS)
        if (isinstance(record, model.Session) and record.path == path and _facts_shape(facts)
                and all(d.source == path for d in record.decisions) and all(r.source == path for r in record.reversals)):
            return entry, record
    except (ValueError, KeyError, TypeError, AttributeError, IndexError, EnfError):
        pass
    return None


def _facts_shape(facts: Any) -> bool:
    return (isinstance(facts, list) and len(facts) == 3 and isinstance(facts[0], str) and isinstance(facts[1], str)
            and isinstance(facts[2], int))


TIER_FACTS = "tiers"  # a session entry's [tiers.FACTS_VERSION, tier, Interactions count]


def tier_facts(cache: Cache, path: str, oid: str, version: str) -> list[Any] | None:
    """[tier, Interactions, date, start_time, status, session_id] of a session blob, as
    compression ranks it, from the cache alone (date None: the file does not parse);
    None when the cache does not have them (no entry, or one written before it kept
    them or by another `version` of `tiers.facts_of`: tiers.FACTS_VERSION).

    Read off the JSON, never through a Session: a fresh clone's first ranking asks
    this of every one of 10,000 sessions, and reading each blob again for its tier cost
    that start ~1 s. The key is the blob id, so no change on the branch makes an entry
    wrong: a changed file is another blob.
    """
    entry = cache.entries.get(f"{oid}:{path}")
    facts = entry.get(TIER_FACTS) if isinstance(entry, dict) else None
    if not isinstance(facts, list) or len(facts) != 3 or facts[0] != version:
        return None
    assert entry is not None
    if entry.get("kind") != "session":
        return [facts[1], facts[2], None, "", "", ""]
    data = entry["data"]
    return [facts[1], facts[2], data["date"], data["start_time"], data["status"], data["session_id"]]


def parse_blob(path: str, data: bytes) -> model.Session | list[model.Decision] | EnfError:
    try:
        if model.is_session_path(path):
            return model.parse_session(path, data)
        return model.parse_decision_file(path, data)
    except EnfError as exc:
        return exc
    except Exception as exc:  # noqa: BLE001 - a parser bug must cost one file, never the commit or a read
        return RecordError(path, 0, f"could not be read ({type(exc).__name__}); please report this file")


def load(repo: store.Repo, tree: store.Tree | None, cache: Cache, overlay: dict[str, bytes | None] | None = None) -> Records:
    """Records of `tree`, with `overlay` (path -> bytes or None for deleted) applied."""
    overlay = overlay or {}
    out = Records()
    index = index_reader(repo, tree, reading=True)
    for folder in (model.SESSIONS_DIR, model.DECISIONS_DIR):
        for name, oid, kind in store.folder_entries(repo, tree, folder, links=True):
            path = f"{folder}/{name}"
            if path in overlay or not name.endswith(".md"):
                continue
            if kind != "blob":  # a teammate's push can put anything where a record belongs
                add(out, path, RecordError(path, 0, _NOT_A_FILE.get(kind, f"a {kind} where a record file belongs")))
                continue
            add(out, path, load_blob_record(cache, path, oid, lambda oid=oid: store.blob_data(repo, oid), index))
    for path, data in overlay.items():
        if data is not None and (model.is_session_path(path) or model.is_decision_path(path)):
            add(out, path, load_blob_record(cache, path, store.hash_bytes(data), lambda d=data: d))
    return out


_NOT_A_FILE = {"tree": "a folder where a record file belongs", "link": "a symlink where a record file belongs",
               "commit": "a submodule where a record file belongs"}


def add(out: Records, path: str, record: model.Session | list[model.Decision] | EnfError) -> None:
    if isinstance(record, EnfError):
        out.problems[path] = record
    elif isinstance(record, model.Session):
        out.sessions[path] = record
    else:
        out.decisions[path] = record


def _to_json(record: model.Session | list[model.Decision] | EnfError) -> dict[str, Any]:
    if isinstance(record, RecordError):
        return {"kind": "error", "path": record.path, "problems": [list(p) for p in record.problems]}
    if isinstance(record, EnfError):
        return {"kind": "fatal", "message": record.message, "hint": record.hint}
    if isinstance(record, model.Session):
        data = frozen.as_dict(record)
        data["sections"] = {}  # views never need the body; keep the cache small
        return {"kind": "session", "data": data}
    return {"kind": "decisions", "data": [frozen.as_dict(d) for d in record]}


def _from_json(raw: dict[str, Any]) -> model.Session | list[model.Decision] | EnfError:
    kind = raw["kind"]
    if kind == "error":
        problems = tuple((int(line), str(reason)) for line, reason in raw["problems"])
        return RecordError(raw["path"], 0, "", problems)
    if kind == "fatal":
        return EnfError(raw["message"], raw.get("hint"))
    if kind == "decisions":
        return [model.Decision(**d) for d in raw["data"]]
    data = dict(raw["data"])
    data["tags"] = tuple(data["tags"])
    data["decisions"] = tuple(model.Decision(**d) for d in data["decisions"])
    data["reversals"] = tuple(model.Reversal(**r) for r in data["reversals"])
    data["problems"] = tuple((int(line), str(reason)) for line, reason in data["problems"])
    return model.Session(**data)


def session_to_json(session: model.Session) -> dict[str, Any]:
    """A session as records.json keeps it (its section text dropped)."""
    return _to_json(session)


def session_from_json(raw: dict[str, Any]) -> model.Session:
    record = _from_json(raw)
    if not isinstance(record, model.Session):
        raise RecordError("", 0, "a cached record that is no session")
    return record
