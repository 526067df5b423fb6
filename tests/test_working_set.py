"""The working set: the working copy holds the newest sessions, the branch holds them all.

Every commit checks each working-copy file for edits, so the working copy holds the
newest `enf.workingSet` sessions (default 500) and every view and decision record;
older sessions stay on the branch. Nothing here may ever delete a session from the
branch or drop a local edit.
"""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest
from gitfixtures import Git, run_git, session_text

from enf_git import memory
from enf_git.memory import workspace


def fresh(ctx: memory.Context) -> memory.Context:
    """The context as the next command would open it: settings read again (tests
    change git config between calls on the same context)."""
    ctx.settings = memory.Settings.read(ctx.repo)
    return ctx

DATES = [f"2026-04-{d:02d}" for d in range(10, 16)]  # six sessions, oldest first


def session(date: str) -> str:
    return f"sessions/{date}-work.md"


@pytest.fixture
def ctx(repo_dir: Path, git: Git) -> memory.Context:
    """Six sessions committed on the branch from a working copy that holds them all."""
    git("config", memory.WORKING_SET_KEY, "3")
    c = memory.Context.open(repo_dir)
    memory.init(c)
    for i, date in enumerate(DATES):
        write(c, session(date), session_text(session_id=f"a1b2c3d{i}", date=date, summary=f"Work {i}"))
    assert memory.commit(c, "six sessions").commit is not None
    return c


def write(ctx: memory.Context, rel: str, text: str) -> None:
    path = ctx.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def local_sessions(ctx: memory.Context) -> list[str]:
    return sorted(f"sessions/{p.name}" for p in (ctx.root / "sessions").glob("*.md"))


def branch_files(git: Git) -> list[str]:
    return git("ls-tree", "-r", "--name-only", "claude-memory").split()


def worktree(repo_dir: Path, tmp_path: Path) -> memory.Context:
    wt = tmp_path / "wt"
    run_git(repo_dir, "worktree", "add", "-q", "--detach", str(wt))
    c = memory.Context.open(wt)
    memory.init(c)
    return c


def test_a_fresh_working_copy_holds_the_newest_sessions_and_every_view(
        ctx: memory.Context, repo_dir: Path, tmp_path: Path, git: Git) -> None:
    other = worktree(repo_dir, tmp_path)
    assert local_sessions(other) == [session(d) for d in DATES[-3:]]
    for view in ("index.md", "index.md", "topics.md", "decisions.md", "log.md", "meta.json"):
        assert (other.root / view).read_bytes() == git("show", f"claude-memory:{view}").encode()
    assert all(session(d) in branch_files(git) for d in DATES)


def test_sessions_outside_the_working_set_are_never_deleted_from_the_branch(
        ctx: memory.Context, repo_dir: Path, tmp_path: Path, git: Git) -> None:
    other = worktree(repo_dir, tmp_path)
    newest = session(DATES[-1])
    write(other, newest, session_text(session_id="a1b2c3d5", date=DATES[-1], summary="Edited in the worktree"))
    report = memory.commit(fresh(other), "edit")
    assert report.commit is not None
    assert session(DATES[-1]) in report.commit.paths
    assert not any(session(d) in report.commit.paths for d in DATES[:-1])
    assert all(session(d) in branch_files(git) for d in DATES)
    git("fsck", "--strict")


def test_init_evicts_unedited_sessions_that_fell_out_and_keeps_edited_ones(ctx: memory.Context, git: Git) -> None:
    assert len(local_sessions(ctx)) == 6  # created here: all local until the working set is recomputed
    oldest, second = session(DATES[0]), session(DATES[1])
    write(ctx, second, session_text(session_id="a1b2c3d1", date=DATES[1], summary="Late edit, not committed"))
    memory.init(fresh(ctx))  # what SessionStart runs
    assert local_sessions(ctx) == sorted([second] + [session(d) for d in DATES[-3:]])
    assert not (ctx.root / oldest).exists()
    report = memory.commit(fresh(ctx), "the edit lands")
    assert report.commit is not None and second in report.commit.paths
    assert [p for p in report.commit.paths if not p.startswith(".derived/")][0:1] == ["index.md"]  # records index aside
    assert "Late edit, not committed" in git("show", f"claude-memory:{second}")
    assert oldest in branch_files(git)  # evicted from the working copy, never from the branch
    assert memory.pending(ctx).empty


def test_new_sessions_from_other_writers_arrive_and_old_ones_stay_on_the_branch(
        ctx: memory.Context, repo_dir: Path, tmp_path: Path, git: Git) -> None:
    other = worktree(repo_dir, tmp_path)
    memory.init(fresh(ctx))  # ctx now holds the newest three too
    newer = "sessions/2026-04-20-more.md"
    write(other, newer, session_text(session_id="b1b2c3d4", date="2026-04-20", summary="From the worktree"))
    assert memory.commit(fresh(other), "new").commit is not None
    memory.materialize(fresh(ctx))
    assert (ctx.root / newer).is_file()  # newer than the working set's floor: arrives
    assert local_sessions(ctx) == [session(d) for d in DATES[-3:]] + [newer]


