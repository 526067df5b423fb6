"""Memory commits are signed the way git signs a commit: GIT_AUTHOR_* and GIT_COMMITTER_*
first, then `git -c user.name=…`, `author.*` / `committer.*` and `user.*`, then EMAIL.
Every check compares our commit with what `git commit-tree` records under the same
environment, with the real `git enf` run as git runs it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from enf_git.plumbing import ident
from gitfixtures import run_git, session_text

BIN = str(Path(sys.executable).parent)


def _header(repo: Path, rev: str) -> tuple[str, str]:
    """(author line, committer line) of a commit, as git stored them."""
    lines = run_git(repo, "cat-file", "-p", rev).splitlines()
    return (next(x for x in lines if x.startswith("author ")), next(x for x in lines if x.startswith("committer ")))


def _git_would(repo: Path, env: dict[str, str], *config: str) -> tuple[str, str]:
    """What plain git records under `env` and `-c config`."""
    tree = run_git(repo, "write-tree").strip()
    proc = subprocess.run(["git", *sum((["-c", c] for c in config), []), "commit-tree", tree, "-m", "x"],
                          cwd=repo, env=env, capture_output=True, text=True, check=True)
    return _header(repo, proc.stdout.strip())


def _enf_commit(repo: Path, env: dict[str, str], *config: str, sid: str = "a1b2c3d4") -> tuple[str, str]:
    """`git [-c …] enf commit` of a new session, through git (so `-c` reaches us as git passes it)."""
    sessions = repo / ".claude-sessions" / "sessions"
    (sessions / f"2026-04-13-{sid}.md").write_text(session_text(sid), encoding="utf-8")
    proc = subprocess.run(["git", *sum((["-c", c] for c in config), []), "enf", "commit", "-m", "x"],
                          cwd=repo, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return _header(repo, "claude-memory")


@pytest.fixture
def inited(repo_dir: Path) -> Iterator[Path]:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    subprocess.run(["git", "enf", "init", "--no-hooks"], cwd=repo_dir, env=env, check=True, capture_output=True)
    yield repo_dir


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ident.ENV_KEYS}
    env["PATH"] = f"{BIN}{os.pathsep}{env['PATH']}"
    env.update(extra)
    return env


def test_identity_variables_sign_memory_commits_as_git_does(inited: Path) -> None:
    env = _env(GIT_AUTHOR_NAME="Ci Bot", GIT_AUTHOR_EMAIL="ci@example.com", GIT_AUTHOR_DATE="@1700000000 +0130",
               GIT_COMMITTER_NAME="Release Tool", GIT_COMMITTER_EMAIL="tool@example.com",
               GIT_COMMITTER_DATE="2026-05-01T08:30:00-07:00")
    ours = _enf_commit(inited, env)
    assert ours == _git_would(inited, env)
    assert ours[0] == "author Ci Bot <ci@example.com> 1700000000 +0130"
    assert ours[1].startswith("committer Release Tool <tool@example.com> ")


def test_command_line_config_and_role_keys_sign_as_git_does(inited: Path) -> None:
    env = _env(GIT_AUTHOR_DATE="Thu, 07 Apr 2005 22:13:13 +0200", GIT_COMMITTER_DATE="1112904793 +0200")
    config = ("user.name=Carol", "user.email=carol@example.com", "committer.email=bots@example.com")
    ours = _enf_commit(inited, env, *config)
    assert ours == _git_would(inited, env, *config)
    assert ours == ("author Carol <carol@example.com> 1112904793 +0200",
                    "committer Carol <bots@example.com> 1112904793 +0200")
    run_git(inited, "config", "author.name", "Dana")  # author.* beats user.* for the author alone
    env2 = _env(GIT_AUTHOR_DATE="@1700000000 +0000", GIT_COMMITTER_DATE="@1700000000 +0000")
    assert _enf_commit(inited, env2, sid="b2c3d4e5") == _git_would(inited, env2)
    assert _header(inited, "claude-memory")[0].startswith("author Dana <author@example.com>")


def test_names_lose_the_crud_git_strips(inited: Path) -> None:
    env = _env(GIT_AUTHOR_NAME=" <Eve>; ", GIT_AUTHOR_EMAIL=" <eve@example.com> ", GIT_AUTHOR_DATE="@1 +0000",
               GIT_COMMITTER_DATE="@1 +0000")
    ours = _enf_commit(inited, env)
    assert ours == _git_would(inited, env)
    assert ours[0] == "author Eve <eve@example.com> 1 +0000"


def test_a_remembered_fact_names_the_author_git_would(inited: Path) -> None:
    env = _env(GIT_AUTHOR_NAME="Ci Bot", GIT_AUTHOR_EMAIL="ci@example.com")
    proc = subprocess.run(["git", "enf", "remember", "the API runs on port 8443"], cwd=inited, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _header(inited, "claude-memory")[0].startswith("author Ci Bot <ci@example.com> ")
    facts = run_git(inited, "ls-tree", "-r", "--name-only", "claude-memory", "memories/")
    text = run_git(inited, "show", f"claude-memory:{facts.split()[0]}")
    assert "author: Ci Bot" in text


DATES = ["@1700000000", "1700000000 +0200", "@1700000000 -0130", "1700000000", "2026-04-13T12:00:00Z",
         "2026-04-13 12:00:00", "2026-04-13T12:00:00+02:00", "2026-04-13T12:00:00.123+0200",
         "2026-04-13T12:00", "Thu, 07 Apr 2005 22:13:13 +0200", "Mon, 3 Jul 2006 17:18:43 -0700"]


@pytest.mark.parametrize("zone", ["UTC", "Europe/Paris", "America/New_York"])
def test_dates_read_as_git_reads_them(repo_dir: Path, monkeypatch: pytest.MonkeyPatch, zone: str) -> None:
    monkeypatch.setenv("TZ", zone)
    time.tzset()
    try:
        for text in DATES:
            git_line = _git_would(repo_dir, _env(GIT_AUTHOR_DATE=text))[0]
            stamp, offset = git_line.rsplit(" ", 2)[1:]
            ours = ident.parse_date(text)
            assert ours is not None, text
            sign = "-" if ours[1] < 0 else "+"
            assert (str(ours[0]), f"{sign}{abs(ours[1]) // 60:02d}{abs(ours[1]) % 60:02d}") == (stamp, offset), text
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_a_date_in_no_documented_form_is_ignored() -> None:
    assert ident.parse_date("bogus") is None
    assert ident.parse_date("2026-13-45T99:00:00Z") is None


def test_a_merge_commit_of_teammates_memory_is_signed_as_git_would(tmp_path: Path, repo_dir: Path) -> None:
    bare = tmp_path / "origin.git"
    run_git(tmp_path, "init", "-q", "--bare", str(bare))
    run_git(repo_dir, "remote", "add", "origin", str(bare))
    run_git(repo_dir, "push", "-q", "origin", "main")
    clones = []
    for name in ("alice", "bob"):
        path = tmp_path / name
        run_git(tmp_path, "clone", "-q", str(bare), str(path))
        subprocess.run(["git", "enf", "init", "--no-hooks"], cwd=path, env=_env(), check=True, capture_output=True)
        clones.append(path)
    alice, bob = clones
    _enf_commit(alice, _env(), sid="a1a1a1a1")
    subprocess.run(["git", "enf", "sync"], cwd=alice, env=_env(), check=True, capture_output=True)
    _enf_commit(bob, _env(), sid="b2b2b2b2")
    env = _env(GIT_COMMITTER_NAME="Merge Bot", GIT_COMMITTER_EMAIL="merge@example.com",
               GIT_COMMITTER_DATE="@1700000000 +0000", GIT_AUTHOR_DATE="@1700000000 +0000")
    proc = subprocess.run(["git", "enf", "sync"], cwd=bob, env=env, capture_output=True, text=True)
    assert proc.returncode == 0 and "merged" in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    assert len(run_git(bob, "rev-list", "--parents", "-n1", "claude-memory").split()) == 3  # a merge
    assert _header(bob, "claude-memory") == _git_would(bob, env)
