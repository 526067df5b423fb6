"""Conflict lines say why two edits were not merged line by line.

"changed on both sides, in the same lines" was said of every conflict copy, also when the
edits lay far apart and the line merge was never tried or not kept: a file that is not
UTF-8, a version that does not read as a record (broken frontmatter, a session past the
size records are read at). The person then looks for an overlap that is not there.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from enf_git import memory
from enf_git.memory import records
from enf_git.memory.share import sync_merge
from enf_git.plumbing import store
from gitfixtures import Git
from test_line_merge import BASE, S, _two_copies, both_ways, ctx, fork, put  # noqa: F401 (ctx: a fixture)

LATIN = BASE.replace("did thing 8\n", "did thing 8 caf\xe9\n").encode("latin-1")
BROKEN = BASE.replace('summary: "Base"', 'summary: "Base').encode()  # an unclosed quote: no YAML


def _conflict_said(lines: list[str]) -> str:
    found = [ln for ln in lines if ln.startswith("conflict:")]
    assert len(found) == 1, lines
    return found[0]


def test_a_side_that_is_not_utf8_is_not_said_to_be_the_same_lines(ctx: memory.Context, git: Git) -> None:
    put(ctx, {S: BASE.encode()})
    a = BASE.replace("did thing 1\n", "did thing ONE\n").encode()
    tip_a, tip_b = fork(ctx, git, {S: a}, {S: LATIN})
    done, _ = both_ways(ctx, git, tip_a, tip_b)
    said = _conflict_said(done.lines())
    assert "in the same lines" not in said
    assert "not UTF-8" in said


def test_a_side_that_does_not_parse_is_not_said_to_be_the_same_lines(ctx: memory.Context, git: Git) -> None:
    put(ctx, {S: BASE.encode()})
    a = BASE.replace("did thing 8\n", "did thing EIGHT\n").encode()
    tip_a, tip_b = fork(ctx, git, {S: a}, {S: BROKEN})
    done, _ = both_ways(ctx, git, tip_a, tip_b)
    for said in (_conflict_said(done.lines()),
                 _conflict_said(store.commit_at(ctx.repo, done.tip).message.splitlines())):  # type: ignore[union-attr]
        assert "in the same lines" not in said
        assert "does not read as" in said


def test_a_fast_forward_onto_that_merge_says_the_same(ctx: memory.Context, git: Git) -> None:
    put(ctx, {S: BASE.encode()})
    a = BASE.replace("did thing 1\n", "did thing ONE\n").encode()
    tip_a, tip_b = fork(ctx, git, {S: a}, {S: LATIN})
    git("update-ref", "refs/heads/claude-memory", str(tip_b.id))
    merged = sync_merge.merge_tips(ctx.repo, tip_b, tip_a, records.Cache(None), now=1_776_100_000)
    git("update-ref", "refs/heads/claude-memory", str(tip_a.id))
    ff = sync_merge.merge_tips(ctx.repo, tip_a, store.commit_at(ctx.repo, merged.tip),  # type: ignore[arg-type]
                               records.Cache(None), now=1_776_100_000)
    assert ff.outcome == "fast-forward"
    said = _conflict_said(ff.lines())
    assert "in the same lines" not in said and "not UTF-8" in said


def test_a_commit_onto_a_moved_branch_says_why_too(repo_dir: Path, git: Git, tmp_path: Path) -> None:
    a, b = _two_copies(repo_dir, git, tmp_path)
    (a.root / S).write_text(BASE.replace("did thing 8\n", "did thing EIGHT\n"))
    (b.root / S).write_bytes(BROKEN)
    memory.commit(a)
    report = memory.commit(b)
    said = _conflict_said([line for _, line in memory.report_lines(report)])
    assert "in the same lines" not in said and "does not read as" in said


def test_a_git_push_that_merges_memory_says_whose_version_is_where(tmp_path: Path, repo_dir: Path, bare_remote: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The pre-push hook merges when the remote's memory moved: a conflict it made was said
    nowhere but in the merge commit (docs/sharing.md: the git hooks say whose is where)."""
    from test_githooks import alice_pushes_memory, code_commit, enf, git_run, memory_landed, run_git

    monkeypatch.delenv("CI", raising=False)  # the git hooks do nothing in CI unless enf.ci is set

    run_git(repo_dir, "push", "-q", "origin", "main")
    bob = alice_pushes_memory(tmp_path, repo_dir, bare_remote)
    run_git(bob, "pull", "-q", "--no-rebase")
    for clone, who in ((bob, "Bob"), (repo_dir, "Alice")):
        [path] = (clone / ".claude-sessions" / "sessions").glob("*alice-work.md")
        path.write_text(path.read_text().replace("Do the thing.", f"Do the thing, says {who}."))
        enf(clone, "commit")
    code_commit(bob, "bob.txt")
    # Memory first, then the code: the race this test is about is Alice's push against a
    # remote that moved, not against Bob's memory still on its way.
    assert git_run(bob, "push", "origin", "main", env={"ENF_GIT_PUSH_MODE": "first"}).returncode == 0
    memory_landed(bob, bare_remote)
    run_git(repo_dir, "pull", "-q", "--no-rebase", "origin", "main")  # the code only: memory not fetched
    code_commit(repo_dir, "c.txt")
    pushed = git_run(repo_dir, "push", "origin", "main")
    assert pushed.returncode == 0, pushed.stderr
    said = [ln for ln in pushed.stderr.splitlines() if "conflict:" in ln]
    assert len(said) == 1 and "the working copy has" in said[0] and "version is at conflicts/" in said[0], \
        pushed.stderr


def test_sync_says_what_its_own_commit_of_the_working_copy_left_or_kept_apart(
        tmp_path: Path, repo_dir: Path) -> None:
    """sync commits the working copy first, and printed nothing of that commit: a session
    holding a conflict marker waited in the working copy without a word (docs/sharing.md: "a
    file holding one waits in the working copy with a message"), and a conflict copy the
    commit made onto a moved branch went unsaid."""
    from test_line_merge import enf_as, make_team

    _, alice, _ = make_team(tmp_path, repo_dir)
    (alice / ".claude-sessions" / S).write_text(
        BASE.replace("- step 8: did thing 8\n", "<<<<<<< HEAD\n- step 8: mine\n=======\n- step 8: theirs\n>>>>>>> x\n"))
    out = enf_as(alice, "sync")
    assert f"not committed: {S}: line " in out, out


def test_sync_text_lists_the_commits_conflicts_and_kept_edits() -> None:
    from enf_git.cli import sync_text
    from enf_git.memory.report import Report
    from enf_git.memory.share.sync import Synced

    done, report = Synced("origin"), Report()
    report.conflicts = [(S, f"conflicts/{S}.1234abcd")]
    report.kept = [("sessions/2026-04-13-gone.md", True)]
    done.local = report
    said = sync_text.lines(done)
    assert any(line.startswith(f"conflict: {S} changed on both sides") for line in said), said
    assert any(line.startswith("kept: sessions/2026-04-13-gone.md: you deleted it") for line in said), said
    assert not any(line == "nothing to commit" for line in said)  # a sync that had nothing to commit says nothing of it
    assert sync_text.payload(done)["committed"] == [ln for ln in said if ln.startswith(("conflict:", "kept:"))]
