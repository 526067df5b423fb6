"""What every Claude Code hook handler shares: where a payload's project is, which
session it is, and the reply shape (see docs/claude-code.md: `hookSpecificOutput` naming
the firing event). Stdlib only: the per-call hooks import it.
"""

from __future__ import annotations

import os

from .. import fastjson, paths
from ..plumbing import gitdirs


class Where:
    """Paths for one payload: the working copy and the per-machine state folder."""

    def __init__(self, top: str, common: str) -> None:
        self.top = top
        self.root = os.path.join(top, paths.WC_DIR)
        self.state = paths.state_dir(common)


def locate(payload: dict[str, object]) -> Where | None:
    """The project's working copy, if enf-git is set up there (else every hook is a no-op)."""
    start = os.environ.get("CLAUDE_PROJECT_DIR") or payload.get("cwd")
    if not isinstance(start, str) or not start:
        return None
    found = gitdirs.find(start)
    if found is None:
        return None
    return Where(found[0], found[2])


def session_of(payload: dict[str, object]) -> str:
    sid = payload.get("session_id")
    if not isinstance(sid, str) or not sid:
        sid = os.environ.get("CLAUDE_CODE_SESSION_ID", "")
    return sid


def reply(event: str, **fields: str) -> str:
    return fastjson.dumps({"hookSpecificOutput": {"hookEventName": event, **fields}})


