"""Pins on the branch: pin, unpin, list, asks, release, SessionStart's block, forget.

The record and the rules are pure (pure/pins.py). Every change is a commit of the
pin files alone (`pins/<stem>.md`), built from the tip of the moment and moved by
compare-and-swap (store_write.commit), never touching HEAD, the index or the user's work
tree; the working copy's pins/ follows the branch afterwards.

What counts as asking about a temporary pin, so that its release is the same on every
clone wherever it can be:

- pinning it again (`git enf pin --temporary NAME`): its `last_asked` is committed;
- a session newer than its last ask that names it (its file stem or session id)
  anywhere in its text: read from the branch at each release check;
- `git enf recall` returning it (a session hit or one of its decisions) or `git enf
  show` showing it: per machine, a note in `.git/enf/pins-asked.json`, folded into the
  record (a `pin(asked)` commit) at the next SessionStart.

SessionStart (`session_start_block`) folds the notes, releases the temporary pins whose
last `enf.pinRelease` sessions (default 10) all came after the last ask without naming
them (one `unpin(released)` commit), and lists the pins within a budget.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ...errors import EnfError, NotFound
from ...plumbing import atomic, store, store_write
from ...pure import model, pins as pp
from .. import records
from ..workspace import Context, require_branch

if TYPE_CHECKING:  # forget's types: pins never import the facts machinery at load time
    from .facts import FactSettings, Places
    from .forgettable import Forgettable

RELEASE_KEY = "enf.pinRelease"
BUDGET_KEY = "enf.budget.pins"  # tokens of SessionStart's context the pins may use
BUDGET_DEFAULT = 500
CHARS_PER_TOKEN = 4
NOTES_FILE = "pins-asked.json"
DIRECT_PARSES = 20  # sessions parsed directly before the records cache is worth loading


class NotPinned(EnfError):
    """`unpin` named a session that has no pin: a usage error at the CLI (exit 2)."""


class TrivialSession(EnfError):
    """`pin` of a one-off session, refused without --force."""


class Loaded:  # a plain class: see workspace.Settings
    def __init__(self) -> None:
        self.pins: dict[str, pp.Pin] = {}  # session stem -> its pin
        self.problems: list[str] = []  # one line each: the file, and why it is left out


def load(repo: store.Repo, tip: store.Commit | None) -> Loaded:
    """The pins on the branch at `tip`; malformed files are reported, never rewritten."""
    out = Loaded()
    for name, oid, kind in store.folder_entries(repo, tip.tree if tip is not None else None, pp.PINS_DIR):
        path = f"{pp.PINS_DIR}/{name}"
        if not name.endswith(".md"):
            continue
        if kind != "blob":
            out.problems.append(f"{path}: a {kind} where a pin file belongs")
            continue
        try:
            pin = pp.parse_pin(path, store.blob_data(repo, oid))
        except EnfError as exc:
            out.problems.append(exc.message)
            continue
        out.pins[pin.session] = pin
    return out


def pinned(repo: store.Repo, tip: store.Commit | None) -> frozenset[str]:
    """The stems of every pinned session, for compression: by file name alone, so a pin
    file that does not parse still keeps its session from being compressed."""
    return frozenset(name.removesuffix(".md") for name, _oid, _kind
                     in store.folder_entries(repo, tip.tree if tip is not None else None, pp.PINS_DIR)
                     if name.endswith(".md"))


def release_after(repo: store.Repo) -> int:
    raw = (store.config_value(repo, RELEASE_KEY) or "").strip()
    return int(raw) if raw.isdigit() else pp.RELEASE_DEFAULT


def stamp_of(now: int | float) -> str:
    """`now` as a local "YYYY-MM-DD HH:MM", the clock session files are written in."""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(now))


def _author(ctx: Context) -> str:
    return str(store_write.signature(ctx.repo, env=ctx.ident).name)


# --- committing ---------------------------------------------------------------------------

PinChange = Callable[[dict[str, pp.Pin]], dict[str, bytes | None]]


def _commit(ctx: Context, change: PinChange, message: str, now: int | None) -> store_write.CommitResult | None:
    """Commit `change(pins at the tip)`; None if it changed nothing. `change` runs again on
    every retry against the tip of that moment, so a teammate's pin is never lost."""
    require_branch(ctx)

    def build(tip: store.Commit | None) -> dict[str, bytes | None]:
        return change(load(ctx.repo, tip).pins)

    with ctx.lock():
        result = store_write.commit(ctx.repo, build, message, when=now, env=ctx.ident)
        if result is not None:
            from ..record.working_set import materialize

            materialize(ctx)  # the working copy's pins/ follows the branch
    return result


