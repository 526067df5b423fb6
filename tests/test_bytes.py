"""Invariant 11: bytes we cannot read are never rewritten.

Redaction touches only text that decoded as UTF-8. A binary file outside sessions/
is committed byte-identical; a session (or decision) file that is not text is
refused with a message and left exactly as it is. When redaction changes a text
file, the commit says which file and how many spans.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from enf_git import memory, paths
from gitfixtures import Git, session_text

SECRET = b"AKIAIOSFODNN7EXAMPLE"
# A PNG header, a NUL, and a secret-looking run: redaction would have "found" it.
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + SECRET + b" ghp_1234567890abcdefghijABCDEFGHIJ123456\xff\xfe"
LATIN1 = "---\nsession_id: a1b2c3d4\ndate: 2026-04-13\n---\n## Intent\nCaf\xe9 token AKIAIOSFODNN7EXAMPLE\n".encode("latin-1")
GIT_ENF = str(Path(sys.executable).with_name("git-enf"))


@pytest.fixture
def ctx(repo_dir: Path) -> memory.Context:
    ctx = memory.Context.open(repo_dir)
    memory.init(ctx)
    return ctx


def blob(git: Git, path: str) -> bytes:
    proc = subprocess.run(["git", "cat-file", "blob", f"claude-memory:{path}"], cwd=git("rev-parse", "--show-toplevel")
                          .strip(), capture_output=True, check=True)
    return proc.stdout


def test_a_binary_attachment_is_committed_byte_identical(ctx: memory.Context, git: Git) -> None:
    (ctx.root / "attachments").mkdir()
    (ctx.root / "attachments" / "diagram.png").write_bytes(PNG)
    report = memory.commit(ctx, "attach")
    assert report.commit is not None and "attachments/diagram.png" in report.commit.paths
    assert blob(git, "attachments/diagram.png") == PNG
    assert (ctx.root / "attachments" / "diagram.png").read_bytes() == PNG
    assert report.redacted == []


def test_an_undecodable_text_file_outside_sessions_is_kept_as_is(ctx: memory.Context, git: Git) -> None:
    (ctx.root / "notes.txt").write_bytes(LATIN1)
    memory.commit(ctx, "notes")
    assert blob(git, "notes.txt") == LATIN1
    assert (ctx.root / "notes.txt").read_bytes() == LATIN1


@pytest.mark.parametrize(("data", "reason"), [
    (LATIN1, "it is not UTF-8 text (line 6, column 4 (byte"),
    (PNG, "it is a binary file (a NUL byte at line 3, column 1 (byte 8 of the file))"),
])
def test_a_session_file_that_is_not_text_is_refused_and_left_alone(ctx: memory.Context, git: Git, data: bytes,
                                                                   reason: str) -> None:
    good = ctx.root / "sessions" / "2026-04-14-good.md"
    good.write_text(session_text(date="2026-04-14", summary="Good one"))
    bad = ctx.root / "sessions" / "2026-04-13-bad.md"
    bad.write_bytes(data)
    report = memory.commit(ctx, "mixed")
    assert report.commit is not None and "sessions/2026-04-14-good.md" in report.commit.paths
    assert "sessions/2026-04-13-bad.md" not in git("ls-tree", "-r", "--name-only", "claude-memory")
    assert bad.read_bytes() == data  # never rewritten
    [(path, why)] = report.refused
    assert path == "sessions/2026-04-13-bad.md" and why.startswith(reason)
    assert "save it as UTF-8 text" in why
    lines = [line for err, line in memory.report_lines(report) if err]
    assert any(line.startswith("not committed: sessions/2026-04-13-bad.md: " + reason) for line in lines)
    assert "Good one" in git("show", "claude-memory:index.md")


def test_the_cli_exits_1_while_a_record_is_refused(ctx: memory.Context, repo_dir: Path) -> None:
    (ctx.root / "sessions" / "2026-04-13-bad.md").write_bytes(LATIN1)
    proc = subprocess.run([GIT_ENF, "commit"], cwd=repo_dir, capture_output=True, text=True)
    assert proc.returncode == 1
    assert "not committed: sessions/2026-04-13-bad.md: it is not UTF-8 text" in proc.stderr


def test_redaction_says_which_file_and_how_many_spans(ctx: memory.Context, git: Git) -> None:
    path = ctx.root / "sessions" / "2026-04-13-keys.md"
    path.write_text(session_text(body="\n## Errors & Fixes\n- AKIAIOSFODNN7EXAMPLE and "
                                      "ghp_1234567890abcdefghijABCDEFGHIJ123456 leaked\n"))
    report = memory.commit(ctx, "keys")
    assert report.redacted == [("sessions/2026-04-13-keys.md", 2)]
    assert ("redacted 2 spans in sessions/2026-04-13-keys.md (in your working copy too)"
            in [line for _, line in memory.report_lines(report)])
    text = git("show", "claude-memory:sessions/2026/04/2026-04-13-keys.md")
    assert "AKIA" not in text and "ghp_" not in text and path.read_text() == text


def test_status_reports_a_refused_file_as_still_pending(ctx: memory.Context) -> None:
    (ctx.root / "sessions" / "2026-04-13-bad.md").write_bytes(LATIN1)
    memory.commit(ctx, "try")
    assert "sessions/2026-04-13-bad.md" in memory.pending(memory.Context.open(ctx.top)).changes
    assert (ctx.root / paths.SESSIONS_DIR / "2026-04-13-bad.md").read_bytes() == LATIN1


def test_a_file_with_conflict_markers_waits_and_the_rest_lands(ctx: memory.Context, git: Git) -> None:
    good = ctx.root / "sessions" / "2026-04-14-good.md"
    good.write_text(session_text(date="2026-04-14", summary="Good one"))
    torn = ctx.root / "sessions" / "2026-04-13-torn.md"
    torn.write_text(session_text(body="\n<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> other\n"))
    report = memory.commit(ctx, "mixed")
    assert report.commit is not None and "sessions/2026-04-14-good.md" in report.commit.paths
    assert "sessions/2026-04-13-torn.md" not in git("ls-tree", "-r", "--name-only", "claude-memory")
    [(path, why)] = report.refused
    assert path == "sessions/2026-04-13-torn.md" and "unresolved git conflict" in why
    assert "<<<<<<<" not in git("log", "-p", "claude-memory")


def test_a_secret_in_bytes_that_are_not_utf8_is_committed_as_is_and_stops_the_next_push(
        ctx: memory.Context, git: Git, repo_dir: Path, tmp_path: Path) -> None:
    """Redaction never rewrites what it cannot read, so the commit says so, and memory
    is not shared until someone has looked: the next sync scans again and stops."""
    bare = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    git("remote", "add", "origin", str(bare))
    git("push", "-q", "origin", "HEAD:refs/heads/main")
    git("config", "enf.remote", "origin")
    sync = subprocess.run([GIT_ENF, "sync"], cwd=repo_dir, capture_output=True, text=True)
    assert sync.returncode == 0, sync.stderr  # memory went once: its history was scanned
    (ctx.root / "notes.txt").write_bytes(LATIN1)
    out = subprocess.run([GIT_ENF, "commit"], cwd=repo_dir, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "warning: notes.txt: 1 span looks like secrets, but it is not UTF-8 text" in out.stderr
    assert blob(git, "notes.txt") == LATIN1 and (ctx.root / "notes.txt").read_bytes() == LATIN1
    sync = subprocess.run([GIT_ENF, "sync"], cwd=repo_dir, capture_output=True, text=True)
    assert sync.returncode == 1 and "its history holds what looks like secrets: notes.txt" in sync.stdout + sync.stderr
    remote_has = subprocess.run(["git", "--git-dir", str(bare), "cat-file", "-e", "claude-memory:notes.txt"])
    assert remote_has.returncode != 0  # it never left