def test_writing_a_session_that_only_the_branch_holds_keeps_both_versions(
        ctx: memory.Context, repo_dir: Path, tmp_path: Path, git: Git) -> None:
    """Not materialized here, so a file written at its path has no merge base: a conflict."""
    other = worktree(repo_dir, tmp_path)
    old = session(DATES[0])
    write(other, old, session_text(session_id="a1b2c3d0", date=DATES[0], summary="Written blind"))
    report = memory.commit(fresh(other), "blind write")
    assert [path for path, _ in report.conflicts] == [old]
    saved = report.conflicts[0][1]
    assert "Written blind" in git("show", f"claude-memory:{saved}")
    assert "Work 0" in git("show", f"claude-memory:{old}")
    assert "Work 0" in (other.root / old).read_text()  # the branch's version, now held here


def test_a_session_held_locally_follows_the_branch_even_below_the_floor(
        ctx: memory.Context, repo_dir: Path, tmp_path: Path, git: Git) -> None:
    git("config", memory.WORKING_SET_KEY, "all")
    other = worktree(repo_dir, tmp_path)  # holds all six
    git("config", memory.WORKING_SET_KEY, "3")
    old = session(DATES[0])
    write(ctx, old, session_text(session_id="a1b2c3d0", date=DATES[0], summary="Edited here"))
    memory.init(fresh(ctx))  # the floor moves past it, but the local edit keeps it here
    assert memory.commit(fresh(ctx)).commit is not None and (ctx.root / old).is_file()
    memory.materialize(fresh(other))
    write(other, old, session_text(session_id="a1b2c3d0", date=DATES[0], summary="Revised elsewhere"))
    assert memory.commit(fresh(other), "revise").conflicts == []
    memory.materialize(fresh(ctx))
    assert "Revised elsewhere" in (ctx.root / old).read_text()


