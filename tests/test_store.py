"""store.py on real repositories, checked with the real git binary."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pygit2
import pytest

from enf_git.plumbing import store, store_write
from enf_git.errors import RepoError
from gitfixtures import Git, run_git, user_state


def test_first_commit_is_an_orphan_and_nothing_is_checked_out(repo_dir: Path, git: Git) -> None:
    before = user_state(repo_dir)
    repo = store.open_repo(repo_dir)
    result = store_write.commit(repo, lambda tip: {"sessions/a.md": b"a\n", "index.md": b"i\n"}, "first")
    assert result is not None and result.parent is None
    assert git("rev-list", "--parents", "-n1", "claude-memory").split() == [result.oid]
    assert git("ls-tree", "-r", "--name-only", "claude-memory").split() == ["index.md", "sessions/a.md"]
    assert git("show", "claude-memory:sessions/a.md") == "a\n"
    assert user_state(repo_dir) == before
    git("fsck", "--strict")


def test_add_modify_delete_nested_paths(repo_dir: Path, git: Git) -> None:
    repo = store.open_repo(repo_dir)
    store_write.commit(repo, lambda t: {"a/b/c.md": b"1", "a/d.md": b"2", "top.md": b"3"}, "one")
    store_write.commit(repo, lambda t: {"a/b/c.md": None, "a/d.md": b"22", "x/y/z.md": b"4"}, "two")
    files = git("ls-tree", "-r", "--name-only", "claude-memory").split()
    assert files == ["a/d.md", "top.md", "x/y/z.md"]  # a/b/ vanished with its last file
    assert git("show", "claude-memory:a/d.md") == "22"
    assert git("log", "--format=%s", "claude-memory").split() == ["two", "one"]
    git("fsck", "--strict")


def test_unchanged_tree_makes_no_commit(repo_dir: Path) -> None:
    repo = store.open_repo(repo_dir)
    store_write.commit(repo, lambda t: {"a.md": b"x"}, "one")
    assert store_write.commit(repo, lambda t: {"a.md": b"x"}, "again") is None
    assert store_write.commit(repo, lambda t: {"missing.md": None}, "delete nothing") is None


def test_reflog_names_each_commit(repo_dir: Path, git: Git) -> None:
    repo = store.open_repo(repo_dir)
    store_write.commit(repo, lambda t: {"a.md": b"x"}, "first one")
    store_write.commit(repo, lambda t: {"a.md": b"y"}, "second one\n\nbody")
    assert git("reflog", "--format=%gs", "claude-memory").splitlines() == ["enf: second one", "enf: first one"]


def test_builder_reruns_on_the_moved_tip(repo_dir: Path, git: Git) -> None:
    """A writer that lost the race rebuilds its change set from the new tip."""
    repo = store.open_repo(repo_dir)
    store_write.commit(repo, lambda t: {"base.md": b"0"}, "base")
    seen: list[str] = []

    def build(tip: pygit2.Commit | None) -> dict[str, bytes | None]:
        assert tip is not None
        seen.append(str(tip.id))
        if len(seen) == 1:  # another writer sneaks in after we read the tip
            other = store.open_repo(repo_dir)
            parent = other.get(tip.id)
            tree = store_write.write_tree(other, parent.tree, {"other.md": b"theirs"})
            sig = pygit2.Signature("Other", "o@example.com")
            oid = other.create_commit(None, sig, sig, "other", tree, [tip.id])
            other.references.get(store.REF).set_target(oid)
        return {"mine.md": b"ours"}

    result = store_write.commit(repo, build, "mine")
    assert result is not None and result.attempts == 2
    assert len(set(seen)) == 2
    assert git("ls-tree", "-r", "--name-only", "claude-memory").split() == ["base.md", "mine.md", "other.md"]
    assert git("log", "--format=%s", "claude-memory").split() == ["mine", "other", "base"]


def test_signature_falls_back_without_identity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (Path(os.environ["HOME"]) / ".gitconfig").write_text("")  # no user.name anywhere
    monkeypatch.delenv("EMAIL", raising=False)
    run_git(tmp_path, "init", "-q")
    repo = store.open_repo(tmp_path)
    store_write.commit(repo, lambda t: {"a.md": b"x"}, "first")
    author = run_git(tmp_path, "log", "-1", "--format=%an <%ae>", "claude-memory").strip()
    assert author == f"{store_write.FALLBACK_NAME} <{store_write.FALLBACK_EMAIL}>"


def test_identity_comes_from_git_config(repo_dir: Path, git: Git) -> None:
    store_write.commit(store.open_repo(repo_dir), lambda t: {"a.md": b"x"}, "first")
    assert git("log", "-1", "--format=%an <%ae>", "claude-memory").strip() == "Test Author <author@example.com>"


def test_config_read_through_one_repository_sees_every_later_change(repo_dir: Path, git: Git) -> None:
    repo = store.open_repo(str(repo_dir))
    assert store.config_value(repo, "enf.probe") is None
    git("config", "enf.probe", "1")  # another process
    assert store.config_value(repo, "enf.probe") == "1"
    git("config", "enf.probe", "2")  # the same size, at once
    assert store.config_value(repo, "enf.probe") == "2"
    store.set_config(repo, "enf.probe", "three")  # this process
    assert store.config_value(repo, "enf.probe") == "three"
    git("config", "--unset", "enf.probe")
    assert store.config_value(repo, "enf.probe") is None
    git("config", "user.name", "Renamed Author")
    assert store_write.signature(repo, 1_700_000_000).name == "Renamed Author"


def test_works_from_a_subdirectory(repo_dir: Path, git: Git) -> None:
    sub = repo_dir / "src" / "deep"
    sub.mkdir(parents=True)
    store_write.commit(store.open_repo(sub), lambda t: {"a.md": b"x"}, "from sub")
    assert git("show", "claude-memory:a.md") == "x"


def test_linked_worktree_writes_the_shared_branch(repo_dir: Path, git: Git, tmp_path: Path) -> None:
    wt = tmp_path / "wt"
    git("worktree", "add", "-q", "-b", "feature", str(wt))
    store_write.commit(store.open_repo(wt), lambda t: {"from-wt.md": b"w"}, "wt")
    store_write.commit(store.open_repo(repo_dir), lambda t: {"from-main.md": b"m"}, "main")
    assert git("ls-tree", "-r", "--name-only", "claude-memory", cwd=wt).split() == ["from-main.md", "from-wt.md"]
    assert store.common_dir(store.open_repo(wt)) == (repo_dir / ".git").resolve()


def test_unborn_head_detached_head_and_stale_index_lock(tmp_path: Path, repo_dir: Path, git: Git) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    run_git(empty, "init", "-q")
    store_write.commit(store.open_repo(empty), lambda t: {"a.md": b"x"}, "unborn")
    assert run_git(empty, "show", "claude-memory:a.md") == "x"
    assert run_git(empty, "symbolic-ref", "HEAD").strip() == "refs/heads/master"

    git("checkout", "-q", "--detach")
    (repo_dir / ".git" / "index.lock").write_text("stale")
    before = user_state(repo_dir)
    store_write.commit(store.open_repo(repo_dir), lambda t: {"a.md": b"x"}, "detached")
    assert (repo_dir / ".git" / "index.lock").read_text() == "stale"
    assert user_state(repo_dir) == before


def test_staged_user_file_stays_staged_and_off_the_branch(repo_dir: Path, git: Git) -> None:
    (repo_dir / "staged.txt").write_text("user work\n")
    git("add", "staged.txt")
    before = user_state(repo_dir)
    store_write.commit(store.open_repo(repo_dir), lambda t: {"a.md": b"x"}, "memory")
    assert user_state(repo_dir) == before
    assert "staged.txt" not in git("ls-tree", "-r", "--name-only", "claude-memory")
    git("commit", "-q", "-m", "user commit")
    assert git("show", "--name-only", "--format=", "HEAD").split() == ["staged.txt"]


def test_warns_when_branch_is_checked_out(repo_dir: Path, git: Git, tmp_path: Path) -> None:
    repo = store.open_repo(repo_dir)
    store_write.commit(repo, lambda t: {"a.md": b"x"}, "first")
    assert store.checked_out_in(repo) == []
    git("worktree", "add", "-q", str(tmp_path / "mem"), "claude-memory")
    hits = store.checked_out_in(repo)
    assert len(hits) == 1 and hits[0].endswith("mem")


def test_not_a_repository_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(RepoError) as err:
        store.open_repo(tmp_path)
    assert "not a git repository" in err.value.message and err.value.hint == "cd into your project, or run: git init"


def test_sha256_repository_is_refused_clearly(tmp_path: Path) -> None:
    proc = subprocess.run(["git", "init", "-q", "--object-format=sha256", str(tmp_path / "s")], capture_output=True)
    if proc.returncode != 0:
        pytest.skip("this git cannot create SHA-256 repositories")
    with pytest.raises(RepoError) as err:
        store.open_repo(tmp_path / "s")
    assert "SHA-256" in err.value.message


def test_unsafe_paths_are_refused(repo_dir: Path) -> None:
    repo = store.open_repo(repo_dir)
    for bad in ("../x.md", "a/../../x", "/abs", ".git/config", "a//b"):
        with pytest.raises(ValueError):
            store_write.commit(repo, lambda t, bad=bad: {bad: b"x"}, "bad")
    assert store.tip(repo) is None


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to chown")
def test_repo_of_another_user_opens_only_as_git_allows(tmp_path: Path, hermetic: Path) -> None:
    import shutil

    path = tmp_path / "theirs"
    run_git(tmp_path, "init", "-q", str(path))
    shutil.chown(path, "nobody")
    for sub in path.rglob("*"):
        shutil.chown(sub, "nobody")
    with pytest.raises(RepoError) as err:
        store.open_repo(path)
    assert "owned by another user" in err.value.message
    assert err.value.hint == f"if you trust it: git config --global --add safe.directory {path}"
    run_git(tmp_path, "config", "--global", "--add", "safe.directory", str(path))
    assert run_git(path, "status", "--porcelain") == ""  # git agrees now
    store_write.commit(store.open_repo(path), lambda t: {"a.md": b"x"}, "allowed")
    assert run_git(path, "show", "claude-memory:a.md") == "x"


# -- sessions by month on the branch ------------------------------------------------------

S_APR = "sessions/2026-04-13-search-api.md"
S_MAY = "sessions/2026-05-02-billing.md"


def test_a_dated_session_is_kept_in_its_months_folder_and_read_by_its_working_copy_name(repo_dir: Path) -> None:
    repo = store.open_repo(repo_dir)
    made = store_write.commit(repo, lambda tip: {S_APR: b"a\n", S_MAY: b"m\n", "sessions/notes.md": b"n\n",
                                           "index.md": b"i\n"}, "first")
    assert made is not None
    files = run_git(repo_dir, "ls-tree", "-r", "--name-only", "claude-memory", raw=True).split()
    assert files == ["index.md", "sessions/2026/04/2026-04-13-search-api.md", "sessions/2026/05/2026-05-02-billing.md",
                     "sessions/notes.md"]  # undated: kept where it is
    tip = store.tip(repo)
    assert tip is not None
    assert store.read_path(repo, tip.tree, S_APR) == b"a\n"
    assert store.blob_oid(repo, tip.tree, S_MAY) == made.blobs[S_MAY]
    assert sorted(store.list_files(repo, tip.tree)) == ["index.md", S_APR, S_MAY, "sessions/notes.md"]
    assert sorted(n for n, _o, k in store.folder_entries(repo, tip.tree, "sessions") if k == "blob") == [
        "2026-04-13-search-api.md", "2026-05-02-billing.md", "notes.md"]
    assert set(made.blobs) == {S_APR, S_MAY, "sessions/notes.md", "index.md"}  # reported by working-copy name
    store_write.commit(repo, lambda tip: {S_APR: None}, "gone")
    files = run_git(repo_dir, "ls-tree", "-r", "--name-only", "claude-memory", raw=True).split()
    assert "sessions/2026/04/2026-04-13-search-api.md" not in files and not any("2026/04" in f for f in files)
    run_git(repo_dir, "fsck", "--strict")


def _flat_branch(repo_dir: Path, files: dict[str, bytes]) -> None:
    """claude-memory written as enf-git 0.5 and earlier did: every session flat under sessions/."""
    env = {**os.environ, "GIT_INDEX_FILE": str(repo_dir / ".git" / "flat.index")}
    for path, data in files.items():
        oid = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=repo_dir, input=data, capture_output=True,
                             check=True).stdout.decode().strip()
        subprocess.run(["git", "update-index", "--add", "--cacheinfo", f"100644,{oid},{path}"], cwd=repo_dir,
                       env=env, check=True)
    tree = subprocess.run(["git", "write-tree"], cwd=repo_dir, env=env, capture_output=True, check=True).stdout
    commit = subprocess.run(["git", "commit-tree", tree.decode().strip(), "-m", "flat"], cwd=repo_dir,
                            capture_output=True, check=True).stdout.decode().strip()
    run_git(repo_dir, "update-ref", "refs/heads/claude-memory", commit)


def test_a_flat_branch_is_read_as_it_is_and_moved_by_the_next_write_unchanged(repo_dir: Path) -> None:
    _flat_branch(repo_dir, {S_APR: b"a\n", S_MAY: b"m\n", "index.md": b"i\n"})
    repo = store.open_repo(repo_dir)
    flat = store.tip(repo)
    assert flat is not None and store.read_path(repo, flat.tree, S_APR) == b"a\n"
    made = store_write.commit(repo, lambda tip: {"log.md": b"l\n"}, "next")
    assert made is not None and set(made.blobs) == {"log.md"}
    files = run_git(repo_dir, "ls-tree", "-r", "--name-only", "claude-memory", raw=True).split()
    assert files == ["index.md", "log.md", "sessions/2026/04/2026-04-13-search-api.md",
                     "sessions/2026/05/2026-05-02-billing.md"]
    renames = run_git(repo_dir, "diff", "-M", "--name-status", "claude-memory^", "claude-memory", raw=True)
    assert "R100\tsessions/2026-04-13-search-api.md\tsessions/2026/04/2026-04-13-search-api.md" in renames
    moved = store.tip(repo)
    assert moved is not None
    assert store.changed_paths(flat.tree, moved.tree) == {"log.md": made.blobs["log.md"]}  # the move is no change
    assert [(d.status, d.new_path) for d in store.deltas(flat.tree, moved.tree)] == [("A", "log.md")]


def test_a_flat_copy_next_to_a_monthly_one_wins_and_the_next_write_of_it_settles_both(repo_dir: Path) -> None:
    """An older enf-git merging after the move keeps its edit at the flat place (a deletion
    against an edit keeps the edit): that edit is what everyone must see."""
    monthly = "sessions/2026/04/2026-04-13-search-api.md"
    _flat_branch(repo_dir, {monthly: b"before\n", S_APR: b"edited by 0.5\n"})
    repo = store.open_repo(repo_dir)
    tip = store.tip(repo)
    assert tip is not None
    assert store.read_path(repo, tip.tree, S_APR) == b"edited by 0.5\n"
    assert store.list_files(repo, tip.tree) == {S_APR: store.hash_bytes(b"edited by 0.5\n")}
    store_write.commit(repo, lambda t: {S_APR: b"edited again\n"}, "edit")
    files = run_git(repo_dir, "ls-tree", "-r", "--name-only", "claude-memory", raw=True).split()
    kept = f"conflicts/{S_APR}.{store.hash_bytes(b'edited by 0.5' + chr(10).encode())[:8]}-" \
           f"{store.hash_bytes(b'before' + chr(10).encode())[:8]}"
    assert files == [kept, monthly]  # the month folder's other version is kept, as a merge conflict copy is
    assert run_git(repo_dir, "show", f"claude-memory:{monthly}", raw=True) == "edited again\n"
    assert run_git(repo_dir, "show", f"claude-memory:{kept}", raw=True) == "before\n"


def test_deltas_follow_the_rule_reads_follow_when_a_session_is_both_flat_and_monthly(repo_dir: Path) -> None:
    """A flat copy next to a monthly one wins in every read: deltas (the indexer's, the
    startup digest's, history's) must say the same as changed_paths and read_path."""
    monthly = "sessions/2026/04/2026-04-13-search-api.md"
    repo = store.open_repo(repo_dir)

    def tree(files: dict[str, bytes]) -> pygit2.Tree:
        """A tree holding exactly `files` (store_write.write_tree would settle the flat and monthly
        pair that these cases need)."""
        return raw_tree(repo, {p: (d, pygit2.enums.FileMode.BLOB) for p, d in files.items()})

    both = tree({S_APR: b"flat\n", monthly: b"month\n"})
    cases = [(both, tree({monthly: b"month\n"})), (tree({monthly: b"month\n"}), both),
             (both, tree({S_APR: b"flat\n", monthly: b"other\n"})), (tree({S_APR: b"flat\n"}), both)]
    for old, new in cases:
        said = {d.new_path if d.status != "D" else d.old_path: (d.new_oid if d.status != "D" else None)
                for d in store.deltas(old, new)}
        assert said == store.changed_paths(old, new)
        for path, oid in said.items():
            assert oid == store.blob_oid(repo, new, path)
    (added,) = store.deltas(None, both)
    assert (added.status, added.new_path, added.new_oid) == ("A", S_APR, store.hash_bytes(b"flat\n"))
    assert {d.new_path for d in store.deltas(None, both, raw=True)} == {S_APR, monthly}  # the scan's view


def test_the_newest_sessions_count_names_that_sort_before_every_date(repo_dir: Path) -> None:
    repo = store.open_repo(repo_dir)
    files = {f"sessions/2026-0{m}-1{d}-s.md": b"x" for m in (1, 2, 3) for d in (1, 2)}
    files.update({"sessions/0-notes.md": b"n", "sessions/1-notes.md": b"n", "sessions/10-notes.md": b"n"})
    store_write.commit(repo, lambda tip: files, "mixed")
    tip = store.tip(repo)
    assert tip is not None
    listed = sorted((n, o) for n, o, k in store.folder_entries(repo, tip.tree, "sessions") if k == "blob")
    for count in range(1, 10):
        assert store.newest_sessions(repo, tip.tree, count) == (listed[-count:], len(listed) > count), count


def test_the_newest_sessions_are_read_from_the_newest_months_only(repo_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = store.open_repo(repo_dir)
    files = {f"sessions/2026-{m:02d}-{d:02d}-s{m}{d}.md": f"{m}-{d}\n".encode() for m in range(1, 13) for d in (3, 17)}
    files["sessions/notes.md"] = b"undated: sorts after every dated name\n"
    store_write.commit(repo, lambda tip: files, "year")
    tip = store.tip(repo)
    assert tip is not None
    listed = sorted((n, o) for n, o, k in store.folder_entries(repo, tip.tree, "sessions") if k == "blob")
    read: list[str] = []
    real = store._folder_stored
    monkeypatch.setattr(store, "_folder_stored", lambda r, t, folder, links=False: read.append(folder) or
                        real(r, t, folder, links))
    for count in (1, 3, 4, 25, 26, 40):
        read.clear()
        newest, more = store.newest_sessions(repo, tip.tree, count)
        assert newest == listed[-count:] and more == (len(listed) > count), count
    read.clear()
    store.newest_sessions(repo, tip.tree, 3)  # notes.md, two in December, and one more month to know there is more
    assert [f for f in read if f.count("/") == 2] == ["sessions/2026/12", "sessions/2026/11"]


def test_changed_paths_and_deltas_say_what_a_tree_diff_says_when_a_file_changes_kind_or_mode(repo_dir: Path) -> None:
    """changed_paths and deltas walk only the folders that differ; they must list what libgit2's diff lists."""
    repo = store.open_repo(repo_dir)

    def tree(files: dict[str, tuple[bytes, int]]) -> pygit2.Tree:
        return raw_tree(repo, files)

    blob, exe, link = pygit2.enums.FileMode.BLOB, pygit2.enums.FileMode.BLOB_EXECUTABLE, pygit2.enums.FileMode.LINK
    same = {"sessions/2026/04/a.md": (b"a\n", blob), "sessions/2026/05/b.md": (b"b\n", blob)}
    trees = [
        tree({}),
        tree({**same, "log.md": (b"l\n", blob)}),
        tree({**same, "log.md": (b"l\n", exe), "x": (b"file\n", blob)}),
        tree({**same, "log.md": (b"l2\n", blob), "x/inside.md": (b"i\n", blob), "x/deep/more.md": (b"m\n", blob)}),
        tree({"sessions/2026/04/a.md": (b"a\n", blob), "link": (b"log.md", link), "x/inside.md": (b"j\n", blob)}),
        tree({"sessions": (b"now a file\n", blob), "link": (b"other", link)}),
        tree({"sessions": (b"now a file\n", exe), "link": (b"log.md", blob), "x": (b"j\n", link)}),
    ]

    def diffed(old: pygit2.Tree, new: pygit2.Tree) -> dict[str, str | None]:
        out: dict[str, str | None] = {}
        for delta in old.diff_to_tree(new).deltas:
            out.setdefault(delta.old_file.path, None)
            if delta.status_char() != "D":
                out[delta.new_file.path] = str(delta.new_file.id)
        return out

    for old in trees:
        for new in trees:
            assert store.changed_paths(old, new) == diffed(old, new)
            listed = [(d.status_char(), d.old_file.path, str(d.old_file.id), d.new_file.path, str(d.new_file.id))
                      for d in old.diff_to_tree(new).deltas]
            assert [tuple(d) for d in store.deltas(old, new, raw=True)] == listed
    assert store.changed_paths(trees[1], trees[2]) == {"log.md": store.hash_bytes(b"l\n"),
                                                      "x": store.hash_bytes(b"file\n")}  # the mode alone changed


