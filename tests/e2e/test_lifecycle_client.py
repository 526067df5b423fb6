"""The fact lifecycle inside the real Claude Code client: the user types `/remember …`, the
client expands the command file `git enf init` placed, the scripted model runs the
`git enf remember` it names, and the next session's request carries the fact.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from harness import run_claude
from projects import BIN, bash, child_env, git, init_project, run, session_turn
from standin import StandIn, Text, ToolUse

from enf_git.install import slash

FACT = "We deploy on Fridays only after 4pm"


@pytest.fixture
def repo(project: Path, claude_home: Path) -> Path:
    return init_project(project, claude_home)


def write_session(repo: Path) -> Any:
    return session_turn(repo, "deploy-rule", "Remember how we deploy.")


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
