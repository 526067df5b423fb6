"""A `.git` (or `.git/enf`) that the user may not write: one line naming the path.

A `sudo git …` once, or a checkout on a read-only mount, leaves the repository's
folders owned by someone else. Every command that must write says which path refused
and how to give it back (exit 1, no traceback); the read commands that can answer
without writing still answer: status, recall (from an index built in memory), log,
show, memories, compress --dry-run, and doctor, which names the folder as an error.

The tests run the real console script. As root, file modes stop nothing, so the
command runs with the capabilities that override them dropped (setpriv); as any
other user, the modes alone are enough.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gitfixtures import session_text

GIT_ENF = str(Path(sys.executable).with_name("git-enf"))
# Without these, root writes wherever it likes: reading and writing past file modes, and chmod.
NO_OVERRIDE = ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner", "--"]


def _denying_prefix(tmp_path: Path) -> list[str]:
    """What to put before a command so that file modes bind it; skips when nothing can."""
    prefix: list[str] = []
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: no way to make a folder unwritable to the command")
        prefix = NO_OVERRIDE
    probe = tmp_path / "probe"
    probe.mkdir()
    probe.chmod(0o555)
    try:
        proc = subprocess.run([*prefix, sys.executable, "-c", f"open({str(probe / 'x')!r}, 'w')"],
                              capture_output=True, text=True)
    finally:
        probe.chmod(0o755)
    if proc.returncode == 0 or "PermissionError" not in proc.stderr:
        pytest.skip(f"a read-only folder is still writable to a child here ({proc.stderr.strip()[-200:]})")
    return prefix


def _chmod_tree(top: Path, writable: bool) -> None:
    for folder, dirs, files in os.walk(top):
        for name in [*dirs, *files]:
            _chmod(Path(folder) / name, writable)
    _chmod(top, writable)


def _chmod(path: Path, writable: bool) -> None:
    if path.is_symlink():
        return
    mode = path.stat().st_mode
    path.chmod(mode | stat.S_IWUSR if writable else mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


Enf = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def enf(run_cli: Callable[..., str], repo_dir: Path, tmp_path: Path) -> Iterator[Enf]:
    """An initialized repository with one session and one fact; `enf(*args)` runs the
    console script in it without the right to write what the modes forbid."""
    prefix = _denying_prefix(tmp_path)
    run_cli("init")
    (repo_dir / ".claude-sessions" / "sessions" / "2026-04-13-a1b2c3d4.md").write_text(
        session_text(body="Moved the search index to Postgres full-text search.\n"))
    run_cli("commit", "-m", "first")
    run_cli("remember", "we indent with tabs")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*prefix, GIT_ENF, *args], cwd=repo_dir, capture_output=True, text=True)

    yield run
    _chmod_tree(repo_dir / ".git", writable=True)  # tmp_path's cleanup must be able to remove it


def _refused(proc: subprocess.CompletedProcess[str], path: Path) -> None:
    """Exit 1, no traceback, `error: cannot write PATH…` naming a path in `path`, and a hint."""
    assert proc.returncode == 1, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 2, proc.stderr
    assert lines[0].startswith(f"error: cannot write {path}") or lines[0].startswith("error: could not write"), lines
    assert str(path) in lines[0], lines
    assert lines[1] == f"hint: make {path} writable by you again (ls -ld {path} shows its owner; git enf writes its state there)"


@pytest.mark.parametrize("folder", [".git", ".git/enf"])
def test_commands_that_must_write_name_the_path_and_exit_1(enf: Enf, repo_dir: Path, folder: str) -> None:
    session = repo_dir / ".claude-sessions" / "sessions" / "2026-04-13-a1b2c3d4.md"
    session.write_text(session.read_text() + "\n## Decisions Taken\n- one more note\n")
    _chmod_tree(repo_dir / folder, writable=False)
    state = repo_dir / ".git" / "enf"
    for args in (["commit"], ["commit", "-m", "by the fast path"], ["remember", "we deploy on Fridays"],
                 ["compress"], ["pin", "--force", "2026-04-13-a1b2c3d4"], ["restore"], ["forget", "--yes", "tabs"]):
        _refused(enf(*args), state)


def test_read_commands_still_answer(enf: Enf, repo_dir: Path) -> None:
    _chmod_tree(repo_dir / ".git", writable=False)
    status = enf("status")
    assert status.returncode == 0 and status.stdout.startswith("branch claude-memory at "), status.stderr
    assert enf("recall", "postgres").stdout.splitlines()[0] == "session  2026-04-13  sessions/2026-04-13-a1b2c3d4.md"
    assert '"sessions/2026-04-13-a1b2c3d4.md"' in enf("recall", "--json", "postgres").stdout
    assert enf("log", "--oneline").stdout == "2026-04-13-a1b2c3d4  completed  Added search  [search, api]\n"
    assert "Postgres full-text search" in enf("show", "2026-04-13-a1b2c3d4").stdout
    assert "we indent with tabs" in enf("memories").stdout
    dry = enf("compress", "--dry-run")  # writes nothing, so it needs no lock either
    assert dry.returncode == 0 and dry.stdout.startswith("nothing to compress as of "), dry.stderr
    assert not (repo_dir / ".git" / "enf" / "search.db").exists()  # nothing was written


def test_doctor_names_each_unwritable_folder(enf: Enf, repo_dir: Path) -> None:
    git_dir = repo_dir / ".git"
    _chmod_tree(git_dir, writable=False)
    proc = enf("doctor")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    problem = [line for line in proc.stdout.splitlines() if "not writable" in line]
    assert problem == [f"error: {git_dir / 'enf'}, {git_dir / 'objects'}, {git_dir / 'refs' / 'heads'} are not "
                       "writable by you: commit, remember, compress, pin and restore fail, and recall rebuilds its "
                       "index at every call"], proc.stdout
    _chmod_tree(git_dir, writable=True)
    assert "not writable" not in enf("doctor").stdout


def test_objects_owned_by_another_user_are_named_not_called_damage(enf: Enf, repo_dir: Path) -> None:
    """libgit2's refusal to write an object: its words, and the folder to give back, not fsck."""
    objects = repo_dir / ".git" / "objects"
    _chmod_tree(objects, writable=False)
    proc = enf("remember", "we deploy on Fridays")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "Permission denied" in proc.stderr and "fsck" not in proc.stderr, proc.stderr
    assert proc.stderr.splitlines()[-1].startswith(f"hint: make {objects} writable by you again")


