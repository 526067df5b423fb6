"""The remote memory goes to is the one the code goes to: after `git remote set-url` (or a
new enf.remote), the next push or sync sends memory to the new place, and status never
reports the old place's state as this remote's. Real bare remotes, the real `git`, the
git hooks as `git enf init` installs them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from enf_git.install import githooks
from gitfixtures import run_git, session_text

GIT_ENF = str(Path(sys.executable).with_name("git-enf"))


@pytest.fixture(autouse=True)
def not_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)


def enf(cwd: Path, *args: str, code: int = 0) -> str:
    proc = subprocess.run([GIT_ENF, *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == code, proc.stdout + proc.stderr
    return proc.stdout + proc.stderr


def git_ok(cwd: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL, env={**os.environ, "ENF_GIT_PUSH_MODE": "first"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stderr


def tip(repo: Path) -> str:
    return run_git(repo, "rev-parse", "-q", "--verify", "refs/heads/claude-memory", check=False).strip()


def code_commit(repo: Path, name: str) -> None:
    (repo / name).write_text(name + "\n")
    run_git(repo, "add", name)
    run_git(repo, "commit", "-q", "-m", name)


def bare(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(path))
    return path


@pytest.fixture
def moved(tmp_path: Path, repo_dir: Path, bare_remote: Path) -> Path:
    """repo_dir shared its memory with origin; then origin's URL was changed to a new, empty
    repository that already has the code (a move to another host, as teams do it)."""
    run_git(repo_dir, "config", "enf.pushMemory", "first")  # the push's output says what memory did
    run_git(repo_dir, "push", "-q", "-u", "origin", "main")
    enf(repo_dir, "init")
    (repo_dir / ".claude-sessions" / "sessions" / "2026-04-13-moved.md").write_text(
        session_text(session_id="a1a1a1a1", summary="Before the move"))
    enf(repo_dir, "commit")
    code_commit(repo_dir, "a.txt")
    assert "memory pushed to origin" in git_ok(repo_dir, "push", "origin", "main")
    assert tip(bare_remote) == tip(repo_dir)
    assert "0 ahead, 0 behind origin/claude-memory" in enf(repo_dir, "status")
    new = bare(tmp_path, "new.git")
    run_git(repo_dir, "push", "-q", str(new), "main")  # the code moved; memory not yet
    run_git(repo_dir, "remote", "set-url", "origin", str(new))
    return new


def test_a_push_after_set_url_takes_memory_to_the_new_remote(repo_dir: Path, moved: Path) -> None:
    code_commit(repo_dir, "b.txt")
    out = git_ok(repo_dir, "push", "origin", "main")
    assert "memory pushed to origin" in out
    assert tip(moved) == tip(repo_dir)
    assert "0 ahead, 0 behind origin/claude-memory" in enf(repo_dir, "status")


def test_status_after_set_url_never_reports_the_old_remotes_state(repo_dir: Path, moved: Path) -> None:
    out = enf(repo_dir, "status")
    assert "ahead" not in out
    assert f"origin is now {moved}" in out and "the next git push or git enf sync sends memory there" in out
    assert '"moved"' in enf(repo_dir, "status", "--json")


def test_a_sync_after_set_url_takes_memory_to_the_new_remote(repo_dir: Path, moved: Path) -> None:
    enf(repo_dir, "sync")
    assert tip(moved) == tip(repo_dir)
    assert "0 ahead, 0 behind origin/claude-memory" in enf(repo_dir, "status")


def test_once_memory_is_there_a_push_of_code_starts_no_python_again(repo_dir: Path, moved: Path) -> None:
    code_commit(repo_dir, "b.txt")
    git_ok(repo_dir, "push", "origin", "main")
    pre_push = Path(run_git(repo_dir, "rev-parse", "--git-path", "hooks").strip())
    pre_push = (repo_dir / pre_push / "pre-push") if not pre_push.is_absolute() else pre_push / "pre-push"
    pre_push.write_text(githooks.render("pre-push", "/nonexistent/python"))
    code_commit(repo_dir, "c.txt")
    assert "enf-git" not in git_ok(repo_dir, "push", "origin", "main")  # the shell check ended it
    run_git(repo_dir, "remote", "set-url", "origin", str(moved.parent / "remote.git"))
    code_commit(repo_dir, "d.txt")
    assert "the pre-push step for memory failed" in git_ok(repo_dir, "push", "origin", "main")  # moved: Python


def test_a_new_memory_url_is_noticed_by_status_and_sync(tmp_path: Path, repo_dir: Path) -> None:
    first, second = bare(tmp_path, "first.git"), bare(tmp_path, "second.git")
    enf(repo_dir, "init", "--no-hooks")
    run_git(repo_dir, "config", "enf.remote", str(first))
    enf(repo_dir, "sync")
    assert f"0 ahead, 0 behind {first}/claude-memory" in enf(repo_dir, "status")
    run_git(repo_dir, "config", "enf.remote", str(second))
    out = enf(repo_dir, "status")
    assert "ahead" not in out and f"is now {second}" in out
    enf(repo_dir, "sync")
    assert tip(second) == tip(repo_dir)
    assert f"0 ahead, 0 behind {second}/claude-memory" in enf(repo_dir, "status")


def test_a_remote_without_memory_is_not_reported_from_a_stale_tracking_ref(tmp_path: Path, repo_dir: Path,
                                                                             moved: Path) -> None:
    """The new remote has no code yet: sync holds memory back (it would become the default
    branch), and the tracking ref still holds the old remote's state; status says which."""
    empty = bare(tmp_path, "empty.git")
    run_git(repo_dir, "remote", "set-url", "origin", str(empty))
    enf(repo_dir, "sync")
    assert tip(empty) == ""
    out = enf(repo_dir, "status")
    assert "origin has no claude-memory yet (as last fetched)" in out and "ahead" not in out


