"""Transport with the real git binary: a local bare remote and a git daemon on loopback."""

from __future__ import annotations

import http.server
import io
import os
import socket
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

import pytest

from enf_git import paths
from enf_git.errors import EnfError
from enf_git.plumbing import gitcli, gitenv, gitresults, gitrun
from enf_git.plumbing.gitcli import Outcome, Remote, State
from gitfixtures import run_git

ORIGIN = Remote("origin", is_url=False)


class GitDaemon(Protocol):
    """What the `git_daemon` fixture yields (conftest.py: test modules must not import it,
    since tests/e2e has a conftest of the same module name)."""

    def url(self, name: str) -> str: ...
    def create(self, name: str) -> Path: ...


def free_port() -> int:
    """A port nobody listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def memory_commit(repo: Path, message: str, parent: str | None = None) -> str:
    """A commit on no branch (empty tree), as the memory writer makes them."""
    tree = run_git(repo, "mktree", input=b"").strip()
    return run_git(repo, "commit-tree", tree, "-m", message, *(["-p", parent] if parent else [])).strip()


def set_memory(repo: Path, oid: str) -> None:
    run_git(repo, "update-ref", paths.REF, oid)


def publish(repo: Path, src: str, *flags: str) -> None:
    """What a teammate's push does to origin: by URL, so no remote-tracking ref moves here."""
    url = run_git(repo, "remote", "get-url", "origin").strip()
    run_git(repo, "push", "-q", *flags, url, f"{src}:{paths.REF}")


def rev(repo: Path, ref: str) -> str | None:
    out = run_git(repo, "rev-parse", "--verify", "--quiet", ref, check=False).strip()
    return out or None


def all_refs(repo: Path) -> str:
    return run_git(repo, "for-each-ref", "--format=%(refname) %(objectname)")


@pytest.fixture(params=["bare", "daemon"])
def remote(request: pytest.FixtureRequest, repo_dir: Path, tmp_path: Path) -> tuple[Remote, Path]:
    """The same tests over a local bare path (as `origin`) and over git:// (as `origin`)."""
    if request.param == "bare":
        bare: Path = request.getfixturevalue("bare_remote")
        return ORIGIN, bare
    daemon: GitDaemon = request.getfixturevalue("git_daemon")
    path = daemon.create("team.git")
    run_git(repo_dir, "remote", "add", "origin", daemon.url("team.git"))
    return ORIGIN, path


def decline_hook(bare: Path, text: str) -> None:
    hook = bare / "hooks" / "pre-receive"
    hook.write_text(f"#!/bin/sh\necho '{text}' >&2\nexit 1\n")
    hook.chmod(hook.stat().st_mode | stat.S_IEXEC)


# --- presence ----------------------------------------------------------------------------

def test_presence_absent_then_present(repo_dir: Path, remote: tuple[Remote, Path]) -> None:
    origin, bare = remote
    first = gitcli.remote_branch(str(repo_dir), origin)
    assert first.state is State.ABSENT and first.may_create
    oid = memory_commit(repo_dir, "one")
    set_memory(repo_dir, oid)
    publish(repo_dir, paths.REF)
    second = gitcli.remote_branch(str(repo_dir), origin)
    assert (second.state, second.oid, second.may_create) == (State.PRESENT, oid, False)


def test_presence_ignores_a_ref_that_only_ends_like_ours(repo_dir: Path, bare_remote: Path) -> None:
    oid = memory_commit(repo_dir, "decoy")
    run_git(repo_dir, "push", "-q", "origin", f"{oid}:refs/heads/x/claude-memory")
    assert gitcli.remote_branch(str(repo_dir), ORIGIN).state is State.ABSENT


@pytest.mark.parametrize("where", ["missing path", "dead port", "missing on the server"])
def test_presence_unknown_never_allows_creating(repo_dir: Path, tmp_path: Path, git_daemon: GitDaemon,
                                                where: str) -> None:
    url = {"missing path": str(tmp_path / "nowhere.git"), "dead port": f"git://127.0.0.1:{free_port()}/x.git",
           "missing on the server": git_daemon.url("nowhere.git")}[where]
    answer = gitcli.remote_branch(str(repo_dir), Remote(url, is_url=True))
    assert answer.state is State.UNKNOWN and not answer.may_create
    expected = {"missing path": Outcome.NOT_FOUND, "dead port": Outcome.OFFLINE,
                "missing on the server": Outcome.NOT_FOUND}
    assert answer.reason is expected[where], answer.message
    assert "memory stays committed locally" in answer.message
    assert "timed out" not in answer.message  # git's own answer, not the timeout guard's