# --- naming a session ------------------------------------------------------------------------

class Named:
    """A session a NAME resolved to: on the branch (`session`), or only in the working
    copy (not committed yet: the session running now, typically)."""

    def __init__(self, stem: str, session: model.Session | None) -> None:
        self.stem, self.session = stem, session


def resolve(ctx: Context, tip: store.Commit, name: str) -> Named:
    """A session by file name, stem, unique prefix or session id, as `git enf show` takes it;
    failing that, a session file of the working copy not committed yet."""
    exact = _exact(ctx, tip, name)
    if exact is not None:
        return exact
    from ..record.queries import find_session  # not at load time: SessionStart imports pins and never resolves a name

    cache = ctx.cache()
    recs = records.load(ctx.repo, tip.tree, cache)
    cache.save()
    try:
        found = find_session(recs, name)
    except NotFound:
        local = _working_copy_session(ctx, name)
        if local is None:
            raise
        return local
    return Named(found.stem, _full(ctx, tip, found.path) or found)


def _exact(ctx: Context, tip: store.Commit, name: str) -> Named | None:
    """The session a whole file name or stem names, read alone: an exact name needs no
    table of every record, which costs seconds at 100,000 sessions. None for anything
    else (a prefix, a session id, a malformed file): the full lookup decides those."""
    stem = name.removeprefix(f"{model.SESSIONS_DIR}/").removesuffix(".md")
    if model.check_stem(stem) is not None:
        return None
    path = f"{model.SESSIONS_DIR}/{stem}.md"
    if store.blob_oid(ctx.repo, tip.tree, path) is None:
        return None
    session = _full(ctx, tip, path)
    return Named(stem, session) if session is not None else None


def _working_copy_session(ctx: Context, name: str) -> Named | None:
    stem = name.rsplit("/", 1)[-1].removesuffix(".md")
    folder = ctx.root / model.SESSIONS_DIR
    if model.check_stem(stem) is not None or not folder.is_dir():
        return None
    hits = [p for p in sorted(folder.glob("*.md")) if p.stem == stem] or \
        [p for p in sorted(folder.glob("*.md")) if p.stem.startswith(stem)]
    if len(hits) != 1:
        return None
    try:
        return Named(hits[0].stem, model.parse_session(f"{model.SESSIONS_DIR}/{hits[0].name}", hits[0].read_bytes()))
    except (OSError, EnfError):
        return Named(hits[0].stem, None)


def _full(ctx: Context, tip: store.Commit, path: str) -> model.Session | None:
    """The session with its sections (the records cache drops them): the working copy's
    text when it has one (it may hold notes not committed yet), else the branch's."""
    try:
        return model.parse_session(path, (ctx.root / path).read_bytes())
    except (OSError, EnfError):
        pass
    data = store.read_path(ctx.repo, tip.tree, path)
    try:
        return model.parse_session(path, data) if data is not None else None
    except EnfError:
        return None


# --- pin and unpin ---------------------------------------------------------------------------

class Pinned:
    def __init__(self, pin: pp.Pin, action: str, commit: str | None) -> None:
        self.pin = pin
        self.action = action  # pinned | upgraded | asked | already
        self.commit = commit


