"""Committing the working copy onto the branch.

Commit = the paths that changed in `.claude-sessions/` since it was last
materialized, applied onto the branch tip *at commit time* (store_write.commit retries
on a moved tip), then the derived views re-rendered from the resulting records,
then the working copy refreshed from the new commit.

What is never committed as it stands:
- deletions of a working copy that vanished (the folder, or a whole top-level
  folder such as `sessions/`, is gone): those files are restored instead;
- a deletion of most of what the branch holds, unless asked (`allow_deletions`);
- a record (session or decision file) that is not UTF-8 text: refused and left
  as it is on disk. Other undecodable files are committed byte-identical; only text
  that decoded is redacted (invariants 10 and 11).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path

from ... import paths
from ...errors import EnfError, is_refusal
from ...plumbing import record_index, signing, store, store_merge, store_write, workcopy
from ...plumbing.workcopy import Manifest
from ...pure import model, render, slug
from ...redact import redact_count, spans_in_bytes
from . import merge, views
from ..report import Report
from .working_set import folder_vanished, materialize
from ..workspace import Context, require_branch

# A commit deleting at least this many files, and more than half of the branch's
# files, is taken for a lost working copy rather than a choice.
MASS_DELETION_MIN = 5


class Pending:  # a plain class: see workspace.Settings
    """What the working copy holds that the branch does not, since it was last synced."""

    def __init__(self) -> None:
        self.changes: dict[str, bytes | None] = {}  # records and other files (None: deleted)
        self.views: dict[str, bytes] = {}  # hand-edited derived views
        self.vanished: list[str] = []  # files whose whole folder is gone: to restore, not delete

    @property
    def empty(self) -> bool:
        """Nothing to commit (vanished files are restored, not committed)."""
        return not self.changes and not self.views


def pending(ctx: Context, manifest: Manifest | None = None, tip: store.Commit | None = None) -> Pending:
    """The working copy's changes since materialized.

    A file equal to what the manifest or the branch tip holds is no change (a commit
    killed after the branch moved but before the manifest was saved leaves exactly
    that). Refreshes the stats of files found unchanged: saved here when the manifest
    is our own, left to the caller (who saves once) when it passed one in.
    """
    own = manifest is None
    manifest = manifest or ctx.manifest()
    tree = tip.tree if tip is not None else None
    candidates, present = workcopy.scan(ctx.root, manifest)
    out = Pending()
    refreshed = False
    for path, data in candidates.items():
        if workcopy.is_local_only(path):
            continue
        oid = store.hash_bytes(data)
        if oid == manifest.files.get(path) or (tree is not None and oid == store.blob_oid(ctx.repo, tree, path)):
            manifest.record(ctx.root, path, oid)  # same content, new stat: remember it (git's index refresh)
            refreshed = True
            continue
        if render.is_view(path):
            out.views[path] = data
        else:
            out.changes[path] = data
    gone = [p for p in manifest.files if p not in present and not render.is_view(p) and not workcopy.is_local_only(p)]
    vanished: dict[str, bool] = {}  # top-level folder -> gone with it: one check per folder
    for path in gone:
        top = path.partition("/")[0] if "/" in path else ""
        if top not in vanished:
            vanished[top] = folder_vanished(ctx.root, path, manifest)
        if vanished[top]:
            out.vanished.append(path)
        else:
            out.changes[path] = None
    # A folder that holds all it should is the one to compare with from now on.
    lacking = {p.partition("/")[0] for p in gone if "/" in p}
    refreshed = manifest.note_folders(ctx.root, lambda f: not (gone if f == "" else f in lacking)) or refreshed
    if refreshed and own:
        try:
            manifest.save(ctx.manifest_path)
        except OSError as exc:
            if not is_refusal(exc):
                raise
            # an unwritable .git: the refreshed stats are a cache, and status still answers

    return out


def commit(ctx: Context, message: str | None = None, now: int | None = None,
           allow_deletions: bool = False) -> Report:
    """Commit the working copy's changes onto the current tip, then refresh it."""
    require_branch(ctx)
    with ctx.lock():
        return _commit(ctx, message, now, allow_deletions)


