"""enf-git inside the real Claude Code client: hooks installed by `git enf init`, a
scripted model, and checks on what ran, what was denied and what reached the branch.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness import ClaudeRun, run_claude
from projects import ID_IN_CONTEXT, git, init_project
from standin import StandIn, Text, ToolUse

DECISION = ("- [10:00] Y: In the context of storage engine, facing write bursts, decided SQLite WAL over "
            "plain files, to achieve crash safety, accepting a single writer. Confidence: high")


@pytest.fixture
def repo(project: Path, claude_home: Path) -> Path:
    """A git project with enf-git initialized and hooks registered (scope local)."""
    return init_project(project, claude_home)


def today() -> str:
    return time.strftime("%Y-%m-%d", time.localtime())


def session_id_from(body: dict[str, Any]) -> str:
    m = ID_IN_CONTEXT.search(json.dumps(body))
    assert m, "SessionStart context did not carry the session id"
    return m.group(1)


def write_session(repo: Path, slug: str = "e2e-session", summary: str = "", extra: str = "") -> Callable[[dict[str, Any]], ToolUse]:
    """A turn that writes this session's file, learning the id from the injected context."""
    def turn(body: dict[str, Any]) -> ToolUse:
        sid = session_id_from(body)
        text = (f"---\nsession_id: {sid}\ndate: {today()}\nstart_time: \"10:00\"\ntags: [e2e]\n"
                f"status: {'completed' if summary else 'active'}\nsummary: \"{summary}\"\n---\n"
                f"## Intent\nExercise enf-git end to end.\n{extra}")
        path = repo / ".claude-sessions" / "sessions" / f"{today()}-{slug}.md"
        return ToolUse("Write", {"file_path": str(path), "content": text})
    return turn


def bash(command: str) -> ToolUse:
    return ToolUse("Bash", {"command": command, "description": "scripted"})


def run(prompt: str, repo: Path, home: Path, api: StandIn, claude: str, **kw: Any) -> ClaudeRun:
    result = run_claude(prompt, repo, home, api.url, claude=claude, **kw)
    assert result.returncode == 0, result.describe()
    return result


def results(api: StandIn) -> list[dict[str, Any]]:
    return [r for req in api.main_requests for r in req.tool_results()][::1]


def all_results(api: StandIn) -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for req in api.main_requests:
        for r in req.tool_results():
            seen[r["tool_use_id"]] = r
    return list(seen.values())


def test_gate_denies_until_the_session_file_exists_then_stop_commits(
        claude_bin: str, standin: StandIn, repo: Path, claude_home: Path) -> None:
    """(a) deny-then-allow for Bash, (b) Write elsewhere denied, (c) committed, user repo untouched."""
    head, index = git(repo, "rev-parse", "HEAD"), (repo / ".git" / "index").read_bytes()
    standin.add(
        bash("echo ran > marker.txt"),
        ToolUse("Write", {"file_path": str(repo / "src" / "evil.py"), "content": "x"}),
        ToolUse("Write", {"file_path": str(repo / ".claude-sessions" / "sessions" / ".." / ".." / "sneaky.md"),
                          "content": "x"}),
        write_session(repo),
        bash("echo ran > marker.txt"),
        Text("Done."),
    )
    result = run("do the task", repo, claude_home, standin, claude_bin)
    outcomes = all_results(standin)
    assert [bool(r.get("is_error")) for r in outcomes] == [True, True, True, False, False], json.dumps(outcomes)[:2000]
    assert "No session file exists for THIS session" in json.dumps(outcomes[0]["content"])
    assert (repo / "marker.txt").read_text() == "ran\n"  # the same Bash call ran once the file existed
    assert not (repo / "src").exists() and not (repo / "sneaky.md").exists()
    name = f"sessions/{today()}-e2e-session.md"
    assert f"session_id: {result.session_id[:8]}" in git(repo, "show", f"claude-memory:{name}")
    assert git(repo, "rev-parse", "HEAD") == head
    assert (repo / ".git" / "index").read_bytes() == index
    assert git(repo, "status", "--porcelain") == "?? marker.txt\n"  # only what the model's Bash made
    log = git(repo, "log", "--format=%s", "claude-memory")
    assert f"enf: stop {result.session_id[:8]}" in log
    assert "gate-deny" in git(repo, "show", "claude-memory:log.md")


