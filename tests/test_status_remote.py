"""`git enf status` says where memory stands against its remote, as last fetched."""

from __future__ import annotations

import json
from pathlib import Path

from enf_git import memory
from gitfixtures import Git, run_git, session_text


def test_status_counts_commits_ahead_and_behind_the_fetched_remote(repo_dir: Path, tmp_path: Path, git: Git,
                                                                  run_cli) -> None:  # type: ignore[no-untyped-def]
    bare = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", str(bare))
    git("remote", "add", "origin", str(bare))
    git("config", "enf.remote", "origin")
    ctx = memory.Context.open(repo_dir)
    memory.init(ctx)
    doc = json.loads(run_cli("status", "--json"))
    assert doc["remote"] == {"name": "origin", "fetched": False, "ahead": None, "behind": None}
    assert "origin has no claude-memory fetched yet" in run_cli("status")
    git("push", "-q", "origin", "claude-memory")
    git("fetch", "-q", "origin", "+refs/heads/claude-memory:refs/remotes/origin/claude-memory")
    (ctx.root / "sessions" / "2026-04-13-one.md").write_text(session_text())
    memory.commit(memory.Context.open(repo_dir), "one")
    doc = json.loads(run_cli("status", "--json"))
    assert doc["remote"] == {"name": "origin", "fetched": True, "ahead": 1, "behind": 0}
    assert "1 ahead, 0 behind origin/claude-memory (as last fetched)" in run_cli("status")


def test_status_has_no_remote_line_when_memory_is_not_shared(repo_dir: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    memory.init(memory.Context.open(repo_dir))
    assert json.loads(run_cli("status", "--json"))["remote"] is None


def test_status_counts_against_a_url_remote_kept_for_memory(repo_dir: Path, tmp_path: Path, git: Git,
                                                            run_cli) -> None:  # type: ignore[no-untyped-def]
    """A URL has no remote name: its branch is tracked under refs/remotes/enf-memory/."""
    bare = tmp_path / "memory.git"
    run_git(tmp_path, "init", "-q", "--bare", str(bare))
    ctx = memory.Context.open(repo_dir)
    memory.init(ctx)
    git("config", "enf.remote", str(bare))
    (ctx.root / "sessions" / "2026-04-13-one.md").write_text(session_text())
    assert "pushed claude-memory to" in run_cli("sync")
    doc = json.loads(run_cli("status", "--json"))
    assert doc["remote"] == {"name": str(bare), "fetched": True, "ahead": 0, "behind": 0}
    assert f"0 ahead, 0 behind {bare}/claude-memory (as last fetched)" in run_cli("status")


def test_status_names_a_memory_remote_that_is_not_there(repo_dir: Path, git: Git,
                                                        run_cli) -> None:  # type: ignore[no-untyped-def]
    memory.init(memory.Context.open(repo_dir))
    git("config", "enf.remote", "nosuch")
    out = run_cli("status")
    assert "memory remote: 'nosuch' is not a remote of this repository" in out
    assert json.loads(run_cli("status", "--json"))["remote"]["fetched"] is False