def _commit(ctx: Context, message: str | None, now: int | None, allow_deletions: bool) -> Report:
    report = Report(warnings=[f"{paths.BRANCH} is checked out in {d}: do not commit there by hand"
                              for d in store.checked_out_in(ctx.repo)])
    manifest = ctx.manifest()  # loaded once, saved once by materialize: it is large on big branches
    start = store.tip(ctx.repo)
    found = pending(ctx, manifest, start)
    lost = {*found.vanished, *(v for v in manifest.files if render.is_view(v) and not (ctx.root / v).is_file())}
    changes = found.changes
    report.refused = _refuse(changes, ctx.root)
    report.redacted = _redact_in_place(ctx, changes)
    report.unredacted = _unredactable_secrets(ctx, changes)
    if not allow_deletions:
        report.held_deletions = _mass_deletion(ctx.repo, start, changes)
    cache = ctx.cache()
    if found.views:  # rare: a hand edit of a view (imported here, not on every commit's import path)
        from . import view_edits

        edits = view_edits.import_views(ctx.repo, ctx.root, found.views, manifest,
                                        store.commit_at(ctx.repo, manifest.base), now, cache)
        changes.update(edits.changes)
        report.imported, report.rejected = edits.imported, edits.rejected
    report.warnings += _name_warnings(changes, manifest, now)
    message = message if message and message.strip() else default_message(changes, manifest)
    report.message = subject(message)  # what the commit line prints: git's %s of the message
    body = "\n".join(sorted(changes))

    written: dict[str, bytes] = {}  # path -> bytes of what we commit: materialize reuses it

    def build(tip: store.Commit | None) -> dict[str, bytes | None]:
        tree = tip.tree if tip is not None else None
        merged, report.conflicts, report.kept = merge.merge_onto(ctx.repo, tree, manifest.files, changes)
        rendered, problems = views.views_for(ctx.repo, tip, merged, cache, (ctx.root, manifest))
        # What this commit brought: a malformed file committed earlier is doctor's to name,
        # not every Stop hook's.
        report.problems = {p: e for p, e in problems.items() if p in changes}
        merged.update(rendered)
        merge.refuse_markers(merged)  # nothing enf renders holds one; a last guard before the branch
        written.clear()
        written.update({p: d for p, d in merged.items() if d is not None})
        return merged

    full = f"{message}\n\n{body}\n" if body and body != message else message
    report.commit = store_write.commit(ctx.repo, build, full, when=now, env=ctx.ident)
    if report.commit is not None:  # signed if git would sign: a failure a hook kept is over
        signing.clear_failure(str(store.state_dir(ctx.repo)))
    cache.save()
    if report.commit is not None:  # which records read as instructions to the assistant: judged once, here
        from .. import flags

        flags.note(ctx.repo, report.commit.blobs, written)
    if report.conflicts or report.kept:
        _name_authors(ctx, report, manifest.base)
    report.materialized = _refresh(ctx, manifest, report, found, written)
    report.restored = [p for p in report.materialized if p in lost]
    return report


def _name_authors(ctx: Context, report: Report, base: str | None) -> None:
    """Who wrote the branch's version of each conflicted or kept path (or deleted it): the
    author of the commit since the working copy's base that made it so."""
    parent = store.commit_at(ctx.repo, report.commit.parent) if report.commit else store.tip(ctx.repo)
    if parent is None:
        return
    since = store.commit_at(ctx.repo, base)
    for path in [p for p, _ in report.conflicts] + [p for p, _ in report.kept]:
        report.authors[path] = store_merge.author_of(ctx.repo, parent, path, hide=since) or ""
    _say_why(ctx, report, parent, since)
    report.me = str(store_write.signature(ctx.repo, env=ctx.ident).name)


def _say_why(ctx: Context, report: Report, parent: store.Commit, since: store.Commit | None) -> None:
    """Why each conflict's two versions were kept apart, when not for edits of the same
    lines (merge.why_apart): ours is the conflict copy, the branch's is in `parent`."""
    ours = store.commit_at(ctx.repo, report.commit.oid) if report.commit else None
    for path, saved in report.conflicts:
        mine, theirs = (store.read_path(ctx.repo, ours.tree if ours else None, saved),
                        store.read_path(ctx.repo, parent.tree, path))
        if mine is not None and theirs is not None:
            common = store.read_path(ctx.repo, since.tree, path) if since else None
            if (why := merge.why_apart(path, common, mine, theirs)) != merge.SAME_LINES:
                report.why[path] = why


def _refresh(ctx: Context, manifest: Manifest, report: Report, found: Pending, written: dict[str, bytes]) -> list[str]:
    """Materialize our own commit (a later one by another writer is picked up next
    time), plus what must come back: views edited by hand (imported or set aside),
    our side of a conflict (stored under conflicts/), vanished files."""
    conflicted = {path: found.changes[path] for path, _ in report.conflicts}
    _take_merged(ctx, manifest, found, written, conflicted)
    settled = {**found.views, **conflicted}
    manifest.files.update({p: store.hash_bytes(d) for p, d in settled.items() if d is not None})
    also = [*settled, *found.vanished, *(p for p, deleted_here in report.kept if deleted_here)]
    ours = store.commit_at(ctx.repo, report.commit.oid) if report.commit else None
    if ours is None or report.commit is None:
        return materialize(ctx, also=also, manifest=manifest)
    # Its tree holds exactly `written` at those paths, so no re-reading, and when it
    # sits right on the base we last materialized, the delta is ours alone.
    delta = report.commit.blobs if report.commit.parent == manifest.base else None
    return materialize(ctx, ours, also=also, manifest=manifest, known=written, changed=delta)


