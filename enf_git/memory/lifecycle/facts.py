"""Remembered facts: remember, forget, list, prune, export, and SessionStart's block.

Both edges call these with a Context, a `Places` (the user's config dir and the
current session id, which only an edge can know) and a clock (`now`, epoch seconds).
The stores are in fact_stores.py, the record and the budgets in pure/facts.py and
pure/budget.py.

Forgetting is in forget.py.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path

from ... import paths
from ...errors import EnfError
from ...plumbing import atomic, store, store_write
from ...pure import budget, facts as pf, frozen
from ...redact import redact_count
from ..record import fact_stores, trust
from ..workspace import Context

TTL_KEY = "enf.ttl."  # + category key: days, or never
BUDGET_KEY = "enf.budget."  # + scope: tokens
HISTORY_HINT = f"The branch's history keeps them: git log {paths.BRANCH} -- {pf.MEMORIES_DIR}/"


class Places:  # a plain class: see workspace.Settings
    """What only an edge knows: the user's enf-git config folder, and this session's id."""

    def __init__(self, user_dir: Path | None, session_id: str = "") -> None:
        self.user_dir = user_dir
        self.session_id = session_id

    def scopes(self) -> tuple[str, ...]:
        """The scopes reachable from here, in precedence order."""
        return tuple(s for s in pf.SCOPES if (s != "session" or self.session_id) and (s != "user" or self.user_dir))


class FactSettings:
    """`enf.ttl.<category>` (days or never) and `enf.budget.<scope>` (tokens), read once."""

    def __init__(self, ttls: dict[str, int | None] | None = None, budgets: dict[str, int] | None = None,
                 warnings: list[str] | None = None) -> None:
        self.ttls = ttls or {}
        self.budgets = budget.budgets(budgets)
        self.warnings = warnings or []

    @classmethod
    def read(cls, repo: store.Repo) -> FactSettings:
        ttls: dict[str, int | None] = {}
        budgets: dict[str, int] = {}
        warnings = []
        for category in pf.CATEGORIES:
            key = TTL_KEY + pf.category_key(category)
            raw = store.config_value(repo, key)
            if raw is not None:
                try:
                    ttls[category] = pf.parse_ttl(raw)
                except ValueError as exc:
                    warnings.append(f"{key}: {exc}; using {pf.DEFAULT_TTL_DAYS[category] or 'never'}")
        for scope in pf.SCOPES:
            raw = store.config_value(repo, BUDGET_KEY + scope)
            if raw is not None:
                if raw.strip().isdigit():
                    budgets[scope] = int(raw.strip())
                else:
                    warnings.append(f"{BUDGET_KEY}{scope}: a number of tokens, not {raw!r}; "
                                    f"using {budget.DEFAULT_BUDGETS[scope]}")
        return cls(ttls, budgets, warnings)


def day_of(now: int | float) -> str:
    """The local calendar day of `now`, as session files are dated."""
    return time.strftime("%Y-%m-%d", time.localtime(now))


# --- remember ---------------------------------------------------------------------------

class Remembered:
    def __init__(self, fact: pf.Fact, existing: bool, commit: str | None, redacted: int) -> None:
        self.fact = fact
        self.existing = existing  # the same statement was already remembered in that scope: kept as it was
        self.commit = commit  # the project commit that added it
        self.redacted = redacted  # secrets taken out of the text before it was stored


def remember(ctx: Context, places: Places, text: str, *, scope: str = "project", category: str | None = None,
             now: int | None = None, settings: FactSettings | None = None) -> Remembered:
    """Keep `text` as a fact of `scope`; a statement already kept there is not kept twice."""
    settings = settings or FactSettings.read(ctx.repo)
    now = int(time.time()) if now is None else now
    clean, spans = redact_count(text)  # secrets never reach a store (invariant 7), the branch least of all
    try:
        fact = pf.new_fact(clean, scope=scope, author=_author(ctx), now=dt.datetime.fromtimestamp(now),
                           category=category, ttls=settings.ttls)
    except ValueError as exc:
        raise EnfError(str(exc)) from exc
    if scope == "project":
        return _remember_project(ctx, fact, spans, now, settings)
    if scope == "user":
        folder = require_user(places)
        same = _same_text(fact_stores.user_facts(folder, settings.ttls).facts, fact)
        if same is None:
            fact_stores.write_user(folder, fact)
        return Remembered(same or fact, same is not None, None, spans)
    sid = require_session(places)
    found: list[pf.Fact] = []

    def add(current: list[pf.Fact]) -> list[pf.Fact] | None:
        same = _same_text(current, fact)
        found[:] = [same] if same else []
        return None if same else [*current, fact]

    fact_stores.change_session(ctx, sid, add, settings.ttls)
    return Remembered(found[0] if found else fact, bool(found), None, spans)


def _remember_project(ctx: Context, fact: pf.Fact, spans: int, now: int, settings: FactSettings) -> Remembered:
    found: list[pf.Fact] = []

    def add(current: list[pf.Fact]) -> dict[str, bytes | None]:
        same = _same_text(current, fact)
        found[:] = [same] if same else []
        return {} if same else {pf.fact_path(fact.id): pf.fact_bytes(fact)}

    message = f"enf: remember {fact.id} ({fact.category})"
    result = fact_stores.commit_project(ctx, add, message, settings.ttls, now)
    return Remembered(found[0] if found else fact, bool(found), result.oid if result else None, spans)


def _same_text(current: Sequence[pf.Fact], fact: pf.Fact) -> pf.Fact | None:
    return next((f for f in current if pf.norm(f.text) == pf.norm(fact.text)), None)


def _author(ctx: Context) -> str:
    return str(store_write.signature(ctx.repo, env=ctx.ident).name)


def require_user(places: Places) -> Path:
    if places.user_dir is None:
        raise EnfError("no user config folder to keep user facts in", hint="set HOME or XDG_CONFIG_HOME")
    return places.user_dir


def require_session(places: Places, purpose: str = "remember this for") -> str:
    """The session id session-scope facts belong to; an error saying what that scope is when
    none is given (outside Claude Code, no $CLAUDE_CODE_SESSION_ID and no --session)."""
    if places.session_id:
        return places.session_id
    if purpose == "remember this for":
        raise EnfError("no session to remember this for: session facts need the session's id",
                       hint="run it from a Claude Code session, or give --session ID")
    raise EnfError(f"no session to {purpose}: session facts belong to one Claude Code session (kept on this "
                   "machine until it ends), and none is named here; Claude Code names it in $CLAUDE_CODE_SESSION_ID "
                   "for the commands it runs",
                   hint="give --session ID, or leave --scope out to see the project's and your own facts")


# --- list and export ---------------------------------------------------------------------

class Listing:
    def __init__(self) -> None:
        self.by_scope: dict[str, list[pf.Fact]] = {}
        self.problems: list[str] = []

    def all(self) -> list[pf.Fact]:
        return [f for scope in pf.SCOPES for f in self.by_scope.get(scope, [])]


def list_facts(ctx: Context, places: Places, scopes: Sequence[str] | None = None,
               settings: FactSettings | None = None) -> Listing:
    """Every fact of `scopes` (default: all reachable), each scope by priority then age."""
    settings = settings or FactSettings.read(ctx.repo)
    out = Listing()
    for scope in scopes or places.scopes():
        loaded = load_scope(ctx, places, scope, settings)
        out.by_scope[scope] = pf.ordered(loaded.facts)
        out.problems += loaded.problems
    return out


def load_scope(ctx: Context, places: Places, scope: str, settings: FactSettings) -> fact_stores.Loaded:
    if scope == "project":
        return fact_stores.project_facts(ctx.repo, store.tip(ctx.repo), settings.ttls)
    if scope == "user":
        return fact_stores.user_facts(require_user(places), settings.ttls)
    return fact_stores.session_facts(ctx, require_session(places, "list the facts of"), settings.ttls)


def export_markdown(listing: Listing, today: str) -> str:
    """Each scope in seed 003's memory-file format, live facts only (as of `today`)."""
    docs = []
    for scope, found in listing.by_scope.items():
        text = pf.render_memories(found, today, scope, marker=False).decode("utf-8")
        if scope != "project":
            text = text.replace("# Session Memory", f"# Session Memory ({scope})", 1)
        docs.append(text)
    return "\n".join(docs)


