"""Doctor's checks of the records on the branch: malformed files, names, ids, links.

Severities: a file left out of the views (malformed: its header, a field, a folder or
symlink in its place) is an error, one problem per line at fault. A session that is in
the views but holds a line off the format (a decision that is no Y-statement, a bad
time stamp, a REVERSED line that names nothing) or shares its session_id with another
file is a warning: nothing is lost, but a view shows less than the file says.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ... import paths
from ...errors import RecordError
from ...plumbing import store
from ...pure import model, render, slug
from .. import records
from .problem import Problem
from ..workspace import Context


def malformed(ctx: Context, tip: store.Commit, recs: records.Records) -> list[Problem]:
    out = []
    for path, err in sorted(recs.problems.items()):
        fix = f"edit {paths.WC_DIR}/{path} and run git enf commit"
        if isinstance(err, RecordError) and err.line == 0 and len(err.problems) == 1 and "belongs" in err.reason:
            fix = f"replace {path} on {paths.BRANCH} with a file (git enf restore, then rewrite it) and git enf commit"
        locations = err.locations if isinstance(err, RecordError) else [f"{path}: {err.message}"]
        out += [Problem("error", f"{where} (committed as-is; left out of the views until fixed)", fix)
                for where in locations]
    return out


def lines(ctx: Context, tip: store.Commit, recs: records.Records) -> list[Problem]:
    return [Problem("warning", f"{s.path}:{line}: {reason}", f"edit {paths.WC_DIR}/{s.path} and run git enf commit")
            for s in sorted(recs.sessions.values(), key=lambda s: s.path) for line, reason in s.problems]


def names(ctx: Context, tip: store.Commit, recs: records.Records) -> list[Problem]:
    out = []
    ids: dict[str, list[str]] = {}
    for s in sorted(recs.sessions.values(), key=lambda s: s.path):
        reason = model.check_stem(s.stem)
        if reason:
            # An undated, dateless file is named after the day memory last changed.
            date = s.date if slug.is_date(s.date) else time.strftime("%Y-%m-%d", time.gmtime(tip.commit_time))
            better = slug.suggested_name(s.stem, date, s.session_id, {p.rsplit("/", 1)[-1] for p in recs.sessions})
            out.append(Problem("warning", f"{s.path}: {reason}",
                               f"rename it to {paths.SESSIONS_DIR}/{better}.md in {paths.WC_DIR}/, then git enf commit"))
        ids.setdefault(s.session_id, []).append(s.path)
    for sid, shared in sorted(ids.items()):
        for path in shared if len(shared) > 1 else ():
            others = ", ".join(p for p in shared if p != path)
            out.append(Problem("warning", f"{path}: session_id {sid} is also the session_id of {others}",
                               "a resumed session should keep one file: merge them, or give each its own session_id"))
    return out


def reversals(ctx: Context, tip: store.Commit, recs: records.Records) -> list[Problem]:
    ledger = render.build_ledger(recs.all_sessions(), recs.extra_decisions())
    return [Problem("warning", f"{r.source}: reversal of {r.ref!r} matches no decision",
                    "name the reversed decision by its id (git enf log --decisions)") for r in ledger.unresolved]


def conflict_copies(ctx: Context, tip: store.Commit, recs: records.Records) -> list[Problem]:
    """Conflict copies on the branch, less those deleted in the working copy (done with:
    the next commit takes them off the branch)."""
    copies = [p for p in store.list_files(ctx.repo, tip.tree) if p.startswith(paths.CONFLICTS)]
    if copies and ctx.root.is_dir():
        from ..record.commits import pending

        changes = pending(ctx, tip=tip).changes
        copies = [p for p in copies if not (p in changes and changes[p] is None)]
    out = []
    for path in copies:
        if path.startswith(paths.CONFLICTS):
            original = path[len(paths.CONFLICTS):].rsplit(".", 1)[0]
            out.append(Problem("warning", f"conflict copy {path}", f"merge it into {original}, delete it, git enf commit"))
    return out


def facts(ctx: Context, tip: store.Commit, recs: records.Records) -> list[Problem]:
    """Fact files (memories/*.md) that cannot be read: left out of memories.md and SessionStart."""
    from ..record.fact_stores import project_facts

    return [Problem("warning", f"{problem} (left out of memories.md and the session context)",
                    "fix (or delete) the file in .claude-sessions/memories/, then git enf commit")
            for problem in project_facts(ctx.repo, tip, {}).problems]


def pins(ctx: Context, tip: store.Commit, recs: records.Records) -> list[Problem]:
    """Pin files that cannot be read, and pins of a session the branch no longer has."""
    from ..lifecycle.pins import load

    found = load(ctx.repo, tip)
    out = [Problem("warning", f"{problem} (its session is still kept from compression, but not offered at start)",
                   "fix (or delete) the file in .claude-sessions/pins/, then git enf commit")
           for problem in found.problems]
    for stem, pin in sorted(found.pins.items()):
        if store.blob_oid(ctx.repo, tip.tree, pin.session_path) is None:  # a malformed session is still there
            out.append(Problem("warning", f"{pin.path}: pins {stem}, which is not on the branch",
                               f"git enf unpin {stem}"))
    return out


def instructions(ctx: Context, tip: store.Commit, recs: records.Records) -> list[Problem]:
    """Records whose text reads as an order to the assistant (memory/flags.py): shown to
    the model marked, never hidden, so a warning, for a person to look at."""
    from .. import flags

    found = flags.flagged_paths(flags.flagged(ctx.repo, tip.tree))
    if not found:
        return []
    return [Problem("warning", f"{flags.summary(len(found))} (e.g. {found[0]}; shown marked, never hidden)",
                    "git enf scan lists each line; edit or delete what nobody on the team wrote, then git enf commit")]


def records_index(ctx: Context, tip: store.Commit, recs: records.Records) -> list[Problem]:
    """Days whose records index file disagrees with the month folder (a teammate's older
    enf-git, a hand-made push): derived, so nothing is wrong in the records; readers parse
    those sessions instead, and the next commit that changes the day writes it again."""
    from ..record.records_index import stale_days
    from ...plumbing.record_index import file_of

    out = _wrong_lines(ctx)
    days = stale_days(ctx.repo, tip.tree)
    if not days:
        return out
    more = f" and {len(days) - 1} more" if len(days) > 1 else ""
    return out + [Problem("warning", f"records index {file_of(days[0])}{more} disagree{'s' if not more else ''} with "
                               f"{paths.SESSIONS_DIR}/ (derived: rebuilt at the next commit of that day; its "
                               "sessions are parsed meanwhile)",
                    "nothing to do; a change of any session of that day, then git enf commit, writes it again")]


def _wrong_lines(ctx: Context) -> list[Problem]:
    """Index lines the background refresh found not to be their session's parse (a
    forged or buggy line whose blob id is right): each named with who wrote the day file."""
    from ..record import records_verify

    return [Problem("warning", records_verify.doctor_line(d) + " (this clone uses the true parse)",
                    "ask whoever wrote that commit; any change to a session of that day, then git enf commit, "
                    "writes the file again")
            for d in records_verify.in_force(ctx.repo)]


CHECKS: tuple[tuple[str, Callable[[Context, store.Commit, records.Records], list[Problem]]], ...] = (
    ("records parse", malformed),
    ("decision and reversal lines", lines),
    ("session names and ids", names),
    ("reversal links", reversals),
    ("conflict copies", conflict_copies),
    ("remembered facts", facts),
    ("pins", pins),
    ("instructions to the assistant", instructions),
    ("records index", records_index),
)