@pytest.mark.parametrize("config", [
    {},
    {"remote.origin.pushurl": "ssh://push.example/team.git"},
    {"url.https://mirror.example/.insteadOf": "https://code.example/"},
    {"url.ssh://push.example/.pushInsteadOf": "https://code.example/",
     "url.https://other.example/.insteadOf": "https://code.example/"},
    {"url.https://mirror.example/.insteadOf": "https://code.example/",
     "remote.origin.pushurl": "https://code.example/push.git"},
    {"url.https://short.example/.insteadOf": "https://code.", "url.https://long.example/.insteadOf": "https://code.example/"},
])
def test_the_push_url_noted_is_the_one_git_hands_the_pre_push_hook(repo_dir: Path, config: dict[str, str]) -> None:
    from enf_git.plumbing import gitcli, gitseen

    run_git(repo_dir, "remote", "add", "origin", "https://code.example/team.git")
    for key, value in config.items():
        run_git(repo_dir, "config", key, value)
    expected = run_git(repo_dir, "remote", "get-url", "--push", "origin").strip()
    assert gitseen.push_url(str(repo_dir), gitcli.Remote("origin", is_url=False)) == expected


def test_a_token_in_the_remotes_url_is_never_written_to_the_record(tmp_path: Path, repo_dir: Path) -> None:
    """A remote URL with `user:token@` (a CI job's, or a user's who pasted one): memory goes
    with the push over smart HTTP, the record of where it went keeps no token, and the next
    push of code still ends in the shell, because the shim compares the URL without it."""
    from githttp import serving

    served = tmp_path / "served"
    served.mkdir()
    bare(served, "team.git")
    run_git(served / "team.git", "config", "http.receivepack", "true")
    with serving(served) as (base, users):
        url = base.replace("http://", "http://alice:s3cret-token@") + "/team.git"
        run_git(repo_dir, "remote", "add", "origin", url)
        run_git(repo_dir, "config", "enf.pushMemory", "first")
        run_git(repo_dir, "push", "-q", "-u", "origin", "main")
        enf(repo_dir, "init")
        (repo_dir / ".claude-sessions" / "sessions" / "2026-04-13-token.md").write_text(
            session_text(session_id="a1a1a1a1", summary="Shared over HTTP"))
        enf(repo_dir, "commit")
        code_commit(repo_dir, "a.txt")
        assert "memory pushed to origin" in git_ok(repo_dir, "push", "origin", "main")
        assert tip(served / "team.git") == tip(repo_dir) and "alice" in users
        state = repo_dir / ".git" / "enf"
        leaked = [p for p in state.rglob("*") if p.is_file() and b"s3cret-token" in p.read_bytes()]
        assert leaked == []
        assert (state / "remotes" / "origin").read_text().split()[2] == base + "/team.git"
        pre_push = repo_dir / ".git" / "hooks" / "pre-push"
        pre_push.write_text(githooks.render("pre-push", "/nonexistent/python"))
        code_commit(repo_dir, "b.txt")
        assert "enf-git" not in git_ok(repo_dir, "push", "origin", "main")  # the shell check ended it
        assert "0 ahead, 0 behind origin/claude-memory" in enf(repo_dir, "status")
