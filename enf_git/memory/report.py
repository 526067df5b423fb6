"""What a commit, an init or a restore did: a value the edges render.

Built by the operation that ran (commits.commit, setup.init, working_set.restore)
from the results of the steps it called; no step writes into it.
"""

from __future__ import annotations

from ..errors import EnfError
from ..plumbing import store


class Report:  # a plain class, not a dataclass: see workspace.Settings
    """What a commit or init did, for the edges to print."""

    def __init__(self, warnings: list[str] | None = None) -> None:
        self.commit: store.CommitResult | None = None
        self.imported: list[str] = []
        self.rejected: list[tuple[str, str, str]] = []  # (view, saved copy, why)
        self.conflicts: list[tuple[str, str]] = []  # (path, where ours went)
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
    out += [(True, f"conflict: {path} changed on both sides; kept the branch's, yours is at {saved}")
            for path, saved in report.conflicts]
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
