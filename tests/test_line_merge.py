"""Line-level merge of a file both sides edited: sync between real clones, the commit
of a working copy onto a moved branch, and a seeded property loop over random edits.

Edits of different lines land together; edits of the same lines keep both versions,
and every message says whose version is where from the reader's side. An edit that beat
a deletion is said to the side that deleted, even when that side only fast-forwards.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from enf_git import memory
from enf_git.memory.record import merge
from enf_git.memory import records
from enf_git.memory.share import sync_merge
from enf_git.plumbing import store, store_merge, store_write
from enf_git.pure import model, render
from gitfixtures import Git, run_git, session_text

GIT_ENF = str(Path(sys.executable).with_name("git-enf"))
S = "sessions/2026-04-13-shared.md"
BODY = "".join(f"- step {i}: did thing {i}\n" for i in range(1, 9))
BASE = session_text(session_id="a1a1a1a1", summary="Base", body="\n## Work\n" + BODY)


# --- two clones and a bare remote, real `git enf sync` runs ---------------------------

def enf_as(clone_dir: Path, *args: str, code: int = 0) -> str:
    """`git enf ARGS` as the clone's own person: the identity variables set to its name,
    so its commits carry that name whether identity comes from them or from the config."""
    name = clone_dir.name
    env = {**os.environ, "GIT_AUTHOR_NAME": name, "GIT_COMMITTER_NAME": name,
           "GIT_AUTHOR_EMAIL": f"{name}@example.com", "GIT_COMMITTER_EMAIL": f"{name}@example.com"}
    proc = subprocess.run([GIT_ENF, *args], cwd=clone_dir, capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == code, proc.stdout + proc.stderr
    return proc.stdout + proc.stderr


@pytest.fixture
def team(tmp_path: Path, repo_dir: Path) -> tuple[Path, Path, Path]:
    return make_team(tmp_path, repo_dir)


def make_team(tmp_path: Path, repo_dir: Path) -> tuple[Path, Path, Path]:
    """(origin, alice, bob): a bare remote with the code, two clones that share BASE."""
    origin = tmp_path / "origin.git"
    run_git(tmp_path, "init", "-q", "--bare", str(origin))
    run_git(repo_dir, "remote", "add", "origin", str(origin))
    run_git(repo_dir, "push", "-q", "origin", "main")
    clones = []
    for name in ("alice", "bob"):
        path = tmp_path / name
        run_git(tmp_path, "clone", "-q", str(origin), str(path))
        run_git(path, "config", "user.name", name)
        run_git(path, "config", "user.email", f"{name}@example.com")
        enf_as(path, "init", "--no-hooks")
        clones.append(path)
    alice, bob = clones
    (alice / ".claude-sessions" / S).write_text(BASE)
    enf_as(alice, "sync")
    enf_as(bob, "sync")
    assert (bob / ".claude-sessions" / S).read_text() == BASE
    return origin, alice, bob


def edit(clone_dir: Path, old: str, new: str) -> None:
    path = clone_dir / ".claude-sessions" / S
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def tree(clone_dir: Path) -> str:
    return run_git(clone_dir, "rev-parse", "claude-memory^{tree}").strip()


def branch_files(clone_dir: Path) -> list[str]:
    return run_git(clone_dir, "ls-tree", "-r", "--name-only", "claude-memory").split()


def test_edits_of_different_lines_merge_without_a_conflict_copy(team: tuple[Path, Path, Path]) -> None:
    origin, alice, bob = team
    edit(alice, 'summary: "Base"', 'summary: "Search API, paginated"')  # the frontmatter
    edit(bob, "- step 7: did thing 7\n", "- step 7: did thing 7, and measured it\n")  # the body
    enf_as(alice, "sync")
    out = enf_as(bob, "sync")
    assert "merged" in out and "conflict" not in out
    enf_as(alice, "sync")
    assert tree(alice) == tree(bob) == run_git(origin, "rev-parse", "claude-memory^{tree}").strip()
    merged = run_git(bob, "show", f"claude-memory:{S}")
    assert merged == BASE.replace('summary: "Base"', 'summary: "Search API, paginated"').replace(
        "did thing 7\n", "did thing 7, and measured it\n")
    assert not [f for f in branch_files(bob) if f.startswith("conflicts/")]
    for clone in (alice, bob):  # both working copies hold the merge, and the views are rendered from it
        assert (clone / ".claude-sessions" / S).read_text() == merged
        assert "Search API, paginated" in (clone / ".claude-sessions" / "index.md").read_text()
    assert "merged: " + S in run_git(bob, "log", "-1", "--format=%B", "claude-memory")
    assert merge.marker_line(merged.encode()) is None


def _shared_after(tmp_path: Path, repo_dir: Path, first: str) -> tuple[str, str]:
    """The merged session and the tree, when `first` of the two syncs first."""
    _, alice, bob = make_team(tmp_path, repo_dir)
    edit(alice, "- step 2: did thing 2\n", "- step 2: did thing 2 (alice)\n")
    edit(bob, "- step 6: did thing 6\n", "")
    one, two = (alice, bob) if first == "alice" else (bob, alice)
    enf_as(one, "sync")
    enf_as(two, "sync")
    enf_as(one, "sync")
    assert tree(alice) == tree(bob)
    return run_git(alice, "show", f"claude-memory:{S}"), tree(alice)


def test_either_order_of_syncing_gives_the_same_tree(tmp_path: Path, repo_dir: Path) -> None:
    (tmp_path / "x").mkdir()
    (tmp_path / "y").mkdir()
    first = _shared_after(tmp_path / "x", _copy_repo(repo_dir, tmp_path / "x"), "alice")
    second = _shared_after(tmp_path / "y", _copy_repo(repo_dir, tmp_path / "y"), "bob")
    assert first[0] == second[0] and "(alice)" in first[0] and "step 6" not in first[0]
    assert first[1] == second[1]  # the same tree, whichever clone merged


def _copy_repo(repo_dir: Path, where: Path) -> Path:
    """A fresh copy of the code repository for a second team (the fixture makes one per test)."""
    copy = where / "project"
    run_git(where, "clone", "-q", str(repo_dir), str(copy))
    run_git(copy, "remote", "remove", "origin")
    return copy


def _said(out: str, path: str) -> str:
    lines = [line for line in out.splitlines() if line.startswith(f"conflict: {path} ")]
    assert len(lines) == 1, out
    return lines[0]


def test_edits_of_the_same_line_keep_both_and_say_whose_is_where(team: tuple[Path, Path, Path]) -> None:
    _, alice, bob = team
    edit(alice, 'summary: "Base"', 'summary: "Alice says A"')
    edit(bob, 'summary: "Base"', 'summary: "Bob says B"')
    enf_as(alice, "sync")
    out = enf_as(bob, "sync")  # bob merges: "you" is bob
    found = re.fullmatch(rf"conflict: {S} changed on both sides, in the same lines; (your|alice's) version is at "
                         rf"(conflicts/\S+); the working copy has (alice's|yours) \(merge what you need into "
                         rf"\.claude-sessions/{S}, delete the copy, then git enf commit\)", _said(out, S))
    assert found is not None, out
    aside, saved, here = found.groups()
    in_copy = run_git(bob, "show", f"claude-memory:{saved}")
    in_place = (bob / ".claude-sessions" / S).read_text()
    if aside == "your":  # bob's own edit went aside: the working copy has alice's
        assert here == "alice's" and "Bob says B" in in_copy and "Alice says A" in in_place
    else:
        assert here == "yours" and "Alice says A" in in_copy and "Bob says B" in in_place
    assert (bob / ".claude-sessions" / saved).read_text() == in_copy
    body = run_git(bob, "log", "-1", "--format=%B", "claude-memory")
    assert "conflict: " + S in body and "alice" in body and "bob" in body  # the commit names both
    out = enf_as(alice, "sync")  # alice fast-forwards onto bob's merge: told too, from her side
    assert "fast-forwarded" in out
    mirrored = ("bob's", "yours") if aside == "your" else ("your", "bob's")
    assert (f"conflict: {S} changed on both sides, in the same lines; {mirrored[0]} version is at {saved}; "
            f"the working copy has {mirrored[1]}") in _said(out, S)
    assert tree(alice) == tree(bob)


def test_an_edit_that_beat_a_deletion_is_said_to_the_side_that_deleted(team: tuple[Path, Path, Path]) -> None:
    _, alice, bob = team
    (alice / ".claude-sessions" / S).unlink()
    enf_as(alice, "sync")  # alice's deletion reaches the remote first
    edit(bob, "- step 3: did thing 3\n", "- step 3: did thing 3, still needed\n")
    out = enf_as(bob, "sync")  # bob merges: his edit stays
    assert f"kept: {S}: alice deleted it, but you edited it meanwhile, so your edit stays" in out
    out = enf_as(alice, "sync")  # alice only fast-forwards onto bob's merge, and is told
    assert "fast-forwarded" in out
    assert (f"kept: {S}: you deleted it, but bob edited it meanwhile, so bob's edit stays; "
            f"to delete it still: rm .claude-sessions/{S}, then git enf commit") in out
    assert "still needed" in (alice / ".claude-sessions" / S).read_text()
    assert enf_as(alice, "sync").count("kept:") == 0  # said once, not at every sync
    assert tree(alice) == tree(bob)


def test_the_deleting_side_merging_second_is_told_too(team: tuple[Path, Path, Path]) -> None:
    _, alice, bob = team
    edit(bob, "- step 3: did thing 3\n", "- step 3: did thing 3, still needed\n")
    enf_as(bob, "sync")
    (alice / ".claude-sessions" / S).unlink()
    doc = json.loads(enf_as(alice, "sync", "--json"))  # alice merges bob's edit into her deletion
    assert doc["kept"] == [{"path": S, "deleted": "yours", "yours_by": "alice", "theirs_by": "bob"}]
    assert f"kept: {S}: you deleted it, but bob edited it meanwhile, so bob's edit stays" in doc["notes"][0]
    assert "still needed" in (alice / ".claude-sessions" / S).read_text()
    out = enf_as(bob, "sync")
    assert "fast-forwarded" in out and "kept:" not in out  # bob deleted nothing
    assert tree(alice) == tree(bob)


# --- merges of tips in one repository (sync_merge), both directions -------------------

@pytest.fixture
def ctx(repo_dir: Path) -> memory.Context:
    c = memory.Context.open(repo_dir)
    memory.init(c, now=1_776_000_000)
    return c


def put(ctx: memory.Context, changes: Mapping[str, bytes | None], message: str = "edit") -> store.Commit:
    store_write.commit(ctx.repo, lambda _tip: changes, message)
    tip = store.tip(ctx.repo)
    assert tip is not None
    return tip


def fork(ctx: memory.Context, git: Git, a: Mapping[str, bytes | None],
         b: Mapping[str, bytes | None]) -> tuple[store.Commit, store.Commit]:
    base = git("rev-parse", "claude-memory").strip()
    tip_a = put(ctx, a, "side a")
    git("update-ref", "refs/heads/claude-memory", base)
    tip_b = put(ctx, b, "side b")
    return tip_a, tip_b


def both_ways(ctx: memory.Context, git: Git, a: store.Commit,
              b: store.Commit) -> tuple[sync_merge.MergeResult, store.Tree]:
    """Merge b into a and a into b; the results' trees must be one."""
    results = []
    for ours, theirs in ((a, b), (b, a)):
        git("update-ref", "refs/heads/claude-memory", str(ours.id))
        results.append(sync_merge.merge_tips(ctx.repo, ours, theirs, records.Cache(None), now=1_776_100_000))
    trees = [store.commit_at(ctx.repo, r.tip).tree for r in results]  # type: ignore[union-attr]
    assert trees[0].id == trees[1].id
    assert [p for p, _ in results[0].conflicts] == [p for p, _ in results[1].conflicts]
    return results[0], trees[0]