def test_code_branches_three_states(repo_dir: Path, bare_remote: Path) -> None:
    assert gitcli.remote_has_code_branches(str(repo_dir), ORIGIN).state is State.ABSENT
    set_memory(repo_dir, memory_commit(repo_dir, "one"))
    publish(repo_dir, paths.REF)  # memory alone does not count as code
    alone = gitcli.remote_has_code_branches(str(repo_dir), ORIGIN)
    assert alone.state is State.ABSENT and "push your code first" in alone.message
    run_git(repo_dir, "push", "-q", "origin", "main")
    present = gitcli.remote_has_code_branches(str(repo_dir), ORIGIN)
    assert (present.state, present.names) == (State.PRESENT, ("refs/heads/main",))
    dead = Remote(f"git://127.0.0.1:{free_port()}/x.git", is_url=True)
    assert gitcli.remote_has_code_branches(str(repo_dir), dead).state is State.UNKNOWN


# --- resolving the memory remote ---------------------------------------------------------

def test_resolve_remote_name_url_and_fail_closed(repo_dir: Path, bare_remote: Path) -> None:
    assert gitcli.resolve_remote(str(repo_dir), "origin") == ORIGIN
    assert gitcli.resolve_remote(str(repo_dir), "git@example.com:team/memory.git").is_url
    assert gitcli.resolve_remote(str(repo_dir), "https://example.com/m.git").tracking_ref == \
        f"refs/remotes/{paths.URL_REMOTE_NAME}/{paths.BRANCH}"
    with pytest.raises(EnfError) as err:
        gitcli.resolve_remote(str(repo_dir), "upstream")
    assert "not a remote of this repository" in err.value.message and "git remote -v" in str(err.value)


def test_remote_names_with_a_slash_win_over_url_guessing(repo_dir: Path, bare_remote: Path) -> None:
    run_git(repo_dir, "remote", "add", "team/shared", str(bare_remote))
    assert gitcli.resolve_remote(str(repo_dir), "team/shared") == Remote("team/shared", is_url=False)
    assert gitcli.remote_exists(str(repo_dir), "team/shared") and not gitcli.remote_exists(str(repo_dir), "team")


# --- fetch -------------------------------------------------------------------------------

def test_fetch_moves_the_tracking_ref_never_the_local_branch(repo_dir: Path, remote: tuple[Remote, Path],
                                                             tmp_path: Path) -> None:
    origin, bare = remote
    theirs = memory_commit(repo_dir, "theirs")
    publish(repo_dir, theirs)
    ours = memory_commit(repo_dir, "ours")
    set_memory(repo_dir, ours)
    config_before = run_git(repo_dir, "config", "--get-regexp", "^remote\\.")
    result = gitcli.fetch(str(repo_dir), origin)
    assert result.outcome is Outcome.OK, result.message
    assert (result.ref, result.before, result.after) == ("refs/remotes/origin/claude-memory", None, theirs)
    assert rev(repo_dir, "refs/remotes/origin/claude-memory") == theirs
    assert rev(repo_dir, paths.REF) == ours
    assert not (repo_dir / ".git" / "FETCH_HEAD").exists()
    assert run_git(repo_dir, "config", "--get-regexp", "^remote\\.") == config_before
    assert run_git(repo_dir, "tag") == ""
    again = gitcli.fetch(str(repo_dir), origin)
    assert again.outcome is Outcome.UP_TO_DATE and again.ok


def test_fetch_force_updates_only_the_tracking_ref(repo_dir: Path, bare_remote: Path) -> None:
    first = memory_commit(repo_dir, "first")
    publish(repo_dir, first)
    assert gitcli.fetch(str(repo_dir), ORIGIN).after == first
    rewritten = memory_commit(repo_dir, "rewritten")  # someone force-pushed an unrelated history
    publish(repo_dir, rewritten, "-f")
    assert gitcli.fetch(str(repo_dir), ORIGIN).after == rewritten


