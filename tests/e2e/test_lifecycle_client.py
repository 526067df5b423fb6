"""The fact lifecycle inside the real Claude Code client: the user types `/remember …`, the
client expands the command file `git enf init` placed, the scripted model runs the
`git enf remember` it names, and the next session's request carries the fact.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from harness import ClaudeRun, run_claude
from standin import StandIn, Text, ToolUse

from enf_git.install import slash

BIN = Path(sys.executable).parent
FACT = "We deploy on Fridays only after 4pm"
ID_IN_CONTEXT = re.compile(r"This session: id ([0-9A-Za-z_-]{8})")


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def child_env() -> dict[str, str]:
    """What the client, its hooks and its Bash tool need: `git enf` on PATH, and the enf_git
    under test (PYTHONPATH, when the suite runs from a checkout) rather than an installed one."""
    env = {"PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}"}
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env


@pytest.fixture
def repo(project: Path, claude_home: Path) -> Path:
    git(project, "init", "-q", "-b", "main")
    git(project, "config", "user.name", "E2E")
    git(project, "config", "user.email", "e2e@example.com")
    (project / "app.py").write_text("print('app')\n")
    git(project, "add", "app.py")
    git(project, "commit", "-q", "-m", "app")
    env = {**child_env(), "HOME": str(claude_home)}
    subprocess.run([str(BIN / "git-enf"), "init", "--scope", "local"], cwd=project, env=env, check=True,
                   capture_output=True)
    return project


def run(prompt: str, repo: Path, home: Path, api: StandIn, claude: str) -> ClaudeRun:
    result = run_claude(prompt, repo, home, api.url, claude=claude, extra_env=child_env())
    assert result.returncode == 0, result.describe()
    return result


def write_session(repo: Path) -> Any:
    """A turn that creates this session's file (the gate allows no Bash before it)."""
    def turn(body: dict[str, Any]) -> ToolUse:
        found = ID_IN_CONTEXT.search(json.dumps(body))
        assert found, "SessionStart context did not carry the session id"
        sid = found.group(1)
        day = time.strftime("%Y-%m-%d")
        content = (f"---\nsession_id: {sid}\ndate: {day}\nstart_time: \"10:00\"\ntags: [e2e]\nstatus: active\n"
                   "summary: \"\"\n---\n## Intent\nRemember how we deploy.\n")
        return ToolUse("Write", {"file_path": str(repo / ".claude-sessions" / "sessions" / f"{day}-deploy-rule.md"),
                                 "content": content})
    return turn


def bash(command: str) -> ToolUse:
    return ToolUse("Bash", {"command": command, "description": "scripted"})


def test_remember_in_one_session_reaches_the_next(claude_bin: str, standin: StandIn, repo: Path,
                                                  claude_home: Path) -> None:
    standin.add(write_session(repo), bash(f'git enf remember "{FACT}"'), bash('echo "id=$CLAUDE_CODE_SESSION_ID"'),
                Text("Remembered."))
    first = run(f"/remember {FACT}", repo, claude_home, standin, claude_bin)
    prompt = standin.main_requests[0].last_user_text()
    command = slash.source("remember").read_text().split("\n---\n", 1)[1]
    assert command.replace("$ARGUMENTS", FACT).strip() in prompt  # the client expanded our command file
    results = [r for req in standin.main_requests for r in req.tool_results()]
    said = {r["tool_use_id"]: json.dumps(r["content"]) for r in results}
    assert any("remembered" in text and FACT in text for text in said.values()), said
    # Measured contract: the Bash tool carries the session id (the commands still name --session).
    assert f"id={first.session_id}" in "".join(said.values())
    assert FACT in git(repo, "show", "claude-memory:memories.md")

    standin.add(Text("Hello again."))
    run("what do you know?", repo, claude_home, standin, claude_bin)
    system = json.dumps([m for m in standin.main_requests[-1].messages if m.get("role") == "system"])
    assert FACT in system  # SessionStart's context carried the fact into session two


def test_the_plugin_offers_the_same_commands(claude_bin: str, standin: StandIn, project: Path,
                                             claude_home: Path) -> None:
    """`--plugin-dir hooks/` alone: `/enf-git:memories` expands the plugin's copy."""
    git(project, "init", "-q", "-b", "main")
    plugin = Path(__file__).resolve().parents[2] / "hooks"
    standin.add(Text("Done."))
    env = {**child_env(), "ENF_HOOK": str(BIN / "enf-hook")}
    result = run_claude("/enf-git:memories export --format json", project, claude_home, standin.url,
                        claude=claude_bin, plugin_dir=plugin, extra_env=env)
    assert result.returncode == 0, result.describe()
    assert "git enf memories export --format json" in standin.main_requests[0].last_user_text()
