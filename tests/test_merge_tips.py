"""Merging two tips of the memory branch (team sharing), on real repositories.

Each test builds two diverged tips with store_write.commit in one repository, then merges
them both ways (A into B, B into A) and checks the trees with the real git binary:
the same tree OID either way, every record of both sides, no conflict marker.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Mapping
from pathlib import Path

import pytest

from enf_git import memory
from enf_git.errors import EnfError
from enf_git.memory.record import merge
from enf_git.memory import records
from enf_git.memory.share import sync_merge
from enf_git.plumbing import store, store_merge, store_write
from enf_git.pure import render
from gitfixtures import Git, run_git, session_text

S1 = "sessions/2026-04-13-search-api.md"
S2 = "sessions/2026-04-14-billing-work.md"
S3 = "sessions/2026-04-15-auth-flow.md"
LOG_HEAD = "# Log\n\nAppend-only record of sessions (written by hooks).\n"


@pytest.fixture
def ctx(repo_dir: Path) -> memory.Context:
    c = memory.Context.open(repo_dir)
    memory.init(c, now=1_776_000_000)
    return c


def put(ctx: memory.Context, changes: Mapping[str, str | None], message: str = "edit") -> store.Commit:
    """Commit `changes` onto the branch tip as it stands; the new tip."""
    data = {p: (t.encode() if t is not None else None) for p, t in changes.items()}
    store_write.commit(ctx.repo, lambda _tip: data, message)
    tip = store.tip(ctx.repo)
    assert tip is not None
    return tip


def fork(ctx: memory.Context, git: Git, a: Mapping[str, str | None],
         b: Mapping[str, str | None]) -> tuple[store.Commit, store.Commit]:
    """Two tips diverged from the current tip: one with `a` committed, one with `b`."""
    base = git("rev-parse", "claude-memory").strip()
    tip_a = put(ctx, a, "side a")
    git("update-ref", "refs/heads/claude-memory", base)
    tip_b = put(ctx, b, "side b")
    return tip_a, tip_b


def merge_both_ways(ctx: memory.Context, git: Git, a: store.Commit,
                    b: store.Commit) -> tuple[sync_merge.MergeResult, sync_merge.MergeResult]:
    """Merge b into a, then (from scratch) a into b; both results, tree OIDs asserted equal."""
    results = []
    for ours, theirs in ((a, b), (b, a)):
        git("update-ref", "refs/heads/claude-memory", str(ours.id))
        results.append(sync_merge.merge_tips(ctx.repo, ours, theirs, records.Cache(None), now=1_776_100_000))
        git("fsck", "--strict", "--no-dangling")
        assert git("rev-list", "--parents", "-n1", "claude-memory").split()[1:] == [str(ours.id), str(theirs.id)]
    one, two = results
    assert one.outcome == two.outcome == "merged"
    assert store.commit_at(ctx.repo, one.tip).tree.id == store.commit_at(ctx.repo, two.tip).tree.id  # type: ignore[union-attr]
    return one, two


def show(git: Git, path: str) -> str:
    return git("show", f"claude-memory:{path}")


def files(git: Git) -> list[str]:
    return git("ls-tree", "-r", "--name-only", "claude-memory").split()


def assert_views_are_a_full_render(ctx: memory.Context, git: Git) -> None:
    tip = store.tip(ctx.repo)
    assert tip is not None
    recs = records.load(ctx.repo, tip.tree, records.Cache(None))
    want = render.render_all(memory.project_of(ctx.repo, tip.tree, {}), recs.all_sessions(), recs.extra_decisions())
    for view, data in want.items():
        assert (git("show", f"claude-memory:{view}", check=False).encode() or None) == data, view


def assert_no_markers(ctx: memory.Context, git: Git) -> None:
    for path in files(git):
        assert merge.marker_line(show(git, path).encode()) is None, path
        assert "<<<<<<<" not in show(git, path), path


def test_different_files_on_each_side_both_land(ctx: memory.Context, git: Git) -> None:
    a, b = fork(ctx, git, {S1: session_text("aaaa1111")}, {S2: session_text("bbbb2222", date="2026-04-14")})
    one, _ = merge_both_ways(ctx, git, a, b)
    assert {S1, S2} <= set(files(git))
    assert one.conflicts == [] and one.kept == []
    assert show(git, S1) == session_text("aaaa1111")
    assert show(git, S2) == session_text("bbbb2222", date="2026-04-14")
    assert "2026-04-13-search-api" in show(git, "index.md") and "2026-04-14-billing-work" in show(git, "index.md")
    assert_views_are_a_full_render(ctx, git)


def test_same_session_edited_on_both_sides_keeps_both_the_same_way_in_either_direction(
        ctx: memory.Context, git: Git) -> None:
    put(ctx, {S1: session_text(summary="Base")})
    text_a, text_b = session_text(summary="Edited on A"), session_text(summary="Edited on B")
    a, b = fork(ctx, git, {S1: text_a}, {S1: text_b})
    one, two = merge_both_ways(ctx, git, a, b)
    oid_a, oid_b = store.hash_bytes(text_a.encode()), store.hash_bytes(text_b.encode())
    keep, move = sorted((oid_a, oid_b))
    saved = f"conflicts/{S1}.{keep[:8]}-{move[:8]}"
    assert one.conflicts == two.conflicts == [(S1, saved)]
    by_oid = {oid_a: text_a, oid_b: text_b}
    assert show(git, S1) == by_oid[keep] and show(git, saved) == by_oid[move]
    assert_views_are_a_full_render(ctx, git)
    assert_no_markers(ctx, git)
    assert "conflict: " + S1 in git("log", "-1", "--format=%B", "claude-memory")


def test_deletion_against_an_unchanged_side_wins(ctx: memory.Context, git: Git) -> None:
    put(ctx, {S1: session_text(), S2: session_text("bbbb2222", date="2026-04-14")})
    a, b = fork(ctx, git, {S1: None}, {S3: session_text("cccc3333", date="2026-04-15")})
    one, _ = merge_both_ways(ctx, git, a, b)
    assert S1 not in files(git) and {S2, S3} <= set(files(git))
    assert one.kept == [] and "2026-04-13-search-api" not in show(git, "index.md")
    assert_views_are_a_full_render(ctx, git)


def test_deletion_against_an_edit_keeps_the_edit_and_reports_it(ctx: memory.Context, git: Git) -> None:
    put(ctx, {S1: session_text(summary="Base")})
    a, b = fork(ctx, git, {S1: None}, {S1: session_text(summary="Still working")})
    one, two = merge_both_ways(ctx, git, a, b)
    assert show(git, S1) == session_text(summary="Still working")
    assert one.kept == two.kept == [S1] and one.conflicts == []
    assert "kept: " + S1 in git("log", "-1", "--format=%B", "claude-memory")


def test_log_md_merges_as_a_union_without_duplicates_in_either_direction(ctx: memory.Context, git: Git) -> None:
    put(ctx, {"log.md": LOG_HEAD + "- 2026-04-13T10:00 base\n"})
    both = "- 2026-04-13T11:00 flushed on both\n"
    a, b = fork(ctx, git, {"log.md": LOG_HEAD + "- 2026-04-13T10:00 base\n" + both + "- 2026-04-13T12:30 a\n"},
                {"log.md": LOG_HEAD + "- 2026-04-13T10:00 base\n- 2026-04-13T09:00 b late flush\n" + both
                 + "- 2026-04-13T12:00 b\n"})
    merge_both_ways(ctx, git, a, b)
    assert show(git, "log.md") == (LOG_HEAD + "- 2026-04-13T10:00 base\n" "- 2026-04-13T09:00 b late flush\n"
                                   + both + "- 2026-04-13T12:00 b\n- 2026-04-13T12:30 a\n")
    assert show(git, "log.md").count(both) == 1


def test_union_of_is_symmetric_and_keeps_every_line_once() -> None:
    a = b"# Log\n\n- 1 x\n- 3 z\n"
    b = b"# Log\n\n- 2 y\n- 1 x\n"
    assert merge.union_of(a, b) == merge.union_of(b, a) == b"# Log\n\n- 1 x\n- 2 y\n- 3 z\n"
    assert merge.union_of(a, a) == a
    assert merge.union_of(b"", a) == b"# Log\n- 1 x\n- 3 z\n"  # no shared head: blank lines carry nothing


def test_views_are_rerendered_not_merged_even_when_a_side_edited_one(ctx: memory.Context, git: Git) -> None:
    put(ctx, {S1: session_text()})
    a, b = fork(ctx, git, {"index.md": "hand edit on A\n", S2: session_text("bbbb2222", date="2026-04-14")},
                {"index.md": "another hand edit on B\n", S3: session_text("cccc3333", date="2026-04-15")})
    one, _ = merge_both_ways(ctx, git, a, b)
    assert one.conflicts == []
    assert not [p for p in files(git) if p.startswith("conflicts/")]
    assert_views_are_a_full_render(ctx, git)


def test_two_unrelated_roots_merge_into_one_history(tmp_path: Path, repo_dir: Path) -> None:
    clones = []
    for i, name in enumerate(("alice", "bob")):
        path = tmp_path / name
        run_git(tmp_path, "clone", "-q", str(repo_dir), str(path))  # the same origin: the same project name
        c = memory.Context.open(path)
        memory.init(c, now=1_776_000_000 + i)  # each clone's own first commit: no common ancestor
        clones.append(c)
    alice, bob = clones
    put(alice, {S1: session_text("aaaa1111"), "log.md": LOG_HEAD + "- 2026-04-13T10:00 alice\n"})
    put(bob, {S2: session_text("bbbb2222", date="2026-04-14"), "log.md": LOG_HEAD + "- 2026-04-14T10:00 bob\n"})
    for ours, other in ((alice, bob), (bob, alice)):  # exchange tips before either merges
        run_git(ours.root.parent, "fetch", "-q", str(other.root.parent), "claude-memory:refs/remotes/peer/claude-memory")
    trees = []
    for ours in (alice, bob):
        mine, theirs = store.tip(ours.repo), store.resolve(ours.repo, "refs/remotes/peer/claude-memory")
        assert mine is not None and store_merge.merge_base(ours.repo, mine, theirs) is None
        result = sync_merge.merge_tips(ours.repo, mine, theirs, ours.cache(), now=1_776_100_000)
        assert result.outcome == "merged" and result.base is None and result.conflicts == []
        run_git(ours.root.parent, "fsck", "--strict", "--no-dangling")
        tip = store.tip(ours.repo)
        assert tip is not None
        trees.append(str(tip.tree.id))
        git_files = run_git(ours.root.parent, "ls-tree", "-r", "--name-only", "claude-memory").split()
        assert {S1, S2, "meta.json", "log.md", "index.md"} <= set(git_files)
        assert run_git(ours.root.parent, "show", "claude-memory:log.md") == (
            LOG_HEAD + "- 2026-04-13T10:00 alice\n- 2026-04-14T10:00 bob\n")
        roots = run_git(ours.root.parent, "rev-list", "--max-parents=0", "claude-memory").split()
        assert len(roots) == 2
    assert trees[0] == trees[1]


def test_nothing_new_writes_nothing(ctx: memory.Context, git: Git) -> None:
    old = put(ctx, {S1: session_text()})
    new = put(ctx, {S2: session_text("bbbb2222", date="2026-04-14")})
    before = git("rev-parse", "claude-memory").strip()
    objects = git("count-objects", "-v")
    for theirs in (old, new):
        result = sync_merge.merge_tips(ctx.repo, new, theirs, records.Cache(None))
        assert result.outcome == "up-to-date" and result.commit is None and result.tip == before
    assert git("rev-parse", "claude-memory").strip() == before
    assert git("count-objects", "-v") == objects


def test_fast_forward_moves_the_ref_to_theirs_without_a_merge_commit(ctx: memory.Context, git: Git) -> None:
    old = put(ctx, {S1: session_text()})
    new = put(ctx, {S2: session_text("bbbb2222", date="2026-04-14")})
    git("update-ref", "refs/heads/claude-memory", str(old.id))
    result = sync_merge.merge_tips(ctx.repo, old, new, records.Cache(None))
    assert result.outcome == "fast-forward" and result.commit is None
    assert git("rev-parse", "claude-memory").strip() == str(new.id) == result.tip
    assert "fast-forward" in git("reflog", "-1", "--format=%gs", "claude-memory")


def test_fast_forward_creates_a_missing_branch(repo_dir: Path, git: Git) -> None:
    repo = store.open_repo(repo_dir)
    store_write.commit(repo, lambda _t: {"meta.json": b"{}\n"}, "theirs")
    theirs = store.tip(repo)
    assert theirs is not None
    git("update-ref", "-d", "refs/heads/claude-memory")
    result = sync_merge.merge_tips(repo, None, theirs, records.Cache(None))
    assert result.outcome == "fast-forward" and git("rev-parse", "claude-memory").strip() == str(theirs.id)


def test_a_branch_that_moved_during_the_merge_is_merged_again_on_its_new_tip(
        ctx: memory.Context, git: Git, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = fork(ctx, git, {S1: session_text("aaaa1111")}, {S2: session_text("bbbb2222", date="2026-04-14")})
    git("update-ref", "refs/heads/claude-memory", str(a.id))
    real = store_merge.commit_merge
    raced = []

    def racing(*args: object, **kwargs: object) -> store_write.CommitResult | None:
        if not raced:  # a local session commits between our read of the tip and our CAS
            raced.append(put(ctx, {S3: session_text("cccc3333", date="2026-04-15")}))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(store_merge, "commit_merge", racing)
    result = sync_merge.merge_tips(ctx.repo, a, b, records.Cache(None))
    assert result.outcome == "merged"
    assert git("rev-list", "--parents", "-n1", "claude-memory").split()[1:] == [str(raced[0].id), str(b.id)]
    assert {S1, S2, S3} <= set(files(git))
    assert_views_are_a_full_render(ctx, git)


def test_a_merge_that_would_bring_conflict_markers_is_refused(ctx: memory.Context, git: Git) -> None:
    bad = session_text(body="<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> origin/claude-memory\n")
    a, b = fork(ctx, git, {S1: session_text()}, {S2: bad.replace("a1b2c3d4", "bbbb2222")})
    git("update-ref", "refs/heads/claude-memory", str(a.id))
    with pytest.raises(EnfError, match=rf"refusing to commit {S2}: line \d+ starts an unresolved git conflict"):
        sync_merge.merge_tips(ctx.repo, a, b, records.Cache(None))
    assert git("rev-parse", "claude-memory").strip() == str(a.id)


def test_marker_guard_flags_real_markers_only() -> None:
    assert merge.marker_line(b"a\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> b\n") == 2
    assert merge.marker_line(b"<<<<<<<\nx\n>>>>>>>\n") == 1
    assert merge.marker_line(b"<<<<<<< HEAD\nno closing line\n") is None
    assert merge.marker_line(b"text\n```\n<<<<<<< HEAD\nx\n>>>>>>> b\n```\n") is None  # quoted in a code block
    assert merge.marker_line(b"  <<<<<<< indented\n>>>>>>> b\n") is None
    assert merge.marker_line(b"<<<<<<<< eight\n>>>>>>> b\n") is None
    assert merge.marker_line(b"\x00<<<<<<< HEAD\n>>>>>>> b\n") is None  # binary: passes through untouched
    with pytest.raises(EnfError, match="delete the <<<<<<<, ======= and >>>>>>> lines"):
        merge.refuse_markers({"sessions/ok.md": b"fine\n", "gone.md": None, "log.md": b"<<<<<<< a\n>>>>>>> b\n"})
    merge.refuse_markers({"sessions/ok.md": b"fine\n", "gone.md": None})



def test_after_a_criss_cross_both_directions_still_give_one_tree(ctx: memory.Context, git: Git) -> None:
    """Each side merged the other, then both moved on: there are two best bases now,
    and merging the two new tips either way must still give one tree."""
    a1, b1 = fork(ctx, git, {S1: session_text("aaaa1111")}, {S2: session_text("bbbb2222", date="2026-04-14")})
    tips = []
    for ours, theirs, more in ((a1, b1, {S3: session_text("cccc3333", date="2026-04-15")}),
                               (b1, a1, {S1: session_text("aaaa1111", summary="Edited after")})):
        git("update-ref", "refs/heads/claude-memory", str(ours.id))
        sync_merge.merge_tips(ctx.repo, ours, theirs, records.Cache(None), now=1_776_100_000 + len(tips))
        tips.append(put(ctx, more))
    merge_both_ways(ctx, git, tips[0], tips[1])
    assert {S1, S2, S3} <= set(files(git))
    assert show(git, S1) == session_text("aaaa1111", summary="Edited after")
    assert_views_are_a_full_render(ctx, git)


def test_a_submodule_in_a_hand_made_push_is_left_out_not_a_crash(ctx: memory.Context, git: Git) -> None:
    a, _ = fork(ctx, git, {S1: session_text("aaaa1111")}, {S2: session_text("bbbb2222", date="2026-04-14")})
    listing = git("ls-tree", "claude-memory")
    tree = run_git(ctx.root.parent, "mktree", input=(listing + "160000 commit " + "1" * 40 + "\tvendored\n").encode())
    hostile = git("commit-tree", "-p", "claude-memory", "-m", "hand-made", tree.strip()).strip()
    theirs = store.commit_at(ctx.repo, hostile)
    assert theirs is not None
    git("update-ref", "refs/heads/claude-memory", str(a.id))
    result = sync_merge.merge_tips(ctx.repo, a, theirs, records.Cache(None))
    assert result.outcome == "merged" and result.skipped == ["vendored"]
    assert {S1, S2} <= set(files(git)) and "vendored" not in files(git)
    git("fsck", "--strict", "--no-dangling")


# --- views patched, not rendered, when a side brought a few sessions ---------------------

def random_session(r: random.Random, i: int) -> tuple[str, str]:
    """(path, text) of a session on one of 40 days, at a time that often collides, 0-3
    tags of 5; one in eight records a decision (whose views are always rendered)."""
    day = (dt.date(2026, 1, 1) + dt.timedelta(days=r.randrange(40))).isoformat()
    tags = "[" + ", ".join(r.sample(["api", "db", "ui", "ops", "zz"], r.randint(0, 3))) + "]"
    body = ("\n## Decisions\n- [10:00] Y: In the context of area, decided x over y. Confidence: high\n"
            if r.random() < 0.125 else "")
    text = session_text(f"r{i:07d}", day, f"Session {i}", tags, r.choice(["completed", "active"]), body)
    return f"sessions/{day}-work-{r.choice('abc')}{i:04d}.md", text.replace('"14:30"', f'"{r.choice(["09:00", "14:30"])}"')


def put_rendered(ctx: memory.Context, changes: Mapping[str, str | None]) -> store.Commit:
    """Commit `changes` with the views a full render gives (what enf's own commits hold)."""
    data = {p: (t.encode() if t is not None else None) for p, t in changes.items()}

    def build(tip: store.Commit | None) -> dict[str, bytes | None]:
        assert tip is not None
        rendered, _ = sync_merge.render_views(ctx.repo, tip.tree, data, records.Cache(None))
        return {**data, **rendered}

    store_write.commit(ctx.repo, build, "rendered")
    tip = store.tip(ctx.repo)
    assert tip is not None
    return tip


@pytest.fixture
def full_renders(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times a merge fell back to rendering every view."""
    calls: list[int] = []
    real = sync_merge.render_views

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(sync_merge, "render_views", counted)
    return calls


def test_merging_a_few_sessions_patches_views_the_same_in_either_direction(
        ctx: memory.Context, git: Git, full_renders: list[int]) -> None:
    """Random forks of a 130-session branch (both archives exist): each side adds 1-3
    sessions of any date, sometimes edits one in place. Either direction gives one tree
    whose views are a full render's bytes; without decisions, no full render is needed."""
    r = random.Random(5)
    made = [random_session(r, i) for i in range(130)]
    base = put_rendered(ctx, dict(made))
    patched = 0
    for trial in range(14):
        sides = []
        for side in range(2):
            news = [random_session(r, 1000 + 10 * trial + 5 * side + k) for k in range(r.randint(1, 3))]
            edit = {}
            if r.random() < 0.4:
                path, text = made[r.randrange(len(made))]
                edit = {path: text.replace("summary: \"Session", f"summary: \"Side {side} edited session")}
            sides.append({**dict(news), **edit})
        git("update-ref", "refs/heads/claude-memory", str(base.id))
        a = put_rendered(ctx, sides[0])
        git("update-ref", "refs/heads/claude-memory", str(base.id))
        b = put_rendered(ctx, sides[1])
        before = len(full_renders)
        merge_both_ways(ctx, git, a, b)
        assert_views_are_a_full_render(ctx, git)
        decided = any("## Decisions" in t for side in sides for t in side.values() if t)
        patched += len(full_renders) == before
        assert decided or len(full_renders) == before, trial
    assert patched >= 6


def test_a_side_whose_views_are_not_a_full_render_makes_the_merge_render_them(
        ctx: memory.Context, git: Git, full_renders: list[int]) -> None:
    """A hand edit on the branch that keeps the views' shape: patching would carry it on
    one side only, so the two patches differ and the views are rendered from the records."""
    r = random.Random(9)
    base = put_rendered(ctx, dict(random_session(r, i) for i in range(30)))
    (new_a, new_b) = (random_session(r, 500), random_session(r, 501))
    a = put_rendered(ctx, dict([new_a]))
    index = show(git, "index.md")
    edited = index.replace("Session 3", "Session three, by hand", 1)
    assert edited != index
    a = put(ctx, {"index.md": edited})
    git("update-ref", "refs/heads/claude-memory", str(base.id))
    b = put_rendered(ctx, dict([new_b]))
    before = len(full_renders)
    merge_both_ways(ctx, git, a, b)
    assert len(full_renders) == before + 2 and "by hand" not in show(git, "index.md")
    assert_views_are_a_full_render(ctx, git)


def test_after_a_sync_merge_the_working_copy_gets_the_merge_and_nothing_else(
        tmp_path: Path, repo_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The refresh after a merge writes exactly the files the merge changed, from the bytes
    it just committed (no blob read back), and leaves the working copy clean."""
    from enf_git.memory.share import sync as sync_mod
    from enf_git.memory.record import working_set

    bare = tmp_path / "origin.git"
    run_git(tmp_path, "init", "-q", "--bare", str(bare))
    run_git(repo_dir, "remote", "add", "origin", str(bare))
    run_git(repo_dir, "push", "-q", "origin", "main")
    r = random.Random(3)
    alice = tmp_path / "alice"
    run_git(tmp_path, "clone", "-q", str(bare), str(alice))
    a = memory.Context.open(alice)
    memory.init(a, now=1_776_000_000)
    for i in range(40):
        path, text = random_session(r, i)
        (a.root / path).write_text(text.replace("## Decisions", "## Notes"))
    memory.commit(a, now=1_776_000_001)
    assert sync_mod.sync(a, "origin", now=1_776_000_002).ok
    bob = tmp_path / "bob"
    run_git(tmp_path, "clone", "-q", str(bare), str(bob))
    run_git(bob, "fetch", "-q", "origin", "claude-memory:refs/remotes/origin/claude-memory")
    b = memory.Context.open(bob)
    memory.init(b, now=1_776_000_003)
    (a.root / "sessions/2026-01-05-alice-late.md").write_text(session_text("aaaa0001", "2026-01-05", "Alice late", "[api]"))
    assert sync_mod.sync(a, "origin", now=1_776_000_004).ok
    (b.root / "sessions/2026-03-01-bob-new.md").write_text(session_text("bbbb0001", "2026-03-01", "Bob new", "[api]"))
    stats = {p.relative_to(b.root).as_posix(): p.stat().st_mtime_ns for p in b.root.rglob("*.md")}
    reads: list[str] = []
    real = store.blob_data
    monkeypatch.setattr(store, "blob_data", lambda repo, oid: reads.append(str(oid)) or real(repo, oid))
    refreshed = []
    real_materialize = working_set.materialize

    def spy(*args: object, **kwargs: object) -> list[str]:
        reads.clear()
        written = real_materialize(*args, **kwargs)  # type: ignore[arg-type]
        refreshed.append((written, list(reads)))
        return written

    monkeypatch.setattr(sync_mod, "materialize", spy)
    done = sync_mod.sync(b, "origin", now=1_776_000_005)
    assert done.ok and [m.outcome for m in done.merges] == ["merged"]
    (written, read_back), = refreshed
    merge_commit = store.tip(b.repo)
    assert merge_commit is not None
    changed = set(run_git(bob, "diff", "--name-only", "claude-memory^1", "claude-memory").split())
    changed -= {p for p in changed if p.startswith(".derived/")}  # the records index: on the branch only
    assert set(written) == changed and "sessions/2026-01-05-alice-late.md" in changed and read_back == []
    for path in changed:
        assert (b.root / path).read_text() == run_git(bob, "show", f"claude-memory:{path}")
    for path, mtime in stats.items():
        if path not in changed and path != "sessions/2026-03-01-bob-new.md" and path not in render.VIEWS:
            assert (b.root / path).stat().st_mtime_ns == mtime, path
    assert memory.commit(b, now=1_776_000_006).commit is None  # nothing left to commit: the manifest agrees


def shared_pair(tmp_path: Path, repo_dir: Path) -> tuple[memory.Context, memory.Context]:
    """Alice and Bob, clones of one bare remote whose claude-memory Alice created."""
    from enf_git.memory.share import sync as sync_mod

    bare = tmp_path / "origin.git"
    run_git(tmp_path, "init", "-q", "--bare", str(bare))
    run_git(repo_dir, "remote", "add", "origin", str(bare))
    run_git(repo_dir, "push", "-q", "origin", "main")
    out = []
    for name in ("alice", "bob"):
        path = tmp_path / name
        run_git(tmp_path, "clone", "-q", str(bare), str(path))
        run_git(path, "fetch", "-q", "origin", "+refs/heads/claude-memory:refs/remotes/origin/claude-memory",
                check=False)  # Alice's sync creates it; Bob adopts it
        ctx = memory.Context.open(path)
        memory.init(ctx, now=1_776_000_000)
        assert sync_mod.sync(ctx, "origin", now=1_776_000_001).ok
        out.append(ctx)
    return out[0], out[1]


def test_sync_commits_the_working_copy_while_the_first_fetch_runs(
        tmp_path: Path, repo_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from enf_git.memory.share import sync as sync_mod
    from enf_git.plumbing import gitcli

    alice, bob = shared_pair(tmp_path, repo_dir)
    (alice.root / S1).write_text(session_text("aaaa1111"))
    assert sync_mod.sync(alice, "origin", now=1_776_000_002).ok
    (bob.root / S2).write_text(session_text("bbbb2222", date="2026-04-14"))
    fetching = threading.Event()
    overlapped: list[bool] = []
    real_fetch, real_commit = gitcli.fetch, sync_mod.commit

    def fetch(*args: object, **kwargs: object) -> gitcli.FetchResult:
        fetching.set()
        return real_fetch(*args, **kwargs)  # type: ignore[arg-type]

    def commit(*args: object, **kwargs: object) -> object:
        overlapped.append(fetching.wait(timeout=3))  # a sync that committed first would wait in vain
        return real_commit(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(gitcli, "fetch", fetch)
    monkeypatch.setattr(sync_mod, "commit", commit)
    done = sync_mod.sync(bob, "origin", now=1_776_000_003)
    assert done.ok and overlapped == [True]
    assert done.local is not None and done.local.commit is not None
    assert [m.outcome for m in done.merges] == ["merged"]
    assert {S1, S2} <= set(run_git(bob.root.parent, "ls-tree", "-r", "--name-only", "origin/claude-memory").split())


def test_a_commit_that_fails_during_the_fetch_fails_the_sync(
        tmp_path: Path, repo_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from enf_git.memory.share import sync as sync_mod

    _, bob = shared_pair(tmp_path, repo_dir)
    before = run_git(bob.root.parent, "rev-parse", "origin/claude-memory")

    def broken(*args: object, **kwargs: object) -> object:
        raise EnfError("the working copy could not be read", hint="git enf doctor")

    monkeypatch.setattr(sync_mod, "commit", broken)
    with pytest.raises(EnfError, match="could not be read"):
        sync_mod.sync(bob, "origin", now=1_776_000_004)
    assert run_git(tmp_path / "origin.git", "rev-parse", "claude-memory") == before  # nothing pushed


def test_a_sync_merge_reads_our_views_from_the_working_copy(
        tmp_path: Path, repo_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ours' views are what the working copy holds (the manifest's stat proves it): the
    merge reads them there, not from the object store (where libgit2 inflates and
    hash-checks megabytes of archives), and still gets a full render's bytes."""
    from enf_git.memory.share import sync as sync_mod

    alice, bob = shared_pair(tmp_path, repo_dir)
    r = random.Random(12)
    for i in range(30):
        path, text = random_session(r, i)
        (alice.root / path).write_text(text.replace("## Decisions", "## Notes"))
    assert sync_mod.sync(alice, "origin", now=1_776_000_002).ok
    assert sync_mod.sync(bob, "origin", now=1_776_000_003).ok  # a fast-forward: bob has them all
    (alice.root / "sessions/2026-01-03-alice-more.md").write_text(session_text("aaaa0002", "2026-01-03", "More", "[db]"))
    assert sync_mod.sync(alice, "origin", now=1_776_000_004).ok
    (bob.root / "sessions/2026-03-03-bob-more.md").write_text(session_text("bbbb0002", "2026-03-03", "Bob", "[db]"))
    memory.commit(bob, now=1_776_000_005)
    ours = store.tip(bob.repo)
    assert ours is not None
    from_store: list[str] = []
    real = store.read_path

    def read_path(repo: store.Repo, tree: store.Tree | None, path: str) -> bytes | None:
        if tree is not None and tree.id == ours.tree.id and path in render.VIEWS:
            from_store.append(path)
        return real(repo, tree, path)

    monkeypatch.setattr(store, "read_path", read_path)
    done = sync_mod.sync(bob, "origin", now=1_776_000_006)
    assert done.ok and [m.outcome for m in done.merges] == ["merged"]
    assert from_store == []
    assert_views_are_a_full_render(bob, lambda *a, **k: run_git(bob.root.parent, *a, **k))