def pin(ctx: Context, name: str, *, temporary: bool = False, force: bool = False, now: int | None = None) -> Pinned:
    """Pin the session NAME names: permanent, or temporary priority. Pinning a temporary
    pin again counts as an ask; pinning it permanently upgrades it; a permanent pin is
    never made temporary by pinning (unpin it first)."""
    now = int(time.time()) if now is None else now
    tip = require_branch(ctx)
    named = resolve(ctx, tip, name)
    kind = pp.TEMPORARY if temporary else pp.PERMANENT
    stamp = stamp_of(now)
    current = load(ctx.repo, tip).pins.get(named.stem)
    if current is None and not force and named.session is not None:
        why = pp.trivial(named.session)
        if why:
            raise TrivialSession(f"not pinned: {why}",
                                 hint=f"pin it anyway with: git enf pin {'--temporary ' if temporary else ''}"
                                      f"--force {named.stem}")
    if current is not None and (current.kind == pp.PERMANENT or kind == pp.TEMPORARY and current.last_asked >= stamp):
        return Pinned(current, "already", None)
    if current is None:
        wanted, action, message = pp.new_pin(named.stem, kind, _author(ctx), stamp), "pinned", _pin_message(kind, named)
    elif kind == pp.PERMANENT:
        wanted, action = pp.Pin(named.stem, kind, current.author, current.date, stamp), "upgraded"
        message = f"pin: {named.stem} (permanent, was temporary)\n"
    else:
        wanted, action, message = current.asked(stamp), "asked", f"pin(asked): {named.stem}\n\nPinned again: an ask.\n"

    def change(pins: dict[str, pp.Pin]) -> dict[str, bytes | None]:
        there = pins.get(named.stem)
        if there is not None and there.kind == pp.PERMANENT and kind == pp.TEMPORARY:
            return {}  # made permanent meanwhile: that wins
        return {wanted.path: pp.pin_bytes(wanted)}

    result = _commit(ctx, change, message, now)
    return Pinned(wanted, action, result.oid if result else None)


def _pin_message(kind: str, named: Named) -> str:
    summary = named.session.summary if named.session is not None else ""
    head = f"pin: {named.stem}" if kind == pp.PERMANENT else f"pin(temporary): {named.stem}"
    return f"{head}\n\n{summary}\n" if summary else f"{head}\n"


def find_pin(ctx: Context, tip: store.Commit, name: str, pins: dict[str, pp.Pin]) -> pp.Pin:
    """The pin NAME names: a pinned stem, a unique prefix of one, or a session's name."""
    stem = name.rsplit("/", 1)[-1].removesuffix(".md")
    if stem in pins:
        return pins[stem]
    prefixed = [p for s, p in sorted(pins.items()) if s.startswith(stem)]
    if len(prefixed) == 1:
        return prefixed[0]
    if len(prefixed) > 1:
        raise NotPinned(f"{name!r} matches {len(prefixed)} pins: {', '.join(p.session for p in prefixed[:5])}",
                        hint="give more of the name (git enf pins lists them)")
    try:
        named = resolve(ctx, tip, name)
    except NotFound:
        raise NotPinned(f"nothing pinned is named {name!r}, and no session is", hint="git enf pins lists the pins") \
            from None
    if named.stem in pins:
        return pins[named.stem]
    raise NotPinned(f"{named.stem} is not pinned, so there is nothing to unpin", hint="git enf pins lists the pins")


class Unpinned:
    def __init__(self, pin: pp.Pin, commit: str | None) -> None:
        self.pin = pin
        self.commit = commit


def unpin(ctx: Context, name: str, now: int | None = None) -> Unpinned:
    """Remove the pin NAME names (NotPinned if there is none); the session goes back to its
    normal tier. The pin stays in the branch's history."""
    tip = require_branch(ctx)
    found = find_pin(ctx, tip, name, load(ctx.repo, tip).pins)
    return Unpinned(found, _remove(ctx, [found], f"unpin: {found.session}\n", now))


