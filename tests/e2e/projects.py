"""What the end-to-end tests share: a git project with enf-git set up and its hooks
registered, the environment the client's children (hooks, Bash) need, scripted calls."""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable
import subprocess
import sys
from pathlib import Path
from typing import Any

from harness import ClaudeRun, run_claude
from standin import StandIn, ToolUse

BIN = Path(sys.executable).parent
ID_IN_CONTEXT = re.compile(r"This session: id ([0-9A-Za-z_-]{8})")


def git(cwd: Path, *args: str) -> str:
    """`git ARGS`; a `REV:sessions/<stem>.md` git does not find is asked for where the branch
    keeps it, in its month's folder (as tests/gitfixtures.run_git does)."""
    from enf_git.plumbing.store import stored_path

    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        mapped = [f"{a.partition(':')[0]}:{stored_path(a.partition(':')[2])}" if ":" in a else a for a in args]
        proc = subprocess.run(["git", *mapped], cwd=cwd, capture_output=True, text=True, check=True)
    return proc.stdout


def child_env() -> dict[str, str]:
    """`git enf` on PATH, and the enf_git under test (PYTHONPATH, when the suite runs from a
    checkout) rather than an installed one."""
    env = {"PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}"}
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env


def init_project(project: Path, home: Path, commit_env: dict[str, str] | None = None, message: str = "app") -> Path:
    """A git project with one commit, `git enf init --scope local` run in it (hooks registered)."""
    git(project, "init", "-q", "-b", "main")
    git(project, "config", "user.name", "E2E")
    git(project, "config", "user.email", "e2e@example.com")
    (project / "app.py").write_text("print('app')\n")
    git(project, "add", "app.py")
    subprocess.run(["git", "commit", "-q", "-m", message], cwd=project, check=True, capture_output=True,
                   env={**os.environ, **(commit_env or {})})
    enf(project, home, "init", "--scope", "local")
    return project


def enf(project: Path, home: Path, *args: str) -> str:
    """`git enf ARGS` in `project` as its user would run it (HOME is the client's)."""
    return subprocess.run([str(BIN / "git-enf"), *args], cwd=project, env={**child_env(), "HOME": str(home)},
                          check=True, capture_output=True, text=True).stdout


def run(prompt: str, repo: Path, home: Path, api: StandIn, claude: str) -> ClaudeRun:
    result = run_claude(prompt, repo, home, api.url, claude=claude, extra_env=child_env())
    assert result.returncode == 0, result.describe()
    return result


def session_turn(repo: Path, slug: str, intent: str) -> Callable[[dict[str, Any]], ToolUse]:
    """A turn that writes this session's file, with the id SessionStart's context gave (the
    gate allows no other tool before it)."""
    def turn(body: dict[str, Any]) -> ToolUse:
        found = ID_IN_CONTEXT.search(json.dumps(body))
        assert found, "SessionStart context did not carry the session id"
        day = time.strftime("%Y-%m-%d")
        content = (f"---\nsession_id: {found.group(1)}\ndate: {day}\nstart_time: \"10:00\"\ntags: [e2e]\n"
                   f"status: active\nsummary: \"\"\n---\n## Intent\n{intent}\n")
        return ToolUse("Write", {"file_path": str(repo / ".claude-sessions" / "sessions" / f"{day}-{slug}.md"),
                                 "content": content})
    return turn


def bash(command: str) -> ToolUse:
    return ToolUse("Bash", {"command": command, "description": "scripted"})
