"""A single-branch clone's git config: `git enf init` is the one command that changes it (one
fetch refspec, said when added), `git enf uninstall` takes back exactly that, and nothing
else (sync, a push, a pull, SessionStart) touches it: memory is fetched with an explicit
refspec. Real clones of a real bare remote over file://, the real `git`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from enf_git import paths
from gitfixtures import run_git, session_text

GIT_ENF = str(Path(sys.executable).with_name("git-enf"))
SPEC = "+refs/heads/claude-memory*:refs/remotes/origin/claude-memory*"


@pytest.fixture(autouse=True)
def not_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)


def enf(cwd: Path, *args: str) -> str:
    proc = subprocess.run([GIT_ENF, *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout + proc.stderr


def local_config(repo: Path) -> list[str]:
    """The repository's own config, but what git itself keeps there as it works."""
    lines = run_git(repo, "config", "--local", "--list").splitlines()
    return sorted(line for line in lines if not line.startswith("branch."))


@pytest.fixture
def origin(tmp_path: Path, repo_dir: Path, bare_remote: Path) -> Path:
    """Alice's remote, with code and memory (one session)."""
    run_git(repo_dir, "push", "-q", "origin", "main")
    enf(repo_dir, "init", "--no-hooks")
    (repo_dir / paths.WC_DIR / "sessions" / "2026-04-13-alice.md").write_text(
        session_text(session_id="a1a1a1a1", summary="Alice work"))
    enf(repo_dir, "sync")
    return bare_remote


def single_branch_clone(tmp_path: Path, origin: Path, name: str = "bob") -> Path:
    bob = tmp_path / name
    run_git(tmp_path, "clone", "-q", "--single-branch", f"file://{origin}", str(bob))
    assert run_git(bob, "config", "--get-all", "remote.origin.fetch") == "+refs/heads/main:refs/remotes/origin/main\n"
    return bob


def test_only_init_changes_the_fetch_refspecs_and_says_so(tmp_path: Path, origin: Path) -> None:
    bob = single_branch_clone(tmp_path, origin)
    out = enf(bob, "init")
    assert f"added {SPEC} to remote.origin.fetch" in out
    after_init = local_config(bob)
    enf(bob, "sync")
    run_git(bob, "pull", "-q")
    (bob / "code.txt").write_text("x\n")
    run_git(bob, "add", "code.txt")
    run_git(bob, "commit", "-q", "-m", "code")
    run_git(bob, "push", "-q", "origin", "main")
    assert local_config(bob) == after_init


def test_a_clone_set_up_by_session_start_fetches_memory_without_a_config_change(tmp_path: Path,
                                                                                origin: Path) -> None:
    bob = single_branch_clone(tmp_path, origin)
    run_git(bob, "config", "enf.remote", "origin")  # what init would elect; set by hand here
    before = local_config(bob)
    payload = json.dumps({"session_id": "b0b0b0b0-1111", "cwd": str(bob), "hook_event_name": "SessionStart",
                          "source": "startup"})
    proc = subprocess.run([sys.executable, "-c", paths.LAUNCH, "SessionStart"], input=payload, capture_output=True,
                          text=True, cwd=bob, timeout=60)
    assert proc.returncode == 0, proc.stderr
    enf(bob, "sync")  # the memory branch named on the command line: no refspec needed
    assert "Alice work" in enf(bob, "log", "--oneline")
    assert local_config(bob) == before


def test_uninstall_takes_the_refspec_back_after_enf_remote_changed(tmp_path: Path, origin: Path) -> None:
    bob = single_branch_clone(tmp_path, origin)
    before = run_git(bob, "config", "--get-all", "remote.origin.fetch")
    enf(bob, "init")
    run_git(bob, "remote", "add", "mirror", str(origin))
    run_git(bob, "config", "enf.remote", "mirror")  # memory goes elsewhere now
    out = enf(bob, "uninstall")
    assert f"removed {SPEC} from remote.origin.fetch" in out
    assert run_git(bob, "config", "--get-all", "remote.origin.fetch") == before
