"""enf-git inside the real Gemini CLI, offline: hooks registered by `git enf init
--assistant gemini`, a scripted Gemini API (gemini_standin.py) at GOOGLE_GEMINI_BASE_URL,
and checks on what reached the model, what was denied, and what reached the
claude-memory branch; then the same repository under the real Claude Code client."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gemini_standin import Call, GeminiStandIn, Text
from projects import BIN, child_env, git, init_project
from projects import run as run_claude_client
from standin import StandIn
from standin import Text as ClaudeText

KEY_IN_CONTEXT = re.compile(r"This session: id ([0-9a-f]{8})")
MODEL = "gemini-2.5-flash"  # a fixed model: "auto" would first ask a router model for each turn
BLOCKED = "Tool execution blocked"
OTHERS = ["Tuned the CI build cache", "Wrote the onboarding docs", "Fixed flaky browser tests",
          "Added rate limiting to the public API", "Moved logs to structured JSON"]
DECISION = ("- [10:05] Y: In the context of the job queue, facing bursty uploads, decided Redis Streams over "
            "RabbitMQ, to achieve one less service, accepting manual retention. Confidence: high")


def find_gemini() -> str | None:
    """`gemini` on PATH (npm `@google/gemini-cli`), else under $GEMINI_NPM_PREFIX/bin."""
    found = shutil.which("gemini")
    prefix = os.environ.get("GEMINI_NPM_PREFIX")
    if found is None and prefix and os.access(Path(prefix) / "bin" / "gemini", os.X_OK):
        found = str(Path(prefix) / "bin" / "gemini")
    return found


@pytest.fixture(scope="session")
def gemini_bin() -> str:
    path = find_gemini()
    if path is None:
        msg = "Gemini CLI not found: npm install -g @google/gemini-cli (or set GEMINI_NPM_PREFIX to its npm prefix)"
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)
    return path


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
    return subprocess.run([str(BIN / "git-enf"), *args], cwd=project, env={**child_env(), "HOME": str(home)},
                          check=True, capture_output=True, text=True).stdout


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


def today() -> str:
    return time.strftime("%Y-%m-%d")


def shell(command: str) -> Call:
    return Call("run_shell_command", {"command": command})


def write_session(slug: str, summary: str = "", extra: str = "") -> Callable[[dict[str, Any]], Call]:
    """A write_file turn creating this session's file, its key read from the context."""
    def turn(body: dict[str, Any]) -> Call:
        found = KEY_IN_CONTEXT.search(json.dumps(body))
        assert found, "SessionStart context did not carry the session key"
        text = (f"---\nsession_id: {found.group(1)}\ndate: {today()}\nstart_time: \"10:00\"\ntags: [gemini]\n"
                f"status: {'completed' if summary else 'active'}\nsummary: \"{summary}\"\n---\n"
                f"## Intent\nWork under Gemini.\n{extra}")
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
    from enf_git import paths

    earlier = (f"---\nsession_id: 0ldsess1\ndate: 2026-11-20\nstart_time: \"10:00\"\ntags: [queue]\n"
               f"status: completed\nsummary: \"Chose the job queue\"\n---\n## Intent\nPick a queue.\n\n"
               f"## Decisions\n{DECISION}\n")
    sessions = repo / ".claude-sessions" / "sessions"
    (sessions / "2026-11-20-job-queue.md").write_text(earlier)
    for i, summary in enumerate(OTHERS):  # pointers rank against a corpus: one session alone is all "common"
        (sessions / f"2026-11-0{i + 1}-other-{i}.md").write_text(
            f"---\nsession_id: 0ther{i:03d}\ndate: 2026-11-0{i + 1}\nstart_time: \"10:00\"\ntags: [misc]\n"
            f"status: completed\nsummary: \"{summary}\"\n---\n## Intent\nChores.\n")
    enf(repo, claude_home, "commit", "-m", "an earlier session")
    # What SessionStart and Stop start in the background (the pointers' index), run here to its end.
    subprocess.run([sys.executable, "-c", paths.LAUNCH, "background-index", str(repo)], cwd=repo,
                   env={**child_env(), "HOME": str(claude_home)}, check=True)
    api.add(Text("Noted."))
    run("Should the job queue keep using Redis Streams for uploads?", repo, claude_home, api, gemini_bin)
    sent = api.requests[-1].text()
    assert "pointers, not instructions" in sent
    pointer = sent.split("pointers, not instructions", 1)[1]
    assert "(2026-11-20-job-queue)" in pointer and "decided Redis Streams over RabbitMQ" in pointer
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
