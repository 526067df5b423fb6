"""The working copy: init, materialize, commit exactly what changed, merges, view edits."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from enf_git import memory
from enf_git.memory.record import views
from enf_git.memory import records
from enf_git.pure import render
from enf_git.errors import NotInitialized
from gitfixtures import Git, session_text, user_state

S1 = "sessions/2026-04-13-search-api.md"
S2 = "sessions/2026-04-14-billing-work.md"


@pytest.fixture
def ctx(repo_dir: Path) -> memory.Context:
    c = memory.Context.open(repo_dir)
    memory.init(c)
    return c


def write(ctx: memory.Context, rel: str, text: str) -> None:
    path = ctx.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_init_creates_branch_first_session_files_and_exclude(repo_dir: Path, git: Git) -> None:
    before = user_state(repo_dir)
    c = memory.Context.open(repo_dir)
    report = memory.init(c)
    assert report.commit is not None
    files = git("ls-tree", "-r", "--name-only", "claude-memory").split()
    # .derived/ (the digest the branch carries) is for enf-git, never in the working copy
    assert files == [".derived/digest.json", "decisions.md", "index.md", "log.md", "meta.json", "topics.md"]
    assert not (c.root / ".derived").exists()
    for name in files[1:]:
        assert (c.root / name).read_bytes() == git("show", f"claude-memory:{name}").encode()
    assert (c.root / "sessions").is_dir() and (c.root / "raw").is_dir()
    assert "/.claude-sessions/" in (repo_dir / ".git" / "info" / "exclude").read_text().splitlines()
    assert not (repo_dir / ".gitignore").exists()
    assert user_state(repo_dir) == before  # the working copy is invisible to git status
    git("fsck", "--strict")


def test_init_is_idempotent(repo_dir: Path, git: Git) -> None:
    c = memory.Context.open(repo_dir)
    memory.init(c)
    exclude = (repo_dir / ".git" / "info" / "exclude").read_text()
    again = memory.init(c)
    assert again.commit is None and again.warnings == []
    assert (repo_dir / ".git" / "info" / "exclude").read_text() == exclude
    assert git("rev-list", "--count", "claude-memory").strip() == "1"


def test_commit_without_init_says_what_to_do(repo_dir: Path) -> None:
    with pytest.raises(NotInitialized) as err:
        memory.commit(memory.Context.open(repo_dir))
    assert err.value.hint == "git enf init"


def test_commit_takes_exactly_the_changed_paths_and_refreshes_views(ctx: memory.Context, git: Git) -> None:
    write(ctx, S1, session_text())
    report = memory.commit(ctx, "checkpoint")
    assert report.commit is not None
    # no decision: decisions.md unchanged; the digest and the day's records index file are on the branch only
    assert report.commit.paths == (".derived/digest.json", ".derived/records/2026/04/13.jsonl", "index.md", S1,
                                   "topics.md")
    assert git("log", "-1", "--format=%s", "claude-memory").strip() == "checkpoint"
    assert "[2026-04-13-search-api](sessions/2026-04-13-search-api.md): Added search." in (ctx.root / "index.md").read_text()
    assert memory.pending(ctx).empty
    assert memory.commit(ctx).commit is None  # nothing changed: no empty commit


def test_deleting_a_file_deletes_it_on_the_branch(ctx: memory.Context, git: Git) -> None:
    write(ctx, S1, session_text())
    memory.commit(ctx)
    (ctx.root / S1).unlink()
    report = memory.commit(ctx)
    assert report.commit is not None and S1 in report.commit.paths
    assert S1 not in git("ls-tree", "-r", "--name-only", "claude-memory")


def worktree(git: Git, tmp_path: Path) -> memory.Context:
    """A linked worktree of the test repo with its own initialized working copy."""
    git("worktree", "add", "-q", "-b", "wt", str(tmp_path / "wt"))
    ctx = memory.Context.open(tmp_path / "wt")
    memory.init(ctx)
    return ctx


def test_two_worktrees_each_land_their_own_files(repo_dir: Path, git: Git, tmp_path: Path) -> None:
    a = memory.Context.open(repo_dir)
    memory.init(a)
    b = worktree(git, tmp_path)
    write(a, S1, session_text())
    write(b, S2, session_text(session_id="b2c3d4e5", date="2026-04-14", summary="Billing"))
    memory.commit(a)
    memory.commit(b)  # b's base is older than the tip: must not undo a's commit
    files = git("ls-tree", "-r", "--name-only", "claude-memory").split()
    assert S1 in files and S2 in files
    assert (b.root / S1).exists()  # b's working copy was refreshed with a's session
    memory.commit(a)
    assert (a.root / S2).exists()


def test_same_file_changed_on_both_sides_keeps_both(repo_dir: Path, git: Git, tmp_path: Path) -> None:
    a = memory.Context.open(repo_dir)
    memory.init(a)
    write(a, S1, session_text(summary="v1"))
    memory.commit(a)
    b = worktree(git, tmp_path)
    write(a, S1, session_text(summary="from a"))
    write(b, S1, session_text(summary="from b"))
    memory.commit(a)
    report = memory.commit(b)
    assert len(report.conflicts) == 1 and report.conflicts[0][0] == S1
    saved = report.conflicts[0][1]
    assert "from a" in git("show", f"claude-memory:{S1}")
    assert "from b" in git("show", f"claude-memory:{saved}")
    assert saved.startswith("conflicts/sessions/")
    # b's working copy now shows the branch's version, with its own side in conflicts/.
    assert "from a" in (b.root / S1).read_text() and "from b" in (b.root / saved).read_text()
    assert memory.commit(b).conflicts == []  # settled: the next commit does not re-report it


def test_log_md_merges_by_union(repo_dir: Path, git: Git, tmp_path: Path) -> None:
    a = memory.Context.open(repo_dir)
    memory.init(a)
    start = git("show", "claude-memory:log.md")
    b = worktree(git, tmp_path)
    with open(a.root / "log.md", "a") as f:
        f.write("- a did one thing\n")
    with open(b.root / "log.md", "a") as f:
        f.write("- b did another\n")
    memory.commit(a)
    report = memory.commit(b)
    assert report.conflicts == []
    # The branch's file, then the line b appended: every line once, nothing else.
    assert git("show", "claude-memory:log.md") == start + "- a did one thing\n- b did another\n"
    assert (b.root / "log.md").read_text() == start + "- a did one thing\n- b did another\n"


def test_a_flush_replayed_after_a_kill_lands_each_line_once(ctx: memory.Context, git: Git) -> None:
    """A flush killed between its append to log.md and saving its spool offsets appends
    the same lines again at the next flush: the commit's union keeps each line once."""
    from enf_git.memory import eventlog
    from enf_git.plumbing import events, store

    root, state = str(ctx.root), str(store.state_dir(ctx.repo))
    events.append(root, "a1b2c3d4-0000", "prompt", prompt="build the parser")
    events.append(root, "a1b2c3d4-0000", "tool-failure", tool="Bash", summary="make", error="Exit code 2")
    assert eventlog.flush(root, state) == 2
    memory.commit(ctx)
    committed = git("show", "claude-memory:log.md")
    lines = committed.splitlines()[-2:]
    assert "build the parser" in lines[0] + lines[1] and "make" in lines[0] + lines[1]
    for offsets in (Path(state) / "spool").glob("*"):
        if offsets.name != ".lock":
            offsets.unlink()  # as if the flush had died before it saved them
    assert eventlog.flush(root, state) == 2
    assert (ctx.root / "log.md").read_text() == committed + "".join(f"{line}\n" for line in sorted(lines))
    memory.commit(ctx)
    assert git("show", "claude-memory:log.md") == committed


