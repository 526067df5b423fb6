"""The hook entry point: gate decisions, heartbeat, logging, commit points, robustness."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from enf_git.assistants.claude import gate
from enf_git import hook, memory
from gitfixtures import Git, session_text, user_state

SID = "a1b2c3d4-0000-4000-8000-000000000001"
OTHER = "ffff0000-0000-4000-8000-000000000002"
TODAY, YESTERDAY = gate.days()


@pytest.fixture
def project(repo_dir: Path) -> Path:
    memory.init(memory.Context.open(repo_dir))
    return repo_dir


def call(event: str, project: Path, **fields: object) -> dict[str, object] | None:
    payload = {"session_id": SID, "cwd": str(project), "hook_event_name": event, **fields}
    out = hook.respond(event, json.dumps(payload).encode())
    return json.loads(out) if out else None


def tool(project: Path, name: str, **tool_input: object) -> dict[str, object] | None:
    return call("PreToolUse", project, tool_name=name, tool_input=tool_input)


def denied(reply: dict[str, object] | None) -> bool:
    return reply is not None and reply["hookSpecificOutput"]["permissionDecision"] == "deny"  # type: ignore[index]


def write_session(project: Path, name: str, session_id: str = SID[:8]) -> Path:
    path = project / ".claude-sessions" / "sessions" / name
    path.write_text(session_text(session_id=session_id, date=name[:10]))
    return path


def test_deny_shape_is_the_one_claude_code_obeys(project: Path) -> None:
    reply = tool(project, "Bash", command="ls")
    assert reply == {"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": "deny",
        "permissionDecisionReason": gate.deny_reason(SID)}}
    assert f"(id {SID[:8]}) on {TODAY}" in gate.deny_reason(SID)


def test_own_file_today_or_yesterday_allows_silently(project: Path) -> None:
    write_session(project, f"{YESTERDAY}-late-night-work.md")
    assert tool(project, "Bash", command="ls") is None
    assert call("UserPromptSubmit", project, prompt="hi") is None


def test_other_sessions_file_and_old_files_do_not_count(project: Path) -> None:
    write_session(project, f"{TODAY}-someone-else.md", session_id=OTHER[:8])
    write_session(project, "2020-01-01-ancient-work.md")
    (project / ".claude-sessions" / "sessions" / f"{TODAY}-broken-file.md").write_text("---\nsession_id: [\n")
    assert denied(tool(project, "Read", file_path=str(project / "README.md")))
    reminder = call("UserPromptSubmit", project, prompt="hi")
    assert reminder is not None
    assert "has no session file yet" in reminder["hookSpecificOutput"]["additionalContext"]  # type: ignore[index]


def test_opt_out_marker_allows_silently(project: Path) -> None:
    (project / ".claude-sessions" / ".opt-out" / SID[:8]).write_text("")
    assert tool(project, "Bash", command="ls") is None
    assert call("UserPromptSubmit", project, prompt="hi") is None


@pytest.mark.parametrize("name", ["Write", "Edit", "MultiEdit"])
def test_creation_path_is_allowed_for_file_writing_tools(project: Path, name: str) -> None:
    assert tool(project, name, file_path=str(project / ".claude-sessions" / "sessions" / f"{TODAY}-x-y.md")) is None
    assert tool(project, name, file_path=str(project / ".claude-sessions" / ".opt-out" / SID[:8])) is None


def test_relative_creation_path_resolves_against_cwd(project: Path) -> None:
    assert tool(project, "Write", file_path=f".claude-sessions/sessions/{TODAY}-rel-path.md") is None


@pytest.mark.parametrize("target", [
    "src/evil.py",
    ".claude-sessions/index.md",
    ".claude-sessions/sessions/../../evil.md",
    ".claude-sessions/sessions/../decisions.md",
    ".claude-sessions/sessions/sub/deeper.md",
    ".claude-sessions/Sessions/x.md",
    ".Claude-Sessions/sessions/x.md",
    ".claude-sessions/sessions/.hidden.md",
    ".claude-sessions/sessions",
    ".claude-sessions/sessions/\x00x.md",
])
def test_nothing_else_gets_through(project: Path, target: str) -> None:
    assert denied(tool(project, "Write", file_path=str(project / target)))
    assert denied(tool(project, "Write", file_path=target))


@pytest.mark.parametrize("name", ["mcp__enf__recall", "mcp__enf__show", "mcp__enf__log", "mcp__enf__decisions",
                                  "mcp__plugin_enf-git_enf__recall"])
def test_reading_memory_through_our_mcp_server_passes_the_gate(project: Path, name: str) -> None:
    assert tool(project, name, query="billing") is None


def test_waiting_for_a_connecting_mcp_server_passes_the_gate(project: Path) -> None:
    """A memory read that came while the server was still connecting is retried after the wait."""
    assert tool(project, "WaitForMcpServers") is None
    assert tool(project, "WaitForMcpServers", servers=["enf"]) is None


@pytest.mark.parametrize("name", ["mcp__enf__remember", "mcp__enf__forget", "mcp__other__recall",
                                  "mcp__enf__recall_x", "mcp__enf__", "mcp__enfx__recall", "recall",
                                  "WaitForMcpServersX", "waitformcpservers"])
def test_other_mcp_tools_and_our_writes_wait_for_the_session_file(project: Path, name: str) -> None:
    assert denied(tool(project, name, query="billing"))


def test_non_writing_tools_never_use_the_creation_path(project: Path) -> None:
    target = str(project / ".claude-sessions" / "sessions" / f"{TODAY}-x-y.md")
    assert denied(tool(project, "Bash", command=f"echo x > {target}", file_path=target))
    assert denied(tool(project, "Read", file_path=target))


def test_symlink_tricks_are_denied(project: Path, tmp_path: Path) -> None:
    sessions = project / ".claude-sessions" / "sessions"
    (sessions / f"{TODAY}-link.md").symlink_to(project / "README.md")
    assert denied(tool(project, "Write", file_path=str(sessions / f"{TODAY}-link.md")))
    (sessions / "escape").symlink_to(project)
    assert denied(tool(project, "Write", file_path=str(sessions / "escape" / "evil.md")))
    # A sessions/ folder that is itself a symlink could point anywhere.
    sessions.rename(project / "real-sessions")
    (project / ".claude-sessions" / "sessions").symlink_to(project / "src-like")
    (project / "src-like").mkdir()
    assert denied(tool(project, "Write", file_path=str(project / "src-like" / "x.md")))


def test_symlinked_session_file_does_not_satisfy_the_gate(project: Path, tmp_path: Path) -> None:
    real = tmp_path / f"{TODAY}-outside.md"
    real.write_text(session_text(session_id=SID[:8], date=TODAY))
    (project / ".claude-sessions" / "sessions" / f"{TODAY}-outside.md").symlink_to(real)
    assert denied(tool(project, "Bash", command="ls"))


def state_of(project: Path) -> dict[str, object]:
    """The gate's per-session cache (.git/enf/sessions/<id>.json)."""
    return json.loads((project / ".git" / "enf" / "sessions" / f"{SID}.json").read_text())


