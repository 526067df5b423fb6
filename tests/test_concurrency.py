"""Invariant 1: no lost writes, with real processes racing on one branch."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from gitfixtures import Git

WRITER = textwrap.dedent(
    """
    import sys
    from enf_git.plumbing import store, store_write
    where, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    repo = store.open_repo(where)
    for i in range(count):
        path = f"sessions/{name}-{i:03d}.md"
        store_write.commit(repo, lambda tip, p=path: {p: f"{p}\\n".encode()}, f"{name} {i}")
    """
)

MEMORY_WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from enf_git import memory
    where, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    ctx = memory.Context.open(where)
    for i in range(count):
        p = ctx.root / "sessions" / f"2026-04-13-{name}-work-{i:02d}.md"
        p.write_text(f"---\\nsession_id: {name[:4]}{i:04d}\\ndate: 2026-04-13\\nstatus: active\\ntags: [{name}]\\n---\\n## Intent\\nx\\n")
        memory.commit(ctx, f"{name} {i}")
    """
)


def _race(script: str, targets: list[tuple[Path, str]], count: int) -> None:
    procs = [subprocess.Popen([sys.executable, "-c", script, str(where), name, str(count)],
                              stderr=subprocess.PIPE) for where, name in targets]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err.decode()


def test_eight_processes_fifty_commits_each_all_land(repo_dir: Path, git: Git) -> None:
    _race(WRITER, [(repo_dir, f"w{n}") for n in range(8)], 50)
    files = git("ls-tree", "-r", "--name-only", "claude-memory").split()
    assert len(files) == 400
    assert int(git("rev-list", "--count", "claude-memory")) == 400
    git("fsck", "--strict")


def test_the_same_across_two_linked_worktrees(repo_dir: Path, git: Git, tmp_path: Path) -> None:
    wt = tmp_path / "wt"
    git("worktree", "add", "-q", "-b", "other", str(wt))
    _race(WRITER, [(repo_dir if n % 2 else wt, f"w{n}") for n in range(8)], 50)
    assert len(git("ls-tree", "-r", "--name-only", "claude-memory").split()) == 400
    assert int(git("rev-list", "--count", "claude-memory")) == 400


def test_sessions_committing_their_working_copies_at_once_all_land(repo_dir: Path, git: Git, tmp_path: Path) -> None:
    """Whole memory.commit (records + views) from two worktrees, four sessions each."""
    from enf_git import memory

    memory.init(memory.Context.open(repo_dir))
    wt = tmp_path / "wt"
    git("worktree", "add", "-q", "-b", "other", str(wt))
    memory.init(memory.Context.open(wt))
    _race(MEMORY_WRITER, [(repo_dir if n % 2 else wt, f"s{n}") for n in range(4)], 5)
    sessions = [f for f in git("ls-tree", "-r", "--name-only", "claude-memory").split() if f.startswith("sessions/")]
    assert len(sessions) == 20
    index = git("show", "claude-memory:index.md")
    assert "20 sessions" in index and all(f"({f})" in index for f in sessions)
    topics = git("show", "claude-memory:topics.md")
    assert all(f"## s{n}" in topics for n in range(4))
