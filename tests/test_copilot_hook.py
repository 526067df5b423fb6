"""The hooks under GitHub Copilot CLI (`enf-hook --assistant=copilot`), against payload
fixtures in the VS Code compatible shape Copilot CLI's hooks reference documents for
events registered in PascalCase (not recorded from the real client: docs/assistants.md)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from enf_git import hook, memory
from enf_git.assistants.claude import gate
from enf_git.assistants.copilot import adapter
from gitfixtures import session_text

SID = "9b1f3c2e-4d5a-4e6f-8a7b-1c2d3e4f5a6b"
KEY = SID[:8]
TODAY = gate.days()[0]
SESSIONS = ".claude-sessions/sessions"


@pytest.fixture
def project(repo_dir: Path) -> Path:
    memory.init(memory.Context.open(repo_dir))
    return repo_dir


def call(event: str, project: Path, sid: str = SID, **fields: object) -> dict[str, object] | None:
    payload = {"hook_event_name": event, "session_id": sid, "timestamp": "2026-12-07T21:00:00Z",
               "cwd": str(project), **fields}
    out = hook.run(event, json.dumps(payload).encode(), "copilot")
    return json.loads(out) if out else None


def tool(project: Path, name: str, args: object, sid: str = SID) -> dict[str, object] | None:
    return call("PreToolUse", project, sid, tool_name=name, tool_input=args)


def reason(reply: dict[str, object] | None) -> str | None:
    """The denial's reason in Copilot's top-level shape, None when the call goes through."""
    if reply is None:
        return None
    assert reply["permissionDecision"] == "deny", reply
    return str(reply["permissionDecisionReason"])


def write_own(project: Path) -> None:
    (project / SESSIONS / f"{TODAY}-copilot-work.md").write_text(session_text(session_id=KEY, date=TODAY))


def test_the_gate_denies_bash_in_copilots_shape_then_allows_it(project: Path) -> None:
    reply = tool(project, "bash", {"command": "ls"})
    said = reason(reply)
    assert said is not None and f"(id {KEY})" in said and "create tool" in said
    assert reply is not None and reply["hookSpecificOutput"]["permissionDecision"] == "deny"  # type: ignore[index]
    write_own(project)
    assert tool(project, "bash", {"command": "ls"}) is None


def test_create_of_this_sessions_file_is_the_creation_path_and_edit_elsewhere_is_not(project: Path) -> None:
    target = f"{SESSIONS}/{TODAY}-copilot-work.md"
    assert reason(tool(project, "create", {"path": str(project / target), "file_text": "x"})) is None
    assert reason(tool(project, "create", {"path": "app.py", "file_text": "x"})) is not None
    assert reason(tool(project, "edit", json.dumps({"path": "app.py", "old_str": "a", "new_str": "b"}))) is not None


def test_session_start_context_keeps_claudes_shape(project: Path) -> None:
    started = call("SessionStart", project, source="startup")
    assert started is not None
    fields = started["hookSpecificOutput"]
    assert isinstance(fields, dict) and f"This session: id {KEY}" in str(fields["additionalContext"])


def test_a_failed_tool_result_is_logged_as_a_failure(project: Path) -> None:
    write_own(project)
    call("PostToolUse", project, tool_name="bash", tool_input={"command": "false"},
         tool_result={"result_type": "failure", "text_result_for_llm": "exit code 1"})
    call("PostToolUse", project, tool_name="view", tool_input={"path": "app.py"},
         tool_result={"result_type": "success", "text_result_for_llm": "x"})
    text = "".join(p.read_text() for p in (project / ".claude-sessions").rglob("*.jsonl"))
    kinds = [(e.get("event"), e.get("tool")) for e in map(json.loads, filter(str.strip, text.splitlines()))]
    assert ("tool-failure", "Bash") in kinds and ("tool", "Read") in kinds, kinds


def test_stop_commits_the_session_file_to_the_memory_branch(project: Path, git: object) -> None:
    write_own(project)

    def files() -> str:
        return subprocess.run(["git", "ls-tree", "-r", "--name-only", "claude-memory"], cwd=project, text=True,
                              capture_output=True, check=True).stdout

    assert f"{TODAY}-copilot-work.md" not in files()
    assert call("Stop", project, transcript_path="/dev/null", stop_reason="end_turn") is None
    assert f"{TODAY}-copilot-work.md" in files()


def test_the_session_key_rule(project: Path) -> None:
    v7 = "01a25210-4049-7d23-83e8-7cf4269a2bc3"
    assert gate.id8(str(adapter.ADAPTER.event("Stop", {"session_id": v7})["session_id"])) == "269a2bc3"  # type: ignore[index]
    assert gate.id8(str(adapter.ADAPTER.event("Stop", {"session_id": SID})["session_id"])) == KEY  # type: ignore[index]
    assert "(id 269a2bc3)" in str(reason(tool(project, "bash", {"command": "ls"}, sid=v7)))


@pytest.mark.parametrize(("name", "args", "expected"), [
    ("view", {"path": "a"}, "Read"), ("glob", {}, "Glob"), ("grep", {}, "Grep"), ("task", {}, "Task"),
    ("powershell", {"command": "dir"}, "Bash"), ("edit", {"path": "a"}, "Edit"), ("create", {"path": "a"}, "Write"),
    ("create", "not json", "create"),
])
def test_tool_names(name: str, args: object, expected: str) -> None:
    assert adapter.neutral_tool(name, args)[0] == expected
