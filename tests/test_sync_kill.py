"""SIGKILL a real `git enf sync`: while its fetch or push runs, and at random moments of
a long merge. Afterwards both repositories pass `git fsck --strict`, both branches are
valid commits, no lock a dead process left blocks anything, and the next sync completes
with every record of both sides on the remote.

The fetch and the push are held open by a gate on the transport (the remote's
upload-pack command, the bare remote's pre-receive hook) that waits while a file
exists, so the kill lands inside them every time, not by luck. The merge is made long
by a big teammate branch (unrelated histories: every path is new), and killed at
delays spread over a measured sync, from a seeded random generator.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gitfixtures import run_git, session_text

GIT_ENF = str(Path(sys.executable).with_name("git-enf"))
BIG = 600  # sessions on the remote: a sync of ~1.5 s with its merge, on a 2-core machine
TRIES = 5
SEED = 20260413

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists() or os.name != "posix",
                                reason="finds the killed process's git children through /proc (Linux)")


def enf(cwd: Path, *args: str, code: int = 0) -> str:
    proc = subprocess.run([GIT_ENF, *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == code, proc.stdout + proc.stderr
    return proc.stdout + proc.stderr


def write_session(repo: Path, sid: str, summary: str, date: str) -> str:
    name = f"{date}-{summary.lower().replace(' ', '-')}.md"
    (repo / ".claude-sessions" / "sessions" / name).write_text(session_text(session_id=sid, date=date, summary=summary))
    return name


def sessions_on(repo: Path, ref: str = "claude-memory") -> set[str]:
    return set(run_git(repo, "ls-tree", "-r", "--name-only", ref, "--", "sessions").replace("sessions/", "").split())


def clone(tmp_path: Path, origin: Path, name: str) -> Path:
    path = tmp_path / name
    run_git(tmp_path, "clone", "-q", str(origin), str(path))
    run_git(path, "config", "user.name", name)
    run_git(path, "config", "user.email", f"{name}@example.com")
    enf(path, "init", "--no-hooks")
    return path


@pytest.fixture
def origin(tmp_path: Path, repo_dir: Path) -> Path:
    bare = tmp_path / "origin.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    run_git(repo_dir, "remote", "add", "origin", str(bare))
    run_git(repo_dir, "push", "-q", "origin", "main")
    return bare


# --- killing --------------------------------------------------------------------------

def children(pid: int) -> list[int]:
    """Live processes whose parent is `pid` (the git commands a sync runs)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def kill(proc: subprocess.Popen[bytes], with_children: bool) -> list[int]:
    """SIGKILL the sync; with_children: its git commands too (each leads its own process
    group), as when the machine or container goes. Returns the orphans left running."""
    kids = children(proc.pid)
    if with_children:
        for kid in kids:
            try:
                os.killpg(kid, signal.SIGKILL)
            except OSError:
                pass
    proc.kill()
    proc.wait()
    return [] if with_children else kids


def wait_gone(pids: list[int], limit: float = 60.0) -> None:
    deadline = time.monotonic() + limit
    while any(alive(p) for p in pids):
        assert time.monotonic() < deadline, f"orphaned git commands {pids} still running"
        time.sleep(0.02)


def wait_for(path: Path, limit: float = 60.0) -> None:
    deadline = time.monotonic() + limit
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.01)