# --- prune --------------------------------------------------------------------------------

class Pruned:
    def __init__(self) -> None:
        self.removed: list[tuple[pf.Fact, str]] = []  # (fact, why: expired | duplicate of ID)
        self.commit: str | None = None


def prune(ctx: Context, places: Places, *, now: int | None = None, scopes: Sequence[str] | None = None,
          duplicates: bool = True, settings: FactSettings | None = None) -> Pruned:
    """Remove expired facts, then exact duplicates (one of each kept); on the branch as one
    commit whose message lists what went."""
    settings = settings or FactSettings.read(ctx.repo)
    today = day_of(time.time() if now is None else now)
    out = Pruned()
    for scope in scopes or places.scopes():
        if scope == "project":
            _prune_project(ctx, today, duplicates, settings, now, out)
        elif scope == "user":
            folder = require_user(places)
            for fact, why in _doomed(fact_stores.user_facts(folder, settings.ttls).facts, today, duplicates):
                if fact_stores.remove_user(folder, fact.id):
                    out.removed.append((fact, why))
        else:
            _prune_session(ctx, require_session(places, "prune the facts of"), today, duplicates, settings, out)
    return out


def _doomed(found: Sequence[pf.Fact], today: str, duplicates: bool) -> list[tuple[pf.Fact, str]]:
    gone = [(f, "expired") for f in pf.expired(found, today)]
    if duplicates:
        live = [f for f in found if not f.expired(today)]
        gone += [(dup, f"duplicate of {keep.id}") for dup, keep in pf.duplicates(live)]
    return gone


