"""SessionStart and teammates' memory: it merges what git already fetched, and starts a
detached fetch of the memory branch that never delays the session (real processes,
a real bare remote, the real `git` binary)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from enf_git import paths
from enf_git.memory.share import fetched
from enf_git.memory.workspace import Context
from gitfixtures import run_git, session_text

GIT_ENF = str(Path(sys.executable).with_name("git-enf"))
TRACKING = "refs/remotes/origin/claude-memory"
ALICE_FILE = "2026-04-13-alice-work.md"


@pytest.fixture(autouse=True)
def not_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)


def enf(cwd: Path, *args: str) -> str:
    proc = subprocess.run([GIT_ENF, *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def session_start(project: Path) -> dict[str, object]:
    payload = json.dumps({"session_id": "b0b0b0b0-1111", "cwd": str(project), "hook_event_name": "SessionStart",
                          "source": "startup"})
    proc = subprocess.run([sys.executable, "-c", paths.LAUNCH, "SessionStart"], input=payload, capture_output=True,
                          text=True, cwd=project, timeout=60)
    assert proc.returncode == 0, proc.stderr
    reply: dict[str, object] = json.loads(proc.stdout)
    return reply


def rev(repo: Path, ref: str) -> str:
    return run_git(repo, "rev-parse", "-q", "--verify", ref, check=False).strip()


def wait_for(predicate: object, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(predicate) and predicate():
            return True
        time.sleep(0.1)
    return False


@pytest.fixture
def team(tmp_path: Path, repo_dir: Path, bare_remote: Path) -> tuple[Path, Path]:
    """(alice, bob): alice's repo_dir and bob's clone, both initialized against origin,
    before alice's session reaches the remote."""
    run_git(repo_dir, "push", "-q", "origin", "main")
    enf(repo_dir, "init", "--no-hooks")
    enf(repo_dir, "sync")
    bob = tmp_path / "bob"
    run_git(tmp_path, "clone", "-q", str(bare_remote), str(bob))
    enf(bob, "init", "--no-hooks")
    return repo_dir, bob


def alice_shares_a_session(alice: Path) -> str:
    (alice / paths.WC_DIR / "sessions" / ALICE_FILE).write_text(session_text(session_id="a1a1a1a1",
                                                                             summary="Alice work"))
    enf(alice, "sync")
    return rev(alice, paths.REF)


def test_session_start_merges_the_memory_git_already_fetched(team: tuple[Path, Path]) -> None:
    alice, bob = team
    shared = alice_shares_a_session(alice)
    run_git(bob, "fetch", "-q", "origin", f"+refs/heads/claude-memory:{TRACKING}")
    run_git(bob, "config", fetched.AUTO_FETCH_KEY, "false")  # only the merge of what is there
    reply = session_start(bob)
    assert (bob / paths.WC_DIR / "sessions" / ALICE_FILE).exists()
    assert subprocess.run(["git", "merge-base", "--is-ancestor", shared, paths.REF], cwd=bob).returncode == 0
    assert "Alice work" in json.dumps(reply)  # the assistant sees the teammate's session at once


def test_session_start_fetches_in_the_background_without_waiting(team: tuple[Path, Path], tmp_path: Path) -> None:
    alice, bob = team
    shared = alice_shares_a_session(alice)
    slow = tmp_path / "slow-upload-pack"
    marker = tmp_path / "fetch-started"
    slow.write_text(f"#!/bin/sh\ntouch '{marker}'\nsleep 2\nexec git-upload-pack \"$@\"\n")
    slow.chmod(0o755)
    run_git(bob, "config", "remote.origin.uploadpack", str(slow))
    before = rev(bob, TRACKING)
    session_start(bob)
    # The hook has answered; the fetch it started is still held up by the slow server.
    assert rev(bob, TRACKING) == before
    assert wait_for(lambda: rev(bob, TRACKING) == shared), "the background fetch never landed"
    assert marker.exists()
    session_start(bob)  # the next session merges what the background fetch brought
    assert (bob / paths.WC_DIR / "sessions" / ALICE_FILE).exists()


def test_one_background_fetch_per_interval(team: tuple[Path, Path]) -> None:
    _, bob = team
    ctx = Context.open(bob)
    now = time.time()
    assert fetched.start_background_fetch(ctx, os.environ, now) is True
    assert fetched.start_background_fetch(ctx, os.environ, now + 1) is False  # several sessions starting at once
    assert fetched.start_background_fetch(ctx, os.environ, now + fetched.FETCH_INTERVAL + 1) is True
    assert wait_for(lambda: not _fetch_running(bob))


