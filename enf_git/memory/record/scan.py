"""`git enf scan`: look for secrets in everything the memory branch would share.

Commits redact text before it reaches the branch, but a branch can still hold a
secret: one committed before redaction learned its shape, or pushed by a teammate's
older enf-git or by hand. Sharing sends every reachable blob, history included, so
before memory first goes to a remote, every text blob reachable from the branch is
run through the same detector (redact.py); any finding stops the push until someone
looked (`--allow` after review).
"""

from __future__ import annotations

from contextlib import closing

from ... import paths
from ...plumbing import gitlog_changes, store
from ...redact import spans_in_bytes
from ..workspace import Context, require_branch

MAX_BLOB = 8 << 20  # bytes: larger blobs are not text a session holds


class Finding:  # a plain class: see workspace.Settings
    def __init__(self, path: str, commit: str, spans: int) -> None:
        self.path = path  # where the blob sits in the commit that added it
        self.commit = commit  # the commit that brought this blob in
        self.spans = spans  # how many spans the detector would mask

    def as_dict(self) -> dict[str, object]:
        return {"path": self.path, "commit": self.commit, "spans": self.spans}


def scan(ctx: Context) -> list[Finding]:
    """Every text blob reachable from the branch that holds something secret-shaped.

    Each commit's changes against each parent (git's log, not loaded in process: minutes
    at 100,000 commits), so every blob is read once, where it first appeared: at 10,000
    sessions and thousands of commits a walk of whole trees would list tens of millions
    of entries.
    """
    tip = require_branch(ctx)
    first: dict[str, tuple[str, str]] = {}  # blob -> (path, commit) where it first appeared
    with closing(gitlog_changes.changes(str(ctx.repo.path), str(tip.id), each_parent=True)) as log:
        for commit in log:  # newest first: the oldest place a blob appears is the last one seen
            for path, _old, new in commit.paths:
                if new is not None:
                    first[new] = (path, commit.id)
    found: list[Finding] = []
    for oid, (path, commit_id) in first.items():
        spans = _secret_spans(store.blob_data(ctx.repo, oid))
        if spans:
            found.append(Finding(path, commit_id, spans))
    return sorted(found, key=lambda f: (f.path, f.commit))


def _secret_spans(data: bytes) -> int:
    """Secret-shaped spans in a blob: text, and bytes that are not UTF-8 too (committed
    byte-identical, never redacted, so this is the last look before they are shared)."""
    if len(data) > MAX_BLOB:
        return 0
    return spans_in_bytes(data)


def forget_scans(ctx: Context) -> None:
    """Make the next push to every remote scan the history first (memory.commits: a file
    it could not redact holds what looks like a secret); memory.sync lays the marks."""
    folder = store.state_dir(ctx.repo) / paths.SCANNED_DIR
    for marker in folder.glob("*") if folder.is_dir() else ():
        marker.unlink(missing_ok=True)
