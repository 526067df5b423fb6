"""A fetch that runs no merge hook (a no-op `git pull`, `git fetch`, an editor's background
fetch) still reaches every reader: the next log, show, recall, status and MCP call merge
the fetched memory first (memory/fetched.catch_up). Real clones of a real bare remote,
the real `git` and `git-enf` binaries; no git hooks installed, so nothing but the read
can merge."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from enf_git import paths
from enf_git.mcp import tools
from gitfixtures import run_git, session_text

GIT_ENF = str(Path(sys.executable).with_name("git-enf"))
TRACKING = "refs/remotes/origin/claude-memory"
ALICE = "2026-04-13-alice-zephyrine.md"


@pytest.fixture(autouse=True)
def not_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)


def enf(cwd: Path, *args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([GIT_ENF, *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == code, proc.stdout + proc.stderr
    return proc


def rev(repo: Path, ref: str) -> str:
    return run_git(repo, "rev-parse", "-q", "--verify", ref, check=False).strip()


@pytest.fixture
def team(tmp_path: Path, repo_dir: Path, bare_remote: Path) -> tuple[Path, Path]:
    """(alice, bob): both set up against origin (no git hooks), bob's reads warm."""
    run_git(repo_dir, "push", "-q", "-u", "origin", "main")
    enf(repo_dir, "init", "--no-hooks")
    enf(repo_dir, "sync")
    bob = tmp_path / "bob"
    run_git(tmp_path, "clone", "-q", str(bare_remote), str(bob))
    enf(bob, "init", "--no-hooks")
    run_git(bob, "config", "enf.autoFetch", "false")
    enf(bob, "recall", "anything")  # the recall index built at bob's tip: the warm path is taken next
    return repo_dir, bob


def alice_shares(alice: Path) -> str:
    (alice / paths.WC_DIR / "sessions" / ALICE).write_text(
        session_text(session_id="a1a1a1a1", summary="Alice tuned the zephyrine cache"))
    enf(alice, "sync")
    return rev(alice, paths.REF)