def test_compact_fires_precompact_which_commits(
        claude_bin: str, standin: StandIn, repo: Path, claude_home: Path) -> None:
    """(d) `/compact --resume` commits the working copy at PreCompact."""
    standin.add(write_session(repo), Text("Done."))
    first = run("start", repo, claude_home, standin, claude_bin)
    sid = first.session_id
    path = repo / ".claude-sessions" / "sessions" / f"{today()}-e2e-session.md"
    path.write_text(path.read_text() + "\n## Open Items\n- [ ] written before compaction\n")
    run("/compact keep it short", repo, claude_home, standin, claude_bin, resume=sid)
    subjects = git(repo, "log", "--format=%s", "claude-memory").splitlines()
    assert f"enf: pre-compact {sid[:8]}" in subjects
    commit = subjects.index(f"enf: pre-compact {sid[:8]}")
    shown = git(repo, "show", f"claude-memory~{commit}:sessions/{today()}-e2e-session.md")
    assert "written before compaction" in shown


def test_next_session_starts_with_the_previous_summary_and_decisions(
        claude_bin: str, standin: StandIn, repo: Path, claude_home: Path) -> None:
    """(e) what session one wrote reaches session two's model request."""
    standin.add(write_session(repo, summary="Chose the storage engine", extra=f"\n## Decisions\n{DECISION}\n"),
                Text("Done."))
    run("first", repo, claude_home, standin, claude_bin)
    assert "SQLite WAL" in git(repo, "show", "claude-memory:decisions.md")
    standin.add(Text("Hello again."))
    second = run("second", repo, claude_home, standin, claude_bin)
    request = standin.main_requests[-1]
    system = json.dumps([m for m in request.messages if m.get("role") == "system"])
    assert "Chose the storage engine" in system
    assert "decided SQLite WAL over plain files" in system
    assert f"This session: id {second.session_id[:8]}" in system


def test_resume_keeps_using_the_same_session_file(
        claude_bin: str, standin: StandIn, repo: Path, claude_home: Path) -> None:
    """(f) --resume: same id, the gate is already satisfied, no second file."""
    standin.add(write_session(repo), Text("Done."))
    first = run("start", repo, claude_home, standin, claude_bin)
    standin.add(bash("echo resumed > resumed.txt"), Text("Done."))
    second = run("continue", repo, claude_home, standin, claude_bin, resume=first.session_id)
    assert second.session_id == first.session_id
    assert (repo / "resumed.txt").read_text() == "resumed\n"
    assert len(list((repo / ".claude-sessions" / "sessions").glob("*.md"))) == 1
    request = standin.main_requests[-2]
    system = json.dumps([m for m in request.messages if m.get("role") == "system"])
    assert f"file .claude-sessions/sessions/{today()}-e2e-session.md" in system


def test_opt_out_marker_silences_the_gate(
        claude_bin: str, standin: StandIn, repo: Path, claude_home: Path) -> None:
    """(g) the opt-out marker satisfies the gate; no session file is needed."""
    def opt_out(body: dict[str, Any]) -> ToolUse:
        sid = session_id_from(body)
        return ToolUse("Write", {"file_path": str(repo / ".claude-sessions" / ".opt-out" / sid), "content": ""})

    standin.add(opt_out, bash("echo ok > opted.txt"), Text("Done."))
    run("don't track this session", repo, claude_home, standin, claude_bin)
    assert [bool(r.get("is_error")) for r in all_results(standin)] == [False, False]
    assert (repo / "opted.txt").read_text() == "ok\n"
    assert list((repo / ".claude-sessions" / "sessions").glob("*.md")) == []
    assert ".opt-out" not in git(repo, "ls-tree", "-r", "--name-only", "claude-memory")


def test_plugin_dir_ships_the_same_hooks(
        claude_bin: str, standin: StandIn, project: Path, claude_home: Path) -> None:
    """`claude --plugin-dir hooks/` works without any settings file."""
    git(project, "init", "-q", "-b", "main")
    plugin = Path(__file__).resolve().parents[2] / "hooks"
    standin.add(bash("echo no > denied.txt"), Text("Done."))
    env = {"ENF_HOOK": str(Path(sys.executable).with_name("enf-hook"))}
    run("hi", project, claude_home, standin, claude_bin, plugin_dir=plugin, extra_env=env)
    assert not (project / "denied.txt").exists()
    assert "No session file exists" in json.dumps(all_results(standin))
    assert git(project, "rev-parse", "--verify", "claude-memory").strip()  # SessionStart initialized it
