"""The hooks under Gemini CLI (`enf-hook --assistant=gemini`): its tools mapped to the
neutral ones, its denial and context shapes, the gate's creation path through write_file
or a shell command that only writes the session file, and a failed tool seen as one. The
payloads are the shapes Gemini CLI 0.61 sent to a probe hook (docs/gemini.md); the
end-to-end tests drive the real client."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from enf_git import hook, memory
from enf_git.assistants.gemini import adapter
from enf_git.assistants.claude import gate
from gitfixtures import session_text

SID = "2e2f127b-0722-4b36-9cbf-495e377a3eab"  # Gemini's ids are UUIDv4: the first 8 are random
KEY = SID[:8]
TODAY = gate.days()[0]
SESSIONS = ".claude-sessions/sessions"


@pytest.fixture
def project(repo_dir: Path) -> Path:
    memory.init(memory.Context.open(repo_dir))
    return repo_dir


def call(event: str, project: Path, sid: str = SID, **fields: object) -> dict[str, object] | None:
    payload = {"session_id": sid, "cwd": str(project), "hook_event_name": event, "timestamp": "2026-12-07T20:53:11Z",
               "transcript_path": "/dev/null", **fields}
    out = hook.run(event, json.dumps(payload).encode(), "gemini")
    return json.loads(out) if out else None


def tool(project: Path, name: str, args: dict[str, object], sid: str = SID) -> dict[str, object] | None:
    return call("PreToolUse", project, sid, tool_name=name, tool_input=args)


def reason(reply: dict[str, object] | None) -> str | None:
    """The denial's reason in Gemini's shape, None when the call goes through."""
    if reply is None:
        return None
    assert reply["decision"] == "deny" and "hookSpecificOutput" not in reply, reply
    return str(reply["reason"])


def write_own(project: Path) -> None:
    (project / SESSIONS / f"{TODAY}-gemini-work.md").write_text(session_text(session_id=KEY, date=TODAY))


def test_a_shell_call_is_denied_in_geminis_shape_saying_how_to_write_under_gemini(project: Path) -> None:
    said = reason(tool(project, "run_shell_command", {"command": "ls"}))
    assert said is not None and f"(id {KEY})" in said and "write_file" in said


def test_write_file_of_this_sessions_file_is_the_creation_path_and_opens_the_gate(project: Path) -> None:
    relative = f"{SESSIONS}/{TODAY}-gemini-work.md"  # Gemini sends the path as the model wrote it
    assert reason(tool(project, "write_file", {"file_path": relative, "content": "x"})) is None
    assert reason(tool(project, "write_file", {"file_path": "app.py", "content": "x"})) is not None
    assert reason(tool(project, "replace", {"file_path": "app.py", "old_string": "a", "new_string": "b"})) is not None
    write_own(project)
    assert reason(tool(project, "run_shell_command", {"command": "ls"})) is None
    assert reason(tool(project, "replace", {"file_path": "app.py", "old_string": "a", "new_string": "b"})) is None


def test_a_shell_command_that_only_writes_the_file_passes_and_a_chained_one_does_not(project: Path) -> None:
    text = session_text(session_id=KEY, date=TODAY)
    only = f"cat > {SESSIONS}/{TODAY}-gemini-work.md <<'EOF'\n{text}EOF"
    assert reason(tool(project, "run_shell_command", {"command": only})) is None
    chained = f"echo x > {SESSIONS}/{TODAY}-sneak.md && echo pwned > app.py"
    assert reason(tool(project, "run_shell_command", {"command": chained})) is not None
    elsewhere = f"cat {SESSIONS}/x.md > app.py"
    assert reason(tool(project, "run_shell_command", {"command": elsewhere})) is not None


def test_a_shell_write_run_in_another_folder_is_judged_where_it_writes(project: Path) -> None:
    """dir_path moves the command: `sessions/x.md` from `src/` is not the sessions folder."""
    (project / "src" / SESSIONS).mkdir(parents=True)
    command = f"echo hi > {SESSIONS}/{TODAY}-x.md"
    assert reason(tool(project, "run_shell_command", {"command": command, "dir_path": "src"})) is not None
    assert reason(tool(project, "run_shell_command", {"command": command})) is None


def test_session_start_and_prompt_context_come_back_under_geminis_event_names(project: Path) -> None:
    started = call("SessionStart", project, source="startup")
    assert started is not None
    fields = started["hookSpecificOutput"]
    assert isinstance(fields, dict) and fields["hookEventName"] == "SessionStart"
    assert f"This session: id {KEY}" in str(fields["additionalContext"]) and "write_file" in str(
        fields["additionalContext"])
    prompted = call("UserPromptSubmit", project, prompt="fix the queue")
    assert prompted is not None and prompted["hookSpecificOutput"]["hookEventName"] == "BeforeAgent"  # type: ignore[index]


def test_a_failed_tool_is_logged_as_a_failure_and_a_good_one_as_a_call(project: Path) -> None:
    write_own(project)
    call("PostToolUse", project, tool_name="run_shell_command", tool_input={"command": "false"},
         tool_response={"llmContent": "", "returnDisplay": "", "error": "Command exited with code 1"})
    call("PostToolUse", project, tool_name="read_file", tool_input={"file_path": "app.py"},
         tool_response={"llmContent": "x", "returnDisplay": "x"})
    log = "".join(p.read_text() for p in (project / ".claude-sessions").rglob("*.jsonl"))
    lines = [json.loads(line) for line in log.splitlines() if line.strip()]
    kinds = [(e.get("event"), e.get("tool")) for e in lines]
    assert ("tool-failure", "Bash") in kinds and ("tool", "Read") in kinds, kinds
    assert any("Command exited with code 1" in json.dumps(e) for e in lines)


@pytest.mark.parametrize(("name", "mcp", "expected"), [
    ("mcp_enf_recall", None, "mcp__enf__recall"),
    ("mcp_my_server_tool", {"server_name": "my_server", "tool_name": "tool"}, "mcp__my_server__tool"),
    ("read_file", None, "Read"), ("grep_search", None, "Grep"), ("write_todos", None, "TodoWrite"),
    ("save_memory", None, "save_memory"),
])
def test_tool_names(name: str, mcp: object, expected: str) -> None:
    assert adapter.neutral_tool(name, {}, mcp)[0] == expected


def test_enf_gits_own_memory_read_passes_the_gate_by_its_gemini_name(project: Path) -> None:
    assert reason(tool(project, "mcp_enf_recall", {"query": "queue"})) is None
    assert reason(tool(project, "mcp_other_thing", {})) is not None


def test_a_uuid7_id_would_get_a_key_from_its_random_end() -> None:
    payload: dict[str, object] = {"session_id": "01a25210-4049-7d23-83e8-7cf4269a2bc3"}
    out = adapter.ADAPTER.event("SessionStart", payload)
    assert out is not None and gate.id8(str(out["session_id"])) == "269a2bc3"
    assert gate.id8(str(adapter.ADAPTER.event("SessionStart", {"session_id": SID})["session_id"])) == KEY  # type: ignore[index]


def test_silence_stays_silence_and_broken_input_is_silent(project: Path) -> None:
    write_own(project)
    assert tool(project, "read_file", {"file_path": "app.py"}) is None
    assert hook.run("PreToolUse", b"not json", "gemini") == ""
    assert os.path.isdir(project / ".claude-sessions")


def test_the_prompt_reaches_the_core_without_the_session_start_context_gemini_prepends(project: Path) -> None:
    """Headless Gemini puts SessionStart's context before the first prompt; `/toolset` must still lead it."""
    write_own(project)
    prompt = "<hook_context>enf-git: memory … This session: id 2e2f127b</hook_context>\n\n/toolset review"
    reply = call("UserPromptSubmit", project, prompt=prompt)
    assert reply is not None and "toolset profile review" in json.dumps(reply)
    assert adapter.user_prompt("no context here") == "no context here"