def test_fetch_moves_no_ref_of_the_configured_refspec(repo_dir: Path, bare_remote: Path) -> None:
    # git also updates the tracking refs of the remote's configured fetch refspec for what
    # it fetched ("opportunistic update"); --refmap= keeps it to exactly our one ref.
    run_git(repo_dir, "config", "remote.origin.fetch", "+refs/heads/*:refs/remotes/mirror/*")
    run_git(repo_dir, "push", "-q", str(bare_remote), "main")
    publish(repo_dir, memory_commit(repo_dir, "m"))
    gitcli.fetch(str(repo_dir), ORIGIN)
    assert rev(repo_dir, "refs/remotes/origin/claude-memory") is not None
    assert [r for r in all_refs(repo_dir).split("\n") if "refs/remotes/" in r and "origin/claude" not in r] == []


def test_fetch_absent_branch(repo_dir: Path, remote: tuple[Remote, Path]) -> None:
    result = gitcli.fetch(str(repo_dir), remote[0])
    assert result.outcome is Outcome.ABSENT and result.ok and result.after is None


def test_fetch_from_a_url_tracks_under_its_own_name(repo_dir: Path, git_daemon: GitDaemon) -> None:
    git_daemon.create("memory.git")
    url = Remote(git_daemon.url("memory.git"), is_url=True)
    oid = memory_commit(repo_dir, "m")
    run_git(repo_dir, "push", "-q", url.arg, f"{oid}:{paths.REF}")
    result = gitcli.fetch(str(repo_dir), url)
    assert result.outcome is Outcome.OK and rev(repo_dir, url.tracking_ref) == oid


def test_fetch_offline_is_classified(repo_dir: Path) -> None:
    dead = Remote(f"git://127.0.0.1:{free_port()}/x.git", is_url=True)
    result = gitcli.fetch(str(repo_dir), dead)
    assert result.outcome is Outcome.OFFLINE and not result.ok
    assert "could not be reached" in result.message and "next sync" in result.message


def test_fetch_progress_goes_to_the_given_stream(repo_dir: Path, bare_remote: Path) -> None:
    set_memory(repo_dir, memory_commit(repo_dir, "m"))
    publish(repo_dir, paths.REF)
    run_git(repo_dir, "update-ref", "-d", paths.REF)
    run_git(repo_dir, "gc", "-q", "--prune=now")  # the object must really travel
    stream = io.StringIO()
    assert gitcli.fetch(str(repo_dir), ORIGIN, progress=stream).outcome is Outcome.OK
    assert "objects" in stream.getvalue()


def test_a_server_that_never_answers_times_out(repo_dir: Path) -> None:
    with socket.socket() as sock:  # listens, never accepts: git connects and waits forever
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        url = Remote(f"git://127.0.0.1:{sock.getsockname()[1]}/x.git", is_url=True)
        result = gitcli.fetch(str(repo_dir), url, timeout=1.0)
    assert result.outcome is Outcome.OFFLINE and "timed out" in result.message  # the guard fired


# That git is awaited without polling (a 70 ms git back at ~70 ms, not at Popen.wait's
# 113.5 ms) is a speed claim: bench/git_wait.py measures it.


def test_a_timeout_kills_git_and_what_it_started(repo_dir: Path, tmp_path: Path) -> None:
    marker = tmp_path / "survived"
    slow = ["-c", f"alias.slow=!sleep 3; touch '{marker}'", "slow"]
    run = gitrun._run(str(repo_dir), slow, gitenv.env_for_git(os.environ), 0.3)
    assert run.timed_out and run.code != 0  # the guard fired: git was killed, not awaited
    time.sleep(3.2)
    assert not marker.exists()  # the shell git started was killed with it (its process group)


# --- push --------------------------------------------------------------------------------

def test_push_creates_then_fast_forwards(repo_dir: Path, remote: tuple[Remote, Path]) -> None:
    origin, bare = remote
    one = memory_commit(repo_dir, "one")
    created = gitcli.push(str(repo_dir), origin, one, expect="")
    assert created.outcome is Outcome.OK and "[new branch]" in created.summary
    assert rev(bare, paths.REF) == one
    two = memory_commit(repo_dir, "two", parent=one)
    assert gitcli.push(str(repo_dir), origin, two, expect=one).outcome is Outcome.OK
    assert rev(bare, paths.REF) == two
    assert gitcli.push(str(repo_dir), origin, two).outcome is Outcome.UP_TO_DATE


