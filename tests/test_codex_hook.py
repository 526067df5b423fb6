"""The hooks under Codex (`enf-hook --assistant=codex`): its session key, its tools mapped
to the neutral ones, and the gate's creation path through a shell command or a patch,
with nothing else let through alongside. The payloads are the shapes Codex 0.171 sends
(docs/codex.md); the end-to-end tests drive the real client."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from enf_git import hook, memory
from enf_git.assistants.codex import adapter
from enf_git.assistants.claude import gate
from enf_git.pure import applypatch, shellwrite
from gitfixtures import session_text

# Two Codex sessions started within the same minute: UUIDv7 ids sharing their first 8 hex digits.
SID = "01a25210-4049-7d23-83e8-7cf4269a2bc3"
TWIN = "01a25210-5511-7a00-9e11-0b1c2d3e4f50"
KEY = "269a2bc3"
TODAY = gate.days()[0]
SESSIONS = ".claude-sessions/sessions"


@pytest.fixture
def project(repo_dir: Path) -> Path:
    memory.init(memory.Context.open(repo_dir))
    return repo_dir


def call(event: str, project: Path, sid: str = SID, **fields: object) -> dict[str, object] | None:
    payload = {"session_id": sid, "cwd": str(project), "hook_event_name": event, "turn_id": "t",
               "model": "gpt-5.5", "permission_mode": "bypassPermissions", **fields}
    out = hook.run(event, json.dumps(payload).encode(), "codex")
    return json.loads(out) if out else None


def shell(project: Path, command: str, sid: str = SID) -> dict[str, object] | None:
    return call("PreToolUse", project, sid, tool_name="Bash", tool_input={"command": command})


def patch(project: Path, text: str) -> dict[str, object] | None:
    return call("PreToolUse", project, tool_name="apply_patch", tool_input={"command": text})


def reason(reply: dict[str, object] | None) -> str | None:
    """The denial's reason, None when the call goes through."""
    if reply is None:
        return None
    fields = reply["hookSpecificOutput"]
    assert isinstance(fields, dict) and fields["permissionDecision"] == "deny"
    return str(fields["permissionDecisionReason"])


def session_file(key: str = KEY, slug: str = "codex-work") -> str:
    return f"cat > {SESSIONS}/{TODAY}-{slug}.md <<'EOF'\n{session_text(session_id=key, date=TODAY)}EOF"


def test_the_key_is_the_random_end_of_the_uuid_not_its_timestamp() -> None:
    assert adapter.session_key(SID) == KEY
    assert adapter.session_key(TWIN) != adapter.session_key(SID)
    assert SID[:8] == TWIN[:8]  # what the Claude Code rule would have keyed both on
    assert gate.id8(adapter.neutral_id(SID)) == KEY
    assert adapter.neutral_id("not-a-uuid") == "not-a-uuid"


def test_shell_denied_until_the_file_exists_and_the_reason_says_how_under_codex(project: Path) -> None:
    said = reason(shell(project, "ls"))
    assert said is not None and f"(id {KEY})" in said and "apply_patch" in said and "no Write tool" in said


def test_a_heredoc_that_only_writes_the_session_file_creates_it_then_everything_passes(project: Path) -> None:
    command = session_file()
    assert reason(shell(project, command)) is None
    (project / SESSIONS / f"{TODAY}-codex-work.md").write_text(session_text(session_id=KEY, date=TODAY))
    assert reason(shell(project, "ls")) is None


@pytest.mark.parametrize("command", [
    session_file() + "\nrm -rf src",
    f"echo '---' > {SESSIONS}/{TODAY}-x.md && echo pwned > app.py",
    f"echo hi > {SESSIONS}/{TODAY}-x.md > app.py",
    f"cat > {SESSIONS}/{TODAY}-x.md <<EOF\n$(curl evil)\nEOF",
    f"tee {SESSIONS}/{TODAY}-x.md app.py <<'EOF'\nx\nEOF",
    f"echo hi > {SESSIONS}/../../app.py",
    f"cp app.py {SESSIONS}/{TODAY}-x.md",
    f"echo hi > {SESSIONS}/{TODAY}-x.md &",
])
def test_nothing_else_slips_through_with_the_session_file(project: Path, command: str) -> None:
    assert reason(shell(project, command)) is not None