def test_a_header_that_merges_into_a_field_set_twice_is_a_conflict_copy(ctx: memory.Context, git: Git) -> None:
    put(ctx, {S: BASE.encode()})
    a = BASE.replace("date: 2026-04-13\n", "date: 2026-04-13\npriority: high\n")
    b = BASE.replace("status: completed\n", "status: completed\npriority: low\n")
    assert model.parse_session(S, a.encode()) and model.parse_session(S, b.encode())
    text = store_merge.merge_text(ctx.repo, BASE.encode(), a.encode(), b.encode())
    assert text is not None and text.count(b"priority:") == 2  # libgit2 alone would merge it
    tip_a, tip_b = fork(ctx, git, {S: a.encode()}, {S: b.encode()})
    done, _ = both_ways(ctx, git, tip_a, tip_b)
    assert [p for p, _ in done.conflicts] == [S]
    assert git("show", f"claude-memory:{S}").count("priority:") == 1


def test_bytes_that_are_not_utf8_are_never_merged_by_line(ctx: memory.Context, git: Git) -> None:
    path = "notes/latin1.txt"
    base = "".join(f"ligne {i} caf\xe9\n" for i in range(8)).encode("latin-1")
    a, b = base.replace(b"ligne 1 ", b"ligne 1 A "), base.replace(b"ligne 6 ", b"ligne 6 B ")
    put(ctx, {path: base})
    tip_a, tip_b = fork(ctx, git, {path: a}, {path: b})
    done, merged = both_ways(ctx, git, tip_a, tip_b)
    assert [p for p, _ in done.conflicts] == [path]
    kept = {store.read_path(ctx.repo, merged, path), store.read_path(ctx.repo, merged, done.conflicts[0][1])}
    assert kept == {a, b}  # both byte-identical


