"""Skill suggestions inside the real Claude Code client (issue 10, test d): skills in the
project's `.claude/skills`, hooks registered by `git enf init`, and the request the model
receives carries the hint line for a prompt that matches a skill, and none for one that
does not.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness import ClaudeRun, run_claude
from standin import StandIn, Text

BIN = Path(sys.executable).parent
LINE = "Possibly relevant skills (suggestion, not auto-fired — invoke only if it fits): "
SKILLS = {  # enough skills that a distinctive word weighs what the seed's thresholds expect
    "blog-draft": "Draft a long-form article for the company website from an outline",
    "seo-audit": "Check a page for search ranking problems: titles, meta tags, broken links",
    "carousel-builder": "Build an image carousel component with swipe support",
    "invoice-generator": "Generate customer invoices as PDF from billing records",
    "docker-compose": "Write compose files for local development containers",
    "release-notes": "Summarize merged pull requests into user-facing notes",
    "db-migration": "Plan a schema migration with a rollback path",
    "api-docs": "Document REST endpoints with request and response examples",
    "css-grid": "Lay out a responsive page with grid areas",
    "k8s-deploy": "Roll out a service to kubernetes with health checks",
    "sql-tune": "Speed up a slow query with indexes and rewrites",
    "log-triage": "Group error logs by cause and rank them by impact",
}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def child_env() -> dict[str, str]:
    """`git enf` on PATH, and the enf_git under test (PYTHONPATH from a checkout)."""
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
    subprocess.run([str(BIN / "git-enf"), "init", "--scope", "local"], cwd=project,
                   env={**child_env(), "HOME": str(claude_home)}, check=True, capture_output=True)
    for name, description in SKILLS.items():
        folder = project / ".claude" / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n\nSteps.\n")
    return project


def run(prompt: str, repo: Path, home: Path, api: StandIn, claude: str) -> ClaudeRun:
    api.add(Text("Noted."))
    result = run_claude(prompt, repo, home, api.url, claude=claude, extra_env=child_env())
    assert result.returncode == 0, result.describe()
    return result


def hint_lines(api: StandIn) -> list[str]:
    text = api.main_requests[-1].text()
    return [line.strip() for line in text.splitlines() if LINE in line]


def test_a_prompt_matching_a_skill_gets_the_hint_line(claude_bin: str, standin: StandIn, repo: Path,
                                                      claude_home: Path) -> None:
    run("Draft a blog post for the website from this outline: launch, pricing, FAQ", repo, claude_home, standin,
        claude_bin)
    assert hint_lines(standin) == [LINE + "/blog-draft"], standin.main_requests[-1].text()[-3000:]
    text = standin.main_requests[-1].text()
    assert "UserPromptSubmit hook additional context" in text  # it arrived as hook context
    assert "blog-draft" in text.split(LINE)[0]  # the client lists the skill itself too

    run("What is the capital of Peru?", repo, claude_home, standin, claude_bin)
    assert hint_lines(standin) == []
    assert "UserPromptSubmit hook additional context" in standin.main_requests[-1].text()  # the hook did run