def test_push_non_fast_forward_is_rejected_not_forced(repo_dir: Path, remote: tuple[Remote, Path]) -> None:
    origin, bare = remote
    theirs = memory_commit(repo_dir, "theirs")
    publish(repo_dir, theirs)
    ours = memory_commit(repo_dir, "ours")
    result = gitcli.push(str(repo_dir), origin, ours)
    assert result.outcome is Outcome.NON_FAST_FORWARD and not result.ok
    assert "has memory you do not have yet" in result.message and "git enf sync again" in result.message
    assert rev(bare, paths.REF) == theirs


def test_push_expecting_absent_never_overwrites(repo_dir: Path, bare_remote: Path) -> None:
    theirs = memory_commit(repo_dir, "theirs")
    publish(repo_dir, theirs)  # appeared after we looked
    result = gitcli.push(str(repo_dir), ORIGIN, memory_commit(repo_dir, "ours"), expect="")
    assert result.outcome is Outcome.NON_FAST_FORWARD, result
    assert rev(bare_remote, paths.REF) == theirs


def test_push_expect_is_a_fast_forward_compare_and_swap(repo_dir: Path, bare_remote: Path) -> None:
    base = memory_commit(repo_dir, "base")
    publish(repo_dir, base)
    moved = memory_commit(repo_dir, "moved", parent=base)
    publish(repo_dir, moved)  # a teammate, after our fetch
    ours = memory_commit(repo_dir, "ours", parent=base)
    stale = gitcli.push(str(repo_dir), ORIGIN, ours, expect=base)
    assert stale.outcome is Outcome.NON_FAST_FORWARD and rev(bare_remote, paths.REF) == moved
    unrelated = memory_commit(repo_dir, "unrelated")  # the lease holds but it is no fast-forward
    assert gitcli.push(str(repo_dir), ORIGIN, unrelated, expect=moved).outcome is Outcome.NON_FAST_FORWARD
    assert rev(bare_remote, paths.REF) == moved


def test_push_declined_by_a_hook_is_no_rights(repo_dir: Path, remote: tuple[Remote, Path]) -> None:
    origin, bare = remote
    decline_hook(bare, "GL-HOOK-ERR: You are not allowed to push code to protected branches")
    result = gitcli.push(str(repo_dir), origin, memory_commit(repo_dir, "one"))
    assert result.outcome is Outcome.NO_RIGHTS, result
    assert "you may not push to claude-memory on origin" in result.message
    assert "set enf.remote" in result.message and "hook declined" in result.summary
    assert rev(bare, paths.REF) is None


def test_push_offline(repo_dir: Path) -> None:
    dead = Remote(f"git://127.0.0.1:{free_port()}/x.git", is_url=True)
    result = gitcli.push(str(repo_dir), dead, memory_commit(repo_dir, "one"))
    assert result.outcome is Outcome.OFFLINE and "memory stays committed locally" in result.message


def test_push_no_verify_skips_the_users_pre_push_hook(repo_dir: Path, bare_remote: Path) -> None:
    hook = repo_dir / ".git" / "hooks" / "pre-push"
    hook.write_text("#!/bin/sh\nexit 1\n")
    hook.chmod(0o755)
    one = memory_commit(repo_dir, "one")
    assert gitcli.push(str(repo_dir), ORIGIN, one).outcome is Outcome.UNKNOWN
    assert gitcli.push(str(repo_dir), ORIGIN, one, no_verify=True).outcome is Outcome.OK


def test_push_and_fetch_never_write_the_remotes_config(repo_dir: Path, bare_remote: Path) -> None:
    before = run_git(repo_dir, "config", "--get-regexp", "^remote\\.origin")
    set_memory(repo_dir, memory_commit(repo_dir, "one"))
    gitcli.push(str(repo_dir), ORIGIN, paths.REF, expect="")
    gitcli.fetch(str(repo_dir), ORIGIN)
    assert run_git(repo_dir, "config", "--get-regexp", "^remote\\.origin") == before
    assert "claude-memory" not in (repo_dir / ".git" / "config").read_text()


# --- dry run -----------------------------------------------------------------------------

