"""What a commit, an init or a restore did: a value the edges render.

Built by the operation that ran (commits.commit, setup.init, working_set.restore)
from the results of the steps it called; no step writes into it.
"""

from __future__ import annotations

from .. import paths
from ..errors import EnfError
from ..plumbing import store, store_write


class Report:  # a plain class, not a dataclass: see workspace.Settings
    """What a commit or init did, for the edges to print."""

    def __init__(self, warnings: list[str] | None = None) -> None:
        self.commit: store_write.CommitResult | None = None
        self.imported: list[str] = []
        self.rejected: list[tuple[str, str, str]] = []  # (view, saved copy, why)
        self.conflicts: list[tuple[str, str]] = []  # (path, where ours went)
        self.kept: list[tuple[str, bool]] = []  # (path, deleted here): a deletion that yielded to an edit
        self.authors: dict[str, str] = {}  # conflicted or kept path -> who wrote the branch's version
        self.why: dict[str, str] = {}  # conflicted path -> why kept apart, when not "in the same lines"
        self.me = ""  # the name this clone commits with
        self.problems: dict[str, EnfError] = {}  # malformed records, committed as they are
        self.refused: list[tuple[str, str]] = []  # (path, why): left in the working copy, not committed
        self.redacted: list[tuple[str, int]] = []  # (path, spans masked in the working copy too)
        # (path, spans): secret-shaped bytes in a file that is not UTF-8, committed as it is
        self.unredacted: list[tuple[str, int]] = []
        self.held_deletions: list[str] = []  # deletions a commit refused to make (see --allow-deletions)
        self.restored: list[str] = []  # files brought back from the branch
        self.warnings: list[str] = warnings if warnings is not None else []
        self.materialized: list[str] = []
        self.message = ""  # the commit message's subject line, as committed

    def __repr__(self) -> str:
        return f"Report({vars(self)!r})"

    @property
    def failed(self) -> bool:
        """Something the user asked for was not done (the CLI exits 1)."""
        return bool(self.held_deletions or self.refused)


def report_lines(report: Report) -> list[tuple[bool, str]]:
    """What a commit says, as (to stderr?, line): shared by the CLI and its fast path."""
    out = [(True, f"warning: {w}") for w in report.warnings]
    out += [(True, f"warning: {w}") for w in (report.commit.warnings if report.commit else ())]
    out += [(False, f"imported: {path}") for path in report.imported]
    out += [(True, f"redacted {n} span{'s' if n != 1 else ''} in {path} (in your working copy too)")
            for path, n in report.redacted]
    out += [(True, f"warning: {path}: {n} span{'s look' if n != 1 else ' looks'} like secrets, but it is not UTF-8 text, "
                   "so it was committed as it is, not redacted; memory is not pushed until you review it "
                   "(git enf scan; then remove them by hand, or git enf sync --allow)")
            for path, n in report.unredacted]
    out += [(True, f"not applied: {view}: {why}; your copy is saved at {saved}") for view, saved, why in report.rejected]
    out += [(True, _conflict_line(report, path, saved)) for path, saved in report.conflicts]
    out += [(True, _kept_line(report, path, deleted_here)) for path, deleted_here in report.kept]
    out += [(True, f"committed as-is; left out of the views until fixed: {problem}".replace("\nhint: ", " (hint: ")
             + (")" if "\nhint: " in str(problem) else "")) for _, problem in sorted(report.problems.items())]
    out += [(True, f"not committed: {path}: {why}") for path, why in report.refused]
    if report.held_deletions:
        n = len(report.held_deletions)
        out.append((True, f"error: not deleting {n} files from {store.BRANCH}: that is most of what it holds, "
                          "which looks like a lost working copy rather than a choice"))
        out.append((True, "hint: git enf restore brings them back; git enf commit --allow-deletions deletes them"))
    if report.restored:
        out.append((False, f"restored {len(report.restored)} file{'s' if len(report.restored) != 1 else ''} "
                           "from the branch into the working copy"))
    if report.commit is None:
        out.append((False, "nothing to commit"))
    else:
        c = report.commit
        out.append((False, f"[{store.BRANCH} {c.oid[:12]}] {report.message}".rstrip()
                           + f" ({len(c.paths)} path{'s' if len(c.paths) != 1 else ''})"))
    return out



def _branch_side(report: Report, path: str) -> tuple[str, str]:
    """(whose version the branch has, who did it: the subject of a sentence), from the reader's side."""
    name = report.authors.get(path, "")
    if not name:
        return "the branch's", "another commit"
    if name == report.me:
        return "the one you committed elsewhere", "you, elsewhere,"
    return f"{name}'s", name


def _conflict_line(report: Report, path: str, saved: str) -> str:
    whose, _ = _branch_side(report, path)
    return (f"conflict: {path} changed on both sides, {report.why.get(path, 'in the same lines')}; "
            f"your version is at {saved}; "
            f"the working copy has {whose} (merge what you need into {paths.WC_DIR}/{path}, delete the copy, "
            "then git enf commit)")


def _kept_line(report: Report, path: str, deleted_here: bool) -> str:
    _, who = _branch_side(report, path)
    if deleted_here:
        return (f"kept: {path}: you deleted it, but {who} edited it meanwhile, so the edit stays (back in the "
                f"working copy); to delete it still: rm {paths.WC_DIR}/{path}, then git enf commit")
    return f"kept: {path}: {who} deleted it, but you edited it meanwhile, so your edit stays"
