"""Operations both edges (CLI and hooks) call: init, materialize, commit the working copy.

Commit = the paths that changed in `.claude-sessions/` since it was last
materialized, applied onto the branch tip *at commit time* (store.commit retries
on a moved tip), then the derived views re-rendered from the resulting records.
A path changed on both sides keeps both versions: the branch's stays in place,
ours is stored under `conflicts/` and reported. `log.md` is append-only and merges
by union. Hand edits to views are imported (new Y-statements in decisions.md
become records under `decisions/`) or saved under `.rejected/` and reported;
never silently dropped.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager
from pathlib import Path

import pygit2

from ..pure import model, render

from . import records

from ..plumbing import store, workcopy
from ..errors import EnfError, NotInitialized, RepoError
from ..redact import redact
from ..plumbing.workcopy import Manifest

META = "meta.json"
LOG = "log.md"
CONFLICTS = "conflicts/"
APPEND_ONLY = (LOG,)
WORKTREE_LOCK_WAIT = 30.0  # seconds; a commit that renders every view at 10,000 sessions takes ~1-6 s


# Plain classes, not dataclasses, on the commit's import path: creating a dataclass
# costs ~1 ms at import, and every `git enf commit` (each Stop hook) pays it.
class Context:
    """Where everything is for one repository + worktree."""

    __slots__ = ("cache_path", "manifest_path", "repo", "root")

    def __init__(self, repo: pygit2.Repository, root: Path, manifest_path: Path, cache_path: Path) -> None:
        self.repo = repo
        self.root = root  # the working copy folder
        self.manifest_path = manifest_path
        self.cache_path = cache_path

    def __repr__(self) -> str:
        return f"Context(root={str(self.root)!r})"

    @classmethod
    def open(cls, start: str | Path = ".") -> Context:
        repo = store.open_repo(start)
        if repo.workdir is None:
            raise RepoError("this is a bare repository: the working copy needs a work tree",
                            hint="run git enf in a clone or worktree that has files checked out")
        top = Path(repo.workdir)
        return cls(repo, top / workcopy.WC_DIR, store.worktree_state_dir(repo) / "manifest.bin",
                   store.state_dir(repo) / "records.json")

    def cache(self) -> records.Cache:
        return records.Cache(self.cache_path)

    def manifest(self) -> Manifest:
        return Manifest.load(self.manifest_path)

    def lock(self) -> AbstractContextManager[bool]:
        """This worktree's working-copy lock: one commit or materialize at a time;
        yields whether it was taken within WORKTREE_LOCK_WAIT.

        A commit loads the manifest, scans, commits and saves the manifest; a prune
        (SessionStart's init) removing files in between would make those files look
        deleted by the user, and the commit would delete them from the branch. So
        init never prunes without the lock; a commit goes on without it (a stuck
        holder must not stop memory from being saved).
        """
        return store.file_lock(self.manifest_path.with_name("manifest.lock"), WORKTREE_LOCK_WAIT)


class Report:
    """What a commit or init did, for the edges to print."""

    def __init__(self, warnings: list[str] | None = None) -> None:
        self.commit: store.CommitResult | None = None
        self.imported: list[str] = []
        self.rejected: list[tuple[str, str, str]] = []  # (view, saved copy, why)
        self.conflicts: list[tuple[str, str]] = []  # (path, where ours went)
        self.problems: dict[str, EnfError] = {}
        self.warnings: list[str] = warnings if warnings is not None else []
        self.materialized: list[str] = []

    def __repr__(self) -> str:
        return f"Report({vars(self)!r})"


def report_lines(report: Report) -> list[tuple[bool, str]]:
    """What a commit says, as (to stderr?, line): shared by the CLI and its fast path."""
    out = [(True, f"warning: {w}") for w in report.warnings]
    out += [(False, f"imported: {path}") for path in report.imported]
    out += [(True, f"not applied: {view}: {why}; your copy is saved at {saved}") for view, saved, why in report.rejected]
    out += [(True, f"conflict: {path} changed on both sides; kept the branch's, yours is at {saved}")
            for path, saved in report.conflicts]
    out += [(True, f"skipped: {problem}") for _, problem in sorted(report.problems.items())]
    if report.commit is None:
        out.append((False, "nothing to commit"))
    else:
        c = report.commit
        out.append((False, f"[claude-memory {c.oid[:12]}] {len(c.paths)} path{'s' if len(c.paths) != 1 else ''}"))
    return out


def project_name(repo: pygit2.Repository) -> str:
    url = None
    try:
        url = repo.remotes["origin"].url
    except (KeyError, ValueError):
        pass
    if url:
        return url.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1].removesuffix(".git") or "project"
    top = Path(repo.workdir or repo.path).resolve()
    return (top.name if repo.workdir else top.parent.name) or "project"


def init(ctx: Context, now: int | None = None) -> Report:
    """Branch (adopting origin's), exclude entry, first-session files; idempotent."""
    report = Report()
    if store.tip(ctx.repo) is None:
        remote = ctx.repo.references.get(f"refs/remotes/origin/{store.BRANCH}")
        if remote is not None:
            ctx.repo.create_reference_direct(store.REF, remote.target, False, message="enf: adopt origin/claude-memory")
            report.warnings.append(f"adopted origin/{store.BRANCH}")
        else:
            import json

            meta = json.dumps({"project": project_name(ctx.repo), "schema": 1}, indent=2, sort_keys=True) + "\n"
            base: dict[str, bytes | None] = {
                META: meta.encode(), LOG: b"# Log\n\nAppend-only record of sessions (written by hooks).\n"}
            report.commit = store.commit(ctx.repo, lambda tip: {**base, **_views(ctx, tip, base)},
                                         "enf: initialize memory", when=now)
    if workcopy.ensure_excluded(store.common_dir(ctx.repo)):
        report.warnings.append(f"added {workcopy.EXCLUDE_LINE} to .git/info/exclude")
    for folder in ("sessions", "raw", ".opt-out"):
        (ctx.root / folder).mkdir(parents=True, exist_ok=True)
    with ctx.lock() as locked:
        if locked:
            report.materialized = materialize(ctx, prune=True)
        else:
            report.warnings.append("the working copy is busy (a commit in this worktree holds its lock): "
                                   "not refreshed now; the next commit refreshes it")
    return report


def require_branch(ctx: Context) -> pygit2.Commit:
    tip = store.tip(ctx.repo)
    if tip is None:
        raise NotInitialized(f"no {store.BRANCH} branch in this repository yet", hint="git enf init")
    return tip


def materialize(ctx: Context, tip: pygit2.Commit | None = None, also: Iterable[str] = (),
                manifest: Manifest | None = None, known: Mapping[str, bytes] | None = None,
                changed: Mapping[str, str | None] | None = None, prune: bool = False) -> list[str]:
    """Bring the branch into the working copy without clobbering local edits.

    Only paths that differ between the last materialized commit and `tip` are looked
    at (a tree diff, or `changed`: path -> blob OID when the caller knows the delta
    from the manifest's base to `tip`), so a commit that touched one file costs one
    file here. `known` maps paths to the bytes `tip` holds there, when the caller has
    them already. Sessions older than the working set are left on the branch;
    `prune` recomputes the working set and removes (unedited) files that fell out.
    """
    tip = tip or require_branch(ctx)
    manifest = manifest or ctx.manifest()
    found = ctx.repo.get(manifest.base) if manifest.base else None
    base = found if isinstance(found, pygit2.Commit) and ctx.root.is_dir() else None
    held: dict[str, str] = {}
    if base is None or prune:
        manifest.floor, held = _working_set(ctx.repo, tip.tree)
    if base is None:  # never materialized here (or the folder is gone): everything
        wanted = {p: None for p in manifest.files} | store.list_files(ctx.repo, tip.tree)
    else:
        wanted = dict(changed) if changed is not None else _changed_paths(ctx.repo, base.tree, tip.tree)
        for path in _missing_views(ctx, manifest) | set(also):
            wanted.setdefault(path, store.blob_oid(ctx.repo, tip.tree, path))
    wanted = _in_working_copy(ctx, manifest, wanted, held if prune else None)
    written = [p for p in sorted(wanted) if _sync_path(ctx, manifest, wanted[p], p, known or {})]
    manifest.base = str(tip.id)
    manifest.save(ctx.manifest_path)
    return written


WORKING_SET_KEY = "enf.workingSet"
WORKING_SET_DEFAULT = 500


def working_set_size(repo: pygit2.Repository) -> int | None:
    """How many of the newest sessions the working copy holds (None: all).

    `git config enf.workingSet N` (default 500), or `all`. Older sessions stay on the
    branch, where `git enf show` and `git enf recall` read them: every commit checks
    each working-copy file for edits, and at 10,000 files that check alone costs more
    than the rest of a commit.
    """
    try:
        raw = str(repo.config[WORKING_SET_KEY]).strip().lower()
    except (KeyError, ValueError, pygit2.GitError):
        return WORKING_SET_DEFAULT
    if raw in ("all", "0"):
        return None
    return int(raw) if raw.isdigit() else WORKING_SET_DEFAULT


def _working_set(repo: pygit2.Repository, tree: pygit2.Tree) -> tuple[str | None, dict[str, str]]:
    """(the oldest session path in the working set of `tree`, or None when it holds them
    all; path -> blob OID of each session in it)."""
    size = working_set_size(repo)
    try:
        sub = repo[tree[model.SESSIONS_DIR].id]
    except KeyError:
        return None, {}
    if not isinstance(sub, pygit2.Tree):
        return None, {}
    entries = sorted((e.name, str(e.id)) for e in sub if e.name and e.name.endswith(".md") and e.type_str == "blob")
    kept = entries if size is None else entries[-size:]
    floor = f"{model.SESSIONS_DIR}/{kept[0][0]}" if len(kept) < len(entries) else None
    return floor, {f"{model.SESSIONS_DIR}/{name}": oid for name, oid in kept}


def _in_working_copy(ctx: Context, manifest: Manifest, wanted: dict[str, str | None],
                     held: dict[str, str] | None) -> dict[str, str | None]:
    """`wanted` cut to what the working copy holds; with `held` (the recomputed set), also
    its changes: files that fell out of the set go, files that joined it come."""
    floor = manifest.floor
    # Outside the set, only files the working copy already has follow the branch (one
    # created here with an old date, say); the rest stay on the branch.
    out = {p: oid for p, oid in wanted.items()
           if p in manifest.files or _in_working_set(p, floor) or os.path.lexists(ctx.root / p)}
    if held is not None:
        # _sync_path removes each file that fell out unless it was edited here. A path
        # the manifest knows but the folder lacks is a deletion not committed yet:
        # neither restored nor forgotten, so the next commit makes it.
        out.update({p: None for p in manifest.files if not _in_working_set(p, floor) and os.path.lexists(ctx.root / p)})
        for path, oid in held.items():
            if path not in manifest.files:
                out.setdefault(path, oid)
    return out


def _in_working_set(path: str, floor: str | None) -> bool:
    # Session names start with their date, so name order is age order.
    return floor is None or path >= floor or not model.is_session_path(path)


def _changed_paths(repo: pygit2.Repository, old: pygit2.Tree, new: pygit2.Tree) -> dict[str, str | None]:
    """Path -> its blob OID in `new` (None: gone) for every path the diff touches.

    Taken from the diff itself: looking each path up in a 10,000-entry tree costs a
    millisecond per lookup (libgit2 re-reads the subtree every time).
    """
    paths: dict[str, str | None] = {}
    for delta in old.diff_to_tree(new).deltas:
        paths.setdefault(delta.old_file.path, None)
        if delta.status_char() != "D":
            paths[delta.new_file.path] = str(delta.new_file.id)
    return paths


def _missing_views(ctx: Context, manifest: Manifest) -> set[str]:
    """Derived views deleted locally: never committed as deletions, so restore them."""
    return {p for p in render.VIEWS if p in manifest.files and not (ctx.root / p).is_file()}


def _sync_path(ctx: Context, manifest: Manifest, want: str | None, path: str, known: Mapping[str, bytes]) -> bool:
    """Make one working-copy path hold blob `want` (None: absent) unless it has local edits; True if written."""
    have = manifest.local_oid(ctx.root, path, store.hash_bytes)
    if have == want:
        if want is not None:
            manifest.record(ctx.root, path, want)
        else:
            manifest.forget(path)
        return False
    if have is not None and have != manifest.files.get(path):
        return False  # edited locally and not committed yet: the next commit merges it
    if want is None:
        workcopy.remove_file(ctx.root, path)
        manifest.forget(path)
    else:
        data = known.get(path)
        workcopy.write_file(ctx.root, path, data if data is not None else store.blob_data(ctx.repo, want))
        manifest.record(ctx.root, path, want)
    return True


def pending(ctx: Context, manifest: Manifest | None = None) -> tuple[dict[str, bytes | None], dict[str, bytes]]:
    """(record changes since materialized, edited views) in the working copy.

    Refreshes the stats of files found unchanged: saved here when the manifest is our
    own, left to the caller (who saves once) when it passed one in.
    """
    own = manifest is None
    manifest = manifest or ctx.manifest()
    candidates, present = workcopy.scan(ctx.root, manifest)
    changes: dict[str, bytes | None] = {}
    views: dict[str, bytes] = {}
    refreshed = False
    for path, data in candidates.items():
        if workcopy.is_local_only(path):
            continue
        oid = store.hash_bytes(data)
        if oid == manifest.files.get(path):
            manifest.record(ctx.root, path, oid)  # same content, new stat: remember it (git's index refresh)
            refreshed = True
            continue
        (views if path in render.VIEWS else changes)[path] = data
    for path in manifest.files:
        if path not in present and path not in render.VIEWS and not workcopy.is_local_only(path):
            changes[path] = None
    if refreshed and own:
        manifest.save(ctx.manifest_path)
    return changes, views


def commit(ctx: Context, message: str | None = None, now: int | None = None) -> Report:
    """Commit the working copy's changes onto the current tip, then refresh it."""
    require_branch(ctx)
    with ctx.lock():
        return _commit(ctx, message, now)


def _commit(ctx: Context, message: str | None, now: int | None) -> Report:
    report = Report(warnings=[f"{store.BRANCH} is checked out in {d}: do not commit there by hand"
                              for d in store.checked_out_in(ctx.repo)])
    manifest = ctx.manifest()  # loaded once, saved once by materialize: it is large on big branches
    changes, edited_views = pending(ctx, manifest)
    _redact_in_place(ctx, changes)
    cache = ctx.cache()
    if edited_views:  # rare: a hand edit of a view (imported here, not on every commit's import path)
        from . import view_edits as imports

        base_obj = ctx.repo.get(manifest.base) if manifest.base else None
        base_tip = base_obj if isinstance(base_obj, pygit2.Commit) else None
        changes.update(imports.import_views(ctx.repo, ctx.root, edited_views, manifest, base_tip, now, report, cache))
    paths = sorted(changes)
    msg = message or f"enf: update {len(paths)} path{'s' if len(paths) != 1 else ''}"
    body = "\n".join(paths)

    written: dict[str, bytes] = {}  # path -> bytes of what we commit: materialize reuses it

    def build(tip: pygit2.Commit | None) -> dict[str, bytes | None]:
        report.conflicts.clear()
        merged = _merge_onto(ctx.repo, tip, manifest, changes, report)
        merged.update(_views(ctx, tip, merged, cache, report, manifest))
        written.clear()
        written.update({p: d for p, d in merged.items() if d is not None})
        return merged

    report.commit = store.commit(ctx.repo, build, f"{msg}\n\n{body}\n" if body else msg, when=now)
    cache.save()
    # Edited views were imported or saved under .rejected/, and our side of a conflict is
    # stored under conflicts/: take the branch's version of each into the working copy.
    settled = {**edited_views, **{path: changes[path] for path, _ in report.conflicts}}
    manifest.files.update({p: store.hash_bytes(d) for p, d in settled.items() if d is not None})
    ours = ctx.repo.get(report.commit.oid) if report.commit else None
    if isinstance(ours, pygit2.Commit) and report.commit is not None:
        # Materialize our own commit (a later one by another writer is picked up next
        # time): its tree holds exactly `written` at those paths, so no re-reading, and
        # when it sits right on the base we last materialized, the delta is ours alone.
        delta = report.commit.blobs if report.commit.parent == manifest.base else None
        report.materialized = materialize(ctx, ours, also=settled, manifest=manifest, known=written, changed=delta)
    else:
        report.materialized = materialize(ctx, also=settled, manifest=manifest)
    return report


def _redact_in_place(ctx: Context, changes: dict[str, bytes | None]) -> None:
    """Secrets never reach the branch: redact, and fix the working copy to match."""
    for path, data in changes.items():
        if data is None:
            continue
        text = data.decode("utf-8", "surrogateescape")
        clean = redact(text)
        if clean != text:
            cleaned = clean.encode("utf-8", "surrogateescape")
            changes[path] = cleaned
            workcopy.write_file(ctx.root, path, cleaned)


def _merge_onto(repo: pygit2.Repository, tip: pygit2.Commit | None, manifest: Manifest,
                changes: dict[str, bytes | None], report: Report) -> dict[str, bytes | None]:
    tree = tip.tree if tip is not None else None
    out: dict[str, bytes | None] = {}
    for path, ours in changes.items():
        base, theirs = manifest.files.get(path), store.blob_oid(repo, tree, path)
        ours_oid = store.hash_bytes(ours) if ours is not None else None
        if theirs == base or theirs == ours_oid:
            out[path] = ours
        elif path in APPEND_ONLY and ours is not None:
            out[path] = _union(_blob(repo, base), _blob(repo, theirs), ours)
        elif ours is None:
            continue  # deleted here, changed there: keep their newer text
        else:
            saved = f"{CONFLICTS}{path}.{ours_oid[:8]}" if ours_oid else f"{CONFLICTS}{path}"
            out[saved] = ours
            report.conflicts.append((path, saved))
    return out


def _blob(repo: pygit2.Repository, oid: str | None) -> bytes:
    return store.blob_data(repo, oid) if oid else b""


def _union(base: bytes, theirs: bytes, ours: bytes) -> bytes:
    """Append-only merge: their file plus the lines we appended since the base."""
    if ours.startswith(base):
        added = ours[len(base):]
    else:
        known = set(theirs.splitlines())
        added = b"".join(line for line in ours.splitlines(keepends=True) if line.rstrip(b"\r\n") not in known)
    if added and theirs and not theirs.endswith(b"\n"):
        theirs += b"\n"
    return theirs + added


def _views(ctx: Context, tip: pygit2.Commit | None, overlay: dict[str, bytes | None],
           cache: records.Cache | None = None, report: Report | None = None,
           manifest: Manifest | None = None) -> dict[str, bytes | None]:
    """Views re-rendered from the records of tip + overlay, only where they differ."""
    tree = tip.tree if tip is not None else None
    patched = _patched_views(ctx.repo, tree, overlay, _synced_reader(ctx, manifest, tree) if manifest else None)
    if patched is not None:
        return patched
    recs = records.load(ctx.repo, tree, cache or ctx.cache(), overlay)
    if report is not None:
        report.problems = recs.problems
    project = project_of(ctx.repo, tree, overlay)
    out: dict[str, bytes | None] = {}
    for path, data in render.render_all(project, recs.all_sessions(), recs.extra_decisions()).items():
        current = store.blob_oid(ctx.repo, tree, path)
        wanted = store.hash_bytes(data) if data is not None else None
        if current != wanted:
            out[path] = data
    return out


def _patched_views(repo: pygit2.Repository, tree: pygit2.Tree | None, overlay: dict[str, bytes | None],
                   read: Callable[[str], bytes | None] | None = None) -> dict[str, bytes | None] | None:
    """Views for an overlay that edits existing sessions in place, or adds the newest one,
    by patching lines; None: render all.

    `read(path)` gives a view's bytes at `tree` (default: from the object store; the
    commit path passes a reader that takes the identical working-copy file when its
    stat proves it, which skips inflating megabytes of views from a pack).
    """
    if tree is None or META in overlay:
        return None
    pairs = []
    added = []
    for path, data in overlay.items():
        if model.is_decision_path(path):
            return None
        if not model.is_session_path(path):
            continue
        old = store.read_path(repo, tree, path)
        if data is None:
            return None  # a session removed: counts and positions move
        try:
            if old is None:
                added.append(model.parse_session(path, data))
            else:
                pairs.append((model.parse_session(path, old), model.parse_session(path, data)))
        except EnfError:
            return None
    if not pairs and not added:
        # No record changed (log.md, conflict copies): the views stand, if they exist.
        return {} if all(store.blob_oid(repo, tree, v) for v in (render.INDEX, render.TOPICS)) else None
    if added and (len(added) > 1 or pairs):
        return None
    read = read or (lambda v: store.read_path(repo, tree, v))
    current = _LazyViews(read)
    patched = _patch_add(repo, tree, current, added[0]) if added else render.patch_views(current, pairs)
    if patched is None:
        return None
    return {v: text.encode("utf-8") for v, text in patched.items() if text != current.get(v)}


class _LazyViews(Mapping[str, "str | None"]):
    """The patchable views' texts, each read on first use: a routine edit of a recent
    session finds its lines in index.md and topics.md and never reads the archives."""

    def __init__(self, read: Callable[[str], bytes | None]) -> None:
        self._read = read
        self._texts: dict[str, str | None] = {}

    def __getitem__(self, view: str) -> str | None:
        if view not in render.PATCHABLE:
            raise KeyError(view)
        if view not in self._texts:
            self._texts[view] = (self._read(view) or b"").decode("utf-8") or None
        return self._texts[view]

    def __iter__(self) -> Iterator[str]:
        return iter(render.PATCHABLE)

    def __len__(self) -> int:
        return len(render.PATCHABLE)


def _patch_add(repo: pygit2.Repository, tree: pygit2.Tree, current: Mapping[str, str | None],
               new: model.Session) -> dict[str, str] | None:
    """Views after a session's first commit, when it is provably the newest: insert its lines."""
    top = _newest_listed(repo, tree, current.get(render.INDEX) or "")
    if top is None or (new.date, new.start_time, new.stem) <= (top.date, top.start_time, top.stem):
        return None  # not provably the newest: its place needs every record
    return render.patch_add(current, new)


def _newest_listed(repo: pygit2.Repository, tree: pygit2.Tree, index: str) -> model.Session | None:
    """The session on the first line of the index's Recent list (the newest), parsed."""
    lines = index.split("\n")
    if "## Recent" not in lines:
        return None
    first = lines[lines.index("## Recent") + 1]
    if not first.startswith("- [") or "]" not in first:
        return None
    path = f"{model.SESSIONS_DIR}/{first[3:first.index(']')]}.md"
    data = store.read_path(repo, tree, path)
    try:
        return model.parse_session(path, data) if data is not None else None
    except EnfError:
        return None


def _synced_reader(ctx: Context, manifest: Manifest, tree: pygit2.Tree | None) -> Callable[[str], bytes | None]:
    def read(path: str) -> bytes | None:
        oid = store.blob_oid(ctx.repo, tree, path)
        if oid is not None and manifest.verified(ctx.root, path) == oid:
            try:
                return (ctx.root / path).read_bytes()
            except OSError:
                pass
        return store.read_path(ctx.repo, tree, path)
    return read


def project_of(repo: pygit2.Repository, tree: pygit2.Tree | None, overlay: dict[str, bytes | None]) -> str:
    """The project name recorded on the branch (meta.json), so every clone renders the same."""
    import json  # only a full render needs it: kept off the routine commit's imports

    raw = overlay.get(META) or store.read_path(repo, tree, META)
    try:
        return str(json.loads(raw or b"{}").get("project") or project_name(repo))
    except (ValueError, AttributeError):
        return project_name(repo)


def timestamp() -> int:
    return int(time.time())
