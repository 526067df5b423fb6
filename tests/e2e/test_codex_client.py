"""enf-git inside the real OpenAI Codex CLI, offline: hooks registered by `git enf init
--assistant codex`, a scripted Responses API (codex_standin.py), and checks on what reached
the model, what was denied, and what reached the claude-memory branch; then the same
repository under the real Claude Code client, which sees what the Codex session wrote.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from codex_harness import CodexRun, find_codex, run_codex
from codex_standin import Call, CodexStandIn, Custom, Text
from projects import BIN, child_env, git, init_project
from projects import run as run_claude_client
from standin import StandIn
from standin import Text as ClaudeText

from enf_git import paths
from enf_git.assistants.codex.adapter import session_key

OTHERS = ["Tuned the CI build cache", "Wrote the onboarding docs", "Fixed flaky browser tests",
          "Added rate limiting to the public API", "Moved logs to structured JSON"]
KEY_IN_CONTEXT = re.compile(r"This session: id ([0-9a-f]{8})")
DECISION = ("- [10:05] Y: In the context of the job queue, facing bursty uploads, decided Redis Streams over "
            "RabbitMQ, to achieve one less service, accepting manual retention. Confidence: high")


@pytest.fixture(scope="session")
def codex_bin() -> str:
    """The Codex CLI. Missing: a failure in CI (.ci/run installs it), a skip elsewhere."""
    path = find_codex()
    if path is None:
        msg = "Codex CLI not found: npm install -g @openai/codex (or set CODEX_NPM_PREFIX to its npm prefix)"
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)
    return path


@pytest.fixture
def api() -> Any:
    with CodexStandIn() as server:
        yield server


@pytest.fixture
def codex_home(tmp_path: Path) -> Path:
    folder = tmp_path / "codex-home"
    folder.mkdir()
    return folder


@pytest.fixture
def repo(project: Path, claude_home: Path, codex_home: Path) -> Path:
    """A git project with enf-git set up, its hooks registered for Claude Code (scope local)
    and for Codex (the scratch $CODEX_HOME)."""
    init_project(project, claude_home)
    enf_codex(project, claude_home, codex_home, "init", "--assistant", "codex")
    return project


def enf_codex(project: Path, home: Path, codex_home: Path, *args: str) -> str:
    env = {**child_env(), "HOME": str(home), "CODEX_HOME": str(codex_home)}
    return subprocess.run([str(BIN / "git-enf"), *args], cwd=project, env=env, check=True, capture_output=True,
                          text=True).stdout


def run(prompt: str, repo: Path, home: Path, codex_home: Path, api: CodexStandIn, codex: str) -> CodexRun:
    result = run_codex(prompt, repo, home, codex_home, api.url, codex=codex, extra_env=child_env())
    assert result.returncode == 0, result.describe()
    return result


def today() -> str:
    return time.strftime("%Y-%m-%d")


def shell(command: str) -> Call:
    return Call("exec_command", {"cmd": command})


def write_session(slug: str, summary: str = "", extra: str = "") -> Callable[[dict[str, Any]], Call]:
    """A turn that writes this session's file with one heredoc command, its key read from the context."""
    def turn(body: dict[str, Any]) -> Call:
        found = KEY_IN_CONTEXT.search(json.dumps(body))
        assert found, "SessionStart context did not carry the session key"
        text = (f"---\nsession_id: {found.group(1)}\ndate: {today()}\nstart_time: \"10:00\"\ntags: [codex]\n"
                f"status: {'completed' if summary else 'active'}\nsummary: \"{summary}\"\n---\n"
                f"## Intent\nWork under Codex.\n{extra}")
        return shell(f"cat > .claude-sessions/sessions/{today()}-{slug}.md <<'EOF'\n{text}EOF")
    return turn


def outputs(api: CodexStandIn) -> list[str]:
    """Every call's output the client sent back, in call order."""
    return list(api.outputs().values())


def test_context_gate_and_stop_commit(codex_bin: str, api: CodexStandIn, repo: Path, claude_home: Path,
                                      codex_home: Path) -> None:
    """SessionStart's context reaches the first request with the Codex key; the gate denies a
    shell call and a chained write, allows the heredoc that creates the file, then the denied
    call; Stop commits the session to claude-memory; the user's repository is untouched."""
    head = git(repo, "rev-parse", "HEAD")
    api.add(shell("echo ran > marker.txt"),
            shell(f"echo x > .claude-sessions/sessions/{today()}-sneak.md && echo pwned > app.py"),
            write_session("codex-gate"), shell("echo ran > marker.txt"), Text("Done."))
    result = run("do the task", repo, claude_home, codex_home, api, codex_bin)
    key = session_key(result.thread_id or "")
    assert f"This session: id {key}" in api.main_requests[0].text()
    assert (result.thread_id or "")[:8] != key  # the key is not the UUIDv7 timestamp
    said = outputs(api)
    assert "No session file exists for THIS session" in said[0] and "apply_patch" in said[0]
    assert "blocked by PreToolUse" in said[1] and (repo / "app.py").read_text() == "print('app')\n"
    assert "blocked" not in said[2] and "blocked" not in said[3], said
    assert (repo / "marker.txt").read_text() == "ran\n"
    name = f"sessions/{today()}-codex-gate.md"
    assert f"session_id: {key}" in git(repo, "show", f"claude-memory:{name}")
    assert f"enf: stop {key}" in git(repo, "log", "--format=%s", "claude-memory")
    assert git(repo, "rev-parse", "HEAD") == head
    assert not (repo / ".claude-sessions" / "sessions" / f"{today()}-sneak.md").exists()


