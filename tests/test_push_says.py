"""A `git push` that does not carry memory says so: every time, in one line, with the cause
and what to type; after the server refused memory, the next push tries again, once. Real
bare remotes with real server hooks, the git hooks as `git enf init` installs them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gitfixtures import run_git, session_text

GIT_ENF = str(Path(sys.executable).with_name("git-enf"))


@pytest.fixture(autouse=True)
def not_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)


def enf(cwd: Path, *args: str) -> str:
    proc = subprocess.run([GIT_ENF, *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout + proc.stderr


def push(repo: Path, k: int) -> str:
    """A push of one new code commit (memory goes alongside, by default): what git printed on stderr.
    The capture ends when our part, which shares git's stderr, has finished too."""
    (repo / f"code{k}.txt").write_text(f"{k}\n")
    run_git(repo, "add", f"code{k}.txt")
    run_git(repo, "commit", "-q", "-m", f"code {k}")
    proc = subprocess.run(["git", "push", "origin", "main"], cwd=repo, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr  # the code push is never affected
    return proc.stderr


def tip(repo: Path) -> str:
    return run_git(repo, "rev-parse", "-q", "--verify", "refs/heads/claude-memory", check=False).strip()


def new_memory(repo: Path, k: int) -> None:
    (repo / ".claude-sessions" / "sessions" / f"2026-04-13-work-{k}.md").write_text(
        session_text(session_id=f"a{k:07d}", summary=f"Work {k}"))
    enf(repo, "commit")


@pytest.fixture
def shared(repo_dir: Path, bare_remote: Path) -> Path:
    run_git(repo_dir, "push", "-q", "-u", "origin", "main")
    enf(repo_dir, "init")
    return repo_dir


def refusing(origin: Path, tmp_path: Path) -> tuple[Path, Path]:
    """The server's pre-receive refuses claude-memory while `deny` exists; each memory push
    it sees is one line in `attempts`."""
    deny, attempts = tmp_path / "deny", tmp_path / "attempts"
    deny.touch()
    hook = origin / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\n"
                    "while read old new ref; do\n"
                    f"  [ \"$ref\" = refs/heads/claude-memory ] || continue\n"
                    f"  echo \"$new\" >>'{attempts}'\n"
                    f"  [ -e '{deny}' ] && echo 'memory is not welcome on this server' && exit 1\n"
                    "done\nexit 0\n")
    hook.chmod(0o755)
    return deny, attempts


def not_pushed_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "memory not pushed" in line or "memory was not pushed" in line]


def test_after_a_refusal_every_push_tries_once_and_says_so_once(shared: Path, bare_remote: Path,
                                                                tmp_path: Path) -> None:
    deny, attempts = refusing(bare_remote, tmp_path)
    for k in range(3):  # the first push (the scan, a full sync), then the usual ones
        new_memory(shared, k)
        said = not_pushed_lines(push(shared, k))
        assert len(said) == 1, said
        assert "the server said: memory is not welcome on this server" in said[0]
        assert "the next git push tries again (or now: git enf sync)" in said[0]
        assert len(attempts.read_text().splitlines()) == k + 1  # one attempt per push, no storm
    assert tip(bare_remote) == ""
    deny.unlink()  # the server lets memory in again
    out = push(shared, 3)
    assert not_pushed_lines(out) == [] and "memory pushed to origin" in out
    assert tip(bare_remote) == tip(shared)
    assert len(attempts.read_text().splitlines()) == 4


def test_a_push_with_memory_false_says_every_time_that_memory_stays_here(shared: Path, bare_remote: Path) -> None:
    run_git(shared, "config", "enf.pushMemory", "false")
    new_memory(shared, 0)
    for k in range(2):
        said = not_pushed_lines(push(shared, k))
        assert said == ["enf-git: memory not pushed: enf.pushMemory is false, so only git enf sync shares it "
                        "(git enf sync now; git config --unset enf.pushMemory: it goes with every push)"]
    assert tip(bare_remote) == ""
    enf(shared, "sync")
    assert not_pushed_lines(push(shared, 2)) == []  # memory is there: nothing to say
