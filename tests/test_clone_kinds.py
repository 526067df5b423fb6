"""Sharing memory from every kind of clone: shallow, single-branch, partial
(`--filter=blob:none`), a linked worktree; and a remote that has no branches yet.

Alice (repo_dir) pushes code and memory to a bare remote served over file:// (so
that `--depth` and `--filter` really apply; a plain path clone ignores them). Bob
clones it one way or another and must get the same as from a full clone: `git enf
init` adopts Alice's memory, `git enf sync` moves it both ways, `git pull` with the
hooks brings it into his working copy, every memory blob is on his disk (pygit2
cannot fetch a missing one on demand), and log and recall see Alice's sessions.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gitfixtures import run_git, session_text

BIN = Path(sys.executable).parent
GIT_ENF, ENF_HOOK = str(BIN / "git-enf"), str(BIN / "enf-hook")
KINDS = ("depth", "single-branch", "filter", "worktree")
CLONE_FLAGS = {"depth": ["--depth=1"], "single-branch": ["--single-branch"], "filter": ["--filter=blob:none"],
               "worktree": []}


@pytest.fixture(autouse=True)
def not_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    """The git hooks stand down when CI is set, and this suite runs in CI."""
    monkeypatch.delenv("CI", raising=False)


def enf(cwd: Path, *args: str, code: int = 0) -> str:
    proc = subprocess.run([GIT_ENF, *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == code, proc.stdout + proc.stderr
    return proc.stdout + proc.stderr


def git_ok(cwd: Path, *args: str) -> str:
    """`git args` that must succeed: its stderr (where hooks speak)."""
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stderr


def write_session(repo: Path, sid: str, summary: str, date: str = "2026-04-13") -> str:
    name = f"sessions/{date}-{summary.lower().replace(' ', '-')}.md"
    (repo / ".claude-sessions" / name).write_text(session_text(session_id=sid, date=date, summary=summary))
    return name


def code_commit(repo: Path, name: str) -> None:
    (repo / name).write_text(name + "\n")
    run_git(repo, "add", name)
    run_git(repo, "commit", "-q", "-m", name)


def tip(repo: Path, ref: str = "refs/heads/claude-memory") -> str:
    return run_git(repo, "rev-parse", "-q", "--verify", ref, check=False).strip()


def sessions_on(repo: Path, ref: str = "claude-memory") -> list[str]:
    return sorted(run_git(repo, "ls-tree", "-r", "--name-only", ref, "--", "sessions").replace("sessions/", "").split())


def missing(repo: Path, *refs: str) -> list[str]:
    """Objects reachable from `refs` that this repository does not hold (a partial clone's holes)."""
    out = run_git(repo, "rev-list", "--objects", "--missing=print", *(refs or ("refs/heads/claude-memory",)))
    return [line for line in out.splitlines() if line.startswith("?")]


def session_start(tree: Path) -> None:
    payload = {"session_id": "c0c0c0c0-0000-4000-8000-000000000003", "cwd": str(tree),
               "hook_event_name": "SessionStart", "source": "startup"}
    proc = subprocess.run([ENF_HOOK, "session-start"], cwd=tree, input=json.dumps(payload), capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "additionalContext" in proc.stdout  # the hook answered: nothing inside it broke
    errors = Path(run_git(tree, "rev-parse", "--git-common-dir").strip())
    log = (tree / errors if not errors.is_absolute() else errors) / "enf" / "hook-errors.log"
    assert not log.exists(), log.read_text()


@pytest.fixture
def origin(tmp_path: Path, repo_dir: Path) -> Path:
    """Alice's bare remote with a few code commits (so a shallow or filtered clone lacks some)
    and her memory, pushed the way she works: by the pre-push hook of a code push."""
    bare = tmp_path / "origin.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    run_git(bare, "config", "uploadpack.allowFilter", "true")
    run_git(repo_dir, "remote", "add", "origin", str(bare))
    for name in ("one.txt", "two.txt"):
        code_commit(repo_dir, name)
    run_git(repo_dir, "push", "-q", "origin", "main")
    enf(repo_dir, "init")
    write_session(repo_dir, "a1a1a1a1", "Alice first")
    enf(repo_dir, "commit")
    code_commit(repo_dir, "three.txt")
    assert "memory pushed to origin" in git_ok(repo_dir, "push", "origin", "main")
    assert sessions_on(bare) == ["2026-04-13-alice-first.md"]
    return bare


# --- our own push ----------------------------------------------------------------------------

def test_sync_with_the_hooks_installed_pushes_memory_once(tmp_path: Path, repo_dir: Path, origin: Path) -> None:
    """`git enf sync` pushes through `git push`, which runs the pre-push hook: there the
    user's own hook runs, never a second sync that would push first and fail ours."""
    record = tmp_path / "record"
    hook = Path(run_git(repo_dir, "rev-parse", "--git-path", "hooks").strip())
    chained = (repo_dir / hook / "pre-push.enf-chained")
    chained.write_text(f"#!/bin/sh\necho \"$@\" >> {record}.args\ncat >> {record}.stdin\n")
    chained.chmod(0o755)
    write_session(repo_dir, "a2a2a2a2", "Alice again", "2026-04-14")
    out = enf(repo_dir, "sync")
    assert "pushed claude-memory to origin" in out
    assert tip(origin) == tip(repo_dir)
    assert Path(f"{record}.args").read_text() == f"origin {origin}\n"  # once
    pushed = Path(f"{record}.stdin").read_text().splitlines()
    assert len(pushed) == 1 and pushed[0].split()[1:3] == [tip(repo_dir), "refs/heads/claude-memory"]


# --- kinds of clones ---------------------------------------------------------------------------

def bob_clone(tmp_path: Path, origin: Path, kind: str) -> Path:
    """Bob's work tree, cloned as `kind`, checked for really being that kind."""
    full = tmp_path / "bob"
    run_git(tmp_path, "clone", "-q", *CLONE_FLAGS[kind], f"file://{origin}", str(full))
    for repo in (full,):
        run_git(repo, "config", "user.name", "bob")
        run_git(repo, "config", "user.email", "bob@example.com")
    if kind == "depth":
        assert run_git(full, "rev-parse", "--is-shallow-repository").strip() == "true"
        assert run_git(full, "rev-list", "--count", "HEAD").strip() == "1"
    if kind in ("depth", "single-branch"):
        assert tip(full, "refs/remotes/origin/claude-memory") == ""  # the clone did not bring memory
    if kind == "filter":  # the filter applied: memory's blobs (and old code's) were left on the server
        assert missing(full, "refs/remotes/origin/claude-memory")
    if kind != "worktree":
        return full
    tree = tmp_path / "bob-feature"
    run_git(full, "worktree", "add", "-q", "--track", "-b", "feature", str(tree), "origin/main")
    return tree


@pytest.mark.parametrize("kind", KINDS)
def test_a_teammate_shares_memory_from_any_kind_of_clone(tmp_path: Path, repo_dir: Path, origin: Path,
                                                         kind: str) -> None:
    alice = repo_dir
    bob = bob_clone(tmp_path, origin, kind)
    out = enf(bob, "init")
    assert "adopted origin/claude-memory" in out
    assert tip(bob) == tip(origin)  # adopted, not a history of its own
    assert (bob / ".claude-sessions" / "sessions" / "2026-04-13-alice-first.md").is_file()
    assert missing(bob) == []
    assert "Alice first" in enf(bob, "log")
    assert "Alice first" in enf(bob, "recall", "Alice", "first")

    # sync, both ways
    write_session(bob, "b2b2b2b2", "Bob first", "2026-04-14")
    out = enf(bob, "sync")
    assert "pushed claude-memory to origin" in out
    assert sessions_on(origin) == ["2026-04-13-alice-first.md", "2026-04-14-bob-first.md"]
    write_session(alice, "a3a3a3a3", "Alice second", "2026-04-15")
    enf(alice, "sync")
    enf(bob, "sync")
    assert (bob / ".claude-sessions" / "sessions" / "2026-04-15-alice-second.md").is_file()
    assert tip(bob) == tip(origin) == tip(alice)

    # git pull, with the hooks: memory arrives in this work tree's working copy
    write_session(alice, "a4a4a4a4", "Alice third", "2026-04-16")
    enf(alice, "commit")
    code_commit(alice, "four.txt")
    assert "memory pushed to origin" in git_ok(alice, "push", "origin", "main")
    # a plain pull: `git pull origin main` fetches main alone, never memory (git's rule)
    pulled = git_ok(bob, "pull", "--no-rebase")
    assert "enf-git:" in pulled and "refreshed" in pulled
    assert (bob / "four.txt").is_file()
    assert (bob / ".claude-sessions" / "sessions" / "2026-04-16-alice-third.md").is_file()
    assert tip(bob) == tip(origin)
    assert missing(bob) == []
    assert "Alice third" in enf(bob, "log")
    assert "Alice third" in enf(bob, "recall", "Alice", "third")
    for repo in (bob, origin, alice):
        run_git(repo, "fsck", "--strict", "--no-dangling")


def test_a_partial_clone_set_up_offline_starts_its_own_memory_and_sync_merges(tmp_path: Path, origin: Path) -> None:
    """A SessionStart (no network) must not adopt memory whose blobs are still on the server."""
    bob = bob_clone(tmp_path, origin, "filter")
    session_start(bob)
    assert tip(bob) and tip(bob) != tip(bob, "refs/remotes/origin/claude-memory")
    assert missing(bob) == []
    # log works: it merges Alice's memory first only once the background fetch has brought
    # all of it (fetched.catch_up), and never reads a blob that is not here
    enf(bob, "log")
    assert missing(bob) == []
    enf(bob, "sync")
    assert "Alice first" in enf(bob, "log")
    assert (bob / ".claude-sessions" / "sessions" / "2026-04-13-alice-first.md").is_file()
    assert missing(bob) == []


def test_init_makes_a_single_branch_clone_fetch_memory_and_uninstall_undoes_it(tmp_path: Path,
                                                                                origin: Path) -> None:
    bob = bob_clone(tmp_path, origin, "single-branch")
    before = run_git(bob, "config", "--get-all", "remote.origin.fetch")
    out = enf(bob, "init")
    spec = "+refs/heads/claude-memory*:refs/remotes/origin/claude-memory*"
    assert f"added {spec} to remote.origin.fetch" in out
    assert run_git(bob, "config", "--get-all", "remote.origin.fetch") == before + spec + "\n"
    assert f"added {spec}" not in enf(bob, "init")  # once
    git_ok(bob, "fetch")  # the glob matches claude-memory, and would match nothing without breaking fetch
    assert tip(bob, "refs/remotes/origin/claude-memory") == tip(origin)
    assert f"removed {spec} from remote.origin.fetch" in enf(bob, "uninstall")
    assert run_git(bob, "config", "--get-all", "remote.origin.fetch") == before


def test_a_full_clone_keeps_its_fetch_refspecs(tmp_path: Path, origin: Path) -> None:
    bob = tmp_path / "bob"
    run_git(tmp_path, "clone", "-q", str(origin), str(bob))
    enf(bob, "init")
    assert run_git(bob, "config", "--get-all", "remote.origin.fetch") == "+refs/heads/*:refs/remotes/origin/*\n"


# --- worktrees: one branch, a working copy each -------------------------------------------

def test_a_session_committed_in_one_worktree_reaches_the_others_working_copy(tmp_path: Path, repo_dir: Path,
                                                                              origin: Path) -> None:
    other = tmp_path / "other"
    run_git(repo_dir, "worktree", "add", "-q", "-b", "other", str(other))
    session_start(other)  # a session starting there sets its working copy up
    assert (other / ".claude-sessions" / "sessions" / "2026-04-13-alice-first.md").is_file()

    def lands(summary: str, day: str) -> Path:
        name = write_session(repo_dir, f"d{day}d{day}d{day}d{day}"[:8], summary, f"2026-04-{day}")
        enf(repo_dir, "commit")
        there = other / ".claude-sessions" / name
        assert not there.exists()
        return there

    there = lands("Before a session start", "20")
    session_start(other)
    assert there.is_file()
    there = lands("Before a command", "21")
    enf(other, "commit")
    assert there.is_file()
    there = lands("Before a checkout", "22")
    git_ok(other, "checkout", "-q", "-b", "topic")
    assert there.is_file()
    assert sessions_on(repo_dir) == sorted(p.name for p in (other / ".claude-sessions" / "sessions").glob("*.md"))


def test_worktrees_without_a_remote_refresh_each_other_too(tmp_path: Path, repo_dir: Path) -> None:
    enf(repo_dir, "init")
    other = tmp_path / "other"
    git_ok(repo_dir, "worktree", "add", "-q", "-b", "other", str(other))  # its post-checkout sets it up
    assert (other / ".claude-sessions" / "index.md").is_file()
    name = write_session(repo_dir, "f1f1f1f1", "Local only")
    enf(repo_dir, "commit")
    git_ok(other, "checkout", "-q", "-b", "topic")
    assert (other / ".claude-sessions" / name).is_file()
    assert "enf-git" not in git_ok(other, "checkout", "-q", "other")  # refreshing says nothing


# --- a remote without branches --------------------------------------------------------------

def test_an_empty_remote_gets_memory_only_once_the_code_is_there(tmp_path: Path, repo_dir: Path) -> None:
    empty = tmp_path / "empty.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(empty))
    run_git(repo_dir, "remote", "add", "origin", str(empty))
    enf(repo_dir, "init")
    run_git(repo_dir, "config", "enf.pushMemory", "first")  # the hook pushes before the code goes
    write_session(repo_dir, "e1e1e1e1", "Before the code")
    out = enf(repo_dir, "sync")
    assert "has none of the code's branches yet, so memory was not pushed there" in out
    assert run_git(empty, "for-each-ref").strip() == ""
    # The first code push: the remote is still empty while pre-push runs, so memory waits, and says so.
    pushed = git_ok(repo_dir, "push", "-q", "origin", "main")
    assert "has none of the code's branches yet" in pushed
    assert tip(empty) == "" and tip(empty, "refs/heads/main")
    # The next push goes with memory.
    code_commit(repo_dir, "next.txt")
    pushed = git_ok(repo_dir, "push", "-q", "origin", "main")
    assert "memory pushed to origin" in pushed
    assert tip(empty) == tip(repo_dir) and sessions_on(empty) == ["2026-04-13-before-the-code.md"]


def test_pushed_alongside_memory_never_reaches_an_empty_remote_before_the_code(tmp_path: Path,
                                                                               repo_dir: Path) -> None:
    """The default: memory goes beside the first code push, and lands only after the code
    (else it would become the default branch of an empty hosted repository)."""
    empty = tmp_path / "empty.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(empty))
    order = tmp_path / "order.log"
    hook = empty / "hooks" / "update"
    hook.write_text("#!/bin/sh\n"  # each ref as it lands, and whether main was already there
                    f"main=$(git rev-parse -q --verify refs/heads/main >/dev/null && echo yes || echo no)\n"
                    f"echo \"$1 main-present=$main\" >> '{order}'\n")
    hook.chmod(0o755)
    run_git(repo_dir, "remote", "add", "origin", str(empty))
    enf(repo_dir, "init")
    write_session(repo_dir, "e1e1e1e1", "Before the code")
    assert "memory was not pushed there" in enf(repo_dir, "sync")
    pushed = git_ok(repo_dir, "push", "-q", "origin", "main")  # waits for our part's output too
    landed = order.read_text().splitlines()
    assert landed[0] == "refs/heads/main main-present=no"
    if tip(empty):  # the code was there by the time our part looked
        assert landed[1:] == ["refs/heads/claude-memory main-present=yes"], landed
        assert tip(empty) == tip(repo_dir)
    else:
        assert "has none of the code's branches yet" in pushed and landed == landed[:1]
    code_commit(repo_dir, "next.txt")
    git_ok(repo_dir, "push", "-q", "origin", "main")
    assert tip(empty) == tip(repo_dir)


def test_an_empty_remote_gets_memory_with_the_next_sync_once_the_code_is_there(tmp_path: Path,
                                                                               repo_dir: Path) -> None:
    empty = tmp_path / "empty.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(empty))
    run_git(repo_dir, "remote", "add", "origin", str(empty))
    enf(repo_dir, "init")
    run_git(repo_dir, "config", "enf.pushMemory", "false")  # only sync carries memory
    write_session(repo_dir, "e1e1e1e1", "Before the code")
    assert "memory was not pushed there" in enf(repo_dir, "sync")
    git_ok(repo_dir, "push", "-q", "origin", "main")
    assert tip(empty) == ""
    assert "pushed claude-memory to origin" in enf(repo_dir, "sync")
    assert tip(empty) == tip(repo_dir)
    assert run_git(empty, "symbolic-ref", "HEAD").strip() == "refs/heads/main"
