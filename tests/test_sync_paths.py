"""`git enf sync` by what moved since the last sync: neither side, only this clone, only
the remote, or both; checked with the real `git` binary.

When only this clone moved, or neither, and the working copy holds nothing to commit,
the console script syncs with git alone (memory/share/sync_light.py): these tests run it
with a pygit2 that cannot be imported, so a sync that needed it would fail. Everything
else is the in-process sync's, handed the same fetch.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gitfixtures import run_git
from test_sync import GIT_ENF, clone, enf, origin, sessions_on, write  # noqa: F401 - origin is a fixture


@pytest.fixture
def no_pygit2(tmp_path: Path) -> dict[str, str]:
    """An environment in which `import pygit2` fails, loudly."""
    blocked = tmp_path / "blocked"
    (blocked / "pygit2").mkdir(parents=True)
    (blocked / "pygit2" / "__init__.py").write_text("raise ImportError('pygit2 is blocked by this test')\n")
    return {**os.environ, "PYTHONPATH": str(blocked)}


def enf_env(cwd: Path, env: dict[str, str], *args: str, code: int = 0) -> str:
    proc = subprocess.run([GIT_ENF, *args], cwd=cwd, capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == code, proc.stdout + proc.stderr
    return proc.stdout + proc.stderr


def rev(repo: Path, ref: str = "claude-memory") -> str:
    return run_git(repo, "rev-parse", ref).strip()


def test_the_blocked_pygit2_is_really_blocked(tmp_path: Path, no_pygit2: dict[str, str]) -> None:
    proc = subprocess.run([sys.executable, "-c", "import pygit2"], env=no_pygit2, capture_output=True, text=True)
    assert proc.returncode == 1 and "blocked by this test" in proc.stderr


def test_neither_side_moved_changes_nothing_without_pygit2(tmp_path: Path, origin: Path,
                                                           no_pygit2: dict[str, str]) -> None:
    a = clone(tmp_path, origin, "alice")
    write(a, "2026-04-13", "a1a1a1a1", "Alice work")
    enf(a, "sync")
    tip, there, tracking = rev(a), rev(origin), rev(a, "refs/remotes/origin/claude-memory")
    assert enf_env(a, no_pygit2, "sync").splitlines() == ["origin has all of memory"]
    doc = json.loads(enf_env(a, no_pygit2, "sync", "--json"))
    assert doc["ok"] and doc["merged"] == ["up-to-date"] and doc["pushed"] is None and doc["rounds"] == 1
    assert doc["fetched"] == "up-to-date" and doc["messages"] == ["origin has all of memory"]
    assert (rev(a), rev(origin), rev(a, "refs/remotes/origin/claude-memory")) == (tip, there, tracking)


def test_only_this_clone_moved_pushes_without_pygit2(tmp_path: Path, origin: Path, no_pygit2: dict[str, str]) -> None:
    a = clone(tmp_path, origin, "alice")
    write(a, "2026-04-13", "a1a1a1a1", "Alice work")
    enf(a, "sync")
    before = rev(origin)
    write(a, "2026-04-14", "a2a2a2a2", "More work")
    enf(a, "commit")  # as the Stop hook does: the sync finds the working copy committed
    out = enf_env(a, no_pygit2, "sync")
    assert out.splitlines() == ["pushed claude-memory to origin"]
    assert rev(origin) == rev(a) == rev(a, "refs/remotes/origin/claude-memory")
    assert run_git(origin, "rev-parse", f"{rev(origin)}~1").strip() == before  # a fast-forward, nothing forced
    assert sessions_on(origin) == ["2026-04-13-alice-work.md", "2026-04-14-more-work.md"]
    run_git(origin, "fsck", "--strict")


def test_only_this_clone_moved_reports_a_refused_push_once(tmp_path: Path, origin: Path,
                                                           no_pygit2: dict[str, str]) -> None:
    a = clone(tmp_path, origin, "alice")
    write(a, "2026-04-13", "a1a1a1a1", "Alice work")
    enf(a, "sync")
    hook = origin / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'memory is read-only here' >&2\nexit 1\n")
    hook.chmod(0o755)
    write(a, "2026-04-14", "a2a2a2a2", "More work")
    enf(a, "commit")
    out = enf_env(a, no_pygit2, "sync", code=1)
    assert out.count("you may not push to claude-memory on origin") == 1
    assert "the server said: memory is read-only here" in out and "memory stays committed locally" in out
    assert rev(origin) != rev(a)


def test_a_change_in_the_working_copy_is_committed_before_the_push(tmp_path: Path, origin: Path) -> None:
    """Nothing moved on either branch, but a session was written and another deleted:
    the sync commits both (the light path must not take the branch for all there is)."""
    a = clone(tmp_path, origin, "alice")
    write(a, "2026-04-13", "a1a1a1a1", "Alice work")
    write(a, "2026-04-12", "a0a0a0a0", "Old work")
    enf(a, "sync")
    write(a, "2026-04-14", "a2a2a2a2", "More work")
    (a / ".claude-sessions" / "sessions" / "2026-04-12-old-work.md").unlink()
    enf(a, "sync")
    assert sessions_on(origin) == ["2026-04-13-alice-work.md", "2026-04-14-more-work.md"]
    edited = a / ".claude-sessions" / "sessions" / "2026-04-13-alice-work.md"
    edited.write_text(edited.read_text().replace("Do the thing.", "Do the other thing."))
    enf(a, "sync")
    assert "Do the other thing." in run_git(origin, "show", "claude-memory:sessions/2026-04-13-alice-work.md")


def test_only_the_remote_moved_fast_forwards_and_refreshes_the_working_copy(tmp_path: Path, origin: Path) -> None:
    a, b = clone(tmp_path, origin, "alice"), clone(tmp_path, origin, "bob")
    write(a, "2026-04-13", "a1a1a1a1", "Alice work")
    enf(a, "sync")
    enf(b, "sync")
    write(a, "2026-04-14", "a2a2a2a2", "More work")
    enf(a, "sync")
    out = enf(b, "sync")
    assert f"fast-forwarded claude-memory to origin's ({rev(origin)[:12]})" in out
    assert rev(b) == rev(origin) == rev(a)
    assert (b / ".claude-sessions" / "sessions" / "2026-04-14-more-work.md").is_file()
    assert "More work" in (b / ".claude-sessions" / "index.md").read_text()
    assert enf(b, "sync").splitlines() == ["origin has all of memory"]  # and now neither moved


def test_both_moved_merges_pushes_and_refreshes(tmp_path: Path, origin: Path) -> None:
    a, b = clone(tmp_path, origin, "alice"), clone(tmp_path, origin, "bob")
    write(a, "2026-04-13", "a1a1a1a1", "Alice work")
    enf(a, "sync")
    enf(b, "sync")
    write(a, "2026-04-14", "a2a2a2a2", "Alice more")
    enf(a, "sync")
    write(b, "2026-04-15", "b1b1b1b1", "Bob work")
    enf(b, "commit")
    ours, theirs = rev(b), rev(origin)
    out = enf(b, "sync")
    assert f"merged origin's memory into claude-memory ({rev(b)[:12]})" in out and "pushed" in out
    assert rev(origin) == rev(b)
    parents = run_git(b, "rev-list", "--parents", "-n", "1", "claude-memory").split()[1:]
    assert sorted(parents) == sorted([ours, theirs])
    assert sessions_on(origin) == ["2026-04-13-alice-work.md", "2026-04-14-alice-more.md", "2026-04-15-bob-work.md"]
    index = (b / ".claude-sessions" / "index.md").read_text()  # the working copy, refreshed during the push
    assert "Alice more" in index and "Bob work" in index
    assert (b / ".claude-sessions" / "sessions" / "2026-04-14-alice-more.md").is_file()
    assert run_git(b, "show", "claude-memory:index.md") == index
    assert enf(b, "status", "--json")  # a read finds nothing left to commit or refresh
    assert enf(b, "sync").splitlines() == ["origin has all of memory"]
    run_git(origin, "fsck", "--strict")


def test_a_push_refused_because_the_remote_moved_meanwhile_merges_and_goes_again(
        tmp_path: Path, origin: Path) -> None:
    """The light path's push loses the race (a teammate's push lands between its fetch and
    its push): the full path fetches again, merges, and pushes; nothing is lost."""
    a, b = clone(tmp_path, origin, "alice"), clone(tmp_path, origin, "bob")
    write(a, "2026-04-13", "a1a1a1a1", "Alice work")
    enf(a, "sync")
    enf(b, "sync")
    write(a, "2026-04-14", "a2a2a2a2", "Alice racing")
    enf(a, "commit")
    run_git(a, "push", "-q", "origin", "claude-memory:refs/heads/racing")  # her objects on the remote, not the branch
    hook = origin / "hooks" / "pre-receive"  # the first push to the branch finds it moved under it
    hook.write_text("#!/bin/sh\n[ -f raced ] && exit 0\ntouch raced\n"
                    "env -u GIT_QUARANTINE_PATH git update-ref refs/heads/claude-memory refs/heads/racing\n")
    hook.chmod(0o755)
    write(b, "2026-04-15", "b1b1b1b1", "Bob work")
    enf(b, "commit")
    mine = rev(b)
    out = enf(b, "sync")  # the full path takes over, and imports pygit2 for the merge
    assert (origin / "raced").is_file()
    assert "merged origin's memory into claude-memory" in out and "pushed claude-memory to origin" in out
    assert "has memory you do not have yet" not in out  # the lost race is not reported: it was settled
    assert rev(origin) == rev(b)
    assert sessions_on(origin) == ["2026-04-13-alice-work.md", "2026-04-14-alice-racing.md", "2026-04-15-bob-work.md"]
    assert subprocess.run(["git", "merge-base", "--is-ancestor", mine, "claude-memory"], cwd=origin).returncode == 0
    run_git(origin, "fsck", "--strict")