def near_misses() -> list[str]:
    """Ids that agree with SID's first 8 characters except at one of positions 1-7, or
    that are a shorter prefix of them: only all eight make a session's own file."""
    own = SID[:8]
    changed = [own[:k] + ("0" if own[k] != "0" else "1") + own[k + 1:] for k in range(1, 8)]
    return [*changed, own[:7], own[:4]]


@pytest.mark.parametrize("other", near_misses())
def test_the_gate_compares_all_eight_characters_of_the_id(project: Path, other: str) -> None:
    write_session(project, f"{TODAY}-almost-mine.md", session_id=other)
    assert denied(tool(project, "Bash", command="ls"))
    assert denied(tool(project, "Bash", command="ls"))  # and still on the next call (any cache)
    (project / ".claude-sessions" / ".opt-out" / other).write_text("")
    assert denied(tool(project, "Bash", command="ls"))  # an opt-out marker for another id neither


@pytest.mark.parametrize("own", [SID[:8], SID, SID[:8] + "-anything-after"])
def test_the_first_eight_characters_make_a_sessions_own_file(project: Path, own: str) -> None:
    write_session(project, f"{TODAY}-mine.md", session_id=own)
    assert tool(project, "Bash", command="ls") is None


def cached_own_file(project: Path) -> Path:
    """A session file that satisfied the gate once, so the gate's cache names it."""
    path = write_session(project, f"{TODAY}-cached-file.md")
    assert tool(project, "Bash", command="ls") is None
    assert state_of(project)["file"] == str(path)  # the next call starts from this hint
    return path


@pytest.mark.parametrize("other", near_misses())
def test_the_cached_file_is_read_again_on_every_call(project: Path, other: str) -> None:
    """The cache is a hint: the file it names is read again, all eight characters compared."""
    path = cached_own_file(project)
    path.write_text(session_text(session_id=other, date=TODAY))
    assert denied(tool(project, "Bash", command="ls"))


@pytest.mark.parametrize("change", ["deleted", "emptied", "frontmatter broken", "renamed to an old date",
                                    "replaced by a symlink", "replaced by a folder"])