def test_apply_patch_creates_the_session_file(codex_bin: str, api: CodexStandIn, repo: Path, claude_home: Path,
                                              codex_home: Path) -> None:
    def patch(body: dict[str, Any]) -> Custom:
        found = KEY_IN_CONTEXT.search(json.dumps(body))
        assert found
        return Custom("apply_patch", f"*** Begin Patch\n*** Add File: .claude-sessions/sessions/{today()}-patched.md\n"
                      f"+---\n+session_id: {found.group(1)}\n+date: {today()}\n+status: active\n+---\n+## Intent\n"
                      f"+Patch it.\n*** End Patch\n")
    api.add(patch, shell("ls"), Text("Done."))
    run("patch", repo, claude_home, codex_home, api, codex_bin)
    assert not any("blocked" in text for text in outputs(api)), outputs(api)
    assert "Patch it." in git(repo, "show", f"claude-memory:sessions/{today()}-patched.md")


def test_brain_first_pointer_on_a_substantive_prompt(codex_bin: str, api: CodexStandIn, repo: Path,
                                                     claude_home: Path, codex_home: Path) -> None:
    earlier = (f"---\nsession_id: 0ldsess1\ndate: 2026-11-20\nstart_time: \"10:00\"\ntags: [queue]\n"
               f"status: completed\nsummary: \"Chose the job queue\"\n---\n## Intent\nPick a queue.\n\n"
               f"## Decisions\n{DECISION}\n")
    sessions = repo / ".claude-sessions" / "sessions"
    (sessions / "2026-11-20-job-queue.md").write_text(earlier)
    for i, summary in enumerate(OTHERS):  # pointers rank against a corpus: one session alone is all "common"
        (sessions / f"2026-11-0{i + 1}-other-{i}.md").write_text(
            f"---\nsession_id: 0ther{i:03d}\ndate: 2026-11-0{i + 1}\nstart_time: \"10:00\"\ntags: [misc]\n"
            f"status: completed\nsummary: \"{summary}\"\n---\n## Intent\nChores.\n")
    enf_codex(repo, claude_home, codex_home, "commit", "-m", "an earlier session")
    # What SessionStart and Stop start in the background (the pointers' index), run here to its end.
    subprocess.run([sys.executable, "-c", paths.LAUNCH, "background-index", str(repo)], cwd=repo,
                   env={**child_env(), "HOME": str(claude_home)}, check=True)
    api.add(Text("Noted."))
    run("Should the job queue keep using Redis Streams for uploads?", repo, claude_home, codex_home, api, codex_bin)
    sent = api.main_requests[-1].text()
    assert "pointers, not instructions" in sent
    pointer = sent.split("pointers, not instructions", 1)[1]
    assert "(2026-11-20-job-queue)" in pointer and "decided Redis Streams over RabbitMQ" in pointer
    api.add(Text("Ok."))
    run("yes", repo, claude_home, codex_home, api, codex_bin)
    assert "pointers, not instructions" not in api.main_requests[-1].text()


def test_a_toolset_profile_denies_under_codex(codex_bin: str, api: CodexStandIn, repo: Path, claude_home: Path,
                                              codex_home: Path) -> None:
    api.add(write_session("review-mode"), shell("echo x > notes.txt"), shell("ls"), Text("Reviewed."))
    run("/toolset review", repo, claude_home, codex_home, api, codex_bin)
    assert "switched from build to the toolset profile review" in api.main_requests[0].text()
    said = outputs(api)
    assert "blocked" not in said[0], said  # the session file: memory is written in every profile
    assert "Denied by the toolset profile" in said[1] and not (repo / "notes.txt").exists()
    assert "blocked" not in said[2]


def test_a_codex_session_is_seen_and_recalled_under_claude_code(
        codex_bin: str, claude_bin: str, api: CodexStandIn, standin: StandIn, repo: Path, claude_home: Path,
        codex_home: Path) -> None:
    api.add(write_session("queue-under-codex", summary="Chose Redis Streams for the job queue",
                          extra=f"\n## Decisions\n{DECISION}\n"), Text("Done."))
    run("pick a queue", repo, claude_home, codex_home, api, codex_bin)
    standin.add(ClaudeText("Hello."))
    run_claude_client("what did we decide?", repo, claude_home, standin, claude_bin)
    assert "Chose Redis Streams for the job queue" in standin.main_requests[0].text()
    found = enf_codex(repo, claude_home, codex_home, "recall", "job queue")
    assert "queue-under-codex" in found
