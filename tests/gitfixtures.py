"""Helpers shared by the test modules (kept out of conftest.py so that importing them
never depends on which conftest pytest loaded first)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from typing import Protocol
from pathlib import Path

Git = Callable[..., str]


def run_git(cwd: Path, *args: str, check: bool = True, input: bytes | None = None, raw: bool = False) -> str:
    """`git ARGS` in `cwd`. Tests speak the working copy's paths (sessions/<stem>.md), while
    the branch keeps a dated session in sessions/YYYY/MM/ (plumbing/store.py): unless
    `raw`, a `REV:sessions/<stem>.md` that git does not find is asked for at its month's
    place, and `ls-tree` and `--name-only` print the working copy's names. test_store.py checks the layout
    itself with `raw`."""
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, input=input)
    if proc.returncode != 0 and not raw and any(_stored_arg(a) != a for a in args):
        proc = subprocess.run(["git", *map(_stored_arg, args)], cwd=cwd, capture_output=True, input=input)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr.decode()}")
    out = proc.stdout.decode("utf-8", "replace")
    if not raw and (args[:1] == ("ls-tree",) or {"--name-only", "--name-status"} & set(args)):
        out = "".join(_logical_line(line) for line in out.splitlines(keepends=True))
    return out


def _stored_arg(arg: str) -> str:
    from enf_git.plumbing.store import stored_path

    rev, colon, path = arg.partition(":")
    return f"{rev}:{stored_path(path)}" if colon and not rev.startswith("-") else arg


def _logical_line(line: str) -> str:
    from enf_git.plumbing.store import logical_path

    head, tab, path = line.rstrip("\n").rpartition("\t")
    end = "\n" if line.endswith("\n") else ""
    return f"{head}{tab}{logical_path(path)}{end}" if tab else f"{logical_path(path)}{end}"


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


def commit_as(repo: Path, who: dict[str, str], files: dict[str, str]) -> None:
    """Write `files` into the working copy and commit them as `who` (GIT_AUTHOR_*/GIT_COMMITTER_*)."""
    from enf_git import memory

    for rel, text in files.items():
        path = repo / ".claude-sessions" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    memory.commit(memory.Context.open(repo, environ=who), f"by {who['GIT_AUTHOR_NAME']}")


def write_session(repo_dir: Path, stem_name: str, text: str) -> Path:
    """A session file in the working copy, as the assistant writes one (not committed)."""
    path = repo_dir / ".claude-sessions" / "sessions" / f"{stem_name}.md"
    path.write_text(text)
    return path


def search_sessions(repo_dir: Path) -> None:
    """Recall's small corpus: a search API session (SCALE), its reversal to Postgres (COST),
    and four unrelated sessions, so that idf means something. Not committed."""
    write_session(repo_dir, "2026-04-13-search-api", session_text(body=SCALE))
    write_session(repo_dir, "2026-04-20-postgres-fts", session_text(
        session_id="b2c3d4e5", date="2026-04-20", summary="Moved search to Postgres", tags="[search]", body=COST))
    for i in range(4):
        write_session(repo_dir, f"2026-03-0{i + 1}-other-{i}", session_text(
            session_id=f"c{i}d4e5f6", date=f"2026-03-0{i + 1}", summary=f"Tuned the build cache {i}", tags="[ci]"))