def test_a_merge_whose_text_would_hold_a_conflict_marker_is_a_conflict_copy(ctx: memory.Context, git: Git) -> None:
    put(ctx, {S: BASE.encode()})
    a = BASE.replace("- step 1: did thing 1\n", "<<<<<<< HEAD\n- step 1: did thing 1\n")
    b = BASE.replace("- step 8: did thing 8\n", "- step 8: did thing 8\n>>>>>>> theirs\n")
    assert merge.marker_line(a.encode()) is None and merge.marker_line(b.encode()) is None
    assert merge.merge_lines(ctx.repo, S, BASE.encode(), a.encode(), b.encode()) is None


def _lines_edit(rng: random.Random, lines: list[str], lo: int, hi: int, tag: str) -> list[str]:
    """Random inserts, deletions and rewrites of lines[lo:hi] only."""
    region = lines[lo:hi]
    for _ in range(rng.randint(1, 3)):
        op, at = rng.choice("ird"), rng.randrange(len(region) + 1)
        if op == "i":
            region.insert(at, f"- {tag} added {rng.randint(0, 99)}")
        elif region and at < len(region):
            if op == "r":
                region[at] = f"- {tag} rewrote {rng.randint(0, 99)}"
            else:
                del region[at]
    return lines[:lo] + region + lines[hi:]