def test_fetched_memory_a_read_cannot_merge_is_one_line_with_the_fix(enf: Enf, repo_dir: Path) -> None:
    """A teammate's memory fetched into a repository the user may not write: the read still
    answers, and says in one line why the merge waits and what lets it happen (a sync
    would be refused too, so it is not what to type)."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=repo_dir, capture_output=True, text=True, check=True).stdout.strip()

    tip = git("rev-parse", "claude-memory")
    theirs = git("commit-tree", "-p", tip, "-m", "a teammate's session", f"{tip}^{{tree}}")
    git("remote", "add", "origin", str(repo_dir.parent / "nowhere.git"))
    git("config", "enf.remote", "origin")
    git("update-ref", "refs/remotes/origin/claude-memory", theirs)
    state = repo_dir / ".git" / "enf"
    _chmod_tree(repo_dir / ".git", writable=False)
    proc = enf("log", "--oneline")
    assert proc.returncode == 0 and "Added search" in proc.stdout, proc.stderr
    assert proc.stderr.splitlines() == [
        f"origin's fetched memory ({theirs[:12]}) is not merged yet (cannot write {state / 'write.lock'}: "
        f"permission denied): make {state} writable by you again, then any git enf command merges it"]
    _chmod_tree(repo_dir / ".git", writable=True)
    again = enf("log", "--oneline")
    assert "fast-forwarded to origin's memory" in again.stderr and git("rev-parse", "claude-memory") == theirs


def test_a_merge_of_fetched_memory_refused_by_objects_names_that_folder(enf: Enf, repo_dir: Path) -> None:
    """A real merge (both sides moved) must write objects: refused, it names the folder, not fsck."""
    def git(*args: str, **env: str) -> str:
        return subprocess.run(["git", *args], cwd=repo_dir, capture_output=True, text=True, check=True,
                              env={**os.environ, **env}).stdout.strip()

    tip = git("rev-parse", "claude-memory")
    index = {"GIT_INDEX_FILE": str(repo_dir.parent / "theirs.index")}
    git("read-tree", tip, **index)
    blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=repo_dir, input=session_text(
        session_id="b0b0b0b0", summary="A teammate's session"), capture_output=True, text=True, check=True).stdout.strip()
    git("update-index", "--add", "--cacheinfo", f"100644,{blob},sessions/2026-04-14-b0b0b0b0.md", **index)
    theirs = git("commit-tree", "-p", tip, "-m", "a teammate's session", git("write-tree", **index))
    git("remote", "add", "origin", str(repo_dir.parent / "nowhere.git"))
    git("config", "enf.remote", "origin")
    git("update-ref", "refs/remotes/origin/claude-memory", theirs)
    (repo_dir / ".claude-sessions" / "sessions" / "2026-04-15-c0c0c0c0.md").write_text(
        session_text(session_id="c0c0c0c0", summary="My own session"))
    subprocess.run([GIT_ENF, "commit"], cwd=repo_dir, capture_output=True, check=True)
    objects = repo_dir / ".git" / "objects"
    _chmod_tree(objects, writable=False)
    proc = enf("log", "--oneline")
    assert proc.returncode == 0 and "My own session" in proc.stdout, proc.stderr
    [line] = proc.stderr.splitlines()
    assert "fsck" not in line and line.endswith(f"make {objects} writable by you again, then any git enf command merges it")