def test_plan_says_what_would_move_and_writes_nothing(repo_dir: Path, bare_remote: Path) -> None:
    one = memory_commit(repo_dir, "one")
    set_memory(repo_dir, one)
    first = gitcli.plan(str(repo_dir), ORIGIN)
    assert (first.remote.state, first.fetch, first.push, first.ahead) == (State.ABSENT, "nothing", "create", 1)
    publish(repo_dir, paths.REF)
    two = memory_commit(repo_dir, "two", parent=one)
    set_memory(repo_dir, two)
    refs_here, refs_there = all_refs(repo_dir), all_refs(bare_remote)
    second = gitcli.plan(str(repo_dir), ORIGIN)
    assert (second.fetch, second.push, second.ahead, second.behind) == ("new", "fast-forward", 1, 0)
    assert (all_refs(repo_dir), all_refs(bare_remote)) == (refs_here, refs_there)
    other = Path(str(repo_dir) + "-clone")
    run_git(repo_dir.parent, "clone", "-q", str(bare_remote), str(other))
    theirs = memory_commit(other, "theirs", parent=one)
    run_git(other, "push", "-q", "origin", f"{theirs}:{paths.REF}")
    assert gitcli.plan(str(repo_dir), ORIGIN).push == "fetch first"  # their commit is not here yet
    gitcli.fetch(str(repo_dir), ORIGIN)
    after = gitcli.plan(str(repo_dir), ORIGIN)
    assert (after.fetch, after.push, after.ahead, after.behind) == ("nothing", "merge first", 1, 1)


def test_plan_unknown_when_unreachable(repo_dir: Path) -> None:
    dead = Remote(f"git://127.0.0.1:{free_port()}/x.git", is_url=True)
    result = gitcli.plan(str(repo_dir), dead)
    assert (result.remote.state, result.fetch, result.push) == (State.UNKNOWN, "unknown", "unknown")


# --- environment -------------------------------------------------------------------------

def test_env_scrubs_what_locates_a_repository_and_keeps_transport() -> None:
    base = {"GIT_DIR": "/x/.git", "GIT_WORK_TREE": "/x", "GIT_INDEX_FILE": "/x/i", "GIT_NAMESPACE": "n",
            "GIT_OBJECT_DIRECTORY": "/o", "GIT_COMMON_DIR": "/c", "GIT_PREFIX": "sub/", "GIT_QUARANTINE_PATH": "/q",
            "GIT_SSH_COMMAND": "ssh -i key", "GIT_ASKPASS": "/bin/ask", "SSH_ASKPASS": "/bin/ask2",
            "https_proxy": "http://p:3128", "GIT_CONFIG_PARAMETERS": "'http.proxy'='x'", "GIT_CONFIG_COUNT": "1",
            "GIT_CONFIG_KEY_0": "a.b", "GIT_CONFIG_VALUE_0": "c", "GIT_CONFIG_GLOBAL": "/g", "PATH": "/bin"}
    env = gitenv.env_for_git(base)
    for gone in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_NAMESPACE", "GIT_OBJECT_DIRECTORY",
                 "GIT_COMMON_DIR", "GIT_PREFIX", "GIT_QUARANTINE_PATH"):
        assert gone not in env
    for kept in ("GIT_SSH_COMMAND", "GIT_ASKPASS", "SSH_ASKPASS", "https_proxy", "GIT_CONFIG_PARAMETERS",
                 "GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0", "GIT_CONFIG_GLOBAL", "PATH"):
        assert env[kept] == base[kept]
    assert env["GIT_TERMINAL_PROMPT"] == "0" and env["LC_ALL"] == "C"
    assert "GIT_DIR" in gitenv.local_env_vars()  # read from git itself


def test_env_ssh_batch_mode_only_when_the_ssh_command_is_ours() -> None:
    assert gitenv.env_for_git({})["GIT_SSH_COMMAND"] == gitenv.BATCH_SSH
    assert "GIT_SSH_COMMAND" not in gitenv.env_for_git({"GIT_SSH": "plink"})
    assert "GIT_SSH_COMMAND" not in gitenv.env_for_git({}, ssh_configured=True)