def _session(lines: list[str]) -> bytes:
    return session_text(session_id="a1a1a1a1", body="\n## Work\n" + "".join(f"{x}\n" for x in lines)).encode()


def test_random_line_edits_merge_the_same_either_way_and_never_lose_or_mark(ctx: memory.Context, git: Git) -> None:
    """Seeded: edits in separate regions (two untouched lines between) always merge, to
    exactly both edits; edits anywhere merge or keep both versions, the same tree
    either way, never a marker, always a session that parses."""
    rng = random.Random(1789)
    base_lines = [f"- step {i}" for i in range(12)]
    put(ctx, {S: _session(base_lines)})
    start = git("rev-parse", "claude-memory").strip()
    merged_count = 0
    for round_ in range(24):
        git("update-ref", "refs/heads/claude-memory", start)
        apart = round_ % 2 == 0
        if apart:  # a's edits above line cut, b's below cut + 2
            cut = rng.randint(2, 8)
            a_lines = _lines_edit(rng, base_lines, 0, cut, "a")
            b_lines = _lines_edit(rng, base_lines, cut + 2, len(base_lines), "b")
        else:
            a_lines = _lines_edit(rng, base_lines, 0, len(base_lines), "a")
            b_lines = _lines_edit(rng, base_lines, 0, len(base_lines), "b")
        a, b = _session(a_lines), _session(b_lines)
        if a == b or a == _session(base_lines) or b == _session(base_lines):
            continue
        tip_a, tip_b = fork(ctx, git, {S: a}, {S: b})
        done, tree = both_ways(ctx, git, tip_a, tip_b)
        in_place = store.read_path(ctx.repo, tree, S)
        assert in_place is not None
        model.parse_session(S, in_place)
        for path, data in store.list_files(ctx.repo, tree).items():
            assert merge.marker_line(store.blob_data(ctx.repo, data)) is None, path
        if apart:
            cut_a = len(a_lines) - (len(base_lines) - cut)  # where a's region ends in a
            want = a_lines[:cut_a] + b_lines[cut:]
            assert done.conflicts == [] and in_place == _session(want), round_
        if done.conflicts:
            copy = store.read_path(ctx.repo, tree, done.conflicts[0][1])
            assert {in_place, copy} == {a, b}  # both versions, whole
        else:
            merged_count += 1
            assert not [p for p in store.list_files(ctx.repo, tree) if p.startswith("conflicts/")]
    assert merged_count >= 10


def test_views_of_a_line_merged_session_are_rendered_from_it(ctx: memory.Context, git: Git) -> None:
    put(ctx, {S: BASE.encode()})
    a = BASE.replace('summary: "Base"', 'summary: "Renamed on A"')
    b = BASE.replace("- step 8: did thing 8\n", "- step 8: did thing 8\n- step 9: on B\n")
    tip_a, tip_b = fork(ctx, git, {S: a.encode()}, {S: b.encode()})
    done, tree = both_ways(ctx, git, tip_a, tip_b)
    assert done.conflicts == []
    recs = records.load(ctx.repo, tree, records.Cache(None))
    want = render.render_all(memory.project_of(ctx.repo, tree, {}), recs.all_sessions(), recs.extra_decisions())
    for view, data in want.items():
        assert store.read_path(ctx.repo, tree, view) == data, view
    assert b"Renamed on A" in (store.read_path(ctx.repo, tree, "index.md") or b"")


