"""SessionStart and SessionEnd carry the memory lifecycle (real hook processes on a real
repository): remembered facts in the context, one compression tier per start with a
notice, session facts dropped when their session ends."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from enf_git import paths
from gitfixtures import run_git, session_text

GIT_ENF = str(Path(sys.executable).with_name("git-enf"))
SID = "5e55104a-aaaa-bbbb-cccc-000000000001"


@pytest.fixture
def project(repo_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))  # user facts: never the real home
    monkeypatch.delenv("CLAUDE_CODE_SESSION_ID", raising=False)
    enf(repo_dir, "init", "--no-hooks")
    return repo_dir


def enf(cwd: Path, *args: str) -> str:
    proc = subprocess.run([GIT_ENF, *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def hook(project: Path, event: str, **fields: object) -> str:
    payload = json.dumps({"session_id": SID, "cwd": str(project), "hook_event_name": event, **fields})
    proc = subprocess.run([sys.executable, "-c", paths.LAUNCH, event], input=payload, capture_output=True,
                          text=True, cwd=project, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def context(project: Path) -> str:
    reply = json.loads(hook(project, "SessionStart", source="startup"))
    text: str = reply["hookSpecificOutput"]["additionalContext"]
    return text


def test_remembered_facts_of_every_scope_reach_the_context(project: Path) -> None:
    enf(project, "remember", "We always run the linter before pushing")
    enf(project, "remember", "--scope", "user", "I prefer short commit subjects")
    enf(project, "remember", "--scope", "session", "--session", SID, "Todo: follow up on the flaky test")
    text = context(project)
    assert "always run the linter before pushing" in text
    assert "short commit subjects" in text
    assert "flaky test" in text
    assert len(text) <= 9000


def test_session_end_drops_the_session_facts_only(project: Path) -> None:
    enf(project, "remember", "--scope", "session", "--session", SID, "Gotcha: the port is taken")
    enf(project, "remember", "Gotcha: the CI cache is per branch")
    hook(project, "SessionEnd", reason="exit")
    text = context(project)
    assert "the port is taken" not in text
    assert "CI cache is per branch" in text


def old_sessions(project: Path, count: int) -> list[str]:
    names = []
    for day in range(1, count + 1):
        name = f"2025-01-{day:02d}-old-work-{day}"
        body = ("## Interactions\n" + "".join(f"- step {i}: read the logs and tried again\n" for i in range(30))
                + "## Files Touched\n- `src/app/main.py` — role: edited\n")
        (project / paths.WC_DIR / "sessions" / f"{name}.md").write_text(
            session_text(session_id=f"{day:08d}", date=f"2025-01-{day:02d}", summary=f"Old work {day}", body=body))
        names.append(name)
    enf(project, "commit")
    return names


def test_session_start_compresses_one_tier_and_says_so(project: Path) -> None:
    names = old_sessions(project, 6)
    before = run_git(project, "rev-parse", "claude-memory").strip()
    text = context(project)
    subjects = run_git(project, "log", "--format=%s", f"{before}..claude-memory").splitlines()
    compressed = [s for s in subjects if s.startswith("compress(")]
    assert compressed, subjects
    assert "Compressed this start" in text and "git enf show NAME --full" in text
    # the earliest sessions went first, and their full text is one command away
    oldest = names[0]
    full = enf(project, "show", oldest, "--full")
    assert "step 29: read the logs" in full
    assert "step 29: read the logs" not in run_git(project, "show", f"claude-memory:sessions/{oldest}.md")


def test_compression_can_be_turned_off(project: Path) -> None:
    old_sessions(project, 6)
    run_git(project, "config", "enf.compress", "false")
    before = run_git(project, "rev-parse", "claude-memory").strip()
    assert "Compressed this start" not in context(project)
    subjects = run_git(project, "log", "--format=%s", f"{before}..claude-memory").splitlines()
    assert not [s for s in subjects if s.startswith("compress(")]


def test_a_pinned_session_is_offered_at_every_start_and_never_compressed(project: Path) -> None:
    names = old_sessions(project, 6)
    oldest = names[0]
    enf(project, "pin", oldest)
    text = context(project)
    pinned = text.split("## Pinned sessions", 1)[1].split("\n\n", 1)[0]  # the pins block
    assert oldest in pinned  # the pointer, within the context's budget
    assert "step 29: read the logs" in run_git(project, "show", f"claude-memory:sessions/{oldest}.md")
    assert "compress(" not in run_git(project, "log", "--format=%s", "claude-memory", "--", f"sessions/{oldest}.md")
    assert len(text) <= 9000


def test_every_block_of_the_context_says_what_it_costs(project: Path) -> None:
    old_sessions(project, 6)
    enf(project, "remember", "Gotcha: the CI cache is per branch")
    enf(project, "pin", "2025-01-06-old-work-6")
    text = context(project)
    titles = [line for line in text.splitlines() if line.startswith("## ")]
    assert {t.split(" (")[0] for t in titles} >= {"## Remembered facts", "## Pinned sessions", "## Recent sessions"}
    for title in titles:
        assert title.endswith("tokens)"), title
    assert len(text) <= 9000