def _remove(ctx: Context, gone: Sequence[pp.Pin], message: str, now: int | None) -> str | None:
    def change(pins: dict[str, pp.Pin]) -> dict[str, bytes | None]:
        return {p.path: None for p in gone if p.session in pins}

    result = _commit(ctx, change, message, now)
    return result.oid if result else None


# --- listing -------------------------------------------------------------------------------

class Status:
    """A pin with what a listing says of it."""

    def __init__(self, pin: pp.Pin, summary: str, on_branch: bool, since_asked: int | None) -> None:
        self.pin, self.summary, self.on_branch = pin, summary, on_branch
        self.since_asked = since_asked  # temporary: sessions since its last ask without it (None: permanent)

    def as_dict(self) -> dict[str, object]:
        return {**self.pin.as_dict(), "summary": self.summary, "on_branch": self.on_branch,
                "sessions_since_asked": self.since_asked}


class Listing:
    def __init__(self, statuses: list[Status], problems: list[str], after: int) -> None:
        self.statuses, self.problems, self.after = statuses, problems, after
        self.by: dict[str, str] | None = None  # SessionStart's: session path -> "Alice, 2026-12-01" (None: not known)


def list_pins(ctx: Context, timeline: _Timeline | None = None) -> Listing:
    """Every pin, permanent first, with its session's summary; a temporary pin also says
    how many sessions have gone by since its last ask (the notes of this machine included).
    `timeline`: the branch's sessions, when the caller has read them already."""
    tip = require_branch(ctx)
    loaded = load(ctx.repo, tip)
    after = release_after(ctx.repo)
    notes = read_notes(ctx)
    adjusted = [p.asked(notes.get(p.session, "")) if p.kind == pp.TEMPORARY else p for p in loaded.pins.values()]
    temporary = [p for p in adjusted if p.kind == pp.TEMPORARY]
    if timeline is None and temporary:
        timeline = _Timeline(ctx, tip, temporary)
    reader = _Reader(ctx, tip, len(adjusted))
    out = []
    for p in pp.ordered(adjusted):
        session = reader.session(p.session_path)
        since = timeline.since_asked(p, after) if timeline is not None and p.kind == pp.TEMPORARY else None
        out.append(Status(p, session.summary if session else "", session is not None, since))
    reader.close()
    return Listing(out, loaded.problems, after)


class _Reader:
    """Sessions on the branch by path: parsed directly when few are wanted (loading the
    records cache of a 10,000-session branch costs more than parsing twenty), else from it."""

    def __init__(self, ctx: Context, tip: store.Commit, wanted: int) -> None:
        self.ctx, self.tip = ctx, tip
        self.cache = ctx.cache() if wanted > DIRECT_PARSES else None

    def session(self, path: str, oid: str | None = None) -> model.Session | None:
        oid = oid or store.blob_oid(self.ctx.repo, self.tip.tree, path)
        if oid is None:
            return None
        found = oid

        def data_of() -> bytes:  # read only on a cache miss
            return store.blob_data(self.ctx.repo, found)

        record = (records.parse_blob(path, data_of()) if self.cache is None
                  else records.load_blob_record(self.cache, path, oid, data_of))
        return record if isinstance(record, model.Session) else None

    def close(self) -> None:
        if self.cache is not None:
            self.cache.save()


