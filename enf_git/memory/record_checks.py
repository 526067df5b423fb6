"""Doctor's checks of the records on the branch: malformed files, names, ids, links."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from .. import paths
from ..plumbing import store
from ..pure import model, render
from . import records
from .doctor import Problem
from .workspace import Context


def malformed(ctx: Context, tip: store.Commit, recs: records.Records) -> list[Problem]:
    return [Problem("error", f"{str(err).splitlines()[0]} (committed as-is; left out of the views until fixed)",
                    f"edit {paths.WC_DIR}/{path} and run git enf commit") for path, err in sorted(recs.problems.items())]


def names(ctx: Context, tip: store.Commit, recs: records.Records) -> list[Problem]:
    out = []
    ids: Counter[str] = Counter()
    for s in recs.sessions.values():
        reason = model.check_stem(s.stem)
        if reason:
            out.append(Problem("warning", f"{s.path}: {reason}", "rename it to YYYY-MM-DD-<slug>.md and git enf commit"))
        ids[s.session_id] += 1
    for sid, n in sorted(ids.items()):
        if n > 1:
            out.append(Problem("warning", f"{n} session files share session_id {sid}",
                               "a resumed session should keep one file; merge them"))
    return out


def reversals(ctx: Context, tip: store.Commit, recs: records.Records) -> list[Problem]:
    ledger = render.build_ledger(recs.all_sessions(), recs.extra_decisions())
    return [Problem("warning", f"{r.source}: reversal of {r.ref!r} matches no decision",
                    "name the reversed decision by its id (git enf log --decisions)") for r in ledger.unresolved]


def conflict_copies(ctx: Context, tip: store.Commit, recs: records.Records) -> list[Problem]:
    out = []
    for path in store.list_files(ctx.repo, tip.tree):
        if path.startswith(paths.CONFLICTS):
            original = path[len(paths.CONFLICTS):].rsplit(".", 1)[0]
            out.append(Problem("warning", f"conflict copy {path}", f"merge it into {original}, delete it, git enf commit"))
    return out


CHECKS: tuple[tuple[str, Callable[[Context, store.Commit, records.Records], list[Problem]]], ...] = (
    ("records parse", malformed),
    ("session names and ids", names),
    ("reversal links", reversals),
    ("conflict copies", conflict_copies),
)
