"""What the adapters' hook tests share (test_codex_hook.py, test_gemini_hook.py,
test_cursor_hook.py, test_copilot_hook.py, test_qwen_hook.py): a project with enf-git set
up, one hook call through a client's adapter, this session's file, the event log, and the
memory branch as the real `git` lists it. Each test file keeps its own client's payload
shape and the way its client reads a reply."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from enf_git import hook, memory
from enf_git.assistants.claude import gate
from enf_git.assistants.events import Adapter
from gitfixtures import session_text

TODAY = gate.days()[0]
SESSIONS = ".claude-sessions/sessions"
# A UUIDv7 id, whose first 8 hex digits are a clock two sessions of the same minute share,
# and the key its random end gives it.
V7 = "01a25210-4049-7d23-83e8-7cf4269a2bc3"
V7_KEY = "269a2bc3"

Reply = dict[str, object] | None


@pytest.fixture(name="project")
def project_fixture(repo_dir: Path) -> Path:
    """`project`: a git repository with enf-git's memory set up (import it into the test module)."""
    memory.init(memory.Context.open(repo_dir))
    return repo_dir


def run(assistant: str, event: str, payload: dict[str, object]) -> Reply:
    """One hook call as `enf-hook --assistant=ASSISTANT EVENT` makes it; its reply parsed, None for silence."""
    out = hook.run(event, json.dumps(payload).encode(), assistant)
    return json.loads(out) if out else None


def hook_specific_reason(reply: Reply) -> str | None:
    """The denial's reason in Claude Code's shape (Codex and Qwen Code read it), None when the call goes through."""
    if reply is None:
        return None
    fields = reply["hookSpecificOutput"]
    assert isinstance(fields, dict) and fields["permissionDecision"] == "deny", reply
    return str(fields["permissionDecisionReason"])


def session_name(slug: str) -> str:
    return f"{SESSIONS}/{TODAY}-{slug}.md"


def write_own(project: Path, key: str, slug: str) -> None:
    """This session's file, written as the model would: the gate opens."""
    (project / session_name(slug)).write_text(session_text(session_id=key, date=TODAY))


def heredoc(target: str, key: str) -> str:
    """A shell command whose only effect is writing the session file `target`."""
    return f"cat > {target} <<'EOF'\n{session_text(session_id=key, date=TODAY)}EOF"


def logged(project: Path) -> list[dict[str, object]]:
    """Every event the hooks logged, in order."""
    text = "".join(p.read_text() for p in (project / ".claude-sessions").rglob("*.jsonl"))
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def logged_kinds(project: Path) -> list[tuple[object, object]]:
    return [(e.get("event"), e.get("tool")) for e in logged(project)]


def branch_files(project: Path) -> str:
    return subprocess.run(["git", "ls-tree", "-r", "--name-only", "claude-memory"], cwd=project, text=True,
                          capture_output=True, check=True).stdout


def assert_stop_commits(project: Path, key: str, slug: str, stop: Callable[[], Reply]) -> None:
    """The session file reaches the memory branch at Stop (not before), and Stop stays silent."""
    write_own(project, key, slug)
    assert f"{TODAY}-{slug}.md" not in branch_files(project)
    assert stop() is None
    assert f"{TODAY}-{slug}.md" in branch_files(project)


def key_of(adapter: Adapter, payload: dict[str, object], event: str = "Stop") -> str:
    """The session key the core reads after the adapter has mapped `payload`."""
    mapped = adapter.event(event, payload)
    assert mapped is not None
    return gate.id8(str(mapped["session_id"]))
