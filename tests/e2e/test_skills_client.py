"""Skill suggestions inside the real Claude Code client: skills in the
project's `.claude/skills`, hooks registered by `git enf init`, and the request the model
receives carries the hint line for a prompt that matches a skill, and none for one that
does not.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import projects
from harness import ClaudeRun
from projects import init_project
from standin import StandIn, Text

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


@pytest.fixture
def repo(project: Path, claude_home: Path) -> Path:
    init_project(project, claude_home)
    for name, description in SKILLS.items():
        folder = project / ".claude" / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n\nSteps.\n")
    return project


def run(prompt: str, repo: Path, home: Path, api: StandIn, claude: str) -> ClaudeRun:
    api.add(Text("Noted."))
    return projects.run(prompt, repo, home, api, claude)


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
