"""The hooks under Cursor (`enf-hook --assistant=cursor`), against payload fixtures in
the shapes Cursor's hooks documentation gives (not recorded from the real client:
docs/assistants.md). Cursor's event name travels in hook_event_name, the session in
conversation_id, and its before* hooks answer with `permission`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from enf_git import hook, memory
from enf_git.assistants.claude import gate
from enf_git.assistants.cursor import adapter
from gitfixtures import session_text

SID = "5c0e7a51-92d4-4c1e-8f0b-3d6a1e2b9c44"  # a UUIDv4: its first 8 are random
KEY = SID[:8]
TODAY = gate.days()[0]
SESSIONS = ".claude-sessions/sessions"


@pytest.fixture
def project(repo_dir: Path) -> Path:
    memory.init(memory.Context.open(repo_dir))
    return repo_dir


def call(ours: str, theirs: str, project: Path, sid: str = SID, **fields: object) -> dict[str, object] | None:
    payload = {"conversation_id": sid, "generation_id": "g-1", "hook_event_name": theirs, "cursor_version": "1.7.0",
               "workspace_roots": [str(project)], "transcript_path": None, **fields}
    out = hook.run(ours, json.dumps(payload).encode(), "cursor")
    return json.loads(out) if out else None


def shell(project: Path, command: str) -> dict[str, object] | None:
    return call("PreToolUse", "beforeShellExecution", project, command=command, cwd=str(project))


def logged(project: Path) -> list[dict[str, object]]:
    text = "".join(p.read_text() for p in (project / ".claude-sessions").rglob("*.jsonl"))
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def write_own(project: Path) -> None:
    (project / SESSIONS / f"{TODAY}-cursor-work.md").write_text(session_text(session_id=KEY, date=TODAY))


def test_the_gate_denies_a_shell_command_in_cursors_shape_then_allows_it(project: Path) -> None:
    denied = shell(project, "ls")
    assert denied is not None and denied["permission"] == "deny" and set(denied) == {
        "permission", "user_message", "agent_message"}
    assert f"(id {KEY})" in str(denied["agent_message"]) and "file-editing tool" in str(denied["agent_message"])
    assert str(denied["user_message"]).startswith("enf-git: ")
    write_own(project)
    assert shell(project, "ls") is None


def test_reads_and_mcp_tools_are_gated_and_enf_gits_own_memory_read_is_not(project: Path) -> None:
    read = call("PreToolUse", "beforeReadFile", project, file_path=str(project / "app.py"), content="x")
    assert read is not None and read["permission"] == "deny"
    other = call("PreToolUse", "beforeMCPExecution", project, tool_name="search", tool_input={}, command="npx other")
    assert other is not None and other["permission"] == "deny"
    ours = call("PreToolUse", "beforeMCPExecution", project, tool_name="recall", tool_input={"query": "q"},
                command="git-enf mcp")
    assert ours is None


def test_session_start_context_comes_back_as_additional_context(project: Path) -> None:
    started = call("SessionStart", "sessionStart", project)
    assert started is not None and set(started) == {"additional_context"}
    assert f"This session: id {KEY}" in str(started["additional_context"])


def test_a_prompt_is_logged_but_its_context_has_no_field_in_cursor_and_stays_out(project: Path) -> None:
    write_own(project)
    assert call("UserPromptSubmit", "beforeSubmitPrompt", project, prompt="/toolset review", attachments=[]) is None
    assert ("prompt", "/toolset review") in [(e.get("event"), e.get("prompt")) for e in logged(project)]


def branch_files(project: Path) -> str:
    return subprocess.run(["git", "ls-tree", "-r", "--name-only", "claude-memory"], cwd=project, text=True,
                          capture_output=True, check=True).stdout


def test_stop_commits_the_session_file_to_the_memory_branch(project: Path, git: object) -> None:
    write_own(project)
    call("PostToolUse", "afterFileEdit", project, file_path=str(project / SESSIONS / f"{TODAY}-cursor-work.md"),
         edits=[{"old_string": "", "new_string": "x"}])
    assert f"{TODAY}-cursor-work.md" not in branch_files(project)
    assert call("Stop", "stop", project, status="completed", loop_count=0) is None
    assert f"{TODAY}-cursor-work.md" in branch_files(project)


def test_the_session_key_is_the_first_8_of_a_v4_id_and_the_random_end_of_a_v7(project: Path) -> None:
    v7 = "01a25210-4049-7d23-83e8-7cf4269a2bc3"
    mapped = adapter.ADAPTER.event("SessionStart", {"conversation_id": v7})
    assert mapped is not None and gate.id8(str(mapped["session_id"])) == "269a2bc3"
    mapped = adapter.ADAPTER.event("SessionStart", {"conversation_id": SID})
    assert mapped is not None and gate.id8(str(mapped["session_id"])) == KEY
    denied = call("PreToolUse", "beforeShellExecution", project, sid=v7,
                                                       command="ls")
    assert denied is not None and "(id 269a2bc3)" in str(denied["agent_message"])


def test_the_cwd_comes_from_workspace_roots_and_broken_input_is_silent(project: Path) -> None:
    mapped = adapter.ADAPTER.event("Stop", {"conversation_id": SID, "workspace_roots": ["/w"]})
    assert mapped is not None and mapped["cwd"] == "/w"
    assert hook.run("PreToolUse", b"[1]", "cursor") == ""
    assert call("PreToolUse", "somethingNew", project) is None
