"""The session handoff inside the real Claude Code client: session one edits a file, keeps
an open item and a scratchpad note, and stops; session two's very first request to the
model carries session one's handoff (its modified file, its open item, the note)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from projects import bash, git, init_project, run, session_turn
from standin import StandIn, Text

ITEM = "- [ ] rerun the flaky upload test"
NOTE = "the upload retries twice before it gives up"


@pytest.fixture
def repo(project: Path, claude_home: Path) -> Path:
    now = f"@{int(time.time())} +0000"  # the suite fixes commit dates in April: this one is recent
    return init_project(project, claude_home, {"GIT_COMMITTER_DATE": now, "GIT_AUTHOR_DATE": now}, "Add the app")


def write_session(repo: Path) -> Any:
    """A turn that creates this session's file with an open item (the gate allows nothing before it)."""
    return session_turn(repo, "upload-fix", f"Fix the upload.\n\n## Open Items\n{ITEM}")


def test_session_two_first_request_carries_session_one_handoff(claude_bin: str, standin: StandIn, repo: Path,
                                                               claude_home: Path) -> None:
    standin.add(write_session(repo), bash(f"echo \"print('fixed')\" > app.py && echo '{NOTE}' > "
                                          ".claude-sessions/scratchpad.md"), Text("Stopping here."))
    first = run("fix the upload", repo, claude_home, standin, claude_bin)
    assert first.session_id
    assert git(repo, "status", "--porcelain") == " M app.py\n"  # the handoff wrote nothing into the work tree
    assert not (repo / ".git" / "index.lock").exists()
    seen = len(standin.main_requests)

    standin.add(Text("Picking up where we left off."))
    second = run("where were we?", repo, claude_home, standin, claude_bin)
    assert second.session_id and second.session_id != first.session_id
    request = standin.main_requests[seen]  # session two's first request
    text = json.dumps([m for m in request.messages if m.get("role") == "system"])
    assert "## Last session handoff (just now)" in text or "## Last session handoff (1 min ago)" in text
    assert f"Session {first.session_id[:8]} (.claude-sessions/sessions/" in text
    assert " M app.py" in text and ITEM in text and NOTE in text
    assert "on branch main" in text and "Add the app" in text  # its branch and the last two hours' commits