@pytest.mark.parametrize(("base", "theirs", "ours", "merged"), [
    # ours appended after the base: their file, then our new lines
    (b"# Log\n- 1\n", b"# Log\n- 1\n- 2\n", b"# Log\n- 1\n- 3\n", b"# Log\n- 1\n- 2\n- 3\n"),
    # ours appended a line they have too (the same event flushed on both sides): once
    (b"# Log\n- 1\n", b"# Log\n- 1\n- 2\n", b"# Log\n- 1\n- 2\n- 3\n", b"# Log\n- 1\n- 2\n- 3\n"),
    # ours appended one line twice (a replayed flush): once
    (b"# Log\n- 1\n", b"# Log\n- 1\n", b"# Log\n- 1\n- 3\n- 3\n", b"# Log\n- 1\n- 3\n"),
    # ours no longer starts with the base (rewritten, or recreated from nothing): every
    # line of ours is looked at, and only the ones they lack are added
    (b"# Log\n- 1\n", b"# Log\n- 1\n- 2\n", b"# Log\n- 3\n- 1\n", b"# Log\n- 1\n- 2\n- 3\n"),
    (b"# Log\n- 1\n", b"# Log\n- 1\n- 2\n", b"- 3\n", b"# Log\n- 1\n- 2\n- 3\n"),
    # no base (a clone's first commit): the whole of ours, each line once
    (b"", b"# Log\n- 1\n", b"# Log\n- 1\n- 3\n", b"# Log\n- 1\n- 3\n"),
    # their file lacks its last newline; ours lacks one too
    (b"# Log\n", b"# Log\n- 2", b"# Log\n- 3", b"# Log\n- 2\n- 3\n"),
    # nothing new on our side: their file as it is
    (b"# Log\n- 1\n", b"# Log\n- 1\n- 2\n", b"# Log\n- 1\n", b"# Log\n- 1\n- 2\n"),
], ids=["appended", "a line they have", "a line twice", "rewritten", "recreated", "no base", "no last newline",
        "nothing new"])
