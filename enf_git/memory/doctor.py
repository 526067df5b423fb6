"""`git enf doctor`: every check, each problem with the command or edit that fixes it."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .. import paths
from . import records

from ..pure import model, render

from ..plumbing import store, workcopy
from .workspace import Context


@dataclass(frozen=True)
class Problem:
    severity: str  # error | warning
    what: str
    fix: str


def run(ctx: Context) -> list[Problem]:
    tip = store.tip(ctx.repo)
    if tip is None:
        return [Problem("error", f"no {store.BRANCH} branch", "git enf init")]
    out = _setup(ctx)
    recs = records.load(ctx.repo, tip.tree, ctx.cache())
    for path, err in sorted(recs.problems.items()):
        out.append(Problem("error", str(err).splitlines()[0], f"edit {workcopy.WC_DIR}/{path} and run git enf commit"))
    out += _names(recs.sessions.values())
    ledger = render.build_ledger(recs.all_sessions(), recs.extra_decisions())
    for r in ledger.unresolved:
        out.append(Problem("warning", f"{r.source}: reversal of {r.ref!r} matches no decision",
                           "name the reversed decision by its id (git enf log --decisions)"))
    for path in store.list_files(ctx.repo, tip.tree):
        if path.startswith(paths.CONFLICTS):
            out.append(Problem("warning", f"conflict copy {path}",
                               f"merge it into {path[len(paths.CONFLICTS):].rsplit('.', 1)[0]}, delete it, git enf commit"))
    return out


def _setup(ctx: Context) -> list[Problem]:
    out = []
    exclude = store.common_dir(ctx.repo) / "info" / "exclude"
    text = exclude.read_text(encoding="utf-8") if exclude.is_file() else ""
    if workcopy.EXCLUDE_LINE not in text.splitlines():
        out.append(Problem("warning", f"{workcopy.WC_DIR}/ is not in .git/info/exclude", "git enf init"))
    for git_dir in store.checked_out_in(ctx.repo):
        out.append(Problem("warning", f"{store.BRANCH} is checked out in {git_dir}",
                           "switch that worktree to another branch; enf-git writes the branch itself"))
    if not ctx.root.is_dir():
        out.append(Problem("warning", f"no working copy at {ctx.root}", "git enf init"))
    return out


def _names(sessions: object) -> list[Problem]:
    out = []
    ids: Counter[str] = Counter()
    for s in sessions:  # type: ignore[attr-defined]
        reason = model.check_stem(s.stem)
        if reason:
            out.append(Problem("warning", f"{s.path}: {reason}", "rename it to YYYY-MM-DD-<slug>.md and git enf commit"))
        ids[s.session_id] += 1
    for sid, n in sorted(ids.items()):
        if n > 1:
            out.append(Problem("warning", f"{n} session files share session_id {sid}",
                               "a resumed session should keep one file; merge them"))
    return out
