"""Hermetic fixtures: no GIT_* from the outside, a scratch HOME, a fixed identity.

Every test that touches git gets real repositories in tmp_path and can check our
objects with the real `git` binary through `git(...)`.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pygit2
import pytest

from gitfixtures import Git, run_git

# The identity lives in the scratch HOME's ~/.gitconfig, not in GIT_AUTHOR_NAME or
# GIT_COMMITTER_DATE and friends: git (and memory commits, as git) lets those variables
# override every clone's user.name and every commit's clock, and tests give clones their
# own names and memory commits their own clock (`now`).
GLOBAL_CONFIG = "[user]\n\tname = Test Author\n\temail = author@example.com\n"

@pytest.fixture(autouse=True)
def hermetic(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("home")
    for key in list(os.environ):
        if key.startswith(("GIT_", "CLAUDE", "ANTHROPIC")):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(home))
    (home / ".gitconfig").write_text(GLOBAL_CONFIG)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
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
    def _git(*args: str, cwd: Path | None = None, check: bool = True, raw: bool = False) -> str:
        return run_git(cwd or repo_dir, *args, check=check, raw=raw)
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


@pytest.fixture
def enf(run_cli: Callable[..., str]) -> Callable[..., str]:
    """run_cli in a repository where `git enf init --no-hooks` has run (a module may
    define its own `enf`, which wins)."""
    run_cli("init", "--no-hooks")
    return run_cli


@pytest.fixture
def bare_remote(repo_dir: Path, tmp_path: Path) -> Path:
    """A bare repository in tmp_path, added to repo_dir as `origin` (nothing pushed yet)."""
    path = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(path))
    run_git(repo_dir, "remote", "add", "origin", str(path))
    return path


@dataclass(frozen=True)
class GitDaemon:
    """A real git server on loopback: `url(name)` for a bare repo `base / name`."""

    base: Path
    port: int

    def url(self, name: str) -> str:
        return f"git://127.0.0.1:{self.port}/{name}"

    def create(self, name: str) -> Path:
        """A new exported bare repository `name` under the served folder."""
        path = self.base / name
        run_git(self.base, "init", "-q", "--bare", "-b", "main", str(path))
        return path


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def git_daemon(tmp_path: Path) -> Iterator[GitDaemon]:
    """`git daemon` serving tmp_path/served over git:// on 127.0.0.1, push enabled."""
    base = tmp_path / "served"
    base.mkdir()
    port = free_port()
    # The daemon itself, not `git daemon`: killing that wrapper would orphan the server.
    daemon = os.path.join(run_git(tmp_path, "--exec-path").strip(), "git-daemon")
    proc = subprocess.Popen(
        [daemon, "--reuseaddr", f"--base-path={base}", "--export-all", "--enable=receive-pack",
         "--listen=127.0.0.1", f"--port={port}", "--informative-errors", str(base)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        _wait_for_port(port, proc)
        yield GitDaemon(base, port)
    finally:  # the daemon forks a child per connection: end the whole group
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        if proc.stderr:
            proc.stderr.close()


def _wait_for_port(port: int, proc: subprocess.Popen[bytes], wait: float = 10.0) -> None:
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"git daemon exited: {proc.stderr.read().decode() if proc.stderr else ''}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"git daemon did not listen on port {port} within {wait} s")
