"""enf-git inside the real Gemini CLI, offline: hooks registered by `git enf init
--assistant gemini`, a scripted Gemini API (gemini_standin.py) at GOOGLE_GEMINI_BASE_URL,
and checks on what reached the model, what was denied, and what reached the
claude-memory branch; then the same repository under the real Claude Code client."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from clientkit import assert_pointer, find_npm_cli, git_enf, index_now, required, seed_earlier_sessions, session_file
from clientkit import today
from gemini_standin import Call, GeminiStandIn, Text
from projects import child_env, git, init_project
from projects import run as run_claude_client
from standin import StandIn
from standin import Text as ClaudeText

MODEL = "gemini-2.5-flash"  # a fixed model: "auto" would first ask a router model for each turn
BLOCKED = "Tool execution blocked"


def find_gemini() -> str | None:
    """`gemini` on PATH (npm `@google/gemini-cli`), else under $GEMINI_NPM_PREFIX/bin."""
    return find_npm_cli("gemini", "GEMINI_NPM_PREFIX")


@pytest.fixture(scope="session")
def gemini_bin() -> str:
    return required(find_gemini(), "Gemini CLI not found: npm install -g @google/gemini-cli (or set "
                                   "GEMINI_NPM_PREFIX to its npm prefix)")


@pytest.fixture
def api() -> Any:
    with GeminiStandIn() as server:
        yield server


@pytest.fixture
def repo(project: Path, claude_home: Path) -> Path:
    """A git project with enf-git set up for Claude Code (scope local) and for Gemini CLI
    (the scratch HOME's ~/.gemini/settings.json), and Gemini pointed at an API key."""
    init_project(project, claude_home)
    enf(project, claude_home, "init", "--assistant", "gemini")
    path = claude_home / ".gemini" / "settings.json"
    data = json.loads(path.read_text())
    data["security"] = {"auth": {"selectedType": "gemini-api-key"}}  # GOOGLE_GEMINI_BASE_URL alone is refused
    data["privacy"] = {"usageStatisticsEnabled": False}
    path.write_text(json.dumps(data, indent=2))
    return project


def enf(project: Path, home: Path, *args: str) -> str:
    return git_enf(project, home, *args)


def run(prompt: str, repo: Path, home: Path, api: GeminiStandIn, gemini: str, timeout: float = 180) -> dict[str, Any]:
    """`gemini -p PROMPT -o json` headless, yolo (no approval prompts), the workspace trusted."""
    env = {**child_env(), "HOME": str(home), "GOOGLE_GEMINI_BASE_URL": api.url, "GEMINI_API_KEY": "standin",
           "GEMINI_CLI_TRUST_WORKSPACE": "true", "NO_COLOR": "1"}
    env["PATH"] = f"{env['PATH']}{os.pathsep}{os.path.dirname(shutil.which('node') or '/usr/bin/node')}"
    proc = subprocess.Popen([gemini, "-p", prompt, "-m", MODEL, "--yolo", "-o", "json"], cwd=repo, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
    assert proc.returncode == 0, f"rc={proc.returncode}\n{out[-3000:]}\n{err[-3000:]}"
    result: dict[str, Any] = json.loads(out[out.index("{"):])
    return result


def shell(command: str) -> Call:
    return Call("run_shell_command", {"command": command})


def write_session(slug: str, summary: str = "", extra: str = "") -> Callable[[dict[str, Any]], Call]:
    """A write_file turn creating this session's file, its key read from the context."""
    def turn(body: dict[str, Any]) -> Call:
        text = session_file(body, "Gemini", summary, extra)
        return Call("write_file", {"file_path": f".claude-sessions/sessions/{today()}-{slug}.md", "content": text})
    return turn


def test_context_gate_and_the_turn_end_commit(gemini_bin: str, api: GeminiStandIn, repo: Path,
                                              claude_home: Path) -> None:
    """SessionStart's context reaches the first request; the gate denies a shell call and a
    chained write, allows write_file of the session file, then the denied call; AfterAgent
    commits the session to claude-memory; the user's branch is untouched."""
    head = git(repo, "rev-parse", "HEAD")
    api.add(shell("echo ran > marker.txt"),
            shell(f"echo x > .claude-sessions/sessions/{today()}-sneak.md && echo pwned > app.py"),
            write_session("gemini-gate"), shell("echo ran > marker.txt"), Text("Done."))
    result = run("do the task", repo, claude_home, api, gemini_bin)
    key = str(result["session_id"])[:8]
    first = api.requests[0].text()
    assert f"This session: id {key}" in first and "<hook_context>" in first
    said = api.requests[-1].responses()
    assert BLOCKED in said[0] and "No session file exists for THIS session" in said[0] and "write_file" in said[0]
    assert BLOCKED in said[1] and (repo / "app.py").read_text() == "print('app')\n"
    assert BLOCKED not in said[2] and BLOCKED not in said[3], said
    assert (repo / "marker.txt").read_text() == "ran\n"
    name = f"sessions/{today()}-gemini-gate.md"
    assert f"session_id: {key}" in git(repo, "show", f"claude-memory:{name}")
    assert f"enf: stop {key}" in git(repo, "log", "--format=%s", "claude-memory")
    assert git(repo, "rev-parse", "HEAD") == head
    assert not (repo / ".claude-sessions" / "sessions" / f"{today()}-sneak.md").exists()


def test_brain_first_pointer_on_a_substantive_prompt(gemini_bin: str, api: GeminiStandIn, repo: Path,
                                                     claude_home: Path) -> None:
    """BeforeAgent puts a pointer to the earlier decision into the request of a substantive
    prompt, and none into the request of a trivial one."""
    seed_earlier_sessions(repo)
    enf(repo, claude_home, "commit", "-m", "an earlier session")
    index_now(repo, claude_home)
    api.add(Text("Noted."))
    run("Should the job queue keep using Redis Streams for uploads?", repo, claude_home, api, gemini_bin)
    assert_pointer(api.requests[-1].text())
    api.add(Text("Ok."))
    run("yes", repo, claude_home, api, gemini_bin)
    assert "pointers, not instructions" not in api.requests[-1].text()


def test_a_toolset_profile_denies_under_gemini(gemini_bin: str, api: GeminiStandIn, repo: Path,
                                               claude_home: Path) -> None:
    api.add(write_session("review-mode"), shell("echo x > notes.txt"), shell("ls"), Text("Reviewed."))
    run("/toolset review", repo, claude_home, api, gemini_bin)
    assert "switched from build to the toolset profile review" in api.requests[0].text()
    said = api.requests[-1].responses()
    assert BLOCKED not in said[0], said  # the session file: memory is written in every profile
    assert "Denied by the toolset profile" in said[1] and not (repo / "notes.txt").exists()
    assert BLOCKED not in said[2]


def test_a_gemini_session_is_seen_under_claude_code(gemini_bin: str, claude_bin: str, api: GeminiStandIn,
                                                    standin: StandIn, repo: Path, claude_home: Path) -> None:
    api.add(write_session("queue-under-gemini", summary="Chose Redis Streams for the job queue"), Text("Done."))
    run("pick a queue", repo, claude_home, api, gemini_bin)
    standin.add(ClaudeText("Hello."))
    run_claude_client("what did we decide?", repo, claude_home, standin, claude_bin)
    assert "Chose Redis Streams for the job queue" in standin.main_requests[0].text()
