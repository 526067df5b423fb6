"""Where remembered facts are kept, one store per scope (see pure/facts.py for the record).

- project: `memories/<id>.md` on the claude-memory branch, changed only by commits that
  also re-render `memories.md`; each commit is built from the tip of the moment and the
  branch moves by compare-and-swap (store_write.commit), never touching HEAD, the index or
  the user's work tree; the working copy is refreshed from it afterwards.
- user: `<user dir>/memories/<id>.md` (the user's config dir: `~/.config/enf-git/`), in no
  repository.
- session: `.git/enf/session-facts/<session-id>.json`, per machine, dropped at SessionEnd.

Malformed files are reported and skipped, never rewritten or deleted.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path

from ... import paths
from ...errors import EnfError, RecordError
from ...plumbing import atomic, events, locks, store, store_write
from ...pure import facts as pf
from .working_set import materialize
from ..workspace import Context, require_branch

SESSION_FACTS_DIR = "session-facts"
USER_DIR_NAME = paths.USER_DIR_NAME
SESSION_LOCK_WAIT = 5.0
ID_CHARS = 8  # as claude/gate.id8
STALE_SESSION_FACTS = 7 * 86400.0  # seconds: a session resumed after a week starts without them


def user_dir(environ: Mapping[str, str]) -> Path:
    """The user's enf-git config folder (paths.user_config_dir). Called by the edges with
    their environment (nothing below them reads it)."""
    return Path(paths.user_config_dir(dict(environ)))


class Loaded:  # a plain class: see workspace.Settings
    def __init__(self) -> None:
        self.facts: list[pf.Fact] = []
        self.problems: list[str] = []  # one line each: where, and why it is left out


def _parse_into(out: Loaded, path: str, data: bytes, scope: str, ttls: Mapping[str, int | None]) -> None:
    try:
        out.facts.append(pf.parse_fact(path, data, scope, ttls))
    except EnfError as exc:
        out.problems.append(str(exc.message))


# --- project: the branch ---------------------------------------------------------------

def project_facts(repo: store.Repo, tip: store.Commit | None, ttls: Mapping[str, int | None],
                  overlay: Mapping[str, bytes | None] | None = None) -> Loaded:
    """The facts on the branch at `tip`, with `overlay` (path -> bytes, None: deleted) applied."""
    return tree_facts(repo, tip.tree if tip is not None else None, ttls, overlay)


def tree_facts(repo: store.Repo, tree: store.Tree | None, ttls: Mapping[str, int | None],
               overlay: Mapping[str, bytes | None] | None = None) -> Loaded:
    out = Loaded()
    overlay = overlay or {}
    for name, oid, kind in store.folder_entries(repo, tree, pf.MEMORIES_DIR):
        path = f"{pf.MEMORIES_DIR}/{name}"
        if not name.endswith(".md") or path in overlay:
            continue
        if kind != "blob":
            out.problems.append(f"{path}: a {kind} where a fact file belongs")
            continue
        _parse_into(out, path, store.blob_data(repo, oid), "project", ttls)
    for path, data in sorted(overlay.items()):
        if data is not None and pf.is_fact_path(path):
            _parse_into(out, path, data, "project", ttls)
    out.facts = pf.with_scope(out.facts, "project")
    return out


def memories_view(repo: store.Repo, tree: store.Tree | None,
                  overlay: Mapping[str, bytes | None]) -> dict[str, bytes]:
    """`{memories.md: bytes}` re-rendered for `tree` + `overlay` when the overlay touches a
    fact file and the view's bytes change; else {}. What a commit or a merge adds to its views."""
    if not any(pf.is_fact_path(p) for p in overlay):
        return {}
    data = pf.render_memories(tree_facts(repo, tree, {}, overlay).facts)
    current = store.blob_oid(repo, tree, pf.MEMORIES_VIEW)
    return {} if current == store.hash_bytes(data) else {pf.MEMORIES_VIEW: data}


# What a project change computes from the facts at the tip: path -> bytes (None: delete).
ProjectChange = Callable[[list[pf.Fact]], dict[str, bytes | None]]


def commit_project(ctx: Context, change: ProjectChange, message: str, ttls: Mapping[str, int | None],
                   now: int | None) -> store_write.CommitResult | None:
    """Commit `change(facts at the tip)` plus the re-rendered memories.md; None if it
    changed nothing. `change` runs again on every retry, against the tip of that moment,
    so a teammate's fact committed meanwhile is neither lost nor resurrected."""
    require_branch(ctx)

    def build(tip: store.Commit | None) -> dict[str, bytes | None]:
        changes = change(project_facts(ctx.repo, tip, ttls).facts)
        return {**changes, **memories_view(ctx.repo, tip.tree if tip else None, changes)} if changes else {}

    with ctx.lock():
        result = store_write.commit(ctx.repo, build, message, when=now, env=ctx.ident)
        if result is not None:
            from .. import flags

            flags.note(ctx.repo, result.blobs)
            materialize(ctx)  # the working copy's memories/ and memories.md follow the branch
    return result