def test_calls_from_a_hook_environment_target_repo_dir(repo_dir: Path, bare_remote: Path, tmp_path: Path) -> None:
    wrong = tmp_path / "wrong"
    run_git(tmp_path, "init", "-q", str(wrong))
    hook_env = {**os.environ, "GIT_DIR": str(wrong / ".git"), "GIT_WORK_TREE": str(wrong),
                "GIT_INDEX_FILE": str(wrong / ".git" / "index"), "GIT_PREFIX": "sub/"}
    theirs = memory_commit(repo_dir, "theirs")
    publish(repo_dir, theirs)
    assert gitcli.fetch(str(repo_dir), ORIGIN, env=hook_env).after == theirs
    assert rev(repo_dir, "refs/remotes/origin/claude-memory") == theirs
    assert all_refs(wrong) == ""
    ours = memory_commit(repo_dir, "ours", parent=theirs)
    assert gitcli.push(str(repo_dir), ORIGIN, ours, env=hook_env).outcome is Outcome.OK
    assert rev(bare_remote, paths.REF) == ours


def test_git_is_asked_for_its_local_env_vars_only_for_a_variable_we_do_not_know(
        monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[int] = []

    def newer_git() -> tuple[str, ...]:  # a git that added a variable to its list
        asked.append(1)
        return (*gitenv.LOCAL_ENV_FALLBACK, "GIT_FUTURE_DIR")

    monkeypatch.setattr(gitenv, "local_env_vars", newer_git)
    hook = {"GIT_DIR": "/x/.git", "GIT_INDEX_FILE": "/x/i", "GIT_SSH_COMMAND": "ssh -i k", "GIT_TRACE2_EVENT": "/t",
            "GIT_CONFIG_KEY_0": "a.b", "GIT_PUSH_OPTION_0": "ci.skip", "GIT_AUTHOR_NAME": "A", "PATH": "/bin"}
    env = gitenv.env_for_git(hook)
    assert not asked and "GIT_DIR" not in env and "GIT_INDEX_FILE" not in env
    assert env["GIT_SSH_COMMAND"] == "ssh -i k" and env["GIT_TRACE2_EVENT"] == "/t"
    assert env["GIT_PUSH_OPTION_0"] == "ci.skip" and env["GIT_AUTHOR_NAME"] == "A"
    env = gitenv.env_for_git({**hook, "GIT_FUTURE_DIR": "/y", "GIT_FUTURE_COLOR": "1"})
    assert asked and "GIT_FUTURE_DIR" not in env and env["GIT_FUTURE_COLOR"] == "1"


def spy_git(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The git subcommands gitcli runs from now on (the first word of each)."""
    calls: list[str] = []
    real = gitrun._Started  # every git process gitcli runs starts here (_run and Fetching)

    class Started(real):  # type: ignore[misc, valid-type]
        def __init__(self, repo_dir: str, args: list[str], *rest: object) -> None:
            calls.append(args[0])
            super().__init__(repo_dir, args, *rest)

    monkeypatch.setattr(gitrun, "_Started", Started)
    return calls


def test_a_sync_runs_git_once_for_config_then_only_for_transport(repo_dir: Path, bare_remote: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    base = memory_commit(repo_dir, "base")
    publish(repo_dir, base)
    calls = spy_git(monkeypatch)
    env = gitenv.prepare(str(repo_dir))
    remote = gitcli.resolve_remote(str(repo_dir), "origin", env)
    fetched = gitcli.fetch(str(repo_dir), remote, env=env)
    assert (fetched.outcome, fetched.before, fetched.after) == (Outcome.OK, None, base)
    assert gitcli.fetch(str(repo_dir), remote, env=env).outcome is Outcome.UP_TO_DATE
    ours = memory_commit(repo_dir, "ours", parent=base)
    assert gitcli.push(str(repo_dir), remote, ours, expect=base, env=env).outcome is Outcome.OK
    assert calls == ["config", "fetch", "fetch", "push"]  # refs and ancestry are read in-process
    assert rev(bare_remote, paths.REF) == ours


def test_prepare_finds_remotes_git_knows_and_the_rest_asks_git_remote(repo_dir: Path, bare_remote: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    run_git(repo_dir, "remote", "add", "team.shared/x", str(bare_remote))
    run_git(repo_dir, "config", "remote.mirror.pushurl", str(bare_remote))  # a remote with no url
    calls = spy_git(monkeypatch)
    env = gitenv.prepare(str(repo_dir))
    assert set(env.remotes) == {"origin", "team.shared/x", "mirror"}
    for name in ("origin", "team.shared/x", "mirror"):
        assert gitcli.resolve_remote(str(repo_dir), name, env) == Remote(name, is_url=False)
    assert calls == ["config"]
    assert gitcli.resolve_remote(str(repo_dir), "https://example.com/m.git", env).is_url
    assert calls == ["config", "remote"]  # not in the config: git remote has the last word


def test_push_expecting_a_commit_we_do_not_have_is_unknown(repo_dir: Path, bare_remote: Path) -> None:
    ours = memory_commit(repo_dir, "ours")
    result = gitcli.push(str(repo_dir), ORIGIN, ours, expect="1" * 40)
    assert result.outcome is Outcome.UNKNOWN and "git enf sync again" in result.message
    assert rev(bare_remote, paths.REF) is None


def test_a_gitenv_belongs_to_its_repository(repo_dir: Path, tmp_path: Path) -> None:
    env = gitenv.prepare(str(repo_dir))
    assert gitenv.prepare(str(repo_dir), env) is env
    with pytest.raises(ValueError):
        gitenv.prepare(str(tmp_path), env)


def fake_ssh(tmp_path: Path, name: str) -> tuple[Path, Path]:
    """An ssh stand-in that records its arguments and fails like an unreachable host."""
    log = tmp_path / f"{name}.log"
    script = tmp_path / f"{name}.sh"
    script.write_text(f"#!/bin/sh\necho \"$@\" >> '{log}'\necho 'ssh: connect to host example.invalid "
                      "port 22: Connection refused' >&2\nexit 255\n")
    script.chmod(0o755)
    return script, log


def test_the_users_ssh_command_is_used_as_is(repo_dir: Path, tmp_path: Path) -> None:
    script, log = fake_ssh(tmp_path, "env-ssh")
    env = {**os.environ, "GIT_SSH_COMMAND": str(script)}
    result = gitcli.remote_branch(str(repo_dir), Remote("ssh://git@example.invalid/m.git", is_url=True), env=env)
    assert result.state is State.UNKNOWN and result.reason is Outcome.OFFLINE
    assert "example.invalid" in log.read_text() and "BatchMode" not in log.read_text()


def test_core_ssh_command_is_not_overridden(repo_dir: Path, tmp_path: Path) -> None:
    script, log = fake_ssh(tmp_path, "config-ssh")
    run_git(repo_dir, "config", "core.sshCommand", str(script))
    gitcli.fetch(str(repo_dir), Remote("ssh://git@example.invalid/m.git", is_url=True))
    assert "example.invalid" in log.read_text()


@pytest.mark.parametrize("how", ["GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT"])
def test_an_ssh_command_given_with_git_c_is_not_overridden(repo_dir: Path, tmp_path: Path, how: str) -> None:
    """`git -c core.sshCommand=... enf sync`: libgit2 never sees it, git does; so must we."""
    script, log = fake_ssh(tmp_path, "dash-c-ssh")
    given = ({"GIT_CONFIG_PARAMETERS": f"'core.sshcommand'='{script}'"} if how == "GIT_CONFIG_PARAMETERS" else
             {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.sshCommand", "GIT_CONFIG_VALUE_0": str(script)})
    env = {**os.environ, **given}
    result = gitcli.fetch(str(repo_dir), Remote("ssh://git@example.invalid/m.git", is_url=True), env=env)
    assert result.outcome is Outcome.OFFLINE
    assert "example.invalid" in log.read_text()


class _Needs401(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Basic realm="team"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def http_401() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Needs401)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/team/memory.git"
    server.shutdown()
    server.server_close()


def test_credentials_are_never_prompted_for(repo_dir: Path, http_401: str) -> None:
    result = gitcli.fetch(str(repo_dir), Remote(http_401, is_url=True))
    # NO_RIGHTS, not OFFLINE: git refused to prompt at once; a prompt would have waited for the timeout guard
    assert result.outcome is Outcome.NO_RIGHTS, result
    assert "never prompts" in result.message and "credential helper" in result.message


def test_messages_never_show_a_token_from_the_url(repo_dir: Path, http_401: str) -> None:
    url = http_401.replace("http://", "http://me:s3cret-token@")
    result = gitcli.push(str(repo_dir), Remote(url, is_url=True), memory_commit(repo_dir, "one"))
    assert not result.ok
    assert "s3cret-token" not in result.message and "s3cret-token" not in result.stderr
    assert gitresults._redact_url("see https://u:p@h/x and git://h/y") == "see https://***@h/x and git://h/y"


# --- what servers say --------------------------------------------------------------------

@pytest.mark.parametrize(("stderr", "outcome"), [
    ("fatal: unable to access 'https://github.com/t/m.git/': The requested URL returned error: 403", Outcome.NO_RIGHTS),
    ("remote: Permission to t/m.git denied to bob.\nfatal: unable to access 'https://github.com/t/m.git/': "
     "The requested URL returned error: 403", Outcome.NO_RIGHTS),
    ("git@github.com: Permission denied (publickey).\nfatal: Could not read from remote repository.",
     Outcome.NO_RIGHTS),
    ("fatal: could not read Username for 'https://github.com': terminal prompts disabled", Outcome.NO_RIGHTS),
    ("Host key verification failed.\nfatal: Could not read from remote repository.", Outcome.NO_RIGHTS),
    ("remote: Repository not found.\nfatal: repository 'https://github.com/t/m.git/' not found", Outcome.NOT_FOUND),
    ("fatal: unable to access 'https://github.com/t/m.git/': Could not resolve host: github.com", Outcome.OFFLINE),
    ("ssh: Could not resolve hostname github.com: Temporary failure in name resolution", Outcome.OFFLINE),
    ("ssh: connect to host github.com port 22: Network is unreachable", Outcome.OFFLINE),
    ("fatal: unable to access 'https://h/m.git/': Failed to connect to h port 443: Connection refused",
     Outcome.OFFLINE),
    ("error: object file is empty", Outcome.UNKNOWN),
])
def test_failures_are_sorted_by_what_the_server_said(stderr: str, outcome: Outcome) -> None:
    assert gitresults._classify(gitrun._Run(128, "", stderr)) is outcome


@pytest.mark.parametrize(("summary", "outcome"), [
    ("[rejected] (fetch first)", Outcome.NON_FAST_FORWARD),
    ("[rejected] (non-fast-forward)", Outcome.NON_FAST_FORWARD),
    ("[rejected] (stale info)", Outcome.NON_FAST_FORWARD),
    ("[remote rejected] (protected branch hook declined)", Outcome.NO_RIGHTS),  # GitHub
    ("[remote rejected] (pre-receive hook declined)", Outcome.NO_RIGHTS),  # GitLab, Gitea
    ("[remote rejected] (permission denied)", Outcome.NO_RIGHTS),
    ("[remote rejected] (failed to update ref)", Outcome.NON_FAST_FORWARD),  # a concurrent push won
    ("[remote rejected] (failed to lock)", Outcome.NON_FAST_FORWARD),
    ("[remote rejected] (missing necessary objects)", Outcome.UNKNOWN),
])
def test_push_rejections_are_sorted(summary: str, outcome: Outcome) -> None:
    assert gitresults._classify_rejection(summary) is outcome


def test_a_timeout_is_offline_whatever_was_printed() -> None:
    assert gitresults._classify(gitrun._Run(-9, "", "remote: Permission denied", timed_out=True)) is Outcome.OFFLINE


def test_push_over_a_history_with_a_missing_parent_is_unknown_not_a_crash(repo_dir: Path, bare_remote: Path) -> None:
    """A commit whose parent is not here (a hand-made object, a broken clone): whether it
    descends from what the remote has cannot be told, so nothing is pushed."""
    base = memory_commit(repo_dir, "base")
    publish(repo_dir, base)
    tree = run_git(repo_dir, "mktree", input=b"").strip()
    body = (f"tree {tree}\nparent {'2' * 40}\nauthor A <a@example.com> 1776000000 +0000\n"
            "committer A <a@example.com> 1776000000 +0000\n\norphaned\n")
    orphan = run_git(repo_dir, "hash-object", "-t", "commit", "-w", "--stdin", "--literally", input=body.encode()).strip()
    result = gitcli.push(str(repo_dir), ORIGIN, orphan, expect=base)
    assert result.outcome is Outcome.UNKNOWN and "git enf sync again" in result.message, result
    assert rev(bare_remote, paths.REF) == base
