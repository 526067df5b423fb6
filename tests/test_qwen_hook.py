"""The hooks under Qwen Code (`enf-hook --assistant=qwen`), against payload fixtures in
the shapes Qwen Code's hooks reference documents (not recorded from the real client:
docs/assistants.md): Claude's events and replies, Gemini's tool names."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from enf_git import hook, memory
from enf_git.assistants.claude import gate
from enf_git.assistants.qwen import adapter
from gitfixtures import session_text

SID = "7e3d2c1b-0a9f-4e8d-b7c6-5a4b3c2d1e0f"
KEY = SID[:8]
TODAY = gate.days()[0]
SESSIONS = ".claude-sessions/sessions"


@pytest.fixture
def project(repo_dir: Path) -> Path:
    memory.init(memory.Context.open(repo_dir))
    return repo_dir


def call(event: str, project: Path, sid: str = SID, **fields: object) -> dict[str, object] | None:
    payload = {"session_id": sid, "transcript_path": "/dev/null", "cwd": str(project), "hook_event_name": event,
               "timestamp": "2026-12-07T21:00:00Z", "permission_mode": "default", **fields}
    out = hook.run(event, json.dumps(payload).encode(), "qwen")
    return json.loads(out) if out else None


def tool(project: Path, name: str, args: dict[str, object], sid: str = SID) -> dict[str, object] | None:
    return call("PreToolUse", project, sid, tool_name=name, tool_input=args, tool_use_id="toolu_1")


def reason(reply: dict[str, object] | None) -> str | None:
    if reply is None:
        return None
    fields = reply["hookSpecificOutput"]
    assert isinstance(fields, dict) and fields["permissionDecision"] == "deny", reply
    return str(fields["permissionDecisionReason"])


def write_own(project: Path) -> None:
    (project / SESSIONS / f"{TODAY}-qwen-work.md").write_text(session_text(session_id=KEY, date=TODAY))


def test_the_gate_denies_a_shell_call_in_claudes_shape_then_allows_it(project: Path) -> None:
    said = reason(tool(project, "run_shell_command", {"command": "ls"}))
    assert said is not None and f"(id {KEY})" in said and "write_file" in said
    write_own(project)
    assert tool(project, "run_shell_command", {"command": "ls"}) is None


def test_write_file_of_this_sessions_file_opens_the_way_and_edit_elsewhere_does_not(project: Path) -> None:
    target = f"{SESSIONS}/{TODAY}-qwen-work.md"
    assert reason(tool(project, "write_file", {"file_path": target, "content": "x"})) is None
    assert reason(tool(project, "edit", {"file_path": "app.py", "old_string": "a", "new_string": "b"})) is not None
    only = f"cat > {target} <<'EOF'\n{session_text(session_id=KEY, date=TODAY)}EOF"
    assert reason(tool(project, "run_shell_command", {"command": only})) is None
    assert reason(tool(project, "run_shell_command", {"command": f"echo x > {target} && rm -rf src"})) is not None


def test_session_start_context_names_the_key_and_how_to_write(project: Path) -> None:
    started = call("SessionStart", project, source="startup", model="qwen3-coder")
    assert started is not None
    fields = started["hookSpecificOutput"]
    assert isinstance(fields, dict) and fields["hookEventName"] == "SessionStart"
    assert f"This session: id {KEY}" in str(fields["additionalContext"]) and "Qwen Code" in str(
        fields["additionalContext"])


def test_the_prompt_the_user_submitted_is_the_one_the_core_reads(project: Path) -> None:
    write_own(project)
    reply = call("UserPromptSubmit", project, prompt="[tool result text]", submitted_prompt="/toolset review")
    assert reply is not None and "toolset profile review" in json.dumps(reply)


def test_a_failure_is_logged_as_one(project: Path) -> None:
    write_own(project)
    call("PostToolUseFailure", project, tool_name="run_shell_command", tool_input={"command": "false"},
         error="Command exited with code 1")
    text = "".join(p.read_text() for p in (project / ".claude-sessions").rglob("*.jsonl"))
    kinds = [(e.get("event"), e.get("tool")) for e in map(json.loads, filter(str.strip, text.splitlines()))]
    assert ("tool-failure", "Bash") in kinds, kinds


def test_stop_commits_the_session_file_to_the_memory_branch(project: Path, git: object) -> None:
    write_own(project)

    def files() -> str:
        return subprocess.run(["git", "ls-tree", "-r", "--name-only", "claude-memory"], cwd=project, text=True,
                              capture_output=True, check=True).stdout

    assert f"{TODAY}-qwen-work.md" not in files()
    assert call("Stop", project, stop_hook_active=False, last_assistant_message="done") is None
    assert f"{TODAY}-qwen-work.md" in files()


def test_the_session_key_rule(project: Path) -> None:
    v7 = "01a25210-4049-7d23-83e8-7cf4269a2bc3"
    assert gate.id8(str(adapter.ADAPTER.event("Stop", {"session_id": v7})["session_id"])) == "269a2bc3"  # type: ignore[index]
    assert gate.id8(str(adapter.ADAPTER.event("Stop", {"session_id": SID})["session_id"])) == KEY  # type: ignore[index]
    assert "(id 269a2bc3)" in str(reason(tool(project, "run_shell_command", {"command": "ls"}, sid=v7)))
