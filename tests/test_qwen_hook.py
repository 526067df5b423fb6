"""The hooks under Qwen Code (`enf-hook --assistant=qwen`), against payload fixtures in
the shapes Qwen Code's hooks reference documents (not recorded from the real client:
docs/assistants.md): Claude's events and replies, Gemini's tool names."""

from __future__ import annotations

import json
from pathlib import Path

from adapterkit import SESSIONS, TODAY, V7, V7_KEY, Reply, assert_stop_commits, heredoc, key_of, logged_kinds, run
from adapterkit import hook_specific_reason as reason
from adapterkit import project_fixture  # noqa: F401  (the `project` fixture)
from adapterkit import write_own as write_session
from enf_git.assistants.qwen import adapter

SID = "7e3d2c1b-0a9f-4e8d-b7c6-5a4b3c2d1e0f"
KEY = SID[:8]


def call(event: str, project: Path, sid: str = SID, **fields: object) -> Reply:
    return run("qwen", event, {"session_id": sid, "transcript_path": "/dev/null", "cwd": str(project),
                               "hook_event_name": event, "timestamp": "2026-12-07T21:00:00Z",
                               "permission_mode": "default", **fields})


def tool(project: Path, name: str, args: dict[str, object], sid: str = SID) -> Reply:
    return call("PreToolUse", project, sid, tool_name=name, tool_input=args, tool_use_id="toolu_1")


def write_own(project: Path) -> None:
    write_session(project, KEY, "qwen-work")


def test_the_gate_denies_a_shell_call_in_claudes_shape_then_allows_it(project: Path) -> None:
    said = reason(tool(project, "run_shell_command", {"command": "ls"}))
    assert said is not None and f"(id {KEY})" in said and "write_file" in said
    write_own(project)
    assert tool(project, "run_shell_command", {"command": "ls"}) is None


def test_write_file_of_this_sessions_file_opens_the_way_and_edit_elsewhere_does_not(project: Path) -> None:
    target = f"{SESSIONS}/{TODAY}-qwen-work.md"
    assert reason(tool(project, "write_file", {"file_path": target, "content": "x"})) is None
    assert reason(tool(project, "edit", {"file_path": "app.py", "old_string": "a", "new_string": "b"})) is not None
    only = heredoc(target, KEY)
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
    kinds = logged_kinds(project)
    assert ("tool-failure", "Bash") in kinds, kinds


def test_stop_commits_the_session_file_to_the_memory_branch(project: Path, git: object) -> None:
    assert_stop_commits(project, KEY, "qwen-work",
                        lambda: call("Stop", project, stop_hook_active=False, last_assistant_message="done"))


def test_the_session_key_rule(project: Path) -> None:
    assert key_of(adapter.ADAPTER, {"session_id": V7}) == V7_KEY
    assert key_of(adapter.ADAPTER, {"session_id": SID}) == KEY
    assert f"(id {V7_KEY})" in str(reason(tool(project, "run_shell_command", {"command": "ls"}, sid=V7)))