def _take_merged(ctx: Context, manifest: Manifest, found: Pending, written: dict[str, bytes],
                 conflicted: Mapping[str, bytes | None]) -> None:
    """A change the branch took merged (log.md's union with lines this copy lacked, after
    the folder went and a hook began a new log.md): the file here, still what we
    committed, becomes the merge, which holds it. A file that changed since (another
    hook appended meanwhile) is left for the next commit, whose merge takes it too."""
    for path, data in found.changes.items():
        merged = written.get(path)
        if data is None or merged is None or merged == data or path in conflicted:
            continue
        try:
            if (ctx.root / path).read_bytes() != data:
                continue
        except OSError:
            continue
        workcopy.write_file(ctx.root, path, merged)
        manifest.record(ctx.root, path, store.hash_bytes(merged))  # committed: the blob is on the branch


def _name_warnings(changes: Mapping[str, bytes | None], manifest: Manifest, now: int | None) -> list[str]:
    """New session files whose names break Elephants Never Forget's naming rules: committed all the same
    (nothing is lost), with the name they should have (dated from the file, else today)."""
    out = []
    for path in sorted(changes):
        if changes[path] is None or path in manifest.files or not model.is_session_path(path):
            continue
        stem = path[len(model.SESSIONS_DIR) + 1:-3]
        problem = slug.name_problem(stem)
        if problem:
            taken = {p.rsplit("/", 1)[-1] for p in (*changes, *manifest.files) if model.is_session_path(p)}
            session_id, date = _session_fields(path, changes[path])
            if not slug.is_date(date):
                date = time.strftime("%Y-%m-%d", time.gmtime(now))
            name = slug.suggested_name(stem, date, session_id, taken)
            better = f"{paths.WC_DIR}/{model.SESSIONS_DIR}/{name}.md"
            out.append(f"{path}: {problem}; rename it (mv {paths.WC_DIR}/{path} {better}), then git enf commit")
    return out


def _session_fields(path: str, data: bytes | None) -> tuple[str, str]:
    """The (session id, date) a file names (for a collision suffix and the name's date), or
    empty strings if it does not parse."""
    try:
        session = model.parse_session(path, data or b"")
    except EnfError:
        return "", ""
    return session.session_id, session.date


def would_refuse(ctx: Context, changes: Mapping[str, bytes | None]) -> list[tuple[str, str]]:
    """What a commit of `changes` would leave in the working copy, and why (doctor, status)."""
    return sorted(_refuse(dict(changes), ctx.root))


def _refuse(changes: dict[str, bytes | None], root: Path) -> list[tuple[str, str]]:
    """Take out of `changes` every file a commit leaves in the working copy, with why."""
    return _refuse_month_folder_paths(changes, root) + _refuse_binary_records(changes) + _refuse_conflict_markers(changes)


def _refuse_binary_records(changes: dict[str, bytes | None]) -> list[tuple[str, str]]:
    """Take out record files that are not text: they cannot be parsed, and must not be
    rewritten; they stay in the working copy as they are."""
    refused = []
    for path, data in list(changes.items()):
        if data is None or not (model.is_session_path(path) or model.is_decision_path(path)):
            continue
        why = _not_text(data)
        if why:
            del changes[path]
            refused.append((path, f"{why}; left as it is: save it as UTF-8 text "
                                  f"(or move it out of {path.split('/')[0]}/), then git enf commit"))
    return refused


def _unredactable_secrets(ctx: Context, changes: Mapping[str, bytes | None]) -> list[tuple[str, int]]:
    """Files that are not UTF-8 text yet hold what looks like a secret: committed as they
    are (redaction never rewrites bytes it cannot read), so the next push must look
    first. The marks that say "memory went to that remote, its history scanned" are
    dropped, and the next push or sync scans again and stops on them (`--allow`)."""
    found = [(path, spans) for path, data in sorted(changes.items())
             if data is not None and _not_text(data) is not None and (spans := spans_in_bytes(data))]
    if found:
        from .scan import forget_scans

        forget_scans(ctx)
    return found


