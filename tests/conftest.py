"""Hermetic fixtures: no GIT_* from the outside, a scratch HOME, a fixed identity.

Every test that touches git gets real repositories in tmp_path and can check our
objects with the real `git` binary through `git(...)`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pygit2
import pytest

from gitfixtures import Git, run_git

IDENTITY = {
    "GIT_AUTHOR_NAME": "Test Author", "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "Test Author", "GIT_COMMITTER_EMAIL": "author@example.com",
    "GIT_AUTHOR_DATE": "2026-04-13T12:00:00Z", "GIT_COMMITTER_DATE": "2026-04-13T12:00:00Z",
}

@pytest.fixture(autouse=True)
def hermetic(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("home")
    for key in list(os.environ):
        if key.startswith(("GIT_", "CLAUDE", "ANTHROPIC")):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for key, value in IDENTITY.items():
        monkeypatch.setenv(key, value)
    # libgit2 resolves the global config path once per process: point it at the scratch HOME.
    for level in (pygit2.enums.ConfigLevel.GLOBAL, pygit2.enums.ConfigLevel.XDG, pygit2.enums.ConfigLevel.SYSTEM):
        pygit2.settings.search_path[level] = str(home)
    yield home


@pytest.fixture
def repo_dir(tmp_path: Path) -> Path:
    """A fresh repo with one commit on main and a local identity."""
    path = tmp_path / "project"
    path.mkdir()
    run_git(path, "init", "-q", "-b", "main")
    run_git(path, "config", "user.name", "Test Author")
    run_git(path, "config", "user.email", "author@example.com")
    (path / "README.md").write_text("hello\n")
    run_git(path, "add", "README.md")
    run_git(path, "commit", "-q", "-m", "initial")
    return path


@pytest.fixture
def git(repo_dir: Path) -> Git:
    def _git(*args: str, cwd: Path | None = None, check: bool = True) -> str:
        return run_git(cwd or repo_dir, *args, check=check)
    return _git


@pytest.fixture
def run_cli(repo_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., str]:
    """`git enf ARGS` through click's runner, in repo_dir: its output, with the exit code checked."""
    from click.testing import CliRunner

    from enf_git.cli.app import main

    monkeypatch.chdir(repo_dir)
    runner = CliRunner()

    def run(*args: str, code: int = 0) -> str:
        result = runner.invoke(main, list(args), catch_exceptions=False)
        assert result.exit_code == code, result.output
        return result.output

    return run
