"""Helpers shared by the test modules (kept out of conftest.py so that importing them
never depends on which conftest pytest loaded first)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from typing import Protocol
from pathlib import Path

Git = Callable[..., str]


def run_git(cwd: Path, *args: str, check: bool = True, input: bytes | None = None) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, input=input)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr.decode()}")
    return proc.stdout.decode("utf-8", "replace")


def session_text(session_id: str = "a1b2c3d4", date: str = "2026-04-13", summary: str = "Added search",
                 tags: str = "[search, api]", status: str = "completed", body: str = "") -> str:
    return (f"---\nsession_id: {session_id}\ndate: {date}\nstart_time: \"14:30\"\ntags: {tags}\n"
            f"status: {status}\nsummary: \"{summary}\"\n---\n## Intent\nDo the thing.\n{body}")


# A decision (SCALE) and the session that reverses it (COST): recall tests rank and mark them.
SCALE = ("\n## Decisions\n- [14:10] Y: In the context of search engine, facing scale, decided Elasticsearch "
         "over Algolia, to achieve self-hosted control, accepting ops overhead. Confidence: high\n")
COST = ("\n## Decisions\n- [09:30] Y: In the context of search engine, facing cost, decided Postgres FTS "
        "over Elasticsearch, to achieve fewer parts, accepting weaker ranking. Confidence: medium\n"
        "\n## Reversals\n- [09:31] REVERSED Elasticsearch: Changed from Elasticsearch to Postgres FTS "
        "because the cluster cost too much\n")


def user_state(repo: Path) -> tuple[str, str, bytes, str]:
    """Everything of the user's that we promise never to touch."""
    head = (repo / ".git" / "HEAD").read_text()
    status = run_git(repo, "status", "--porcelain", "--untracked-files=all")
    index = (repo / ".git" / "index").read_bytes() if (repo / ".git" / "index").exists() else b""
    rev = run_git(repo, "rev-parse", "HEAD", check=False)
    return head, status, index, rev


class GitDaemon(Protocol):
    """What the `git_daemon` fixture yields (conftest.py: test modules must not import it,
    since tests/e2e has a conftest of the same module name)."""

    def url(self, name: str) -> str: ...
    def create(self, name: str) -> Path: ...