# --- the commit of a working copy onto a branch that moved ---------------------------

def worktree(git: Git, tmp_path: Path) -> memory.Context:
    git("worktree", "add", "-q", "-b", "wt", str(tmp_path / "wt"))
    wt = memory.Context.open(tmp_path / "wt")
    memory.init(wt)
    return wt


def _two_copies(repo_dir: Path, git: Git, tmp_path: Path) -> tuple[memory.Context, memory.Context]:
    a = memory.Context.open(repo_dir)
    memory.init(a)
    (a.root / S).write_text(BASE)
    memory.commit(a)
    b = worktree(git, tmp_path)
    assert (b.root / S).read_text() == BASE
    return a, b


def test_a_commit_onto_a_branch_that_changed_other_lines_merges_them(repo_dir: Path, git: Git,
                                                                      tmp_path: Path) -> None:
    a, b = _two_copies(repo_dir, git, tmp_path)
    (a.root / S).write_text(BASE.replace('summary: "Base"', 'summary: "From A"'))
    (b.root / S).write_text(BASE.replace("- step 8: did thing 8\n", "- step 8: did thing 8, from B\n"))
    memory.commit(a)
    report = memory.commit(b)
    assert report.conflicts == [] and report.kept == []
    want = BASE.replace('summary: "Base"', 'summary: "From A"').replace("did thing 8\n", "did thing 8, from B\n")
    assert git("show", f"claude-memory:{S}") == want
    assert (b.root / S).read_text() == want  # the working copy holds the merge
    assert not [f for f in git("ls-tree", "-r", "--name-only", "claude-memory").split() if f.startswith("conflicts/")]
    assert memory.commit(b).commit is None  # settled


def test_a_commit_whose_same_lines_changed_says_whose_version_is_where(repo_dir: Path, git: Git,
                                                                       tmp_path: Path) -> None:
    a, b = _two_copies(repo_dir, git, tmp_path)
    (a.root / S).write_text(BASE.replace('summary: "Base"', 'summary: "From A"'))
    (b.root / S).write_text(BASE.replace('summary: "Base"', 'summary: "From B"'))
    memory.commit(a)
    report = memory.commit(b)
    [(path, saved)] = report.conflicts
    said = [line for _, line in memory.report_lines(report) if line.startswith("conflict:")]
    assert said == [f"conflict: {S} changed on both sides, in the same lines; your version is at {saved}; "
                    "the working copy has the one you committed elsewhere (merge what you need into "
                    f".claude-sessions/{S}, delete the copy, then git enf commit)"]
    assert "From B" in (b.root / saved).read_text() and "From A" in (b.root / S).read_text()


def test_a_commit_of_a_deletion_that_the_branch_edited_keeps_the_edit_and_says_so(
        repo_dir: Path, git: Git, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = _two_copies(repo_dir, git, tmp_path)
    with monkeypatch.context() as m:  # the other worktree's commit carries another name, however identity is read
        git("config", "user.name", "Alice")
        m.setenv("GIT_AUTHOR_NAME", "Alice")
        m.setenv("GIT_COMMITTER_NAME", "Alice")
        (a.root / S).write_text(BASE.replace("did thing 4\n", "did thing 4, from A\n"))
        memory.commit(a)
        git("config", "user.name", "Test Author")
    (b.root / S).unlink()
    report = memory.commit(b)
    said = [line for _, line in memory.report_lines(report) if line.startswith("kept:")]
    assert said == [f"kept: {S}: you deleted it, but Alice edited it meanwhile, so the edit stays (back in the "
                    f"working copy); to delete it still: rm .claude-sessions/{S}, then git enf commit"]
    assert "from A" in git("show", f"claude-memory:{S}") and "from A" in (b.root / S).read_text()
    assert memory.commit(b).kept == []  # said once


def test_a_commit_of_an_edit_that_the_branch_deleted_keeps_the_edit(repo_dir: Path, git: Git,
                                                                    tmp_path: Path) -> None:
    a, b = _two_copies(repo_dir, git, tmp_path)
    (a.root / S).unlink()
    memory.commit(a)
    (b.root / S).write_text(BASE.replace("did thing 4\n", "did thing 4, from B\n"))
    report = memory.commit(b)
    assert report.conflicts == [] and [p for p, _ in report.kept] == [S]
    assert "from B" in git("show", f"claude-memory:{S}")
    said = [line for _, line in memory.report_lines(report) if line.startswith("kept:")]
    assert said == [f"kept: {S}: you, elsewhere, deleted it, but you edited it meanwhile, so your edit stays"]
