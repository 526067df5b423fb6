"""SessionStart: settle what earlier sessions left, bring the working copy back, and
build the context the assistant sees before its first step."""

from __future__ import annotations

import json
import time
import zlib
from collections.abc import Callable
from typing import Any
from pathlib import Path

from ... import paths
from ...errors import EnfError
from ...plumbing import atomic, signing, store
from ...pure import briefing, model, suspicious
from ..record import authors, digests, trust
from ..lifecycle import compress
from ..share import fetched
from ..record.commits import commit
from ..report import Report
from ..record.setup import init
from ..record.views import project_of
from ..record.working_set import restore
from ..workspace import Context, require_branch


class Prepared:  # a plain class: see workspace.Settings
    """What SessionStart's preparation did."""

    def __init__(self, commit: Report, restored: list[str], merged: str = "",
                 compressed: compress.Compression | None = None) -> None:
        self.commit = commit  # the commit of what earlier sessions left
        self.restored = restored  # files brought back into the working copy since
        self.merged = merged  # what merging the fetched teammates' memory did ('' nothing)
        self.compressed = compressed  # this start's compression tier (None: none ran)

    def compression_notice(self) -> str:
        """One line for the context: which sessions this start compressed, and how to get them back."""
        done = self.compressed.done if self.compressed else []
        if not done:
            return ""
        names = ", ".join(s.stem for s in done[:3]) + (f" and {len(done) - 3} more" if len(done) > 3 else "")
        return (f"## Compressed this start\n- {len(done)} older session{'s' if len(done) != 1 else ''} "
                f"to {done[0].tier}: {names}; the full text stays in history: `git enf show NAME --full`")


def prepare(ctx: Context, message: str, now: int | None = None, current: str | None = None) -> Prepared:
    """Commit what an earlier session left (it crashed, or SessionEnd ran out of time),
    then set up and restore the working copy.

    Committing first keeps a file deleted on purpose deleted; restoring after brings
    back what vanished (a deleted folder) and what a commit refused to delete. Between
    the two, teammates' memory that git already fetched is merged in, so the
    working copy's refresh brings their sessions too.
    """
    if store.tip(ctx.repo) is None:
        init(ctx, now)
        return Prepared(commit(ctx, message, now), [])
    report = _commit_or_keep(ctx, message, now)
    seen = fetched.seen_now(ctx)
    merged = _merge_fetched(ctx, now)
    # One tier per start, oldest first (seed 000); `current` (the starting session) stays hot.
    compressed = compress.scheduled(ctx, now if now is not None else int(time.time()), current=current)
    restored = restore(ctx, report.held_deletions, paths_on_branch=True).written if report.held_deletions else []
    restored += init(ctx, now).materialized
    fetched.note_seen(ctx, seen)  # merged and in the working copy: the next read has nothing to do
    return Prepared(report, [*report.restored, *restored], merged, compressed)


def _commit_or_keep(ctx: Context, message: str, now: int | None) -> Report:
    """The start's commit of what earlier sessions left; when git's signing step fails
    (commit.gpgSign with no usable key or agent), the session still starts: the files stay
    in the working copy for the next commit, and the failure is kept to be told once."""
    try:
        return commit(ctx, message, now)
    except signing.SigningError as exc:
        signing.note_failure(str(store.state_dir(ctx.repo)), exc)
        return Report()


def _merge_fetched(ctx: Context, now: int | None) -> str:
    """Merge refs/remotes/<remote>/claude-memory; a misconfigured remote must not stop a
    session (sync and doctor report it), so it only leaves the merge undone."""
    try:
        done = fetched.merge_fetched(ctx, now)
    except EnfError:
        return ""
    if done is None:
        return ""
    return f"{done[1].outcome} with {done[0]}'s memory"


def context_text(ctx: Context, situation: briefing.Situation, blocks: tuple[str, ...] = ()) -> str:
    """The SessionStart injection for `situation` (its `project` is filled in here), with
    `blocks` (remembered facts, the compression notice) right after its header."""
    tip = require_branch(ctx)
    digest = digests.current(ctx.repo, tip, ctx.cache())
    details = _with_sections(ctx, list(digest.newest))
    situation = briefing.Situation(project=project_of(ctx.repo, tip.tree, {}), session_id=situation.session_id,
                                   today=situation.today, yesterday=situation.yesterday, source=situation.source,
                                   own_file=situation.own_file, opted_out=situation.opted_out,
                                   conflicts=tuple(_conflict_copies(ctx, tip)),
                                   **_whose(ctx, tip, digest, details), withheld_line=trust.withheld_line_template())
    text = briefing.build_from(situation, digest, blocks=blocks, details=details)
    with _OrderMarks(store.state_dir(ctx.repo) / MARKS_FILE) as reads_as_order:
        return briefing.marked(text, reads_as_order)


MARKS_FILE = "marks.json"  # in .git/enf/: which of the last context's lines read as orders