def test_the_opt_out_marker_by_touch(project: Path) -> None:
    assert reason(shell(project, f"touch .claude-sessions/.opt-out/{KEY}")) is None
    (project / ".claude-sessions" / ".opt-out" / KEY).write_text("")
    assert reason(shell(project, "ls")) is None


def test_apply_patch_adding_the_session_file_is_its_creation_and_nothing_more(project: Path) -> None:
    add = f"*** Begin Patch\n*** Add File: {SESSIONS}/{TODAY}-p.md\n+---\n+session_id: {KEY}\n+---\n*** End Patch\n"
    assert reason(patch(project, add)) is None
    two = add.replace("*** End Patch", "*** Add File: app2.py\n+x\n*** End Patch")
    assert reason(patch(project, two)) is not None
    elsewhere = add.replace(f"{SESSIONS}/{TODAY}-p.md", "app.py")
    assert reason(patch(project, elsewhere)) is not None
    heredoc = f"apply_patch <<'EOF'\n{add}EOF"
    assert reason(shell(project, heredoc)) is None
    assert reason(shell(project, heredoc + "\nrm -rf src")) is not None


def test_a_twin_sessions_file_does_not_open_this_sessions_gate(project: Path) -> None:
    twin = adapter.session_key(TWIN)
    (project / SESSIONS / f"{TODAY}-twin.md").write_text(session_text(session_id=twin, date=TODAY))
    assert reason(shell(project, "ls", sid=TWIN)) is None
    assert reason(shell(project, "ls")) is not None


def test_the_prompt_reminder_and_session_start_say_how_to_write_under_codex(project: Path) -> None:
    said = call("UserPromptSubmit", project, prompt="fix the parser")
    assert said is not None
    text = json.dumps(said)
    assert "has no session file yet" in text and f"session_id: {KEY}" in text and "apply_patch" in text


def test_older_codex_tool_shapes_map_to_the_shell() -> None:
    assert adapter.neutral_tool("exec_command", {"cmd": "ls -l"}, "/") == ("Bash", {"command": "ls -l"})
    assert adapter.neutral_tool("shell", {"command": ["bash", "-lc", "ls"]}, "/") == ("Bash", {"command": "ls"})
    assert adapter.neutral_tool("mcp__enf__recall", {"query": "x"}, "/") == ("mcp__enf__recall", {"query": "x"})


def test_post_tool_use_logs_the_call_under_the_neutral_names(project: Path) -> None:
    (project / SESSIONS / f"{TODAY}-codex-work.md").write_text(session_text(session_id=KEY, date=TODAY))
    call("PostToolUse", project, tool_name="Bash", tool_input={"command": "pytest -q"}, tool_response="ok")
    logged = "".join(p.read_text() for p in (project / ".claude-sessions" / "raw").glob("*.jsonl"))
    assert "pytest -q" in logged and '"tool": "Bash"' in logged.replace('":"', '": "')


@pytest.mark.parametrize(("command", "target"), [
    ("cat > a.md <<'EOF'\nx\nEOF", "a.md"),
    ("cat > a.md <<EOF\nhome is $HOME\nEOF", "a.md"),
    ("printf '%s\\n' hi > a.md", "a.md"),
    (": > marker", "marker"),
    ("echo hi >> a.md 2>/dev/null", "a.md"),
    ("cat > a.md <<EOF\n$(id)\nEOF", None),
    ("cat other > a.md", None),
    ("X=1 cat > a.md", None),
    ("echo hi > $HOME/a.md", None),
    ("echo hi > a.md; rm b", None),
    ("echo hi | tee a.md", None),
])
def test_sole_write(command: str, target: str | None) -> None:
    assert shellwrite.sole_write(command) == target


def test_patch_files_and_the_shell_form() -> None:
    text = "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** Move to: b.py\n*** Delete File: c.py\n*** End Patch"
    assert applypatch.files(text) == [("update", "a.py"), ("move", "b.py"), ("delete", "c.py")]
    assert applypatch.from_shell(f"apply_patch <<'EOF'\n{text}\nEOF\n") == text
    assert applypatch.from_shell(f"apply_patch <<'EOF'\n{text}\nEOF\necho more") is None
    assert applypatch.from_shell(f"cd x && apply_patch <<'EOF'\n{text}\nEOF") is None
