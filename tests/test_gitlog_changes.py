"""git's list of each commit's changes (plumbing/gitlog_changes.py), read back from real
repositories built with the real `git`: combined diffs of merges, deletions, a session
moved into its month folder, each parent's changes, and stopping git early."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from enf_git.plumbing import gitlog_changes


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "Alice", "GIT_AUTHOR_EMAIL": "alice@example.com",
           "GIT_COMMITTER_NAME": "Alice", "GIT_COMMITTER_EMAIL": "alice@example.com"}
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True, env=env).stdout.strip()


def put(repo: Path, path: str, text: str) -> None:
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_text(text)
    git(repo, "add", "-A")


def blob(repo: Path, rev: str, path: str) -> str:
    return git(repo, "rev-parse", f"{rev}:{path}")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """main: a, then a side branch edits s and main edits y; merged (s from the side, y
    from main: no change of the merge's own), then a merge that resolves y by hand."""
    r = tmp_path / "r"
    r.mkdir()
    git(r, "init", "-q", "-b", "main")
    put(r, "s.md", "1\n")
    put(r, "y.md", "1\n")
    git(r, "commit", "-qm", "base: two files")
    git(r, "checkout", "-qb", "side")
    put(r, "s.md", "side\n")
    git(r, "commit", "-qm", "side edits s")
    git(r, "checkout", "-q", "main")
    put(r, "y.md", "main\n")
    git(r, "commit", "-qm", "main edits y")
    git(r, "merge", "-q", "--no-edit", "side")
    git(r, "checkout", "-qb", "other", "HEAD~1")
    put(r, "y.md", "other\n")
    git(r, "commit", "-qm", "other edits y")
    git(r, "checkout", "-q", "main")
    subprocess.run(["git", "merge", "-q", "--no-edit", "other"], cwd=r, capture_output=True, check=False)
    put(r, "y.md", "resolved\n")
    git(r, "commit", "-qm", "resolved y")
    (r / "s.md").unlink()
    git(r, "add", "-A")
    git(r, "commit", "-qm", "delete s")
    return r


def listed(repo: Path, **kw: object) -> list[tuple[str, list[tuple[str, str | None, str | None]]]]:
    return [(c.subject, c.paths) for c in gitlog_changes.changes(str(repo / ".git"), "main", **kw)]  # type: ignore[arg-type]


def test_each_commit_s_changes_newest_first_a_merge_only_where_it_differs_from_every_parent(repo: Path) -> None:
    got = dict(listed(repo))
    assert list(dict(listed(repo)))[0] == "delete s"
    assert got["delete s"] == [("s.md", blob(repo, "main~1", "s.md"), None)]
    assert got["resolved y"] == [("y.md", blob(repo, "main~1^1", "y.md"), blob(repo, "main~1", "y.md"))]
    assert got["Merge branch 'side'"] == []  # each path as one side left it: no change of its own
    assert got["side edits s"] == [("s.md", blob(repo, "side~1", "s.md"), blob(repo, "side", "s.md"))]
    assert got["base: two files"] == [("s.md", None, blob(repo, "side~1", "s.md")), ("y.md", None, blob(repo, "side~1", "y.md"))]


def test_each_parent_lists_what_a_merge_brings_from_either_side(repo: Path) -> None:
    blocks = [paths for subject, paths in listed(repo, each_parent=True) if subject == "Merge branch 'side'"]
    assert sorted(p for b in blocks for p, _old, _new in b) == ["s.md", "y.md"]  # s against main, y against side


def test_the_commits_that_touch_given_paths_every_one(repo: Path) -> None:
    subjects = [s for s, _ in listed(repo, only=("y.md",))]
    assert subjects[0] == "resolved y" and "main edits y" in subjects and "other edits y" in subjects
    assert "side edits s" not in subjects and "delete s" not in subjects


def test_closing_early_stops_git(repo: Path) -> None:
    log = gitlog_changes.changes(str(repo / ".git"), "main")
    assert next(log).subject == "delete s"
    log.close()  # no error, no git left running: the process was killed and reaped


def test_a_session_moved_into_its_month_folder_is_no_change() -> None:
    oid = "a" * 40
    moved = [("sessions/2026-04-13-x.md", oid, None), ("sessions/2026/04/2026-04-13-x.md", None, oid)]
    assert list(gitlog_changes.working_copy(moved)) == []
    edited = [("sessions/2026-04-13-x.md", oid, None), ("sessions/2026/04/2026-04-13-x.md", None, "b" * 40)]
    assert list(gitlog_changes.working_copy(edited)) == [("sessions/2026-04-13-x.md", "b" * 40)]
    gone = [("sessions/2026/04/2026-04-13-x.md", oid, None)]
    assert list(gitlog_changes.working_copy(gone)) == [("sessions/2026-04-13-x.md", None)]


def test_messages_are_found_by_git_oldest_first(repo: Path) -> None:
    found = gitlog_changes.messages(str(repo / ".git"), "main", "edits")
    assert [m.splitlines()[0] for _, _, m in found][-1] == "other edits y"
    assert {m.splitlines()[0] for _, _, m in found} == {"side edits s", "main edits y", "other edits y"}
    assert all(len(oid) == 40 and when > 0 for oid, when, _ in found)


def test_a_missing_tip_is_an_error_not_an_empty_history(repo: Path) -> None:
    with pytest.raises(OSError):
        list(gitlog_changes.changes(str(repo / ".git"), "no-such-ref"))


def test_a_subject_or_name_holding_the_record_mark_is_read_whole(repo: Path) -> None:
    """A teammate's commit may hold \\x01 (the listing's record mark) in its subject or
    author name: its changes still belong to it, and no other record is made of it."""
    put(repo, "m.md", "mallory\n")
    env = {**os.environ, "GIT_AUTHOR_NAME": "Mal\x01lory", "GIT_AUTHOR_EMAIL": "m@example.com",
           "GIT_COMMITTER_NAME": "M", "GIT_COMMITTER_EMAIL": "m@example.com"}
    subprocess.run(["git", "commit", "-qm", "odd \x01" + "a" * 40 + " subject"], cwd=repo, check=True, env=env)
    listed_now = list(gitlog_changes.changes(str(repo / ".git"), "main"))
    assert len(listed_now) == int(git(repo, "rev-list", "--count", "main"))
    newest = listed_now[0]
    assert newest.name == "Mal\x01lory" and newest.subject.startswith("odd \x01")
    assert newest.paths == [("m.md", None, blob(repo, "main", "m.md"))]


def test_a_record_straddling_reads_is_read_whole(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    whole = listed(repo)
    monkeypatch.setattr(gitlog_changes, "_READ", 7)  # every boundary lands across reads somewhere
    assert listed(repo) == whole