class _OrderMarks:
    """pure/suspicious.py's verdict on a context line, remembered by the line's hash from
    one start to the next: its rules compile in ~35 ms, and a routine start shows the
    lines the last one showed. Only this start's lines are kept (the file stays small);
    a new rules version forgets them all."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.seen: dict[str, bool] = {}  # what the last start kept
        self.now: dict[str, bool] = {}  # this start's lines

    def __enter__(self) -> Callable[[str], bool]:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
            if raw.get("rules") == suspicious.RULES_VERSION:
                self.seen = {str(k): bool(v) for k, v in raw["lines"].items()}
        except (OSError, ValueError, KeyError, AttributeError):
            pass
        return self.check

    def check(self, line: str) -> bool:
        key = f"{zlib.crc32(line.encode('utf-8')):08x}{len(line):x}"
        if key not in self.now:
            found = self.seen.get(key)
            self.now[key] = bool(suspicious.reasons(line)) if found is None else found
        return self.now[key]

    def __exit__(self, *exc: object) -> None:
        if self.now != self.seen:
            try:
                atomic.write(self.path, json.dumps({"rules": suspicious.RULES_VERSION, "lines": self.now}).encode())
            except OSError:
                pass  # a read-only state dir: the next start judges again


def authorship(ctx: Context, tip: store.Commit, digest: briefing.Digest,
               details: list[model.Session]) -> dict[str, tuple[str, str]]:
    """(name, date) of whoever last changed each record the context may show; name "" for
    the reader's own. Never stops a start: without it, lines go unsigned."""
    try:
        table = authors.load(ctx, tip)
    except (EnfError, OSError):
        return {}
    wanted = {s.path for s in (*digest.newest, *digest.interrupted, *details)} | {x.source for x in digest.lines}
    out: dict[str, tuple[str, str]] = {}
    for path in wanted:
        change = table.of(path)
        if change is not None:
            out[path] = ("", "") if table.mine(change) else (change.name or change.email, change.date)
        elif table.partial:
            out[path] = (authors.NOT_KNOWN, "")  # not reached yet: never shown as the reader's own
    return out


WHOSE_FILE = "start-authors.json"  # in .git/enf/: the last context's authorship and withheld records


def _whose(ctx: Context, tip: store.Commit, digest: briefing.Digest,
           details: list[model.Session]) -> dict[str, Any]:
    """Situation's `authorship` and `withheld`, reused from the last start while what they
    are a function of stands: the sessions/ and decisions/ folders (no record in them
    changed, so neither did its last change), the reader and the trust setting. A routine
    start reads one small file instead of a few hundred author shards and verdicts."""
    gate = trust.shown_gate(ctx, authors.Authors("", None, ("", "")))  # only its setting: no shard read
    key = [list(digests.key(ctx.repo, tip)), list(authors.reader(ctx)), trust.cache_key(gate)]
    path = store.state_dir(ctx.repo) / WHOSE_FILE
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
        if saved.get("key") == key:
            return {"authorship": {p: (str(n), str(d)) for p, (n, d) in saved["authorship"].items()},
                    "withheld": frozenset(map(str, saved["withheld"]))}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    found = {"authorship": authorship(ctx, tip, digest, details), "withheld": _withheld(ctx, digest, details)}
    if authors.provisional():
        return found  # some authors not known yet (a fresh clone's first start): worked out again next time
    try:
        atomic.write(path, json.dumps({"key": key, "authorship": found["authorship"],
                                       "withheld": sorted(found["withheld"])}).encode("utf-8"))
    except OSError:
        pass  # a read-only state dir: the next start works it out again
    return found


def _withheld(ctx: Context, digest: briefing.Digest, details: list[model.Session]) -> frozenset[str]:
    """The records enf.trust keeps from the model, of those the context may show."""
    gate = trust.shown_gate(ctx)
    if not gate.rules.gates:
        return frozenset()
    wanted = {s.path for s in (*digest.newest, *digest.interrupted, *details)} | {x.source for x in digest.lines}
    return frozenset(gate.withheld(sorted(wanted)))


def _conflict_copies(ctx: Context, tip: store.Commit) -> list[str]:
    """The paths under conflicts/ on the branch (read folder by folder: no full tree walk)."""
    out: list[str] = []
    folders = [paths.CONFLICTS.rstrip("/")]
    while folders:
        folder = folders.pop()
        for name, _oid, kind in store.folder_entries(ctx.repo, tip.tree, folder):
            (folders if kind == "tree" else out).append(f"{folder}/{name}")
    return sorted(out)


def _with_sections(ctx: Context, sessions: list[model.Session]) -> list[model.Session]:
    """The cache drops section text; re-read the few sessions whose open items we show."""
    out = []
    for i, s in enumerate(sessions):
        if i < briefing.DETAILED + 1:
            try:
                s = model.parse_session(s.path, (ctx.root / s.path).read_bytes())
            except (OSError, EnfError):
                pass
        out.append(s)
    return out