def bob_pulls(bob: Path) -> None:
    """`git pull` with no new code: "Already up to date", and no merge hook runs."""
    proc = subprocess.run(["git", "pull"], cwd=bob, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "Already up to date" in proc.stdout, proc.stdout + proc.stderr


READS = {
    "log": (("log", "--oneline"), "Alice tuned the zephyrine cache"),
    "show": (("show", ALICE.removesuffix(".md")), "Alice tuned the zephyrine cache"),
    "recall": (("recall", "zephyrine"), "alice-zephyrine"),
    "recall --json": (("recall", "--json", "zephyrine"), "alice-zephyrine"),
    "log --json": (("log", "--json"), "zephyrine"),
}


@pytest.mark.parametrize("read", sorted(READS))
def test_the_next_read_after_a_no_op_pull_sees_the_teammates_memory(team: tuple[Path, Path], read: str) -> None:
    alice, bob = team
    shared = alice_shares(alice)
    bob_pulls(bob)
    assert rev(bob, TRACKING) == shared and rev(bob, paths.REF) != shared  # fetched, not merged
    args, expected = READS[read]
    proc = enf(bob, *args)
    assert expected in proc.stdout
    assert "claude-memory fast-forwarded to origin's memory" in proc.stderr  # said, where json is not read
    assert rev(bob, paths.REF) == shared
    assert (bob / paths.WC_DIR / "sessions" / ALICE).is_file()  # the working copy has it too
    again = enf(bob, *args)
    assert expected in again.stdout and again.stderr == ""  # merged once, said once


def test_a_plain_fetch_is_merged_into_bobs_own_new_memory(team: tuple[Path, Path]) -> None:
    alice, bob = team
    shared = alice_shares(alice)
    (bob / paths.WC_DIR / "sessions" / "2026-04-13-bob-own.md").write_text(
        session_text(session_id="b0b0b0b0", summary="Bob own work"))
    enf(bob, "commit")
    run_git(bob, "fetch", "-q")
    proc = enf(bob, "log", "--oneline")
    assert "Alice tuned the zephyrine cache" in proc.stdout and "Bob own work" in proc.stdout
    assert "claude-memory merged origin's memory" in proc.stderr
    assert subprocess.run(["git", "merge-base", "--is-ancestor", shared, paths.REF], cwd=bob).returncode == 0


def test_status_after_a_fetch_merges_and_reports_nothing_behind(team: tuple[Path, Path]) -> None:
    alice, bob = team
    alice_shares(alice)
    bob_pulls(bob)
    proc = enf(bob, "status")
    assert "0 ahead, 0 behind origin/claude-memory (as last fetched)" in proc.stdout
    assert "fast-forwarded to origin's memory" in proc.stderr


def test_an_mcp_call_after_a_fetch_answers_with_the_teammates_memory(team: tuple[Path, Path]) -> None:
    alice, bob = team
    alice_shares(alice)
    run_git(bob, "fetch", "-q")
    got = tools.call("log", {}, tools.Where(bob, None, "", time.time))
    assert not got.is_error, got.text
    assert "Alice tuned the zephyrine cache" in json.loads(got.text)["sessions"][0]["summary"]


def test_nothing_fetched_costs_no_merge_and_says_nothing(team: tuple[Path, Path]) -> None:
    _, bob = team
    before = rev(bob, paths.REF)
    for _ in range(2):
        proc = enf(bob, "log")
        assert proc.stderr == ""
    assert rev(bob, paths.REF) == before


def test_status_names_fetched_memory_a_read_could_not_merge(tmp_path: Path, team: tuple[Path, Path]) -> None:
    """A partial clone's plain fetch leaves memory's blobs on the server: no read merges
    that (it would need the network); status says so, and what merges it."""
    alice, _ = team
    origin = tmp_path / "remote.git"
    run_git(origin, "config", "uploadpack.allowFilter", "true")
    carol = tmp_path / "carol"
    run_git(tmp_path, "clone", "-q", "--filter=blob:none", f"file://{origin}", str(carol))
    enf(carol, "init", "--no-hooks")
    run_git(carol, "config", "enf.autoFetch", "false")
    before = rev(carol, paths.REF)
    shared = alice_shares(alice)
    run_git(carol, "fetch", "-q")  # filtered: alice's new blobs stay on the server
    assert rev(carol, TRACKING) == shared
    proc = enf(carol, "status")
    assert rev(carol, paths.REF) == before
    assert "fetched memory not merged yet: 1 commit of origin's" in proc.stdout
    assert "git enf sync merges them" in proc.stdout
    assert "not merged yet (a partial clone" in proc.stderr
    enf(carol, "sync")
    assert "Alice tuned the zephyrine cache" in enf(carol, "log", "--oneline").stdout
    assert "not merged yet" not in enf(carol, "status").stdout


def test_a_read_killed_after_its_merge_is_finished_by_the_next_read(team: tuple[Path, Path]) -> None:
    """What a read killed between its merge and the working copy's refresh leaves (the
    branch merged, the working copy old, nothing noted): the next read refreshes it."""
    from enf_git.memory.share import fetched
    from enf_git.memory.workspace import Context

    alice, bob = team
    shared = alice_shares(alice)
    bob_pulls(bob)
    assert fetched.merge_fetched(Context.open(bob)) is not None  # merged in-process, then "killed"
    assert rev(bob, paths.REF) == shared
    assert not (bob / paths.WC_DIR / "sessions" / ALICE).exists()
    enf(bob, "log", "--oneline")
    assert (bob / paths.WC_DIR / "sessions" / ALICE).is_file()
    assert enf(bob, "log").stderr == ""  # and noted now: the read after that has nothing to do


def test_a_merge_that_was_not_made_is_not_noted_as_seen(team: tuple[Path, Path]) -> None:
    """The note says what the branch holds: a fetched tip the branch does not contain is
    never noted, whoever tries (a hook, SessionStart), so the next read still merges it."""
    from enf_git.memory.share import fetched
    from enf_git.memory.workspace import Context

    alice, bob = team
    alice_shares(alice)
    bob_pulls(bob)
    ctx = Context.open(bob)
    note = bob / ".git" / "enf" / paths.FETCHED_SEEN
    before = note.read_text()
    fetched.note_seen(ctx, fetched.seen_now(ctx))
    assert note.read_text() == before and rev(bob, TRACKING) not in before
    assert "claude-memory fast-forwarded to origin's memory" in enf(bob, "log").stderr