def _refuse_month_folder_paths(changes: dict[str, bytes | None], root: Path) -> list[tuple[str, str]]:
    """Take out files at sessions/YYYY/MM/<dated name>: that is where the branch keeps the
    session sessions/<name>, so committing one would make two working-copy files one blob
    (and deleting one would delete the session). A deletion there is dropped; a file is
    left where it is, with what to do."""
    refused = []
    for path in list(changes):
        flat = store.logical_path(path)
        if flat == path:
            continue
        data = changes.pop(path)
        if data is None:
            continue
        here = root / flat
        if here.is_file() and here.read_bytes() == data:
            todo = f"it is a copy of {paths.WC_DIR}/{flat} (an older enf-git wrote it there): delete it"
        elif here.is_file():
            todo = f"{paths.WC_DIR}/{flat} exists too: merge the two into it by hand, then delete this copy"
        else:
            todo = f"move it to {paths.WC_DIR}/{flat}"
        refused.append((path, f"that is where the branch keeps {flat}; left as it is: {todo}, then git enf commit"))
    return refused


def _refuse_conflict_markers(changes: dict[str, bytes | None]) -> list[tuple[str, str]]:
    """Take out files holding an unresolved git conflict: the branch is where everyone
    reads from, so no marker goes there. Only that file waits; the rest of the commit lands."""
    refused = []
    for path, data in list(changes.items()):
        line = merge.marker_line(data) if data is not None else None
        if line is not None:
            del changes[path]
            refused.append((path, f"line {line} starts an unresolved git conflict (<<<<<<< … >>>>>>>); keep the text "
                                  "you want, delete the <<<<<<<, ======= and >>>>>>> lines, then git enf commit"))
    return refused


def _not_text(data: bytes) -> str | None:
    nul = data.find(b"\x00")
    if nul >= 0:
        return f"it is a binary file (a NUL byte at {_where(data, nul)}), not a markdown record"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"it is not UTF-8 text ({_where(data, exc.start)})"
    return None


def _where(data: bytes, offset: int) -> str:
    """`line L, column C (byte B of the file)`, counted as an editor does (from 1)."""
    line = data[:offset].count(b"\n") + 1
    column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return f"line {line}, column {column} (byte {offset} of the file)"


def _redact_in_place(ctx: Context, changes: dict[str, bytes | None]) -> list[tuple[str, int]]:
    """Secrets never reach the branch: redact text, and fix the working copy to match.
    Bytes that do not decode as UTF-8 are never touched (invariant 11)."""
    redacted = []
    for path, data in changes.items():
        if data is None or b"\x00" in data:
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        clean, spans = redact_count(text)
        if clean != text:
            cleaned = clean.encode("utf-8")
            changes[path] = cleaned
            workcopy.write_file(ctx.root, path, cleaned)
            redacted.append((path, max(1, spans)))
    return redacted


def _mass_deletion(repo: store.Repo, tip: store.Commit | None, changes: dict[str, bytes | None]) -> list[str]:
    """Deletions taken out of `changes` because they would remove most of the branch."""
    deleted = sorted(p for p, d in changes.items() if d is None)
    if len(deleted) < MASS_DELETION_MIN or tip is None:
        return []
    held = sum(1 for p in store.list_files(repo, tip.tree) if not render.is_view(p) and not record_index.is_index_path(p))
    if len(deleted) * 2 <= held:
        return []
    for path in deleted:
        del changes[path]
    return deleted


def default_message(changes: Mapping[str, bytes | None], manifest: Manifest) -> str:
    """A subject that names what changed: `enf: add 2026-04-13-search; update log.md`."""
    verbs: dict[str, list[str]] = {"add": [], "update": [], "delete": []}
    for path in sorted(changes):
        verb = "delete" if changes[path] is None else "update" if path in manifest.files else "add"
        verbs[verb].append(path)
    parts = [f"{verb} {_names(found)}" for verb, found in verbs.items() if found]
    return "enf: " + ("; ".join(parts) if parts else "refresh views")


def subject(message: str) -> str:
    """The subject git shows for `message` (`%s`): its first paragraph, on one line."""
    lines: list[str] = []
    for line in message.split("\n"):
        if line.strip():
            lines.append(line.rstrip())  # as git: leading blanks stay, trailing go
        elif lines:
            break
    return " ".join(lines)


def _names(found: list[str]) -> str:
    if len(found) <= 2:
        return ", ".join(_name(p) for p in found)
    kinds: dict[str, int] = {}
    for p in found:
        kind = "session" if model.is_session_path(p) else "decision" if model.is_decision_path(p) else "file"
        kinds[kind] = kinds.get(kind, 0) + 1
    return ", ".join(f"{n} {kind}{'s' if n != 1 else ''}" for kind, n in kinds.items())


def _name(path: str) -> str:
    """A session by its stem (what `git enf show` takes); any other file by its path."""
    return path.removeprefix(f"{model.SESSIONS_DIR}/").removesuffix(".md") if model.is_session_path(path) else path
