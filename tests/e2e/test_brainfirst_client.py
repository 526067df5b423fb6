"""Brain-first pointers inside the real Claude Code client: a prompt about an earlier
decision's subject carries the pointer into the model request; "yes" carries none."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from projects import child_env, enf, init_project, run
from standin import StandIn, Text

from enf_git import paths

HEADER = "pointers, not instructions"
SESSION = """---
session_id: 0ldsess1
date: 2026-11-20
start_time: "10:00"
tags: [billing, database]
status: completed
summary: "Chose the database for the billing ledger"
---
## Intent
Pick a store for invoices.

## Decisions
- [10:05] Y: In the context of the billing ledger, facing strict consistency needs, decided PostgreSQL over MongoDB, to achieve ACID transactions across invoices, accepting schema migrations. Confidence: high
"""
OTHERS = ["Tuned the CI build cache", "Wrote the onboarding docs", "Fixed flaky browser tests",
          "Added rate limiting to the public API", "Moved logs to structured JSON"]


@pytest.fixture
def repo(project: Path, claude_home: Path) -> Path:
    init_project(project, claude_home)
    env = {**child_env(), "HOME": str(claude_home)}
    sessions = project / ".claude-sessions" / "sessions"
    (sessions / "2026-11-20-billing-ledger-db.md").write_text(SESSION)
    for i, summary in enumerate(OTHERS):
        (sessions / f"2026-11-0{i + 1}-other-{i}.md").write_text(
            SESSION.replace("0ldsess1", f"0ther{i:03d}").replace("2026-11-20", f"2026-11-0{i + 1}")
            .split("## Intent")[0].replace("Chose the database for the billing ledger", summary)
            .replace("[billing, database]", "[misc]") + "## Intent\nChores.\n")
    enf(project, claude_home, "commit", "-m", "earlier sessions")
    # What SessionStart and Stop start in the background, run here to its end.
    subprocess.run([sys.executable, "-c", paths.LAUNCH, "background-index", str(project)], cwd=project, env=env,
                   check=True)
    assert (project / ".git" / "enf" / paths.POINTERS).is_file()
    return project


def test_a_prompt_about_a_recorded_decision_gets_its_pointer_and_yes_gets_none(
        claude_bin: str, standin: StandIn, repo: Path, claude_home: Path) -> None:
    standin.add(Text("Noted."))
    run("Should the billing ledger keep using PostgreSQL for invoices?", repo, claude_home, standin, claude_bin)
    sent = standin.main_requests[0].text()
    assert HEADER in sent
    pointer = sent.split(HEADER, 1)[1].split("\n")[1]
    assert pointer.startswith("- 2026-11-20 decision ") and "(2026-11-20-billing-ledger-db)" in pointer
    assert "decided PostgreSQL over MongoDB" in pointer and "→ `git enf show " in pointer

    standin.add(Text("Ok."))
    run("yes", repo, claude_home, standin, claude_bin)
    assert HEADER not in standin.main_requests[-1].text()