@pytest.mark.parametrize(("config", "ci", "started"), [
    ({fetched.AUTO_FETCH_KEY: "false"}, "", False),
    ({}, "true", False),  # CI: off like the git hooks ...
    ({fetched.CI_KEY: "true"}, "true", True),  # ... unless enf.ci
    ({}, "", True),
])
def test_the_background_fetch_can_be_turned_off(team: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch,
                                                config: dict[str, str], ci: str, started: bool) -> None:
    _, bob = team
    for key, value in config.items():
        run_git(bob, "config", key, value)
    if ci:
        monkeypatch.setenv("CI", ci)
    ctx = Context.open(bob)
    assert fetched.start_background_fetch(ctx, os.environ) is started
    stamp = bob / ".git" / "enf" / fetched.STAMP
    assert stamp.exists() is started


def test_an_unshared_repository_never_fetches(repo_dir: Path) -> None:
    enf(repo_dir, "init", "--no-hooks")
    assert fetched.start_background_fetch(Context.open(repo_dir), os.environ) is False
    assert "hookSpecificOutput" in session_start(repo_dir)


def test_an_offline_remote_leaves_the_session_untouched(team: tuple[Path, Path], tmp_path: Path) -> None:
    _, bob = team
    run_git(bob, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    before = rev(bob, TRACKING)
    assert "hookSpecificOutput" in session_start(bob)
    assert wait_for(lambda: not _fetch_running(bob), timeout=30)
    assert rev(bob, TRACKING) == before
    assert not (bob / ".git" / "enf" / "hook-errors.log").exists() or "Traceback" not in (
        bob / ".git" / "enf" / "hook-errors.log").read_text()


def test_a_remote_that_is_not_there_never_breaks_session_start(team: tuple[Path, Path]) -> None:
    _, bob = team
    run_git(bob, "config", "enf.remote", "no-such-remote")
    assert "hookSpecificOutput" in session_start(bob)


def _fetch_running(repo: Path) -> bool:
    """Whether a background fetch of this repository is still alive (its stamp is fresh
    and a git fetch runs in it)."""
    out = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    return "background-fetch" in out and str(repo) in out and os.path.exists(repo)


def test_a_partial_clone_waits_for_blobs_instead_of_breaking_the_session(tmp_path: Path, repo_dir: Path,
                                                                        bare_remote: Path) -> None:
    """A plain `git fetch` in a `--filter=blob:none` clone brings memory's commits and trees
    but not its blobs: SessionStart must answer, merge nothing it cannot read, and merge
    once the background fetch brought them."""
    run_git(bare_remote, "config", "uploadpack.allowFilter", "true")
    run_git(repo_dir, "push", "-q", "origin", "main")
    enf(repo_dir, "init", "--no-hooks")
    enf(repo_dir, "sync")
    bob = tmp_path / "bob"
    run_git(tmp_path, "clone", "-q", "--filter=blob:none", f"file://{bare_remote}", str(bob))
    enf(bob, "init", "--no-hooks")
    shared = alice_shares_a_session(repo_dir)
    run_git(bob, "fetch", "-q", "origin")  # the default refspec, with the clone's filter
    assert "?" in run_git(bob, "rev-list", "--objects", "--missing=print", TRACKING)
    before = rev(bob, paths.REF)
    run_git(bob, "config", fetched.AUTO_FETCH_KEY, "false")
    reply = session_start(bob)
    assert "hookSpecificOutput" in reply
    assert rev(bob, paths.REF) == before  # nothing merged that could not be read
    assert not (bob / ".git" / "enf" / "hook-errors.log").exists()
    run_git(bob, "config", fetched.AUTO_FETCH_KEY, "true")
    session_start(bob)  # starts the background fetch, which fills the blobs in
    assert wait_for(lambda: "?" not in run_git(bob, "rev-list", "--objects", "--missing=print", TRACKING))
    assert wait_for(lambda: not _fetch_running(bob))
    session_start(bob)
    assert subprocess.run(["git", "merge-base", "--is-ancestor", shared, paths.REF], cwd=bob).returncode == 0
    assert (bob / paths.WC_DIR / "sessions" / ALICE_FILE).exists()