class _Timeline:
    """The sessions the release rule reads for `pins`, newest first: those named (session
    files are named by their start day) on or after the earliest last ask among them, and
    the pinned sessions themselves (for their ids)."""

    def __init__(self, ctx: Context, tip: store.Commit, pins: Sequence[pp.Pin]) -> None:
        since = min(p.last_asked for p in pins)[:10]
        stems = {p.session for p in pins}
        entries = [(name, oid) for name, oid, kind in store.sessions_from(ctx.repo, tip.tree, _month_of(since))
                   if kind == "blob" and name.endswith(".md")
                   and (name[:10] >= since or not name[:10].replace("-", "").isdigit())]
        listed = {name for name, _oid in entries}
        for stem in sorted(stems - {name[:-3] for name in listed}):  # older than the window: each alone
            oid = store.blob_oid(ctx.repo, tip.tree, f"{model.SESSIONS_DIR}/{stem}.md")
            if oid is not None:
                entries.append((f"{stem}.md", oid))
        reader = _Reader(ctx, tip, len(entries))
        found = [reader.session(f"{model.SESSIONS_DIR}/{name}", oid) for name, oid in entries]
        reader.close()
        self.repo, self.tree = ctx.repo, tip.tree
        self.sessions = sorted((s for s in found if s is not None), reverse=True,
                               key=lambda s: (pp.session_stamp(s.date, s.start_time), s.stem))
        self.ids = {s.stem: s.session_id for s in self.sessions}
        self._texts: dict[str, str] = {}

    def since_asked(self, pin: pp.Pin, after: int) -> int:
        return pp.since_asked(pin, self._later(pin), after)

    def released(self, pin: pp.Pin, after: int) -> bool:
        return pp.released(pin, self._later(pin), after)

    def _later(self, pin: pp.Pin) -> Iterable[pp.Later]:
        sid = self.ids.get(pin.session, "")
        for s in self.sessions:
            yield pp.Later(s.stem, pp.session_stamp(s.date, s.start_time), self._names(s.path, pin.session, sid))

    def _names(self, path: str, stem: str, sid: str) -> Callable[[], bool]:
        return lambda: pp.mentions(self._text(path), stem, sid)

    def _text(self, path: str) -> str:
        if path not in self._texts:
            data = store.read_path(self.repo, self.tree, path) or b""
            self._texts[path] = data.decode("utf-8", "replace")
        return self._texts[path]


# --- asks recorded per machine --------------------------------------------------------------

def _notes_path(ctx: Context) -> str:
    return str(store.state_dir(ctx.repo) / NOTES_FILE)


def read_notes(ctx: Context) -> dict[str, str]:
    """Session stem -> the stamp of its last ask on this machine not yet folded into its pin."""
    try:
        with open(_notes_path(ctx), encoding="utf-8") as f:
            raw = json.load(f)
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in raw.items()} if isinstance(raw, dict) else {}


def note_asked(ctx: Context, session_paths: Iterable[str], now: int | None = None) -> list[str]:
    """`git enf recall` returned, or `git enf show` showed, these sessions: note an ask for
    each that holds a temporary pin. Never fails the read that calls it. Returns the stems noted."""
    try:
        tip = store.tip(ctx.repo)
        names = pinned(ctx.repo, tip)
        stems = {p.removeprefix(f"{model.SESSIONS_DIR}/").removesuffix(".md") for p in session_paths
                 if model.is_session_path(p)} & names
        if not stems:
            return []  # the common case: nothing pinned was read, nothing is written
        temporary = {s for s, p in load(ctx.repo, tip).pins.items() if p.kind == pp.TEMPORARY} & stems
        if not temporary:
            return []
        notes = read_notes(ctx)
        stamp = stamp_of(time.time() if now is None else now)
        notes.update({s: max(stamp, notes.get(s, "")) for s in temporary})
        atomic.write(_notes_path(ctx), json.dumps(notes, sort_keys=True).encode("utf-8"))
        return sorted(temporary)
    except (EnfError, OSError):
        return []


def _drop_notes(ctx: Context, folded: dict[str, str]) -> None:
    notes = read_notes(ctx)
    left = {s: v for s, v in notes.items() if v > folded.get(s, "")}
    if left != notes:
        atomic.write(_notes_path(ctx), json.dumps(left, sort_keys=True).encode("utf-8"))