def test_a_first_materialization_lists_no_session_outside_the_set_but_those_held_here(
        ctx: memory.Context, repo_dir: Path, tmp_path: Path, git: Git, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh clone's init reads the newest months, not every session of the branch; an
    old session already in the folder still follows the branch."""
    from enf_git.plumbing import store

    wt = tmp_path / "wt"
    run_git(repo_dir, "worktree", "add", "-q", "--detach", str(wt))
    other = memory.Context.open(wt)
    old = session(DATES[0])
    write(other, old, git("show", f"claude-memory:{old}"))  # put back by hand before the first init

    def listed(*args: object) -> dict[str, str]:
        raise AssertionError("listed every file of the branch")

    monkeypatch.setattr(store, "list_files", listed)
    memory.init(other)
    monkeypatch.undo()
    assert local_sessions(other) == sorted([old, *(session(d) for d in DATES[-3:])])
    for view in ("index.md", "topics.md", "decisions.md", "log.md", "meta.json"):
        assert (other.root / view).read_bytes() == git("show", f"claude-memory:{view}").encode()
    write(ctx, old, session_text(session_id="a1b2c3d0", date=DATES[0], summary="Revised on the branch"))
    assert memory.commit(fresh(ctx), "revise").commit is not None
    memory.materialize(fresh(other))
    assert "Revised on the branch" in (other.root / old).read_text()


def test_all_holds_every_session(ctx: memory.Context, repo_dir: Path, tmp_path: Path, git: Git) -> None:
    git("config", memory.WORKING_SET_KEY, "all")
    other = worktree(repo_dir, tmp_path)
    assert local_sessions(other) == [session(d) for d in DATES]


@pytest.mark.parametrize(("value", "size"), [("all", None), ("0", None), ("12", 12), (" 7 ", 7),
                                             ("lots", memory.WORKING_SET_DEFAULT), ("-3", memory.WORKING_SET_DEFAULT)])
def test_working_set_size_from_git_config(repo_dir: Path, git: Git, value: str, size: int | None) -> None:
    git("config", memory.WORKING_SET_KEY, value)
    assert memory.Settings.read(pygit2.Repository(str(repo_dir))).working_set == size


def test_working_set_size_defaults_to_500(repo_dir: Path) -> None:
    assert memory.Settings.read(pygit2.Repository(str(repo_dir))).working_set == 500


def test_show_and_status_cover_sessions_outside_the_working_set(
        ctx: memory.Context, repo_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from enf_git.cli.app import main

    other = worktree(repo_dir, tmp_path)
    monkeypatch.chdir(other.root.parent)
    runner = CliRunner()
    shown = runner.invoke(main, ["show", f"{DATES[0]}-work"], catch_exceptions=False)
    assert shown.exit_code == 0 and 'summary: "Work 0"' in shown.output
    status = runner.invoke(main, ["status"], catch_exceptions=False)
    assert f"working set: sessions from {DATES[-3]}-work on; older ones are on the branch" in status.output
    assert "nothing to commit" in status.output


def test_a_larger_working_set_brings_the_sessions_in_at_the_next_init(
        ctx: memory.Context, repo_dir: Path, tmp_path: Path, git: Git) -> None:
    other = worktree(repo_dir, tmp_path)
    assert len(local_sessions(other)) == 3
    git("config", memory.WORKING_SET_KEY, "5")
    memory.init(fresh(other))
    assert local_sessions(other) == [session(d) for d in DATES[1:]]
    git("config", memory.WORKING_SET_KEY, "all")
    memory.init(fresh(other))
    assert local_sessions(other) == [session(d) for d in DATES]
    assert memory.pending(other).empty
    git("config", memory.WORKING_SET_KEY, "2")
    memory.init(fresh(other))
    assert local_sessions(other) == [session(d) for d in DATES[-2:]]
    assert memory.commit(fresh(other)).commit is None  # evictions are never committed as deletions


def test_a_new_session_older_than_the_floor_is_committed_and_then_held(
        ctx: memory.Context, repo_dir: Path, tmp_path: Path, git: Git) -> None:
    other = worktree(repo_dir, tmp_path)
    backfill = "sessions/2026-04-01-backfill.md"
    write(other, backfill, session_text(session_id="c1b2c3d4", date="2026-04-01", summary="Backfilled"))
    report = memory.commit(fresh(other), "backfill")
    assert report.commit is not None and backfill in report.commit.paths
    assert memory.pending(other).empty  # recorded as held: not "changed" forever
    assert (other.root / backfill).is_file()


def test_init_never_undoes_a_deletion_that_is_not_committed_yet(ctx: memory.Context, git: Git) -> None:
    memory.init(fresh(ctx))  # holds the newest three
    doomed = session(DATES[-1])
    (ctx.root / doomed).unlink()
    memory.init(fresh(ctx))  # SessionStart runs this before its commit
    assert not (ctx.root / doomed).exists()
    report = memory.commit(fresh(ctx), "the deletion lands")
    assert report.commit is not None and doomed in report.commit.paths
    assert doomed not in branch_files(git)


def test_a_deleted_session_that_falls_out_of_the_set_is_still_deleted(ctx: memory.Context, git: Git) -> None:
    memory.init(fresh(ctx))
    doomed = session(DATES[-3])  # the oldest held
    (ctx.root / doomed).unlink()
    git("config", memory.WORKING_SET_KEY, "2")
    memory.init(fresh(ctx))
    report = memory.commit(fresh(ctx), "the deletion lands")
    assert report.commit is not None and doomed in report.commit.paths
    assert doomed not in branch_files(git)
    assert all(session(d) in branch_files(git) for d in DATES[:-3] + DATES[-2:])


INIT_IN_ANOTHER_PROCESS = """
import sys
from pathlib import Path
from enf_git import memory
memory.init(memory.Context.open(sys.argv[1]))
Path(sys.argv[2]).write_text("done")
"""


def test_a_prune_waits_for_a_commit_in_flight(ctx: memory.Context, repo_dir: Path, tmp_path: Path,
                                              git: Git, monkeypatch: pytest.MonkeyPatch) -> None:
    """SessionStart's init in another process (after /clear, SessionEnd's background commit
    may still run) must not remove files under a commit that has scanned them."""
    import subprocess
    import sys
    import time

    from enf_git.plumbing import store_write

    write(ctx, session(DATES[-1]), session_text(session_id="a1b2c3d5", date=DATES[-1], summary="Stop edit"))
    marker = tmp_path / "init-done"
    real = store_write.commit
    proc: list[subprocess.Popen[bytes]] = []

    def commit_while_another_process_inits(*args: object, **kwargs: object) -> object:
        proc.append(subprocess.Popen([sys.executable, "-c", INIT_IN_ANOTHER_PROCESS, str(repo_dir), str(marker)]))
        deadline = time.monotonic() + 3.0
        while time.monotonic() < deadline and not marker.exists():
            time.sleep(0.05)  # without the worktree lock the prune lands right here
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(store_write, "commit", commit_while_another_process_inits)
    memory.commit(fresh(ctx), "commit in flight")
    monkeypatch.setattr(store_write, "commit", real)
    assert proc[0].wait(timeout=60) == 0 and marker.exists()
    memory.commit(fresh(ctx), "next Stop")
    assert all(session(d) in branch_files(git) for d in DATES)


HOLD_LOCK = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.read()
"""


def test_init_does_not_prune_without_the_lock(ctx: memory.Context, monkeypatch: pytest.MonkeyPatch) -> None:
    """A holder that seems stuck: init skips the refresh (and says so) rather than prune unlocked."""
    import subprocess
    import sys

    monkeypatch.setattr(workspace, "WORKTREE_LOCK_WAIT", 0.2)
    lock = ctx.manifest_path.with_name("manifest.lock")
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(lock)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        report = memory.init(fresh(ctx))
        assert any("working copy is busy" in w for w in report.warnings)
        assert len(local_sessions(ctx)) == 6  # nothing evicted
    finally:
        holder.communicate("")
    assert not any("busy" in w for w in memory.init(fresh(ctx)).warnings)
    assert len(local_sessions(ctx)) == 3