def _prune_project(ctx: Context, today: str, duplicates: bool, settings: FactSettings, now: int | None,
                   out: Pruned) -> None:
    if store.tip(ctx.repo) is None:
        return
    doomed: list[tuple[pf.Fact, str]] = []

    def drop(current: list[pf.Fact]) -> dict[str, bytes | None]:
        doomed[:] = _doomed(current, today, duplicates)
        return {pf.fact_path(f.id): None for f, _ in doomed}

    probe = _doomed(fact_stores.project_facts(ctx.repo, store.tip(ctx.repo), settings.ttls).facts, today, duplicates)
    if not probe:
        return  # the common case at SessionStart: no commit, no lock
    result = fact_stores.commit_project(ctx, drop, _prune_message(probe), settings.ttls, now)
    if result is not None:
        out.removed += doomed
        out.commit = result.oid


def _prune_message(doomed: Sequence[tuple[pf.Fact, str]]) -> str:
    lines = [f"- {f.id} ({f.category}, {f.date}, {why}): {f.text}" for f, why in doomed]
    return f"enf: prune {len(doomed)} fact{'' if len(doomed) == 1 else 's'}\n\n" + "\n".join(lines) + "\n"


def _prune_session(ctx: Context, sid: str, today: str, duplicates: bool, settings: FactSettings,
                   out: Pruned) -> None:
    gone: list[tuple[pf.Fact, str]] = []

    def drop(current: list[pf.Fact]) -> list[pf.Fact] | None:
        gone[:] = _doomed(current, today, duplicates)
        ids = {id(f) for f, _ in gone}
        return [f for f in current if id(f) not in ids] if gone else None

    fact_stores.change_session(ctx, sid, drop, settings.ttls)
    out.removed += gone


# --- SessionStart and SessionEnd --------------------------------------------------------------

def session_start_block(ctx: Context, session_id: str, now: int, user_dir: Path | None = None,
                        settings: FactSettings | None = None) -> tuple[str, list[pf.Fact]]:
    """(the facts block of SessionStart's context, the expired facts pruned to make it).

    Expired facts are pruned here (on the branch, as a commit that lists them) and the
    block says so: never silently. Each scope is fitted to its token budget; the block
    names each one's cost. Session facts of sessions that never reached SessionEnd are
    swept after a week. `user_dir` None leaves the user scope out.

    A start whose facts, settings and stores are those of an earlier start's block, on a
    day before any of them lapses, gets that block back from `.git/enf/` (BLOCK_FILE)
    without parsing a fact: it would prune nothing and say the same.
    """
    settings = settings or FactSettings.read(ctx.repo)
    places = Places(user_dir, session_id)
    fact_stores.sweep_sessions(ctx, session_id, now)
    today = day_of(now)
    key = _block_key(ctx, places, settings)
    gate = trust.shown_gate(ctx)
    key.append(trust.cache_key(gate))  # whose facts are withheld is part of the block
    cached = _cached_block(ctx, key, today)
    if cached is not None:
        return cached, []
    try:
        pruned = [f for f, _ in prune(ctx, places, now=now, duplicates=False, settings=settings).removed]
    except EnfError:
        pruned = []  # the branch kept moving, say: the budget below still leaves expired facts out
    listing = list_facts(ctx, places, settings=settings)
    shown, overridden = budget.reconcile(listing.by_scope)
    withheld = 0
    if "project" in shown:
        kept = _trusted(gate, shown["project"])
        withheld = len(shown["project"]) - len(kept)
        shown["project"] = _signed(ctx, kept)
    fitted = [budget.fit(shown[s], settings.budgets[s], today, s) for s in places.scopes()]
    hint = HISTORY_HINT if any(f.scope == "project" for f in pruned) else ""
    text = budget.block(fitted, pruned, overridden, hint)
    if withheld:
        text = (text + "\n" if text else "## Remembered facts\n") + f"- {trust.withheld_line(withheld, 'fact')}"
    if not pruned:  # a block that announces a prune is said once; the next start caches its successor
        _save_block(ctx, key, _lapses(listing.all()), today, text)
    return text, pruned