# --- SessionStart ---------------------------------------------------------------------------

class Refreshed:
    def __init__(self) -> None:
        self.asked: list[str] = []  # pins whose notes were folded in
        self.released: list[str] = []  # temporary pins released
        self.commits: list[str] = []
        self.timeline: _Timeline | None = None  # the sessions it read (pin commits never change them)


def refresh(ctx: Context, now: int) -> Refreshed:
    """Fold this machine's asks into the temporary pins (`pin(asked)`), then release the
    ones not asked about in the last enf.pinRelease sessions (`unpin(released)`)."""
    out = Refreshed()
    tip = require_branch(ctx)
    current = load(ctx.repo, tip).pins
    notes = read_notes(ctx)
    folded = {s: v for s, v in notes.items() if s in current and current[s].kind == pp.TEMPORARY
              and v > current[s].last_asked}
    if folded:
        def ask(pins: dict[str, pp.Pin]) -> dict[str, bytes | None]:
            return {p.path: pp.pin_bytes(p.asked(folded[s])) for s, p in pins.items()
                    if s in folded and p.kind == pp.TEMPORARY and folded[s] > p.last_asked}
        result = _commit(ctx, ask, f"pin(asked): {', '.join(sorted(folded))}\n\n"
                                   "Recalled or shown (git enf recall, git enf show) on this machine.\n", now)
        out.asked = sorted(folded)
        out.commits += [result.oid] if result else []
        tip = require_branch(ctx)
        current = load(ctx.repo, tip).pins
    if notes:
        _drop_notes(ctx, notes)  # folded now, or of pins that are gone
    temporary = [p for p in current.values() if p.kind == pp.TEMPORARY]
    if not temporary:
        return out
    after = release_after(ctx.repo)
    timeline = out.timeline = _Timeline(ctx, tip, temporary)
    gone = [p for p in pp.ordered(temporary) if timeline.released(p, after)]
    if gone:
        names = [p.session for p in gone]
        body = "\n".join(f"- {p.session} (last asked {p.last_asked})" for p in gone)
        commit = _remove(ctx, gone, f"unpin(released): {', '.join(names)}\n\nNot asked about in the last {after} "
                                    f"sessions; back to their normal tier.\n\n{body}\n", now)
        out.released = names
        out.commits += [commit] if commit else []
    return out


def session_start_block(ctx: Context, now: int) -> str:
    """The pins' block of SessionStart's context: releases first (said in the block), then
    each pin's pointer and summary, temporary ones marked, within enf.budget.pins tokens.
    Never raises an EnfError: a broken pin leaves the session starting without the block.

    The listing is a function of the branch's pins/ folder, the sessions it reads (the
    pinned ones, and those since the earliest ask of a temporary pin: `_reads`),
    enf.pinRelease and this machine's notes of asks: with no notes, and all of those as
    an earlier start found them, it comes from `.git/enf/` (LISTING_FILE) and nothing is
    read or released (releasing depends on those sessions alone: nothing new to release).
    """
    try:
        key = _listing_key(ctx)
        listing = _cached_listing(ctx, key)
        released: list[str] = []
        if listing is None:
            done = refresh(ctx, now)
            listing, released = list_pins(ctx, done.timeline), done.released
            listing.by = _by(ctx, [s.pin.session_path for s in listing.statuses])
            if not done.asked and not released:  # else the next start lists the changed pins
                _save_listing(ctx, _listing_key(ctx), listing)
    except EnfError:
        return ""
    from ..record import trust

    withheld = trust.shown_gate(ctx).withheld([s.pin.session_path for s in listing.statuses])
    statuses = [s for s in listing.statuses if s.pin.session_path not in withheld]
    by = listing.by or {}
    shown = [pp.Shown(s.pin, _pointer(ctx, s), _signed(s.summary, by.get(s.pin.session_path, "")))
             for s in statuses]
    text = pp.block(shown, released, _budget(ctx.repo) * CHARS_PER_TOKEN, listing.after)
    if withheld:
        text = (text or "## Pinned sessions") + f"\n- {trust.withheld_line(len(withheld), 'pinned session')}"
    return text