# --- user: the config dir ---------------------------------------------------------------

def user_facts(folder: Path, ttls: Mapping[str, int | None]) -> Loaded:
    out = Loaded()
    try:
        names = sorted(os.listdir(folder / pf.MEMORIES_DIR))
    except OSError:
        return out
    for name in names:
        path = folder / pf.MEMORIES_DIR / name
        if not name.endswith(".md") or name.startswith("."):
            continue
        try:
            data = path.read_bytes()
        except OSError as exc:
            out.problems.append(f"{path}: cannot be read ({exc.strerror})")
            continue
        _parse_into(out, str(path), data, "user", ttls)
    out.facts = pf.with_scope(out.facts, "user")
    return out


def write_user(folder: Path, fact: pf.Fact) -> Path:
    path = folder / pf.MEMORIES_DIR / f"{fact.id}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic.write(path, pf.fact_bytes(fact))
    return path


def remove_user(folder: Path, fact_id: str) -> bool:
    try:
        (folder / pf.MEMORIES_DIR / f"{fact_id}.md").unlink()
    except FileNotFoundError:
        return False
    return True


# --- session: the git dir ----------------------------------------------------------------

def session_path(ctx: Context, session_id: str) -> Path:
    return session_file(store.state_dir(ctx.repo), session_id)


def session_file(state_dir: str | os.PathLike[str], session_id: str) -> Path:
    """`<state dir>/session-facts/<id8>.json`: confined to a plain file name, and named by
    the id's first 8 characters, the form SessionStart's context gives the assistant (so
    `--session a1b2c3d4` and the hooks' full UUID name the same file)."""
    return Path(state_dir) / SESSION_FACTS_DIR / f"{events.safe_name(session_id)[:ID_CHARS]}.json"


def session_facts(ctx: Context, session_id: str, ttls: Mapping[str, int | None]) -> Loaded:
    out = Loaded()
    path = session_path(ctx, session_id)
    try:
        raw = json.loads(path.read_bytes())
        rows = raw["facts"] if isinstance(raw, dict) else None
        if not isinstance(rows, list):
            raise ValueError("no list of facts")
    except FileNotFoundError:
        return out
    except (OSError, ValueError, KeyError) as exc:
        out.problems.append(f"{path}: not a session-facts file ({exc}); delete it to start afresh")
        return out
    for row in rows:
        try:
            out.facts.append(_fact_of_row(row, session_id, ttls))
        except (TypeError, ValueError, KeyError) as exc:
            out.problems.append(f"{path}: a fact left out ({exc})")
    return out


def _fact_of_row(row: Mapping[str, object], session_id: str, ttls: Mapping[str, int | None]) -> pf.Fact:
    text, date = str(row["text"]), str(row["date"])
    category = pf.parse_category(str(row.get("category") or pf.detect_category(text)))
    expires = row.get("expires")
    return pf.Fact(str(row["id"]), pf.clean_text(text), category, date, str(row.get("author") or ""), "session",
                   str(expires) if expires else pf.expiry(category, date, ttls))


def change_session(ctx: Context, session_id: str, change: Callable[[list[pf.Fact]], list[pf.Fact] | None],
                   ttls: Mapping[str, int | None]) -> bool:
    """Rewrite this session's facts as `change(current)` returns them (None: leave them);
    one writer at a time. True if the file changed."""
    path = session_path(ctx, session_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    with locks.file_lock(path.with_suffix(".lock"), SESSION_LOCK_WAIT):
        loaded = session_facts(ctx, session_id, ttls)
        if loaded.problems and not loaded.facts and path.exists():
            raise RecordError(str(path), 0, "not a session-facts file this version can read; delete it to start afresh")
        new = change(loaded.facts)
        if new is None:
            return False
        doc = {"schema": pf.SCHEMA, "session": session_id, "facts": [f.as_dict() for f in new]}
        atomic.write(path, json.dumps(doc, indent=1, ensure_ascii=False).encode("utf-8"))
    return True


def drop_session(state_dir: str | os.PathLike[str], session_id: str) -> bool:
    """Session facts live as long as their session: gone at SessionEnd. True if there were any.
    Takes the state dir (`.git/enf`), not a Context: SessionEnd has ~1.5 s and no need to open the repo."""
    path = session_file(state_dir, session_id)
    path.with_suffix(".lock").unlink(missing_ok=True)
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    return True


def sweep_sessions(ctx: Context, keep: str, now: float, older_than: float = STALE_SESSION_FACTS) -> list[str]:
    """Remove the facts of sessions that ended without a SessionEnd (a crash, a killed
    terminal): files untouched for `older_than` seconds, other than session `keep`'s."""
    folder = store.state_dir(ctx.repo) / SESSION_FACTS_DIR
    mine = session_path(ctx, keep).name if keep else ""
    gone = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
        try:
            if path.name != mine and now - path.stat().st_mtime > older_than:
                path.unlink()
                path.with_suffix(".lock").unlink(missing_ok=True)
                gone.append(path.stem)
        except OSError:
            continue
    return gone