def test_union_is_their_file_plus_our_new_lines_each_once(base: bytes, theirs: bytes, ours: bytes,
                                                          merged: bytes) -> None:
    from enf_git.memory.record import merge

    assert merge.union(base, theirs, ours) == merged


def test_local_edits_survive_materialize(ctx: memory.Context) -> None:
    write(ctx, S1, session_text())
    memory.commit(ctx)
    write(ctx, S1, session_text(summary="edited, not committed"))
    memory.materialize(ctx)
    assert "edited, not committed" in (ctx.root / S1).read_text()


def test_local_only_folders_never_reach_the_branch(ctx: memory.Context, git: Git) -> None:
    write(ctx, "raw/abc.jsonl", "{}\n")
    write(ctx, ".opt-out/a1b2c3d4", "")
    write(ctx, ".active/a1b2c3d4", "")
    write(ctx, S1, session_text())
    memory.commit(ctx)
    files = git("ls-tree", "-r", "--name-only", "claude-memory")
    assert "raw/" not in files and "opt-out" not in files and "active" not in files


def test_symlinks_in_the_working_copy_are_not_followed(ctx: memory.Context, git: Git, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET")
    (ctx.root / "sessions" / "2026-04-13-link.md").symlink_to(secret)
    memory.commit(ctx)
    assert "TOP SECRET" not in git("grep", "-h", "SECRET", "claude-memory", check=False)


def test_new_y_statement_in_decisions_md_is_imported(ctx: memory.Context, git: Git) -> None:
    text = (ctx.root / "decisions.md").read_text()
    line = ("- [2026-04-15] Y: In the context of storage, facing growth, decided Postgres over MySQL, "
            "to achieve JSONB, accepting ops work. Confidence: high")
    (ctx.root / "decisions.md").write_text(text + "\n## Storage\n" + line + "\n")
    report = memory.commit(ctx)
    assert len(report.imported) == 1 and report.imported[0].startswith("decisions/2026-04-15-d")
    assert report.rejected == []
    rendered = git("show", "claude-memory:decisions.md")
    assert "decided Postgres over MySQL" in rendered and "## Storage" in rendered


def test_duplicate_of_a_session_decision_is_not_imported_twice(ctx: memory.Context) -> None:
    body = ("\n## Decisions\n- [14:10] Y: In the context of search, facing scale, decided Elasticsearch over Algolia, "
            "to achieve control, accepting ops. Confidence: high\n")
    write(ctx, S1, session_text(body=body))
    memory.commit(ctx)
    text = (ctx.root / "decisions.md").read_text()
    (ctx.root / "decisions.md").write_text(text + "- [2026-04-13] Y: In the context of search, facing scale, "
                                           "decided Elasticsearch over Algolia, to achieve control. Confidence: high\n")
    report = memory.commit(ctx)
    assert report.imported == [] and report.rejected == []


def test_hand_edit_to_index_is_set_aside_not_lost(ctx: memory.Context, git: Git) -> None:
    (ctx.root / "index.md").write_text("my own notes\n")
    report = memory.commit(ctx)
    assert len(report.rejected) == 1
    view, saved, why = report.rejected[0]
    assert view == "index.md" and "generated from session files" in why
    assert (ctx.root.parent / saved).read_text() == "my own notes\n"
    assert (ctx.root / "index.md").read_text() == git("show", "claude-memory:index.md")
    assert memory.pending(ctx).empty


def test_malformed_session_is_reported_and_left_alone(ctx: memory.Context, git: Git) -> None:
    bad = "---\nsession_id: [unclosed\n---\nbody\n"
    write(ctx, "sessions/2026-04-13-broken.md", bad)
    report = memory.commit(ctx)
    problem = report.problems["sessions/2026-04-13-broken.md"]
    assert "sessions/2026-04-13-broken.md:" in str(problem)
    assert (ctx.root / "sessions/2026-04-13-broken.md").read_text() == bad
    assert git("show", "claude-memory:sessions/2026/04/2026-04-13-broken.md") == bad  # kept, just not indexed
    assert "0 sessions" in git("show", "claude-memory:index.md")
    write(ctx, "sessions/2026-04-14-fine.md", session_text(date="2026-04-14", session_id="f1f1f1f1"))
    assert memory.commit(ctx).problems == {}  # the old file is doctor's to name, not every commit's


def test_adopts_origin_branch(tmp_path: Path, repo_dir: Path, git: Git) -> None:
    from gitfixtures import run_git

    c = memory.Context.open(repo_dir)
    memory.init(c)
    write(c, S1, session_text())
    memory.commit(c)
    clone = tmp_path / "clone"
    run_git(tmp_path, "clone", "-q", "--no-local", str(repo_dir), str(clone))
    run_git(clone, "fetch", "-q", "origin", "claude-memory:refs/remotes/origin/claude-memory")
    d = memory.Context.open(clone)
    report = memory.init(d)
    assert report.commit is None and "adopted origin/claude-memory" in report.warnings
    assert (d.root / S1).read_text() == session_text()


def full_render(ctx: memory.Context, tree: pygit2.Tree, overlay: dict[str, bytes | None]) -> dict[str, bytes | None]:
    """Every view rendered from all records of tree + overlay: what a patch must equal."""
    recs = records.load(ctx.repo, tree, records.Cache(None), overlay)
    return render.render_all(memory.project_of(ctx.repo, tree, {}), recs.all_sessions(), recs.extra_decisions())


def checked_patch(ctx: memory.Context, git: Git, overlay: dict[str, bytes | None],
                  label: object) -> dict[str, bytes | None] | None:
    """The views patched for `overlay` on the tip (None: declined), asserted equal to a full render."""
    tree = ctx.repo.get(git("rev-parse", "claude-memory").strip()).tree
    patched = views.patched_views(ctx.repo, tree, overlay)
    if patched is not None:
        for view, data in full_render(ctx, tree, overlay).items():
            current = git("show", f"claude-memory:{view}", check=False).encode() or None
            assert patched.get(view, current) == data, (label, view)
    return patched


def assert_views_are_a_full_render(ctx: memory.Context, git: Git) -> None:
    """Every view on the branch holds exactly a full render's bytes."""
    tree = ctx.repo.get(git("rev-parse", "claude-memory").strip()).tree
    for view, data in full_render(ctx, tree, {}).items():
        assert (git("show", f"claude-memory:{view}", check=False).encode() or None) == data, view


def test_in_place_edits_patch_views_exactly_like_a_full_render(ctx: memory.Context, git: Git) -> None:
    """The cheap path (swap one session's lines) must give the full render's bytes, or decline.
    50 sessions with 3 of 4 tags each: every tag is past the 20 kept in topics.md, so
    edits swap lines in topics-archive.md too, and tag edits move tags across the split."""
    import random

    rng = random.Random(3)
    tags = ["api", "db", "ui", "ops"]
    def text(i: int, summary: str, status: str, tag_list: list[str], decided: str, date: str) -> str:
        body = (f"\n## Decisions\n- [10:00] Y: In the context of area {i % 3}, facing x, decided {decided} over y, "
                f"to achieve z. Confidence: high\n")
        return session_text(session_id=f"{i:08d}", date=date, summary=summary, status=status,
                            tags="[" + ", ".join(tag_list) + "]", body=body)
    def day(i: int) -> str:
        return f"2026-{3 + i // 28:02d}-{1 + i % 28:02d}"
    state = {i: [f"Summary {i}", "completed", rng.sample(tags, 3), f"option {i}", day(i)] for i in range(50)}
    for i, fields in state.items():
        write(ctx, f"sessions/{day(i)}-work-item-{i}.md", text(i, *fields))
    memory.commit(ctx)
    assert "topics-archive.md" in git("ls-tree", "--name-only", "claude-memory")
    patched_count = archive_patched = 0
    for _ in range(60):
        i = rng.randrange(50)
        fields = state[i]
        change = rng.choice(["summary", "summary", "status", "tags", "decision", "body"])
        if change == "summary":
            fields[0] = rng.choice(["Did things.", "", "Fixed the build", f"Round {rng.random():.3f}"])
        elif change == "status":
            fields[1] = "active" if fields[1] == "completed" else "completed"
        elif change == "tags":
            fields[2] = rng.sample(tags, rng.randint(0, 3))
        elif change == "decision":
            fields[3] = f"option {rng.randrange(100)}"
        path = f"sessions/{day(i)}-work-item-{i}.md"
        new = text(i, *fields) + ("\nmore notes\n" if change == "body" else "")
        patched = checked_patch(ctx, git, {path: new.encode()}, change)
        if patched is not None:
            patched_count += 1
            archive_patched += any(p.startswith("archive/topics-") for p in patched)
        write(ctx, path, new)
        memory.commit(ctx)
    assert patched_count >= 20  # the cheap path is actually taken for routine edits
    assert archive_patched >= 8  # ... also for sessions listed in a month of the topics archive
    assert_views_are_a_full_render(ctx, git)  # after 60 commits on the cheap path


def test_a_file_being_written_is_left_for_the_next_commit(ctx: memory.Context, git: Git) -> None:
    """A writer that truncates then writes leaves an empty file for a moment: never commit that."""
    path = ctx.root / S1
    path.write_text("")  # another process has just opened it with O_TRUNC
    assert memory.commit(ctx).commit is None
    assert S1 not in git("ls-tree", "-r", "--name-only", "claude-memory")
    path.write_text(session_text())
    memory.commit(ctx)
    assert git("show", f"claude-memory:{S1}") == session_text()


def test_adding_the_newest_session_patches_views_exactly_like_a_full_render(ctx: memory.Context, git: Git) -> None:
    """Across the 100-session index split and the 20-per-tag topics split, with new and
    existing tags, out-of-order adds and adds with decisions: the patched views equal a
    full render whenever they are used."""
    import random

    rng = random.Random(11)
    tags = ["api", "db", "ui", "zeta", "alpha"]
    # api (48) and ui (24) are past the topics split; db (17) crosses it during a patched
    # add, which gives it a section in the middle of topics-archive.md.
    seed_tags = {0: "[api]", 1: "[api]", 2: "[ui]", 3: "[db]"}
    for i in range(96):
        write(ctx, f"sessions/2026-01-{1 + i % 28:02d}-seed-{i}.md",
              session_text(session_id=f"s{i:07d}", date=f"2026-01-{1 + i % 28:02d}", summary=f"Seed {i}",
                           tags=seed_tags[i % 4] if i < 68 or i % 4 != 3 else "[]"))
    memory.commit(ctx)
    assert "topics-archive.md" in git("ls-tree", "--name-only", "claude-memory")
    day, used, archived = 0, 0, 0
    for i in range(30):
        newest = rng.random() < 0.8
        day = day + 1 if newest else day
        date = f"2026-02-{day:02d}" if newest else "2026-01-15"
        body = ("\n## Decisions\n- [10:00] Y: In the context of x, facing y, decided z over w, to achieve v. "
                "Confidence: high\n") if rng.random() < 0.2 else ""
        chosen = rng.sample(tags, rng.randint(0, 2))
        path = f"sessions/{date}-added-{i}.md"
        text = session_text(session_id=f"n{i:07d}", date=date, summary=rng.choice(["", f"Added {i}"]),
                            status=rng.choice(["active", "completed"]), tags="[" + ", ".join(chosen) + "]", body=body)
        patched = checked_patch(ctx, git, {path: text.encode()}, i)
        if patched is not None:
            used += 1
            archived += any(p.startswith("archive/topics-") for p in patched)
            assert not body  # old-dated adds are patched too (in their place); decisions never
        write(ctx, path, text)
        memory.commit(ctx)
    assert used >= 12  # the cheap path is really taken, also once the archive exists
    assert archived >= 8  # ... also when an add pushes a tag's oldest entry into the topics archive
    assert "index-archive.md" in git("ls-tree", "--name-only", "claude-memory")
    assert "\n## db\n" in git("show", "claude-memory:archive/topics-2026-01.md")
    assert_views_are_a_full_render(ctx, git)


def test_an_add_that_overflows_a_topic_creates_topics_archive_on_the_cheap_path(ctx: memory.Context, git: Git) -> None:
    for i in range(20):
        write(ctx, f"sessions/2026-01-{1 + i:02d}-seed-{i}.md",
              session_text(session_id=f"s{i:07d}", date=f"2026-01-{1 + i:02d}", summary=f"Seed {i}", tags="[api]"))
    memory.commit(ctx)
    assert "topics-archive.md" not in git("ls-tree", "--name-only", "claude-memory")
    path = "sessions/2026-02-01-newest.md"
    text = session_text(session_id="n0000000", date="2026-02-01", summary="Newest", tags="[api, db]")
    tree = ctx.repo.get(git("rev-parse", "claude-memory").strip()).tree
    patched = views.patched_views(ctx.repo, tree, {path: text.encode()})
    month = "archive/topics-2026-01.md"
    assert patched is not None and render.TOPICS_ARCHIVE in patched and month in patched
    write(ctx, path, text)
    memory.commit(ctx)
    for view in (render.TOPICS_ARCHIVE, month):
        assert git("show", f"claude-memory:{view}").encode() == patched[view]
        assert (ctx.root / view).read_bytes() == patched[view]
    assert_views_are_a_full_render(ctx, git)


def test_a_branch_with_the_archives_of_before_the_month_split_is_rendered_anew(ctx: memory.Context, git: Git) -> None:
    """0.4's index-archive.md held every older line in one file. The first commit that moves
    a line into the archive replaces it with the month files, and every session stays listed."""
    for i in range(104):
        day = f"2026-{1 + i // 28:02d}-{1 + i % 28:02d}"
        write(ctx, f"sessions/{day}-old-{i}.md", session_text(session_id=f"o{i:07d}", date=day, summary=f"Old {i}",
                                                              tags="[]"))
    memory.commit(ctx)
    tip = ctx.repo.get(git("rev-parse", "claude-memory").strip())
    months = [p for p in git("ls-tree", "-r", "--name-only", "claude-memory").split() if render.is_month_file(p)]
    assert months == ["archive/index-2026-01.md"]
    lines = [x.replace("](../sessions/", "](sessions/") for x in git("show", f"claude-memory:{months[0]}").splitlines()
             if x.startswith("- [")]
    old = "\n".join(["# Session Index Archive", "", render.MARKER, "", "> 4 sessions older than the newest 100", "",
                     *lines, ""]).encode()
    builder = ctx.repo.TreeBuilder(tip.tree)
    builder.remove("archive")
    builder.insert("index-archive.md", ctx.repo.create_blob(old), pygit2.enums.FileMode.BLOB)
    legacy = ctx.repo.get(builder.write())
    new = "sessions/2026-05-01-new.md"
    changed, problems = views.views_for(ctx.repo, _Tip(legacy), {new: session_text(
        session_id="n0000001", date="2026-05-01", summary="New", tags="[]").encode()}, records.Cache(None))
    assert not problems
    assert changed["index-archive.md"] is not None and b"](archive/index-2026-01.md)" in changed["index-archive.md"]
    month = (changed["archive/index-2026-01.md"] or b"").decode()
    assert month.count("- [") == 5 and all(x.replace("](sessions/", "](../sessions/") in month for x in lines)


class _Tip:
    """A commit-shaped holder of a tree (views_for reads only .tree)."""

    def __init__(self, tree: pygit2.Tree) -> None:
        self.tree = tree


def test_a_month_emptied_by_a_removal_leaves_the_branch(ctx: memory.Context, git: Git) -> None:
    for i in range(101):
        day = f"2026-02-{1 + i % 28:02d}" if i else "2026-01-05"
        write(ctx, f"sessions/{day}-s-{i}.md", session_text(session_id=f"m{i:07d}", date=day, summary=f"S {i}",
                                                            tags="[]"))
    memory.commit(ctx)
    assert "archive/index-2026-01.md" in git("ls-tree", "-r", "--name-only", "claude-memory")
    (ctx.root / "sessions/2026-01-05-s-0.md").unlink()
    memory.commit(ctx)
    files = git("ls-tree", "-r", "--name-only", "claude-memory").split()
    assert not any(render.is_month_file(p) for p in files) and "index-archive.md" not in files
    assert not (ctx.root / "archive/index-2026-01.md").exists()
    assert_views_are_a_full_render(ctx, git)


def test_after_an_older_enf_git_wrote_flat_sessions_the_next_commit_renders_every_view(ctx: memory.Context,
                                                                                       git: Git) -> None:
    """An older enf-git does not see the month folders: the views it commits list only its
    flat sessions. Patching them would keep them wrong, so the next commit renders them."""
    from enf_git.memory.record.working_set import materialize

    for i in range(3):
        write(ctx, f"sessions/2026-0{i + 1}-10-s-{i}.md", session_text(session_id=f"s000000{i}", date=f"2026-0{i + 1}-10",
                                                                       summary=f"S {i}", tags="[x]"))
    memory.commit(ctx)
    old = session_text(session_id="o0000009", date="2026-05-10", summary="Old nine", tags="[x]").encode()
    tip = ctx.repo.get(git("rev-parse", "claude-memory").strip())
    builder = ctx.repo.TreeBuilder(tip.tree)
    sessions = ctx.repo.TreeBuilder(ctx.repo.get(tip.tree["sessions"].id))
    sessions.insert("2026-05-10-old-9.md", ctx.repo.create_blob(old), pygit2.enums.FileMode.BLOB)
    builder.insert("sessions", sessions.write(), pygit2.enums.FileMode.TREE)
    from enf_git.pure import model

    seen = render.render_all(memory.project_of(ctx.repo, tip.tree, {}),  # all that 0.4 saw: its flat session
                             [model.parse_session("sessions/2026-05-10-old-9.md", old)], [])
    for view in ("index.md", "topics.md"):
        builder.insert(view, ctx.repo.create_blob(seen[view] or b""), pygit2.enums.FileMode.BLOB)
    stale = ctx.repo.create_commit(None, tip.author, tip.committer, "0.4's merge", builder.write(), [tip.id])
    git("update-ref", "refs/heads/claude-memory", str(stale))
    with ctx.lock():
        materialize(ctx)
    assert (ctx.root / "sessions/2026-05-10-old-9.md").read_bytes() == old
    write(ctx, "sessions/2026-06-10-new.md", session_text(session_id="n0000001", date="2026-06-10", summary="New",
                                                          tags="[x]"))
    memory.commit(ctx)
    assert_views_are_a_full_render(ctx, git)
    index = git("show", "claude-memory:index.md")
    assert all(f"[{stem}]" in index for stem in ("2026-05-10-old-9", "2026-06-10-new", "2026-01-10-s-0"))
    assert "sessions/2026-05-10-old-9.md" not in git("ls-tree", "-r", "--name-only", "claude-memory", raw=True)


def test_a_file_at_a_month_folders_path_is_refused_not_merged_with_its_session(ctx: memory.Context, git: Git) -> None:
    """sessions/2026/04/2026-04-13-x.md in the working copy is where the branch keeps
    sessions/2026-04-13-x.md: committing it would make two working-copy files one."""
    nested = "sessions/2026/04/2026-04-13-search-api.md"
    write(ctx, nested, session_text())
    report = memory.commit(ctx)
    assert report.commit is None and report.failed
    assert [p for p, _why in report.refused] == [nested]
    assert "sessions/2026/04/" not in git("ls-tree", "-r", "--name-only", "claude-memory", raw=True)
    assert (ctx.root / nested).read_text() == session_text()  # left as it is
    (ctx.root / nested).rename(ctx.root / S1)
    assert memory.commit(ctx).commit is not None
    assert git("show", f"claude-memory:{S1}") == session_text()


def test_a_copy_at_a_month_folders_path_is_never_tracked_and_removing_it_keeps_the_session(ctx: memory.Context,
                                                                                           git: Git) -> None:
    """A copy of a session at the branch's own place for it (what enf-git 0.4 wrote into the
    working copy) is not a second file: committing it is refused, deleting it deletes nothing."""
    write(ctx, S1, session_text())
    memory.commit(ctx)
    nested = "sessions/2026/04/2026-04-13-search-api.md"
    write(ctx, nested, session_text())
    report = memory.commit(ctx)
    assert [p for p, _why in report.refused] == [nested]
    assert f"it is a copy of .claude-sessions/{S1}" in report.refused[0][1]
    write(ctx, nested, session_text(summary="Another version"))
    assert f"{S1} exists too: merge the two" in memory.commit(ctx).refused[0][1]
    (ctx.root / nested).unlink()
    assert memory.commit(ctx).commit is None
    assert git("show", f"claude-memory:{S1}") == session_text()
    assert "sessions/2026/04/2026-04-13-search-api.md" in git("ls-tree", "-r", "--name-only", "claude-memory", raw=True)


def test_the_copies_an_older_enf_git_wrote_at_month_folder_paths_become_the_sessions_again(ctx: memory.Context,
                                                                                           git: Git) -> None:
    """0.4 took the branch's month folders for folders of the working copy and wrote each
    session at sessions/YYYY/MM/<name>, tracked in its manifest. The next refresh removes
    those copies that are unedited and brings each session back at its own name."""
    from enf_git.memory.record.working_set import materialize

    write(ctx, S1, session_text())
    write(ctx, S2, session_text(session_id="b2c3d4e5", date="2026-04-14", summary="Billing"))
    memory.commit(ctx)
    blobs = {p: git("rev-parse", f"claude-memory:{p}").strip() for p in (S1, S2)}
    with ctx.lock():
        manifest = ctx.manifest()
        for flat in (S1, S2):
            nested = "sessions/2026/04/" + flat.split("/")[1]
            (ctx.root / flat).rename(ctx.root / "x")
            write(ctx, nested, (ctx.root / "x").read_text())
            (ctx.root / "x").unlink()
            manifest.forget(flat)
            manifest.record(ctx.root, nested, blobs[flat])
        manifest.save(ctx.manifest_path)
    edited = ctx.root / "sessions/2026/04/2026-04-14-billing-work.md"
    edited.write_text(edited.read_text() + "\nedited in the copy\n")
    with ctx.lock():
        materialize(ctx)
    assert (ctx.root / S1).read_text() == session_text()  # back at its name
    assert not (ctx.root / "sessions/2026/04/2026-04-13-search-api.md").exists()  # the unedited copy went
    assert "edited in the copy" in edited.read_text()  # an edited copy stays ...
    assert (ctx.root / S2).is_file()
    report = memory.commit(ctx)
    assert [p for p, _ in report.refused] == ["sessions/2026/04/2026-04-14-billing-work.md"]  # ... and is named
    assert git("show", f"claude-memory:{S2}") == session_text(session_id="b2c3d4e5", date="2026-04-14",
                                                               summary="Billing")