def _by(ctx: Context, sessions: list[str]) -> dict[str, str] | None:
    """session path -> "Alice, 2026-12-01" for those of `sessions` someone else last
    changed; None when the table cannot be read (the lines go unsigned, and uncached)."""
    if not sessions:
        return {}
    from ..record import authors

    try:
        table = authors.load(ctx)
    except (EnfError, OSError):
        return None
    return {path: who for path in sessions if (who := table.by(path))}


def _signed(summary: str, by: str) -> str:
    return f"{summary} — {by}" if by else summary


# --- the SessionStart listing, cached per machine ----------------------------------------------

LISTING_FILE = "pins-listing.json"
LISTING_VERSION = 2  # bump whenever Status, the release rule, what the listing reads or keeps changes


def _month_of(since: str) -> str:
    """The month folder ("YYYY/MM") of a "YYYY-MM-DD" day: the first the release rule reads."""
    return f"{since[:4]}/{since[5:7]}"


def _listing_key(ctx: Context) -> list[object] | None:
    """What decides which records the listing reads; None (never cached) while this
    machine holds notes of asks. The records themselves are checked by `_reads`."""
    if read_notes(ctx):
        return None
    from ..record.authors import reader  # whose lines are signed: everyone's but the reader's

    tip = require_branch(ctx)
    return [LISTING_VERSION, store.blob_oid(ctx.repo, tip.tree, pp.PINS_DIR), release_after(ctx.repo),
            list(reader(ctx))]


def _reads(ctx: Context, pinned_paths: Sequence[str], since: str | None,
           saved: dict[str, Any] | None = None) -> dict[str, Any]:
    """What a listing of these pins read, as it stands at the tip: each pinned session's
    blob (its summary, whether it is on the branch) with its month folder's id, the flat
    entries of sessions/, and for a temporary pin's release every session on or after
    `since` (the earliest last ask): the month folders from its month on. Not the
    sessions/ folder: a compression of older sessions, or a Stop commit of another
    month, changes none of these, and the listing stands.

    A pinned session whose month folder is what `saved` found is not looked up: opening
    twenty month folders costs a start ~1 ms each at 100,000 sessions."""
    tip = require_branch(ctx)
    months = store.session_months(ctx.repo, tip.tree)
    known = saved.get("pinned", {}) if saved else {}
    pinned: dict[str, list[str | None]] = {}
    for path in pinned_paths:
        month = months.get(_stored_month(path))
        was = known.get(path)
        if month is not None and isinstance(was, list) and was[:1] == [month]:
            pinned[path] = was  # its month folder stands, so does its blob
        else:
            pinned[path] = [month, store.blob_oid(ctx.repo, tip.tree, path)]
    found: dict[str, Any] = {"pinned": pinned,
                             "flat": [[name, oid] for name, oid, _kind in store.flat_sessions(ctx.repo, tip.tree)]}
    if since is not None:
        found["months"] = {m: oid for m, oid in months.items() if m >= _month_of(since)}
    return found


def _stored_month(path: str) -> str:
    """"YYYY/MM" of the month folder a session path is kept in ("": kept flat)."""
    stored = store.stored_path(path)
    return stored[len(model.SESSIONS_DIR) + 1:len(model.SESSIONS_DIR) + 8] if stored != path else ""


