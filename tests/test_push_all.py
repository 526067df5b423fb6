"""`git push --all` and `git push --mirror` send claude-memory themselves (it is a local
branch): our pre-push part must stand aside, or its own push of memory would move the
remote's branch under git's feet and fail the user's push ("failed to update ref")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gitfixtures import run_git, session_text

GIT_ENF = str(Path(sys.executable).with_name("git-enf"))


@pytest.fixture(autouse=True)
def not_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)


def enf(cwd: Path, *args: str) -> None:
    proc = subprocess.run([GIT_ENF, *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def push(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "push", *args], cwd=repo, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL, env=dict(os.environ))


@pytest.mark.parametrize("how", [("--all", "origin"), ("--mirror", "origin"), ("origin", "main", "claude-memory")])
def test_a_push_that_names_memory_itself_is_left_to_git(repo_dir: Path, bare_remote: Path,
                                                         how: tuple[str, ...]) -> None:
    run_git(repo_dir, "push", "-q", "origin", "main")
    enf(repo_dir, "init")
    enf(repo_dir, "sync")
    (repo_dir / ".claude-sessions" / "sessions" / "2026-04-13-new-work.md").write_text(
        session_text(session_id="c3c3c3c3", summary="New work"))
    enf(repo_dir, "commit")
    (repo_dir / "y.txt").write_text("y\n")
    run_git(repo_dir, "add", "y.txt")
    run_git(repo_dir, "commit", "-q", "-m", "y")
    done = push(repo_dir, *how)
    assert done.returncode == 0, done.stderr
    assert run_git(bare_remote, "rev-parse", "claude-memory") == run_git(repo_dir, "rev-parse", "claude-memory")
    assert run_git(bare_remote, "rev-parse", "main") == run_git(repo_dir, "rev-parse", "main")
