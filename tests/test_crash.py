"""Crash leftovers recover by themselves; real errors surface at once.

A ref lock left by a killed writer is removed (with a warning) once it is old and
no enf writer holds the writer lock; a young one held by another program is named.
A commit killed after the branch moved but before the manifest was saved leaves a
working copy equal to a branch version: the next commit sees exactly that. Only a
lost race is retried; a corrupt object is an error with git's message. Two
processes creating or adopting the branch at once both succeed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest

from enf_git import memory
from enf_git.errors import ConcurrencyError, RepoError
from enf_git.plumbing import store, store_write
from gitfixtures import Git, run_git, session_text

GIT_ENF = str(Path(sys.executable).with_name("git-enf"))


@pytest.fixture
def ctx(repo_dir: Path) -> memory.Context:
    ctx = memory.Context.open(repo_dir)
    memory.init(ctx)
    (ctx.root / "sessions" / "2026-04-13-first.md").write_text(session_text())
    memory.commit(ctx, "first")
    return ctx


def ref_lock(repo_dir: Path, age: float) -> Path:
    lock = repo_dir / ".git" / "refs" / "heads" / "claude-memory.lock"
    lock.write_text("")
    then = time.time() - age
    os.utime(lock, (then, then))
    return lock


def test_an_old_ref_lock_left_by_a_killed_writer_is_removed_with_a_warning(ctx: memory.Context, repo_dir: Path,
                                                                            git: Git) -> None:
    lock = ref_lock(repo_dir, age=120)
    (ctx.root / "sessions" / "2026-04-14-second.md").write_text(session_text(date="2026-04-14", summary="Second"))
    proc = subprocess.run([GIT_ENF, "commit", "-m", "after a crash"], cwd=repo_dir, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert f"warning: removed {lock}, left 120 s ago by a writer that did not finish" in proc.stderr
    assert not lock.exists()
    assert git("log", "-1", "--format=%s", "claude-memory").strip() == "after a crash"


def test_a_fresh_ref_lock_is_another_programs_and_is_named(ctx: memory.Context, repo_dir: Path) -> None:
    lock = ref_lock(repo_dir, age=0)
    with pytest.raises(ConcurrencyError) as caught:
        store_write.commit(ctx.repo, lambda tip: {"x.md": b"x"}, "blocked", max_attempts=3)
    assert str(lock) in caught.value.message and "held by another program" in caught.value.message
    assert caught.value.hint == f"if no git command is running in this repository, remove it: rm {lock}"
    assert lock.exists()  # never removed while it may be live


def test_a_commit_killed_before_its_manifest_was_saved_leaves_nothing_to_import(ctx: memory.Context,
                                                                                repo_dir: Path) -> None:
    saved = ctx.manifest_path.read_bytes()
    (ctx.root / "sessions" / "2026-04-14-second.md").write_text(session_text(date="2026-04-14", summary="Second"))
    assert memory.commit(ctx, "landed").commit is not None
    ctx.manifest_path.write_bytes(saved)  # as if killed after the ref moved, before the manifest write
    report = memory.commit(memory.Context.open(repo_dir), "next")
    assert report.commit is None and report.rejected == [] and report.imported == [] and report.conflicts == []
    assert not (ctx.root / ".rejected").exists()
    assert memory.pending(memory.Context.open(repo_dir)).empty


def _corrupt(repo_dir: Path, oid: str) -> None:
    loose = repo_dir / ".git" / "objects" / oid[:2] / oid[2:]
    loose.chmod(0o644)
    loose.write_bytes(zlib.compress(b"garbage that is no object"))


def test_a_corrupt_object_is_an_error_at_once_not_retried(ctx: memory.Context, repo_dir: Path, git: Git) -> None:
    tree = git("rev-parse", "claude-memory^{tree}").strip()
    _corrupt(repo_dir, tree)
    attempts = []

    def build(tip: store.Commit | None) -> dict[str, bytes | None]:
        attempts.append(1)
        return {"x.md": b"x"}

    with pytest.raises(RepoError) as caught:
        store_write.commit(store.open_repo(repo_dir), build, "onto a corrupt tree")
    assert caught.value.message.startswith("could not write claude-memory: ")
    assert "git fsck" in (caught.value.hint or "")
    assert len(attempts) <= 1
    proc = subprocess.run([GIT_ENF, "log"], cwd=repo_dir, capture_output=True, text=True)
    assert "Traceback" not in proc.stderr


INIT = "import sys; from enf_git import memory; memory.init(memory.Context.open(sys.argv[1])); print('ok')"


def _init_at_once(repo_dir: Path, n: int = 6) -> list[subprocess.CompletedProcess[str]]:
    procs = [subprocess.Popen([sys.executable, "-c", INIT, str(repo_dir)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(n)]
    return [subprocess.CompletedProcess(p.args, p.wait(), *p.communicate()) for p in procs]


def test_processes_creating_the_branch_at_once_all_succeed(repo_dir: Path, git: Git) -> None:
    for proc in _init_at_once(repo_dir):
        assert proc.returncode == 0 and proc.stdout == "ok\n" and "Traceback" not in proc.stderr, proc.stderr
    assert len(git("rev-list", "--max-parents=0", "claude-memory").split()) == 1
    git("fsck", "--strict")


def test_processes_adopting_origins_branch_at_once_all_succeed(repo_dir: Path, tmp_path: Path, git: Git) -> None:
    memory.init(memory.Context.open(repo_dir))
    clone = tmp_path / "clone"
    run_git(tmp_path, "clone", "-q", str(repo_dir), str(clone))
    run_git(clone, "fetch", "-q", "origin", "claude-memory:refs/remotes/origin/claude-memory")
    for proc in _init_at_once(clone):
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert run_git(clone, "rev-parse", "claude-memory") == git("rev-parse", "claude-memory")
    shutil.rmtree(clone)


def test_a_config_write_waits_for_another_writers_lock(repo_dir: Path, git: Git) -> None:
    """A second process's config.lock (git's own, held for a write) makes set_config
    wait and write, instead of failing the start of a session."""
    import threading

    from enf_git.plumbing import store

    lock = repo_dir / ".git" / "config.lock"
    lock.write_text("")
    threading.Timer(0.3, lock.unlink).start()
    store.set_config(store.open_repo(str(repo_dir)), "enf.probe", "yes")
    assert git("config", "enf.probe").strip() == "yes"