def _same_reads(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two `_reads` found the same records (month folders of pinned sessions aside)."""
    return (a["flat"] == b["flat"] and a.get("months") == b.get("months")
            and {p: v[1] for p, v in a["pinned"].items()} == {p: v[1] for p, v in b["pinned"].items()})


def _window(listing: Listing) -> tuple[list[str], str | None]:
    """(the pinned sessions' paths, the earliest last ask of a temporary pin or None)."""
    temporary = [s.pin.last_asked[:10] for s in listing.statuses if s.pin.kind == pp.TEMPORARY]
    return [s.pin.session_path for s in listing.statuses], min(temporary) if temporary else None


def _cached_listing(ctx: Context, key: list[object] | None) -> Listing | None:
    if key is None:
        return None
    try:
        raw = json.loads((store.state_dir(ctx.repo) / LISTING_FILE).read_bytes())
        if raw["key"] != key:
            return None
        statuses = [Status(pp.Pin(str(p["session"]), str(p["kind"]), str(p["author"]), str(p["date"]),
                                  str(p["last_asked"])),
                           str(p["summary"]), bool(p["on_branch"]),
                           None if p["sessions_since_asked"] is None else int(p["sessions_since_asked"]))
                    for p in raw["statuses"]]
        listing = Listing(statuses, [str(x) for x in raw["problems"]], int(raw["after"]))
        reads = _reads(ctx, *_window(listing), saved=raw["reads"])
        if not _same_reads(raw["reads"], reads):
            return None
        listing.by = {str(p): str(who) for p, who in raw["by"].items()}
        if reads != raw["reads"]:  # a pinned session's month folder moved on: the next start need not look
            _write_listing(ctx, key, reads, listing)
        return listing
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _save_listing(ctx: Context, key: list[object] | None, listing: Listing) -> None:
    from ..record import authors

    if key is None or listing.by is None or authors.provisional():  # authors not all known: not kept
        return
    # Who last changed a pinned session changes only with its blob (`_reads`), so the
    # signatures are kept too: reading the authors table costs a shard per pin, and a
    # shard grows with the branch (~2 ms each at 100,000 sessions).
    _write_listing(ctx, key, _reads(ctx, *_window(listing)), listing)


def _write_listing(ctx: Context, key: list[object], reads: dict[str, Any], listing: Listing) -> None:
    data = {"key": key, "reads": reads, "by": listing.by, "after": listing.after,
            "problems": listing.problems, "statuses": [s.as_dict() for s in listing.statuses]}
    try:
        atomic.write(store.state_dir(ctx.repo) / LISTING_FILE, json.dumps(data).encode("utf-8"))
    except OSError:
        pass  # a read-only state dir costs the next start a recompute, never this one


def _pointer(ctx: Context, s: Status) -> str:
    """Where to read it: its file in the working copy, else `git enf show` (an old session
    outside the working set, or one no longer on the branch)."""
    if (ctx.root / s.pin.session_path).is_file():
        return f".claude-sessions/{s.pin.session_path}"
    return f"`git enf show {s.pin.session}`" if s.on_branch else f"{s.pin.session} (no longer on the branch)"


def _budget(repo: store.Repo) -> int:
    raw = (store.config_value(repo, BUDGET_KEY) or "").strip()
    return int(raw) if raw.isdigit() else BUDGET_DEFAULT


# --- forget ---------------------------------------------------------------------------------

def forgettables(ctx: Context, places: Places, scope: str, settings: FactSettings) -> list[Forgettable]:
    """forget's source of kind "pin": the pins, in the project scope (they are on the branch)."""
    from .forgettable import Forgettable

    if scope != "project" or store.tip(ctx.repo) is None:
        return []
    out = []
    for s in list_pins(ctx).statuses:
        text = f"{s.pin.kind} pin of session {s.pin.session}" + (f": {s.summary}" if s.summary else "")
        out.append(Forgettable("pin", "project", s.pin.session, text, f"{s.pin.kind.capitalize()} pin",
                               _forget_pin(ctx, s.pin)))
    return out


def _forget_pin(ctx: Context, found: pp.Pin) -> Callable[[], str | None]:
    def remove() -> str | None:
        return _remove(ctx, [found], f"unpin: {found.session}\n\nForgotten (git enf forget).\n", None)
    return remove