# --- SessionStart's block, cached per machine ---------------------------------------------

BLOCK_FILE = "facts-block.json"
BLOCK_VERSION = 2  # bump whenever the block's text or what it depends on changes (2: teammates' facts signed)
NEVER = "9999-12-31"  # the lapse day of facts that never expire


def _trusted(gate: trust.Gate, facts: list[pf.Fact]) -> list[pf.Fact]:
    """The project facts enf.trust lets reach the model."""
    withheld = gate.withheld([f"{pf.MEMORIES_DIR}/{f.id}.md" for f in facts])
    return [f for f in facts if f"{pf.MEMORIES_DIR}/{f.id}.md" not in withheld]


def _signed(ctx: Context, facts: list[pf.Fact]) -> list[pf.Fact]:
    """The project's facts as the block shows them: one someone else last changed ends with
    "— Alice, 2026-12-01" (within its budget: the name counts)."""
    from ..record import authors

    try:
        table = authors.load(ctx)
    except (EnfError, OSError):
        return facts
    out = []
    for f in facts:
        by = table.by(f"{pf.MEMORIES_DIR}/{f.id}.md")
        out.append(frozen.replace(f, text=f"{f.text} — {by}") if by else f)
    return out


def _block_key(ctx: Context, places: Places, settings: FactSettings) -> list[object]:
    """What the block is a function of, the day aside: the branch's memories/ folder, the
    user's fact files and this session's (by name, inode, size and mtime), the settings."""
    tip = store.tip(ctx.repo)
    memories = store.blob_oid(ctx.repo, tip.tree, pf.MEMORIES_DIR) if tip is not None else None
    user = _folder_stamp(places.user_dir / pf.MEMORIES_DIR) if places.user_dir is not None else None
    own = _file_stamp(fact_stores.session_path(ctx, places.session_id)) if places.session_id else None
    from ..record import authors

    me = authors.reader(ctx)  # whose facts go unsigned
    return [BLOCK_VERSION, memories, str(places.user_dir), user, places.session_id, own, list(me),
            sorted((k, v) for k, v in settings.ttls.items()), sorted(settings.budgets.items())]


def _file_stamp(path: Path) -> list[int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return [st.st_ino, st.st_size, st.st_mtime_ns]


def _folder_stamp(folder: Path) -> list[object] | None:
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return None
    return [[name, _file_stamp(folder / name)] for name in names]


def _lapses(found: Sequence[pf.Fact]) -> str:
    """The first day one of `found` expires (NEVER: none does)."""
    return min((f.expires for f in found if f.expires), default=NEVER)


def _cached_block(ctx: Context, key: list[object], today: str) -> str | None:
    """The saved block, if it was made from `key` and none of its facts has lapsed by `today`."""
    try:
        raw = json.loads((store.state_dir(ctx.repo) / BLOCK_FILE).read_bytes())
        if raw["key"] == json.loads(json.dumps(key)) and today < str(raw["lapses"]):
            return str(raw["text"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def _save_block(ctx: Context, key: list[object], lapses: str, today: str, text: str) -> None:
    from ..record import authors

    if today >= lapses or authors.provisional():
        # An expired fact was left standing (the prune lost a race), or the authors were
        # not all known yet (a fresh clone's first start): recompute next time.
        return
    try:
        atomic.write(store.state_dir(ctx.repo) / BLOCK_FILE,
                     json.dumps({"key": key, "lapses": lapses, "text": text}).encode("utf-8"))
    except OSError:
        pass  # a read-only state dir costs the next start a recompute, never this one


def drop_session_facts(state_dir: str | Path, session_id: str) -> bool:
    """SessionEnd: this session's facts end with it (`state_dir`: `.git/enf`, the hook's
    Where.state). True if it had any."""
    return bool(session_id) and fact_stores.drop_session(state_dir, session_id)