def test_a_cached_file_that_no_longer_qualifies_stops_satisfying_the_gate(project: Path, tmp_path: Path,
                                                                            change: str) -> None:
    path = cached_own_file(project)
    if change == "deleted":
        path.unlink()
    elif change == "emptied":
        path.write_text("")
    elif change == "frontmatter broken":
        path.write_text("session_id: " + SID[:8] + "\n## Intent\nno frontmatter fence\n")
    elif change == "renamed to an old date":
        path.rename(path.with_name("2020-01-01-cached-file.md"))
    elif change == "replaced by a symlink":
        outside = tmp_path / "outside.md"
        outside.write_text(path.read_text())
        path.unlink()
        path.symlink_to(outside)
    else:
        path.unlink()
        path.mkdir()
    assert denied(tool(project, "Bash", command="ls"))


@pytest.mark.parametrize("named", ["another session's file", "a file outside sessions/"])
def test_a_cache_naming_a_file_that_is_not_ours_is_not_trusted(project: Path, tmp_path: Path, named: str) -> None:
    if named == "another session's file":
        hint = write_session(project, f"{TODAY}-their-work.md", session_id=OTHER[:8])
    else:  # dated today, our id, but not in sessions/: the listing would never find it
        hint = tmp_path / f"{TODAY}-elsewhere.md"
        hint.write_text(session_text(session_id=SID[:8], date=TODAY))
    mine = cached_own_file(project)
    mine.unlink()
    state = project / ".git" / "enf" / "sessions" / f"{SID}.json"
    state.write_text(json.dumps({**state_of(project), "file": str(hint)}))
    assert denied(tool(project, "Bash", command="ls"))


def test_a_hint_from_two_days_ago_no_longer_counts(project: Path) -> None:
    """gate.matching_file with the clock moved: the hint's date is checked against now."""
    path = write_session(project, f"{TODAY}-dated-hint.md")
    now = time.time()
    root = str(project / ".claude-sessions")
    assert gate.matching_file(root, SID, now=now, hint=str(path)) == str(path)
    assert gate.matching_file(root, SID, now=now + 86400, hint=str(path)) == str(path)  # yesterday's counts
    assert gate.matching_file(root, SID, now=now + 2 * 86400, hint=str(path)) is None


def test_uninitialized_or_non_repo_projects_are_left_alone(repo_dir: Path, tmp_path: Path) -> None:
    assert tool(repo_dir, "Bash", command="ls") is None  # no .claude-sessions/: enf-git not set up here
    assert call("PreToolUse", tmp_path, tool_name="Bash", tool_input={}) is None


def test_heartbeat_after_five_prompts_without_an_update(project: Path) -> None:
    path = write_session(project, f"{TODAY}-beat-test.md")
    replies = [call("UserPromptSubmit", project, prompt=f"p{i}") for i in range(6)]
    assert replies[:4] == [None] * 4
    text = replies[4]["hookSpecificOutput"]["additionalContext"]  # type: ignore[index]
    assert "5 prompts since .claude-sessions/sessions/" in text and "heartbeat" in text
    assert replies[4]["hookSpecificOutput"].get("permissionDecision") is None  # type: ignore[index]
    os.utime(path, (time.time() + 5, time.time() + 5))  # the assistant touched the file
    assert call("UserPromptSubmit", project, prompt="after update") is None


def test_a_shorter_hook_state_leaves_nothing_of_the_longer_one(project: Path) -> None:
    write_session(project, f"{TODAY}-state-test.md")
    call("UserPromptSubmit", project, prompt="p0")
    state = project / ".git" / "enf" / "sessions" / f"{SID}.json"
    saved = json.loads(state.read_text())
    state.write_text(json.dumps({**saved, "file": str(project / ("gone-" * 200))}))  # a stale, long hint
    call("UserPromptSubmit", project, prompt="p1")  # rewritten in place, shorter: the old tail is cut
    again = json.loads(state.read_text())  # whole JSON, nothing after it
    assert again["file"] == saved["file"] and again["prompts"] == 1
    assert len(state.read_bytes()) < 500


