"""Who last changed each record (memory/authors.py): git's sense of "last changed", kept
incrementally per machine and equal to a walk from scratch. Real repositories, commits
made by memory.commit under git's identity variables, checked with the real `git`."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from enf_git import memory
from enf_git.memory.record import authors
from enf_git.memory.share import sync_merge
from enf_git.plumbing import store
from gitfixtures import run_git, session_text

ALICE = {"GIT_AUTHOR_NAME": "Alice", "GIT_AUTHOR_EMAIL": "alice@example.com", "GIT_AUTHOR_DATE": "1764547200 +0000"}
BOB = {"GIT_AUTHOR_NAME": "Bob", "GIT_AUTHOR_EMAIL": "bob@example.com", "GIT_AUTHOR_DATE": "1764633600 +0000"}
S = "sessions/2026-04-13-shared.md"
T = "sessions/2026-04-14-other.md"


def as_(repo: Path, who: dict[str, str]) -> memory.Context:
    return memory.Context.open(repo, environ=who)


def write(repo: Path, rel: str, text: str) -> None:
    (repo / ".claude-sessions" / rel).write_text(text)


def git_last(repo: Path, rel: str) -> str:
    """What git itself says last changed the path (git log -1 follows git's rule too)."""
    stored = run_git(repo, "ls-tree", "-r", "--name-only", "claude-memory", raw=True).split()
    path = next(p for p in stored if p.endswith(Path(rel).name))
    return run_git(repo, "log", "-1", "--format=%an", "claude-memory", "--", path, raw=True).strip()


def test_the_last_changer_is_named_to_everyone_but_themself(run_cli, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    run_cli("init")
    write(repo_dir, S, session_text(session_id="a1a1a1a1", summary="Alice started it"))
    memory.commit(as_(repo_dir, ALICE), "alice")
    write(repo_dir, S, session_text(session_id="a1a1a1a1", summary="Bob changed it"))
    memory.commit(as_(repo_dir, BOB), "bob")
    seen_by_alice = authors.load(as_(repo_dir, {**ALICE}))
    assert seen_by_alice.by(S) == "Bob, 2025-12-02" and git_last(repo_dir, S) == "Bob"
    assert authors.load(as_(repo_dir, BOB)).by(S) == ""
    assert seen_by_alice.names([S]) == ["Bob"] and authors.load(as_(repo_dir, BOB)).names([S]) == ["you"]


def test_a_merge_that_only_brings_a_version_in_changed_nothing(run_cli, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    run_cli("init")
    _history(repo_dir, deletion=False)
    table = authors.load(as_(repo_dir, ALICE))
    assert table.by(S) == "Bob, 2025-12-02" and table.by(T) == ""
    assert git_last(repo_dir, S) == "Bob"


def test_kept_up_to_date_it_equals_a_walk_from_scratch(run_cli, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    run_cli("init")
    for i, who in enumerate((ALICE, BOB, ALICE, BOB)):
        write(repo_dir, f"sessions/2026-04-1{i}-s{i}.md", session_text(session_id=f"{i}" * 8, summary=f"s{i}"))
        memory.commit(as_(repo_dir, who), f"c{i}")
        authors.load(as_(repo_dir, ALICE))  # brought forward commit by commit
    (repo_dir / ".claude-sessions" / "sessions" / "2026-04-11-s1.md").unlink()
    memory.commit(as_(repo_dir, ALICE), "delete")
    kept = dict(authors.load(as_(repo_dir, ALICE)).all())
    shutil.rmtree(store.state_dir(store.open_repo(repo_dir)) / authors.FOLDER)
    fresh = dict(authors.load(as_(repo_dir, ALICE)).all())
    assert kept == fresh
    assert "sessions/2026-04-11-s1.md" not in fresh and fresh["sessions/2026-04-13-s3.md"].name == "Bob"


def test_a_rewritten_branch_is_walked_again(run_cli, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    run_cli("init")
    write(repo_dir, S, session_text(session_id="a1a1a1a1", summary="Bob's"))
    memory.commit(as_(repo_dir, BOB), "bob")
    assert authors.load(as_(repo_dir, ALICE)).by(S).startswith("Bob")
    tip = run_git(repo_dir, "rev-parse", "claude-memory").strip()
    tree = run_git(repo_dir, "rev-parse", f"{tip}^{{tree}}").strip()
    env = {"GIT_AUTHOR_NAME": "Carol", "GIT_AUTHOR_EMAIL": "carol@example.com"}
    rewritten = subprocess.run(["git", "commit-tree", tree, "-m", "rewritten"], cwd=repo_dir, capture_output=True,
                               text=True, check=True, env={**__import__("os").environ, **env}).stdout.strip()
    run_git(repo_dir, "update-ref", "refs/heads/claude-memory", rewritten)
    assert authors.load(as_(repo_dir, ALICE)).by(S).startswith("Carol")


def test_a_damaged_file_is_walked_again(run_cli, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    run_cli("init")
    write(repo_dir, S, session_text(session_id="a1a1a1a1", summary="Bob's"))
    memory.commit(as_(repo_dir, BOB), "bob")
    authors.load(as_(repo_dir, ALICE))
    shard = store.state_dir(store.open_repo(repo_dir)) / authors.FOLDER / f"{authors.shard_of(S):02x}.bin"
    shard.write_bytes(b"garbage")
    assert authors.load(as_(repo_dir, ALICE)).by(S) == ""  # this read cannot trust it: unsigned, not wrong
    assert authors.load(as_(repo_dir, ALICE)).by(S).startswith("Bob")  # the next walks afresh


def test_a_damaged_entry_is_walked_again(run_cli, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    import marshal

    run_cli("init")
    write(repo_dir, S, session_text(session_id="a1a1a1a1", summary="Bob's"))
    memory.commit(as_(repo_dir, BOB), "bob")
    authors.load(as_(repo_dir, ALICE))
    shard = store.state_dir(store.open_repo(repo_dir)) / authors.FOLDER / f"{authors.shard_of(S):02x}.bin"
    table = marshal.loads(shard.read_bytes())
    table[S] = ("not", "a change")  # a readable file, one entry of the wrong shape
    shard.write_bytes(marshal.dumps(table))
    assert authors.load(as_(repo_dir, ALICE)).by(S) == ""  # this read cannot trust it: unsigned, not wrong
    assert authors.load(as_(repo_dir, ALICE)).by(S).startswith("Bob")  # the next walks afresh


def test_a_start_reads_only_the_shards_it_asks_for(run_cli, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    run_cli("init")
    for i in range(30):
        write(repo_dir, f"sessions/2026-04-{i % 28 + 1:02d}-s{i}.md", session_text(session_id=f"{i:08d}", summary=f"s{i}"))
    memory.commit(as_(repo_dir, BOB), "bob")
    authors.load(as_(repo_dir, ALICE))
    table = authors.load(as_(repo_dir, ALICE))
    assert table.by("sessions/2026-04-01-s0.md").startswith("Bob")
    assert len(table._shards) == 1


def test_a_read_only_state_folder_still_answers(run_cli, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    run_cli("init")
    write(repo_dir, S, session_text(session_id="a1a1a1a1", summary="Bob's"))
    memory.commit(as_(repo_dir, BOB), "bob")
    folder = store.state_dir(store.open_repo(repo_dir)) / authors.FOLDER
    folder.mkdir()
    (folder / "lock").write_text("")
    (folder / "tip").mkdir()  # not a file: nothing can be saved over it
    assert authors.load(as_(repo_dir, ALICE)).by(S).startswith("Bob")


def _walked_in_process(ctx: memory.Context) -> dict[str, authors.Change]:
    """The table as the in-process walk from the first commit makes it: the last change wins."""
    out: dict[str, authors.Change] = {}
    tip = store.tip(ctx.repo)
    assert tip is not None
    for path, change in authors._walk(ctx, tip, None):
        if change is None:
            out.pop(path, None)
        else:
            out[path] = change
    return out


def _history(repo_dir: Path, deletion: bool = True) -> None:
    """Bob edits S (and, with `deletion`, adds a session and deletes it again) while Alice,
    from the same base, writes T of her own; then Alice merges Bob's side."""
    write(repo_dir, S, session_text(session_id="a1a1a1a1", summary="base"))
    memory.commit(as_(repo_dir, ALICE), "base")
    repo = store.open_repo(repo_dir)
    base = store.tip(repo)
    assert base is not None
    write(repo_dir, S, session_text(session_id="a1a1a1a1", summary="Bob's edit"))
    if deletion:
        write(repo_dir, "sessions/2026-04-15-gone.md", session_text(session_id="c3c3c3c3", summary="soon gone"))
    memory.commit(as_(repo_dir, BOB), "bob")
    if deletion:
        (repo_dir / ".claude-sessions" / "sessions" / "2026-04-15-gone.md").unlink()
        memory.commit(as_(repo_dir, BOB), "bob deletes")
    bobs = store.tip(repo)
    assert bobs is not None
    repo.references[store.REF].set_target(base.id)  # Alice's side: her own session, no edit of S
    memory.Context.open(repo_dir).manifest_path.unlink()
    write(repo_dir, T, session_text(session_id="b2b2b2b2", summary="Alice's own"))
    memory.commit(as_(repo_dir, ALICE), "alice")
    ctx = as_(repo_dir, ALICE)
    assert sync_merge.merge_tips(ctx.repo, store.tip(ctx.repo), bobs, ctx.cache(), env=ALICE).outcome == "merged"


def test_git_s_list_of_changes_gives_the_in_process_walk_s_table(run_cli, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    run_cli("init")
    _history(repo_dir)
    ctx = as_(repo_dir, ALICE)
    expected = _walked_in_process(ctx)
    assert {p: c.name for p, c in expected.items() if p in (S, T)} == {S: "Bob", T: "Alice"}
    assert "sessions/2026-04-15-gone.md" not in expected
    shutil.rmtree(store.state_dir(ctx.repo) / authors.FOLDER, ignore_errors=True)
    assert dict(authors.load(ctx).all()) == expected  # from scratch: git's list
    assert git_last(repo_dir, S) == "Bob"


def test_a_long_increment_is_brought_forward_by_git(run_cli, repo_dir: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    run_cli("init")
    write(repo_dir, S, session_text(session_id="a1a1a1a1", summary="first"))
    memory.commit(as_(repo_dir, ALICE), "first")
    authors.load(as_(repo_dir, ALICE))  # saved at this tip
    _history(repo_dir)  # then several commits and a merge at once
    monkeypatch.setattr(authors, "IN_PROCESS", 1)
    ctx = as_(repo_dir, ALICE)
    assert dict(authors.load(ctx).all()) == _walked_in_process(ctx)


def test_a_bounded_walk_hands_out_a_partial_table_and_saves_nothing(run_cli, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    run_cli("init")
    stems = [f"sessions/2026-04-1{i}-s{i}.md" for i in range(4)]
    for i, stem in enumerate(stems):
        write(repo_dir, stem, session_text(session_id=f"{i}" * 8, summary=f"s{i}"))
        memory.commit(as_(repo_dir, (ALICE, BOB)[i % 2]), f"c{i}")
    folder = store.state_dir(store.open_repo(repo_dir)) / authors.FOLDER
    shutil.rmtree(folder, ignore_errors=True)
    newest = len(run_git(repo_dir, "log", "-1", "--raw", "--format=", "claude-memory", raw=True).splitlines())
    try:
        authors.bound_walks(newest)  # as a hook does on a fresh clone: here, the newest commit's changes
        table = authors.load(as_(repo_dir, ALICE))
        assert table.partial and authors.provisional()
        assert table.by(stems[3]) == "Bob, 2025-12-02"  # the newest commits: reached
        assert table.by(stems[0]) == authors.NOT_KNOWN  # older: never shown as the reader's own
        assert not (folder / "tip").exists()  # a partial table is never saved
    finally:
        authors.bound_walks(None)
    assert not authors.provisional()
    whole = authors.load(as_(repo_dir, ALICE))
    assert not whole.partial and whole.by(stems[0]) == "" and whole.by(stems[1]) == "Bob, 2025-12-02"
    assert (folder / "tip").exists()