def raw_tree(repo: pygit2.Repository, files: dict[str, tuple[bytes, int]]) -> pygit2.Tree:
    """A tree holding exactly `files` (path -> bytes and file mode), built with pygit2 alone."""
    nested: dict[str, object] = {}
    for path, (data, mode) in files.items():
        node = nested
        *folders, name = path.split("/")
        for f in folders:
            node = node.setdefault(f, {})  # type: ignore[assignment]
        node[name] = (repo.create_blob(data), mode)

    def write(node: dict[str, object]) -> pygit2.Oid:
        b = repo.TreeBuilder()
        for name, value in node.items():
            if isinstance(value, dict):
                b.insert(name, write(value), pygit2.enums.FileMode.TREE)
            else:
                b.insert(name, *value)  # type: ignore[misc]
        return b.write()
    return repo[write(nested)]  # type: ignore[return-value]


@pytest.mark.parametrize("data", [b"", b"one line\n", bytes(range(256)) * 41, "é — ‹x›\n".encode() * 3000])
def test_a_blob_id_is_the_one_git_hash_object_gives(tmp_path: Path, data: bytes) -> None:
    (tmp_path / "f").write_bytes(data)
    expected = subprocess.run(["git", "hash-object", "--no-filters", str(tmp_path / "f")], capture_output=True,
                              text=True, check=True).stdout.strip()
    assert store.hash_bytes(data) == expected
