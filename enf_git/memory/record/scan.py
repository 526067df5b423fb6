"""`git enf scan`: look for secrets in everything the memory branch would share.

Commits redact text before it reaches the branch, but a branch can still hold a
secret: one committed before redaction learned its shape, or pushed by a teammate's
older enf-git or by hand. Sharing sends every reachable blob, history included, so
before memory first goes to a remote, every text blob reachable from the branch is
run through the same detector (redact.py); any finding stops the push until someone
looked (`--allow` after review).
"""

from __future__ import annotations

from ... import paths
from ...plumbing import store
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

    Each commit is diffed against its parents, so every blob is read once, where it
    first appeared: at 10,000 sessions and thousands of commits a walk of whole trees
    would list tens of millions of entries.
    """
    tip = require_branch(ctx)
    seen: set[str] = set()
    found: list[Finding] = []
    for commit in store.walk(ctx.repo, tip, oldest_first=True):
        parents: list[store.Tree | None] = [p.tree for p in commit.parents] or [None]
        for parent in parents:
            for delta in store.deltas(parent, commit.tree, raw=True):
                if delta.status == "D" or delta.new_oid in seen:
                    continue
                seen.add(delta.new_oid)
                spans = _secret_spans(store.blob_data(ctx.repo, delta.new_oid))
                if spans:
                    found.append(Finding(delta.new_path, str(commit.id), spans))
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