def start_sync(repo: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([GIT_ENF, "sync"], cwd=repo, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


# --- what must hold after a kill ----------------------------------------------------------

def fsck(repo: Path) -> None:
    proc = subprocess.run(["git", "fsck", "--strict", "--no-dangling", "--no-progress"], cwd=repo,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "error" not in proc.stdout + proc.stderr, (repo, proc.stdout + proc.stderr)


def valid_branch(repo: Path, required: bool = True) -> None:
    out = run_git(repo, "rev-parse", "-q", "--verify", "refs/heads/claude-memory^{commit}", check=False).strip()
    if required or run_git(repo, "for-each-ref", "refs/heads/claude-memory").strip():
        assert len(out) == 40, f"claude-memory of {repo} is not a commit"
        run_git(repo, "ls-tree", "-r", "refs/heads/claude-memory")  # and its whole tree reads


def git_locks(repo: Path) -> list[Path]:
    """git's own lock files (ours are flocks, released by the kernel when a process dies)."""
    git_dir = repo if (repo / "HEAD").is_file() else repo / ".git"
    return [p for p in git_dir.rglob("*.lock") if "enf" not in p.relative_to(git_dir).parts]


def sound_and_synced(bob: Path, origin: Path, expected: set[str], context: str) -> None:
    for repo in (bob, origin):
        fsck(repo)
    valid_branch(bob)
    valid_branch(origin, required=False)
    enf(bob, "sync")  # exits 0: no lock, no half-written object stops it (git's lock files: checked below)
    assert sessions_on(origin) == sessions_on(bob) == expected, context
    assert (run_git(bob, "rev-parse", "claude-memory") == run_git(origin, "rev-parse", "claude-memory")), context
    for repo in (bob, origin):
        fsck(repo)
        assert git_locks(repo) == [], (context, git_locks(repo))
    names = {p.name for p in (bob / ".claude-sessions" / "sessions").iterdir()}
    assert expected <= names, (context, expected - names)


# --- (a) inside the fetch and the push ------------------------------------------------------

GATE = """#!/bin/sh
# Holds the transport open while {closed} exists; {started} says it got here.
touch {started}
while [ -e {closed} ]; do sleep 0.01; done
{tail}
"""


def gate(tmp_path: Path, name: str, tail: str) -> tuple[Path, Path, Path]:
    """A script that waits while its `closed` file exists; (script, started, closed)."""
    folder = tmp_path / f"gate-{name}"
    folder.mkdir()
    started, closed = folder / "started", folder / "closed"
    closed.touch()
    script = folder / "gate"
    script.write_text(GATE.format(started=started, closed=closed, tail=tail))
    script.chmod(0o755)
    return script, started, closed


def two_sides(tmp_path: Path, repo_dir: Path, origin: Path) -> tuple[Path, set[str]]:
    """Alice's memory on the remote, then Bob (who adopted it) and Alice each add one more."""
    enf(repo_dir, "init", "--no-hooks")
    first = write_session(repo_dir, "a1a1a1a1", "Alice first", "2026-04-13")
    enf(repo_dir, "sync")
    bob = clone(tmp_path, origin, "bob")
    mine = write_session(bob, "b2b2b2b2", "Bob work", "2026-04-14")
    second = write_session(repo_dir, "a3a3a3a3", "Alice second", "2026-04-15")
    enf(repo_dir, "sync")
    return bob, {first, mine, second}


@pytest.mark.parametrize("with_children", [False, True], ids=["sync-alone", "with-its-git"])
def test_killed_while_fetching(tmp_path: Path, repo_dir: Path, origin: Path, with_children: bool) -> None:
    bob, expected = two_sides(tmp_path, repo_dir, origin)
    script, started, closed = gate(tmp_path, "fetch", 'exec "$@"')
    run_git(bob, "config", "remote.origin.uploadpack", f"{script} git-upload-pack")
    proc = start_sync(bob)
    wait_for(started)
    orphans = kill(proc, with_children)
    closed.unlink()
    wait_gone(orphans)
    sound_and_synced(bob, origin, expected, f"killed while fetching, with_children={with_children}")


@pytest.mark.parametrize("with_children", [False, True], ids=["sync-alone", "with-its-git"])
def test_killed_while_pushing(tmp_path: Path, repo_dir: Path, origin: Path, with_children: bool) -> None:
    bob, expected = two_sides(tmp_path, repo_dir, origin)
    # pre-receive runs once the pack is in the remote's quarantine, before any ref moves.
    script, started, closed = gate(tmp_path, "push", "cat >/dev/null; exit 0")
    hook = origin / "hooks" / "pre-receive"
    hook.parent.mkdir(exist_ok=True)
    shutil.copy(script, hook)
    proc = start_sync(bob)
    wait_for(started)
    assert sessions_on(bob) == expected  # the merge is done and committed: only the push is open
    orphans = kill(proc, with_children)
    closed.unlink()
    wait_gone(orphans)
    sound_and_synced(bob, origin, expected, f"killed while pushing, with_children={with_children}")


@pytest.mark.parametrize("where,args", [("fetch", []), ("push", []), ("push", ["origin"])],
                         ids=["fetch", "push", "push-full-cli"])  # a named remote skips entry.py's fast path
def test_ctrl_c_says_so_in_one_line_and_leaves_nothing_behind(tmp_path: Path, repo_dir: Path, origin: Path,
                                                              where: str, args: list[str]) -> None:
    bob, expected = two_sides(tmp_path, repo_dir, origin)
    if where == "fetch":
        script, started, closed = gate(tmp_path, "fetch", 'exec "$@"')
        run_git(bob, "config", "remote.origin.uploadpack", f"{script} git-upload-pack")
    else:
        script, started, closed = gate(tmp_path, "push", "cat >/dev/null; exit 0")
        shutil.copy(script, origin / "hooks" / "pre-receive")
    proc = subprocess.Popen([GIT_ENF, "sync", *args], cwd=bob, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    wait_for(started)
    kids = children(proc.pid)
    proc.send_signal(signal.SIGINT)  # what Ctrl-C sends the sync (its git children lead their own groups)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, out + err
    assert "Traceback" not in err and "git enf sync: interrupted" in err, err
    closed.unlink()
    wait_gone(kids)  # its git commands went with it
    sound_and_synced(bob, origin, expected, f"interrupted while {where}ing")


# --- (b) anywhere in a long merge -------------------------------------------------------------

def big_divergence(tmp_path: Path, repo_dir: Path, origin: Path) -> tuple[Path, Path, set[str]]:
    """Bob set up before Alice pushed BIG sessions: his sync merges two unrelated histories.
    Returns (bob, origin) as templates to copy for each try, and every session name."""
    bob = clone(tmp_path, origin, "bob-template")
    names = {write_session(bob, f"b{i:07d}", f"Bob {i}", f"2026-03-{i + 1:02d}") for i in range(3)}
    enf(bob, "commit")
    enf(repo_dir, "init", "--no-hooks")
    for i in range(BIG):
        date = f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}"
        names.add(write_session(repo_dir, f"a{i:07d}", f"Alice {i}", date))
    enf(repo_dir, "commit")
    enf(repo_dir, "sync")
    return bob, origin, names


def fresh_copy(tmp_path: Path, bob: Path, origin: Path, label: str) -> tuple[Path, Path]:
    there = tmp_path / f"origin-{label}.git"
    shutil.copytree(origin, there, symlinks=True)
    here = tmp_path / f"bob-{label}"
    shutil.copytree(bob, here, symlinks=True)
    run_git(here, "remote", "set-url", "origin", str(there))
    return here, there


def test_killed_at_random_moments_of_a_long_merge(tmp_path: Path, repo_dir: Path, origin: Path) -> None:
    bob, template_origin, expected = big_divergence(tmp_path, repo_dir, origin)
    timed_bob, timed_origin = fresh_copy(tmp_path, bob, template_origin, "timed")
    started = time.monotonic()
    out = enf(timed_bob, "sync")
    took = time.monotonic() - started
    assert "merged" in out and sessions_on(timed_origin) == expected
    rng = random.Random(SEED)
    for n in range(TRIES):
        # one delay in each slice of the sync, so the kills spread over all of it
        delay = (n + rng.random()) * took / TRIES
        here, there = fresh_copy(tmp_path, bob, template_origin, str(n))
        proc = start_sync(here)
        time.sleep(delay)
        finished = proc.poll() is not None
        orphans = kill(proc, with_children=bool(n % 2))
        wait_gone(orphans)
        sound_and_synced(here, there, expected, f"try {n}: killed after {delay:.3f} s of {took:.3f} s "
                         f"(seed {SEED}, finished first: {finished})")


# --- (c) what a kill at the worst instant leaves: a ref's lock file --------------------------

def dead_lock(path: Path, age: float = 60.0) -> Path:
    """The lock file a process killed between taking a ref's lock and renaming it leaves."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("0" * 40 + "\n")
    then = time.time() - age
    os.utime(path, (then, then))
    return path


@pytest.mark.parametrize("ref", ["refs/heads/claude-memory", "refs/remotes/origin/claude-memory"])
def test_a_ref_lock_left_by_a_killed_sync_does_not_block_the_next(tmp_path: Path, repo_dir: Path, origin: Path,
                                                                  ref: str) -> None:
    bob, expected = two_sides(tmp_path, repo_dir, origin)
    enf(bob, "commit")  # nothing left to commit: the sync's first write is the merge's
    lock = dead_lock(bob / ".git" / f"{ref}.lock")
    enf(bob, "sync")
    assert not lock.exists()
    sound_and_synced(bob, origin, expected, f"a dead process's {ref}.lock")


def test_a_fresh_ref_lock_is_left_alone_and_named(tmp_path: Path, repo_dir: Path, origin: Path) -> None:
    """A lock this young may be a live git command's: never removed, and the message says
    which file to remove if nothing is running."""
    bob, _ = two_sides(tmp_path, repo_dir, origin)
    enf(bob, "commit")
    lock = dead_lock(bob / ".git" / "refs" / "remotes" / "origin" / "claude-memory.lock", age=0)
    out = enf(bob, "sync", code=1)
    assert lock.exists() and f"if no git command is running, rm {lock}, then git enf sync" in out