def test_events_are_logged_redacted_per_session(project: Path) -> None:
    write_session(project, f"{TODAY}-log-test.md")
    call("UserPromptSubmit", project, prompt="use key AKIAABCDEFGHIJKLMNOP please <private>my pin 1234</private>")
    call("PostToolUse", project, tool_name="Bash", tool_input={"command": "ls -la"}, tool_response={})
    call("PostToolUseFailure", project, tool_name="Bash", tool_input={"command": "make"}, error="Exit code 2\nboom")
    lines = (project / ".claude-sessions" / "raw" / f"{SID}.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert [r["event"] for r in records] == ["prompt", "tool", "tool-failure"]
    assert "AKIA" not in lines[0] and "1234" not in lines[0] and "[REDACTED]" in lines[0]
    assert records[1]["summary"] == "ls -la"
    assert records[2]["error"] == "Exit code 2\nboom"  # lines kept: instincts read the telling one


def test_a_session_that_opted_out_leaves_nothing_on_the_branch(project: Path, git: Git) -> None:
    call("UserPromptSubmit", project, prompt="the first prompt, before the assistant opts out: secret plans")
    (project / ".claude-sessions" / ".opt-out").mkdir(exist_ok=True)
    (project / ".claude-sessions" / ".opt-out" / SID[:8]).touch()
    call("UserPromptSubmit", project, prompt="more secret plans")
    call("PostToolUseFailure", project, tool_name="Bash", tool_input={"command": "make plans"}, error="Exit code 2")
    call("Stop", project)
    log = git("show", "claude-memory:log.md")
    assert "secret plans" not in log and "make plans" not in log and SID[:8] not in log
    raw = (project / ".claude-sessions" / "raw" / f"{SID}.jsonl").read_text()
    assert "more secret plans" not in raw and "make plans" not in raw  # not even logged locally after it


def test_stop_flushes_log_and_commits(project: Path, git: Git) -> None:
    write_session(project, f"{TODAY}-stop-test.md")
    call("UserPromptSubmit", project, prompt="build it")
    before = user_state(project)
    assert call("Stop", project, stop_hook_active=False, last_assistant_message="done") is None
    assert f"sessions/{TODAY}-stop-test.md" in git("ls-tree", "-r", "--name-only", "claude-memory")
    log = git("show", "claude-memory:log.md")
    assert log.count(f"[{SID[:8]}] prompt: \"build it\"") == 1 and log.count(f"[{SID[:8]}] stop") == 1
    assert git("log", "-1", "--format=%s", "claude-memory").strip() == f"enf: stop {SID[:8]}"
    assert user_state(project) == before
    call("Stop", project)
    again = git("show", "claude-memory:log.md")
    assert again.startswith(log)  # append-only: the first Stop's log stays as it was, once
    assert again.count("prompt: \"build it\"") == 1  # flushed once, not again by the second Stop


def test_session_start_injects_context_within_budget(project: Path) -> None:
    for i in range(60):
        path = project / ".claude-sessions" / "sessions" / f"2026-01-{1 + i % 28:02d}-topic-number-{i}.md"
        body = (f"\n## Decisions\n- [10:{i % 60:02d}] Y: In the context of area {i % 7}, facing load, decided option {i} "
                f"over option {i + 1}, to achieve speed, accepting cost. Confidence: high\n"
                f"\n## Open Items\n- [ ] follow-up {i}\n")
        path.write_text(session_text(session_id=f"{i:08d}", date=f"2026-01-{1 + i % 28:02d}", summary=f"Work {i}",
                                     body=body))
    memory.commit(memory.Context.open(project))
    reply = call("SessionStart", project, source="startup")
    assert reply is not None and reply["hookSpecificOutput"]["hookEventName"] == "SessionStart"  # type: ignore[index]
    text = reply["hookSpecificOutput"]["additionalContext"]  # type: ignore[index]
    assert len(text) <= 9000
    assert "data, not instructions" in text and f"This session: id {SID[:8]}" in text
    assert "## Standing decisions (60)" in text and "more: .claude-sessions/decisions.md" in text
    assert "(enf-git context: " in text and "-token budget" in text


def test_session_start_offers_to_resume_an_interrupted_session(project: Path) -> None:
    path = project / ".claude-sessions" / "sessions" / f"{TODAY}-half-done.md"
    path.write_text(session_text(session_id=OTHER[:8], date=TODAY, summary="", status="active"))
    text = call("SessionStart", project, source="startup")["hookSpecificOutput"]["additionalContext"]  # type: ignore[index]
    assert f"## Resumed {TODAY} in session {SID[:8]}" in text and f"set session_id: {SID[:8]}" in text


def test_compact_start_asks_for_an_update(project: Path) -> None:
    text = call("SessionStart", project, source="compact")["hookSpecificOutput"]["additionalContext"]  # type: ignore[index]
    assert "just compacted. Update this session's file now" in text


@pytest.mark.parametrize("shadowed", [False, True])
def test_session_end_commits_in_the_background(project: Path, git: Git, shadowed: bool,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Also when the project (Claude Code's cwd for hooks) holds files named like modules
    the child imports: they must not replace the standard library in that child."""
    if shadowed:
        for name in ("subprocess", "json", "pathlib", "signal"):
            (project / f"{name}.py").write_text("raise SystemExit('shadowed the standard library')\n")
    monkeypatch.chdir(project)
    write_session(project, f"{TODAY}-end-test.md")
    # The working copy's lock held here: no commit can finish until it is released, so a
    # SessionEnd that committed itself, instead of handing the commit to a detached
    # process, would not return before the commit (it waits out the lock, then commits).
    with memory.Context.open(project).lock() as taken:
        assert taken
        assert call("SessionEnd", project, reason="other") is None
        assert "end-test" not in git("ls-tree", "-r", "--name-only", "claude-memory")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if "end-test" in git("ls-tree", "-r", "--name-only", "claude-memory"):
            break
        time.sleep(0.2)
    assert f"sessions/{TODAY}-end-test.md" in git("ls-tree", "-r", "--name-only", "claude-memory")


def _garbage(rng: random.Random) -> bytes:
    shapes = [
        lambda: rng.randbytes(rng.randint(0, 300)),
        lambda: b"{" * rng.randint(1, 50),
        lambda: json.dumps(rng.choice([None, 1, "x", [], [1, 2], {"a": 1}, True])).encode(),
        lambda: json.dumps({"session_id": rng.choice([None, 5, [], {}, "", "../../x", "a" * 1000]),
                            "cwd": rng.choice([None, 3, "", "/nonexistent", "\x00", "/"]),
                            "tool_name": rng.choice([None, 1, "Write", "Bash"]),
                            "tool_input": rng.choice([None, "x", [], {"file_path": 7}, {"file_path": "\x00"}]),
                            "prompt": rng.choice([None, 1, {"x": 1}, "p"])}).encode(),
        lambda: b'{"session_id": "\xff\xfe", "cwd": "\xc3\x28"}',
    ]
    return rng.choice(shapes)()


@pytest.mark.parametrize("event", ["PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit",
                                   "SessionStart", "Stop", "PreCompact", "SessionEnd", "Bogus"])
def test_thousands_of_malformed_payloads_never_break_the_contract(project: Path, event: str,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    rng = random.Random(event)
    for _ in range(400 if event in ("PreToolUse", "PostToolUse", "UserPromptSubmit") else 120):
        out = hook.respond(event, _garbage(rng))
        if out:
            reply = json.loads(out)
            assert reply["hookSpecificOutput"]["hookEventName"] == event


def test_real_processes_exit_0_with_clean_stdout(project: Path) -> None:
    """Huge, binary and hostile stdin through the real console script."""
    enf_hook = str(Path(sys.executable).with_name("enf-hook"))
    big_prompt = json.dumps({"session_id": SID, "cwd": str(project), "prompt": "x" * 10_000_000}).encode()
    cases = [(e, p) for e in ("pre-tool-use", "user-prompt-submit", "post-tool-use", "stop", "session-start")
             for p in (b"", b"\xff\xfe\x00garbage", b"[]", b'{"cwd": 1}', big_prompt)]
    procs = [(e, subprocess.Popen([enf_hook, e], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  cwd=project)) for e, _ in cases]
    for (event, proc), (_, payload) in zip(procs, cases):
        out, _err = proc.communicate(payload, timeout=60)
        assert proc.returncode == 0, event
        if out:
            assert json.loads(out)["hookSpecificOutput"]["hookEventName"] == hook.NAMES[event]


def test_session_start_initializes_a_new_repo_unless_turned_off(repo_dir: Path, git: Git) -> None:
    git("config", "enf.autoinit", "false")
    assert call("SessionStart", repo_dir, source="startup") is None
    assert git("branch", "--list", "claude-memory") == ""
    git("config", "enf.autoinit", "true")
    reply = call("SessionStart", repo_dir, source="startup")
    assert reply is not None and git("rev-parse", "--verify", "claude-memory").strip()
    assert (repo_dir / ".claude-sessions" / "sessions").is_dir()


def test_session_start_names_conflict_copies(project: Path) -> None:
    from enf_git.plumbing import store, store_write

    repo = store.open_repo(project)
    store_write.commit(repo, lambda tip: {"conflicts/sessions/2026-04-13-x.md.1a2b3c4d-5e6f7a8b": b"their version\n"},
                 "a conflict copy")
    out = call("SessionStart", project, source="startup")
    assert out is not None
    text = out["hookSpecificOutput"]["additionalContext"]  # type: ignore[index]
    assert "Conflict copies (a record was changed on two sides; both versions are kept): " \
           "conflicts/sessions/2026-04-13-x.md.1a2b3c4d-5e6f7a8b." in text
