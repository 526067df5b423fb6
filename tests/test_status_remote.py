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
