"""The git hooks (pre-push, post-merge, post-checkout, post-rewrite) on real repositories,
run by the real `git` binary: where they are installed, what they push and merge, and
that they never change the outcome of the user's git command."""

from __future__ import annotations

import os
import stat
import subprocess
import re
import sys
import time
from pathlib import Path

import pytest

from enf_git.install import githooks
from gitfixtures import run_git, session_text

GIT_ENF = str(Path(sys.executable).with_name("git-enf"))
REPO_TOP = Path(__file__).resolve().parent.parent


def enf(cwd: Path, *args: str, code: int = 0) -> str:
    proc = subprocess.run([GIT_ENF, *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == code, proc.stdout + proc.stderr
    return proc.stdout + proc.stderr


@pytest.fixture(autouse=True)
def not_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's machine: the hooks stand down when CI is set (tested on its own below),
    and the suite itself runs in CI."""
    monkeypatch.delenv("CI", raising=False)


def git_run(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL)


def hooks_path(repo: Path) -> Path:
    return (repo / run_git(repo, "rev-parse", "--git-path", "hooks").strip()).resolve()


def write_session(repo: Path, sid: str, summary: str, date: str = "2026-04-13") -> None:
    name = f"{date}-{summary.lower().replace(' ', '-')}.md"
    (repo / ".claude-sessions" / "sessions" / name).write_text(session_text(session_id=sid, date=date, summary=summary))


def remote_tip(bare: Path) -> str:
    return run_git(bare, "rev-parse", "-q", "--verify", "refs/heads/claude-memory", check=False).strip()


def local_tip(repo: Path) -> str:
    return run_git(repo, "rev-parse", "refs/heads/claude-memory").strip()


def memory_landed(repo: Path, bare: Path, wait: float = 60.0) -> None:
    """Wait until `bare` holds `repo`'s memory: by default the pre-push hook sends it
    alongside the code, after `git push` itself returned."""
    deadline = time.monotonic() + wait
    while remote_tip(bare) != local_tip(repo):
        assert time.monotonic() < deadline, f"memory did not reach {bare} within {wait} s"
        time.sleep(0.05)


def code_commit(repo: Path, name: str) -> None:
    (repo / name).write_text(name + "\n")
    run_git(repo, "add", name)
    run_git(repo, "commit", "-q", "-m", name)


def user_hook(folder: Path, name: str, body: str) -> Path:
    path = folder / name
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


@pytest.fixture
def origin(bare_remote: Path, repo_dir: Path) -> Path:
    """A bare remote (conftest's) that already has the code's main branch."""
    run_git(repo_dir, "push", "-q", "origin", "main")
    return bare_remote


# --- where they go ----------------------------------------------------------------------

def test_the_shims_in_git_hooks_are_what_install_renders() -> None:
    for hook in githooks.HOOKS:
        shipped = REPO_TOP / "git-hooks" / hook
        assert shipped.read_text() == githooks.render(hook, "python3"), f"regenerate git-hooks/{hook}"
        assert shipped.stat().st_mode & stat.S_IXUSR


def test_init_installs_into_the_hooks_folder_git_runs(repo_dir: Path, origin: Path) -> None:
    out = enf(repo_dir, "init")
    for hook in githooks.HOOKS:
        path = hooks_path(repo_dir) / hook
        assert githooks.MARKER in path.read_text()
        assert path.stat().st_mode & stat.S_IXUSR
        assert sys.executable in path.read_text()
    assert (f"git hooks installed in {hooks_path(repo_dir)}: pre-push, post-merge, post-checkout, "
            "post-rewrite\n") in out
    again = enf(repo_dir, "init")  # idempotent: nothing rewritten, nothing chained to itself
    assert "git hooks installed" not in again and "git hooks already installed" in again
    assert not list(hooks_path(repo_dir).glob("*" + githooks.CHAINED))


def test_core_hooks_path_to_an_untracked_folder_is_honoured_and_left_set(repo_dir: Path, origin: Path) -> None:
    run_git(repo_dir, "config", "core.hooksPath", "my-hooks")
    enf(repo_dir, "init")
    assert githooks.MARKER in (repo_dir / "my-hooks" / "pre-push").read_text()
    assert not (repo_dir / ".git" / "hooks" / "pre-push").exists()
    assert run_git(repo_dir, "config", "core.hooksPath").strip() == "my-hooks"


def test_a_tracked_hooks_folder_is_never_written_and_the_line_to_add_is_printed(repo_dir: Path,
                                                                                 origin: Path) -> None:
    user_hook(repo_dir / ".husky", "pre-push", "exit 0\n")
    run_git(repo_dir, "add", ".husky")
    run_git(repo_dir, "commit", "-q", "-m", "husky")
    run_git(repo_dir, "config", "core.hooksPath", ".husky/_")  # husky 9: an ignored folder in .husky/
    before = sorted(p.name for p in (repo_dir / ".husky").rglob("*"))
    out = enf(repo_dir, "init")
    assert sorted(p.name for p in (repo_dir / ".husky").rglob("*")) == before
    assert "part of the repository" in out and githooks.add_line("pre-push") in out
    # The printed line, added to the team's hook, runs this machine's shim.
    hook = repo_dir / ".husky" / "pre-push"
    hook.write_text("#!/bin/sh\n" + githooks.add_line("pre-push") + "\nexit 0\n")
    run_git(repo_dir, "config", "core.hooksPath", ".husky")
    write_session(repo_dir, "a1a1a1a1", "Husky work")
    enf(repo_dir, "commit")
    code_commit(repo_dir, "b.txt")
    # Two shells sit between git and our shim here: it still finds the `git push` above them.
    dry = git_run(repo_dir, "push", "--dry-run", "origin", "main")
    assert dry.returncode == 0 and "enf-git" not in dry.stderr and remote_tip(origin) == "", dry.stderr
    pushed = git_run(repo_dir, "push", "origin", "main")
    assert pushed.returncode == 0, pushed.stderr
    assert remote_tip(origin) == local_tip(repo_dir)


# --- pre-push ----------------------------------------------------------------------------

def test_pushing_code_to_the_elected_remote_pushes_memory_too(repo_dir: Path, origin: Path) -> None:
    enf(repo_dir, "init")
    write_session(repo_dir, "a1a1a1a1", "Alice work")
    enf(repo_dir, "commit")
    code_commit(repo_dir, "a.txt")
    pushed = git_run(repo_dir, "push", "origin", "main")
    assert pushed.returncode == 0, pushed.stderr
    assert remote_tip(origin) == local_tip(repo_dir)
    assert run_git(origin, "rev-parse", "main").strip() == run_git(repo_dir, "rev-parse", "main").strip()
    assert "enf-git: memory pushed to origin" in pushed.stderr


def memory_to_push(repo: Path, push_memory: str | None = None) -> None:
    """init (hooks installed, origin elected), enf.pushMemory, one memory commit, one code commit."""
    enf(repo, "init")
    if push_memory is not None:
        run_git(repo, "config", "enf.pushMemory", push_memory)
    write_session(repo, "a1a1a1a1", "Alice work")
    enf(repo, "commit")
    code_commit(repo, "a.txt")


def gated(origin: Path, gate: Path) -> None:
    """The server holds every memory push until `gate` exists (a pre-receive hook)."""
    user_hook(origin / "hooks", "pre-receive",
              "while read -r old new ref; do\n"
              "  [ \"$ref\" = refs/heads/claude-memory ] || continue\n"
              f"  n=0; while [ ! -e '{gate}' ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n+1)); done\n"
              "done\n")


def test_memory_goes_alongside_so_the_code_push_never_waits_for_it(tmp_path: Path, repo_dir: Path,
                                                                 origin: Path) -> None:
    import time

    memory_to_push(repo_dir)
    gate = tmp_path / "open"
    gated(origin, gate)
    out = tmp_path / "push.out"
    with out.open("w") as sink:  # a file, as a terminal would be: git's return is not its output's end
        pushed = subprocess.run(["git", "push", "origin", "main"], cwd=repo_dir, stdout=sink, stderr=sink,
                                stdin=subprocess.DEVNULL, timeout=60)
    assert pushed.returncode == 0, out.read_text()
    # git returned while the server still holds memory: the code is there, memory is not yet.
    assert run_git(origin, "rev-parse", "main").strip() == run_git(repo_dir, "rev-parse", "main").strip()
    assert remote_tip(origin) == ""
    gate.touch()
    deadline = time.monotonic() + 60
    while remote_tip(origin) != local_tip(repo_dir) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert remote_tip(origin) == local_tip(repo_dir)
    deadline = time.monotonic() + 30
    while "memory pushed to origin" not in out.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "enf-git: memory pushed to origin" in out.read_text()  # a file, not a terminal: said


@pytest.mark.parametrize("value", ["first", "FIRST"])
def test_push_memory_first_waits_for_memory_before_the_code_goes(tmp_path: Path, repo_dir: Path,
                                                                 origin: Path, value: str) -> None:
    memory_to_push(repo_dir, value)
    out = tmp_path / "push.out"
    with out.open("w") as sink:
        pushed = subprocess.run(["git", "push", "origin", "main"], cwd=repo_dir, stdout=sink, stderr=sink,
                                stdin=subprocess.DEVNULL, timeout=60)
    assert pushed.returncode == 0, out.read_text()
    assert remote_tip(origin) == local_tip(repo_dir)  # there when git returned
    assert "enf-git: memory pushed to origin" in out.read_text()


@pytest.mark.parametrize("flags", [["--dry-run"], ["--dry"], ["-n"], ["-vn"], ["--dry-run", "--no-verify"]])
def test_a_dry_run_push_pushes_no_memory(repo_dir: Path, origin: Path, flags: list[str]) -> None:
    memory_to_push(repo_dir)
    dry = git_run(repo_dir, "push", *flags, "origin", "main")
    assert dry.returncode == 0 and "enf-git" not in dry.stderr, dry.stderr
    assert remote_tip(origin) == ""
    if "--no-verify" not in flags:  # (git runs no hook then anyway)
        pushed = git_run(repo_dir, "push", "origin", "main")
        assert pushed.returncode == 0 and remote_tip(origin) == local_tip(repo_dir), pushed.stderr


@pytest.mark.parametrize("value", ["08", "0", "99999999999999999999", "1.5", "soon"])
def test_a_timeout_sh_cannot_read_is_the_default_and_never_fails_the_push(repo_dir: Path, origin: Path,
                                                                         value: str) -> None:
    memory_to_push(repo_dir)
    pushed = git_run(repo_dir, "push", "origin", "main", env={"ENF_GIT_HOOK_TIMEOUT": value})
    assert pushed.returncode == 0 and "Illegal number" not in pushed.stderr, pushed.stderr
    assert remote_tip(origin) == local_tip(repo_dir)


def test_our_part_killed_by_the_backstop_takes_its_git_push_with_it(tmp_path: Path, repo_dir: Path,
                                                                  origin: Path) -> None:
    """The shim's `timeout` sends SIGTERM when our part overruns: the nested git push must
    end with it, not push on unwatched after the hook said it failed."""
    import signal
    import time

    memory_to_push(repo_dir)
    gate, entered = tmp_path / "open", tmp_path / "entered"
    user_hook(origin / "hooks", "pre-receive", f"touch '{entered}'\n"
              f"n=0; while [ ! -e '{gate}' ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n+1)); done\n")
    env = {**os.environ, "ENF_GIT_HOOK_ACTIVE": "1", "ENF_GIT_PUSH_MODE": ""}
    part = subprocess.Popen([sys.executable, "-c", githooks.LAUNCH, "pre-push", "origin", str(origin)],
                            cwd=repo_dir, env=env, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not entered.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert entered.exists(), "the memory push never reached the server"
    part.send_signal(signal.SIGTERM)
    _, err = part.communicate(timeout=30)
    assert part.returncode == 0 and "gave up" in err, err
    pushes = [p for p in Path("/proc").glob("[0-9]*") if _cmdline(p).startswith("git push") and str(origin) in _cmdline(p)]
    gate.touch()
    assert pushes == [], [_cmdline(p) for p in pushes]


def test_push_memory_false_holds_under_a_shim_that_does_not_pass_it(repo_dir: Path, origin: Path) -> None:
    """A shim from before enf.pushMemory (until git enf init rewrites it) starts our part
    without ENF_GIT_PUSH_MODE: our part reads the setting itself."""
    memory_to_push(repo_dir, "false")
    env = {k: v for k, v in os.environ.items() if k != "ENF_GIT_PUSH_MODE"}
    part = subprocess.run([sys.executable, "-c", githooks.LAUNCH, "pre-push", "origin", str(origin)], cwd=repo_dir,
                          env={**env, "ENF_GIT_HOOK_ACTIVE": "1"}, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=60)
    assert part.returncode == 0 and part.stderr == "", part.stderr
    assert remote_tip(origin) == ""


def _cmdline(proc: Path) -> str:
    try:
        return (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


@pytest.mark.parametrize("value", ["false", "False", "off"])
def test_push_memory_false_leaves_memory_to_sync(repo_dir: Path, origin: Path, value: str) -> None:
    memory_to_push(repo_dir, value)
    pushed = git_run(repo_dir, "push", "origin", "main")
    assert pushed.returncode == 0, pushed.stderr
    assert f"enf-git: memory not pushed: enf.pushMemory is {value}, so only git enf sync shares it" in pushed.stderr
    assert remote_tip(origin) == ""
    assert "pushed claude-memory to origin" in enf(repo_dir, "sync")


def test_an_unknown_push_memory_value_is_named_and_memory_still_goes(repo_dir: Path, origin: Path) -> None:
    memory_to_push(repo_dir, "sometimes")
    pushed = git_run(repo_dir, "push", "origin", "main")
    assert pushed.returncode == 0, pushed.stderr
    assert "enf.pushMemory is 'sometimes', not one of alongside, first, false" in pushed.stderr
    assert remote_tip(origin) == local_tip(repo_dir)


def test_git_enf_sync_with_the_hooks_installed_pushes_once_and_succeeds(repo_dir: Path, origin: Path,
                                                                        tmp_path: Path) -> None:
    # sync's own `git push` runs the pre-push hook: our part must stand down there, or it
    # syncs again underneath and the remote's ref moves before the outer push lands.
    record = tmp_path / "calls"
    user_hook(hooks_path(repo_dir), "pre-push", f'echo "$1" >> {record}\nexit 0\n')
    enf(repo_dir, "init")
    for sid, summary in (("a1a1a1a1", "First push"), ("b2b2b2b2", "Second push")):
        write_session(repo_dir, sid, summary)
        out = enf(repo_dir, "sync")
        assert "pushed claude-memory to origin" in out and "failed" not in out
        assert remote_tip(origin) == local_tip(repo_dir)
    assert record.read_text() == "origin\norigin\n"  # the user's hook still ran, once per sync


def without_pygit2(tmp_path: Path) -> dict[str, str]:
    """An environment in which our part cannot open the repository (pygit2 fails to import)."""
    blocker = tmp_path / "no-pygit2"
    (blocker / "pygit2").mkdir(parents=True, exist_ok=True)
    (blocker / "pygit2" / "__init__.py").write_text("raise ImportError('pygit2 blocked by the test')\n")
    return {"PYTHONPATH": os.pathsep.join(p for p in (str(blocker), os.environ.get("PYTHONPATH", "")) if p)}


def test_the_usual_push_of_memory_never_opens_the_repository(repo_dir: Path, origin: Path,
                                                             tmp_path: Path) -> None:
    enf(repo_dir, "init")
    code_commit(repo_dir, "a.txt")
    assert git_run(repo_dir, "push", "origin", "main").returncode == 0  # the first push: scanned, full sync
    write_session(repo_dir, "b2b2b2b2", "More work")
    enf(repo_dir, "commit")
    code_commit(repo_dir, "b.txt")
    pushed = git_run(repo_dir, "push", "origin", "main", env=without_pygit2(tmp_path))
    assert pushed.returncode == 0, pushed.stderr
    assert "enf-git: memory pushed to origin" in pushed.stderr, pushed.stderr
    assert remote_tip(origin) == local_tip(repo_dir)
    # From a linked worktree (.git is a file there), the same.
    run_git(repo_dir, "worktree", "add", "-q", "-b", "feature", str(tmp_path / "feature"))
    write_session(repo_dir, "c3c3c3c3", "Even more")
    enf(repo_dir, "commit")
    code_commit(tmp_path / "feature", "c.txt")
    pushed = git_run(tmp_path / "feature", "push", "origin", "feature", env=without_pygit2(tmp_path))
    assert pushed.returncode == 0 and "enf-git: memory pushed to origin" in pushed.stderr, pushed.stderr
    assert remote_tip(origin) == local_tip(repo_dir)


def test_memory_the_remote_moved_past_is_merged_then_pushed(tmp_path: Path, repo_dir: Path,
                                                            origin: Path) -> None:
    bob = alice_pushes_memory(tmp_path, repo_dir, origin)
    run_git(bob, "pull", "-q", "--no-rebase")  # bob has alice's memory (post-merge)
    code_commit(bob, "bob.txt")
    assert git_run(bob, "push", "origin", "main").returncode == 0  # bob's memory goes: the first push, scanned
    write_session(repo_dir, "c3c3c3c3", "Alice again")  # alice's tracking ref is now behind the remote
    enf(repo_dir, "commit")
    run_git(repo_dir, "pull", "-q", "--no-rebase", "origin", "main")  # the code only: memory not fetched
    code_commit(repo_dir, "c.txt")
    ours = local_tip(repo_dir)
    pushed = git_run(repo_dir, "push", "origin", "main")
    assert pushed.returncode == 0, pushed.stderr
    assert "enf-git: memory pushed to origin" in pushed.stderr, pushed.stderr
    assert remote_tip(origin) == local_tip(repo_dir) != ours  # a merge of both was pushed, never a force
    assert git_run(repo_dir, "merge-base", "--is-ancestor", ours, local_tip(repo_dir)).returncode == 0
    assert git_run(origin, "merge-base", "--is-ancestor", run_git(bob, "rev-parse", "claude-memory").strip(),
                   "claude-memory").returncode == 0


def test_a_clone_that_never_pushed_memory_scans_its_history_first(tmp_path: Path, repo_dir: Path,
                                                                  origin: Path) -> None:
    from enf_git.plumbing import store, store_write

    bob = alice_pushes_memory(tmp_path, repo_dir, origin)
    run_git(bob, "pull", "-q", "--no-rebase")  # bob's tracking ref is the remote's memory...
    repo = store.open_repo(bob)  # ...and his history holds a secret that escaped redaction
    store_write.commit(repo, lambda tip: {"notes/old.md": b"aws key AKIAIOSFODNN7EXAMPLE in the notes\n"}, "old notes")
    code_commit(bob, "bob.txt")
    pushed = git_run(bob, "push", "origin", "main")
    assert pushed.returncode == 0, pushed.stderr
    assert "its history holds what looks like secrets: notes/old.md" in pushed.stderr, pushed.stderr
    assert "enf-git: memory was not pushed to origin" in pushed.stderr  # said once, not prefixed twice
    assert remote_tip(origin) == run_git(bob, "rev-parse", "refs/remotes/origin/claude-memory").strip()
    assert run_git(origin, "rev-parse", "main").strip() == run_git(bob, "rev-parse", "main").strip()


def test_pushing_to_a_fork_never_pushes_memory_there(tmp_path: Path, repo_dir: Path, origin: Path) -> None:
    fork = tmp_path / "fork.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(fork))
    run_git(repo_dir, "remote", "add", "fork", str(fork))
    enf(repo_dir, "init")
    code_commit(repo_dir, "a.txt")
    pushed = git_run(repo_dir, "push", "fork", "main")
    assert pushed.returncode == 0, pushed.stderr
    assert remote_tip(fork) == "" and "enf-git" not in pushed.stderr
    by_url = git_run(repo_dir, "push", str(fork), "main")
    assert by_url.returncode == 0 and remote_tip(fork) == ""


def test_nothing_to_push_never_starts_python(repo_dir: Path, origin: Path) -> None:
    enf(repo_dir, "init")
    code_commit(repo_dir, "a.txt")
    assert git_run(repo_dir, "push", "origin", "main").returncode == 0  # memory goes
    githooks_folder = hooks_path(repo_dir)
    broken = githooks.render("pre-push", "/nonexistent/python")
    (githooks_folder / "pre-push").write_text(broken)
    code_commit(repo_dir, "b.txt")
    pushed = git_run(repo_dir, "push", "origin", "main")
    assert pushed.returncode == 0, pushed.stderr
    assert "enf-git" not in pushed.stderr  # the shell check ended it: no interpreter was needed
    run_git(repo_dir, "pack-refs", "--all")  # no loose ref files to read: git answers instead
    code_commit(repo_dir, "b2.txt")
    pushed = git_run(repo_dir, "push", "origin", "main")
    assert pushed.returncode == 0 and "enf-git" not in pushed.stderr, pushed.stderr
    write_session(repo_dir, "b2b2b2b2", "More")
    enf(repo_dir, "commit")
    code_commit(repo_dir, "c.txt")
    needed = git_run(repo_dir, "push", "origin", "main")  # now it must start, fails, warns, push goes on
    assert needed.returncode == 0 and "enf-git: the pre-push step for memory failed" in needed.stderr
    assert run_git(origin, "rev-parse", "main").strip() == run_git(repo_dir, "rev-parse", "main").strip()


def hook_git_calls(trace: Path) -> list[str]:
    """The git commands a push started besides its own transfer (GIT_TRACE2's start lines)."""
    starts = [line.split("start ", 1)[1] for line in trace.read_text().splitlines() if " start " in line]
    return [argv for argv in starts if re.match(r"git (config|rev-parse)\b", argv)]


def test_the_shim_reads_what_our_part_needs_with_one_git_call(tmp_path: Path, repo_dir: Path,
                                                               origin: Path) -> None:
    """Memory to push, loose refs (the usual clone): one `git config` for every setting, no
    rev-parse, and our part gets the remote, both commits and whether ssh is the user's own."""
    enf(repo_dir, "init")
    code_commit(repo_dir, "a.txt")
    assert git_run(repo_dir, "push", "origin", "main").returncode == 0  # the first push of memory
    facts = tmp_path / "facts"
    fake = user_hook(tmp_path / "bin", "python", f'echo "$ENF_GIT_HOOK_PUSH" >{facts}\n')
    (hooks_path(repo_dir) / "pre-push").write_text(githooks.render("pre-push", str(fake)))
    run_git(repo_dir, "config", "enf.pushMemory", "first")  # our part runs before git goes on

    def push(name: str) -> list[str]:
        write_session(repo_dir, f"{len(name):08x}", f"Work {name}")
        enf(repo_dir, "commit")
        code_commit(repo_dir, name)
        trace = tmp_path / f"trace-{name}"
        pushed = git_run(repo_dir, "push", "origin", "main", env={"GIT_TRACE2": str(trace)})
        assert pushed.returncode == 0, pushed.stderr
        return hook_git_calls(trace)

    calls = push("b.txt")
    theirs = run_git(repo_dir, "rev-parse", "refs/remotes/origin/claude-memory").strip()
    assert facts.read_text().split() == ["origin", local_tip(repo_dir), theirs, "0"]
    assert len(calls) == 1 and calls[0].startswith("git config --get-regexp"), calls
    run_git(repo_dir, "config", "core.sshCommand", "ssh -o BatchMode=yes")
    run_git(repo_dir, "pack-refs", "--all")  # no loose refs: git answers, and still right
    calls = push("cc.txt")
    assert facts.read_text().split() == ["origin", local_tip(repo_dir), theirs, "1"]
    assert any(c.startswith("git rev-parse") for c in calls), calls


def test_the_usual_push_runs_the_users_own_ssh_command(tmp_path: Path, repo_dir: Path, origin: Path) -> None:
    """core.sshCommand (read by the shim's one git config) is the ssh our push runs, not
    our batch-mode default: git prefers GIT_SSH_COMMAND, so ours would replace it."""
    used = tmp_path / "ssh-used"
    fake_ssh = user_hook(tmp_path / "bin", "fake-ssh", f'echo "$@" >>{used}\nshift\nexec sh -c "$*"\n')
    run_git(repo_dir, "config", "core.sshCommand", str(fake_ssh))
    run_git(repo_dir, "remote", "set-url", "origin", f"ssh://fakehost{origin}")
    enf(repo_dir, "init")
    code_commit(repo_dir, "a.txt")
    assert git_run(repo_dir, "push", "origin", "main").returncode == 0  # the first push of memory: a sync
    memory_landed(repo_dir, origin)
    write_session(repo_dir, "b2b2b2b2", "Over ssh")
    enf(repo_dir, "commit")
    code_commit(repo_dir, "b.txt")
    used.unlink()
    pushed = git_run(repo_dir, "-c", "enf.pushMemory=first", "push", "origin", "main")
    assert pushed.returncode == 0 and "enf-git: memory pushed to origin" in pushed.stderr, pushed.stderr
    assert remote_tip(origin) == local_tip(repo_dir)
    assert used.read_text().count("git-receive-pack") == 2  # the code's push and memory's


def test_the_users_pre_push_hook_sees_its_args_and_stdin_and_decides(repo_dir: Path, origin: Path,
                                                                      tmp_path: Path) -> None:
    record = tmp_path / "record"
    user_hook(hooks_path(repo_dir), "pre-push",
              f'echo "$@" > {record}.args\ncat > {record}.stdin\nexit "$(cat {tmp_path}/verdict)"\n')
    (tmp_path / "verdict").write_text("0")
    out = enf(repo_dir, "init")
    assert "kept your pre-push hook as pre-push.enf-chained" in out
    write_session(repo_dir, "a1a1a1a1", "Alice work")
    enf(repo_dir, "commit")
    code_commit(repo_dir, "a.txt")
    head = run_git(repo_dir, "rev-parse", "main").strip()
    old = run_git(origin, "rev-parse", "main").strip()
    assert git_run(repo_dir, "push", "origin", "main").returncode == 0
    assert Path(f"{record}.args").read_text() == f"origin {origin}\n"
    assert Path(f"{record}.stdin").read_text() == f"refs/heads/main {head} refs/heads/main {old}\n"
    assert remote_tip(origin) == local_tip(repo_dir)
    # The user's hook says no: the push fails, and memory is not pushed either.
    (tmp_path / "verdict").write_text("1")
    write_session(repo_dir, "b2b2b2b2", "Bob work")
    enf(repo_dir, "commit")
    code_commit(repo_dir, "b.txt")
    refused = git_run(repo_dir, "push", "origin", "main")
    assert refused.returncode != 0
    assert run_git(origin, "rev-parse", "main").strip() == head
    assert remote_tip(origin) != local_tip(repo_dir)


def test_our_failure_never_fails_the_push(tmp_path: Path, repo_dir: Path, origin: Path) -> None:
    memory_remote = tmp_path / "gone.git"  # a memory remote that is not there
    enf(repo_dir, "init")
    run_git(repo_dir, "config", "enf.remote", str(memory_remote))
    write_session(repo_dir, "a1a1a1a1", "Alice work")
    enf(repo_dir, "commit")
    code_commit(repo_dir, "a.txt")
    pushed = git_run(repo_dir, "push", str(memory_remote), "main")  # to "the elected remote", which fails
    assert pushed.returncode != 0  # git's own failure, not ours: the code push itself cannot work
    run_git(repo_dir, "remote", "add", "mem", str(memory_remote))
    run_git(repo_dir, "config", "remote.mem.pushurl", str(origin))  # code goes, memory's fetch fails
    run_git(repo_dir, "config", "enf.remote", "mem")
    pushed = git_run(repo_dir, "push", "mem", "main")
    assert pushed.returncode == 0, pushed.stderr
    assert "enf-git: memory not pushed" in pushed.stderr
    assert run_git(origin, "rev-parse", "main").strip() == run_git(repo_dir, "rev-parse", "main").strip()


def test_ci_disables_the_hooks_unless_enf_ci(repo_dir: Path, origin: Path) -> None:
    enf(repo_dir, "init")
    write_session(repo_dir, "a1a1a1a1", "Alice work")
    enf(repo_dir, "commit")
    code_commit(repo_dir, "a.txt")
    assert git_run(repo_dir, "push", "origin", "main", env={"CI": "true"}).returncode == 0
    assert remote_tip(origin) == ""
    run_git(repo_dir, "config", "enf.ci", "true")
    code_commit(repo_dir, "b.txt")
    assert git_run(repo_dir, "push", "origin", "main", env={"CI": "true"}).returncode == 0
    assert remote_tip(origin) == local_tip(repo_dir)


# --- post-merge and friends ----------------------------------------------------------------

def teammate(tmp_path: Path, origin: Path, name: str) -> Path:
    path = tmp_path / name
    run_git(tmp_path, "clone", "-q", str(origin), str(path))
    run_git(path, "config", "user.name", name)
    run_git(path, "config", "user.email", f"{name}@example.com")
    enf(path, "init")
    return path


def alice_pushes_memory(tmp_path: Path, repo_dir: Path, origin: Path) -> Path:
    """Alice (repo_dir) commits a session and pushes code, so her pre-push hook sends
    memory too; returns Bob, a teammate's clone set up before that push."""
    enf(repo_dir, "init")
    bob = teammate(tmp_path, origin, "bob")
    write_session(repo_dir, "a1a1a1a1", "Alice work")
    enf(repo_dir, "commit")
    code_commit(repo_dir, "a.txt")
    assert git_run(repo_dir, "push", "origin", "main").returncode == 0
    memory_landed(repo_dir, origin)  # else Bob's pull may come first
    return bob


def test_git_pull_brings_the_teammates_memory_into_the_working_copy(tmp_path: Path, repo_dir: Path,
                                                                    origin: Path) -> None:
    bob = alice_pushes_memory(tmp_path, repo_dir, origin)
    pulled = git_run(bob, "pull", "-q", "--no-rebase", "origin", "main")
    assert pulled.returncode == 0, pulled.stderr
    run_git(bob, "fetch", "-q", "origin", "+refs/heads/claude-memory:refs/remotes/origin/claude-memory")
    assert not (bob / ".claude-sessions" / "sessions" / "2026-04-13-alice-work.md").exists()  # fetch: no hook
    code_commit(repo_dir, "b.txt")
    assert git_run(repo_dir, "push", "origin", "main").returncode == 0
    pulled = git_run(bob, "pull", "--no-rebase", "origin", "main")
    assert pulled.returncode == 0, pulled.stderr
    assert (bob / ".claude-sessions" / "sessions" / "2026-04-13-alice-work.md").exists()
    # bob's own init started a history of its own: the teammate's is merged into it
    assert git_run(bob, "merge-base", "--is-ancestor", "refs/remotes/origin/claude-memory",
                   "claude-memory").returncode == 0


def test_git_pull_rebase_merges_memory_through_post_rewrite(tmp_path: Path, repo_dir: Path,
                                                            origin: Path) -> None:
    bob = alice_pushes_memory(tmp_path, repo_dir, origin)
    code_commit(bob, "bob.txt")  # a local commit to rebase
    pulled = git_run(bob, "pull", "--rebase")  # the default refspec fetches claude-memory's tracking ref
    assert pulled.returncode == 0, pulled.stderr
    assert (bob / ".claude-sessions" / "sessions" / "2026-04-13-alice-work.md").exists()


def test_a_merge_failure_never_fails_the_pull(tmp_path: Path, repo_dir: Path, origin: Path) -> None:
    bob = alice_pushes_memory(tmp_path, repo_dir, origin)
    (hooks_path(bob) / "post-merge").write_text(githooks.render("post-merge", "/nonexistent/python"))
    pulled = git_run(bob, "pull", "--no-rebase")
    assert pulled.returncode == 0 and "enf-git:" in pulled.stderr
    assert (bob / "a.txt").exists()


# --- uninstall -------------------------------------------------------------------------------

def test_uninstall_removes_only_ours_and_restores_the_users_hook(repo_dir: Path, origin: Path) -> None:
    folder = hooks_path(repo_dir)
    mine = user_hook(folder, "post-merge", "echo mine\n")
    foreign = user_hook(folder, "pre-commit", "echo other\n")
    enf(repo_dir, "init")
    enf(repo_dir, "init")
    assert githooks.MARKER in mine.read_text()
    assert (folder / ("post-merge" + githooks.CHAINED)).read_text() == "#!/bin/sh\necho mine\n"
    enf(repo_dir, "uninstall")
    assert mine.read_text() == "#!/bin/sh\necho mine\n" and mine.stat().st_mode & stat.S_IXUSR
    assert foreign.read_text() == "#!/bin/sh\necho other\n"
    assert not list(folder.glob("*" + githooks.CHAINED))
    for hook in ("pre-push", "post-checkout", "post-rewrite"):
        assert not (folder / hook).exists()


def test_our_part_is_bounded_by_its_timeout_and_the_push_goes_on(repo_dir: Path, origin: Path) -> None:
    enf(repo_dir, "init")
    # Every fetch from origin now hangs for a minute before git-upload-pack starts.
    run_git(repo_dir, "config", "remote.origin.uploadpack", "sleep 60; git-upload-pack")
    write_session(repo_dir, "a1a1a1a1", "Alice work")
    enf(repo_dir, "commit")
    code_commit(repo_dir, "a.txt")
    pushed = git_run(repo_dir, "push", "origin", "main", env={"ENF_GIT_HOOK_TIMEOUT": "2"})
    assert pushed.returncode == 0, pushed.stderr
    assert "enf-git: gave up after 2 s" in pushed.stderr  # the guard fired, at the timeout it was given
    assert run_git(origin, "rev-parse", "main").strip() == run_git(repo_dir, "rev-parse", "main").strip()
    assert remote_tip(origin) == ""


def test_the_recursion_guard_skips_our_part(repo_dir: Path, origin: Path) -> None:
    enf(repo_dir, "init")
    write_session(repo_dir, "a1a1a1a1", "Alice work")
    enf(repo_dir, "commit")
    code_commit(repo_dir, "a.txt")
    pushed = git_run(repo_dir, "push", "origin", "main", env={"ENF_GIT_HOOK_ACTIVE": "1"})
    assert pushed.returncode == 0 and remote_tip(origin) == ""


def test_switching_branches_merges_fetched_memory_but_a_file_checkout_does_not(tmp_path: Path, repo_dir: Path,
                                                                              origin: Path) -> None:
    bob = alice_pushes_memory(tmp_path, repo_dir, origin)
    run_git(bob, "fetch", "-q", "origin")
    alice = bob / ".claude-sessions" / "sessions" / "2026-04-13-alice-work.md"
    assert git_run(bob, "checkout", "-q", "--", "README.md").returncode == 0
    assert not alice.exists()
    assert git_run(bob, "checkout", "-q", "-b", "feature").returncode == 0
    assert alice.exists()


def test_doctor_checks_the_git_hooks(repo_dir: Path, origin: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    enf(repo_dir, "init")
    assert "git hooks" in run_cli("doctor")  # checked, and clean
    shim = hooks_path(repo_dir) / "pre-push"
    shim.write_text(re.sub(r"(?m)^py=.*$", "py='/nonexistent/venv/bin/python'", shim.read_text()))
    out = run_cli("doctor", code=1)
    assert "the pre-push git hook calls /nonexistent/venv/bin/python, which does not exist" in out
    (hooks_path(repo_dir) / "post-merge").unlink()
    out = run_cli("doctor", code=1)
    assert "the post-merge git hook of enf-git is not installed" in out
    enf(repo_dir, "init")
    assert "all good" in run_cli("doctor")
    # A shim an older enf-git wrote (here: before memory went alongside the code) is named.
    old = (hooks_path(repo_dir) / "pre-push").read_text()
    (hooks_path(repo_dir) / "pre-push").write_text(old.replace('[ "$mode" != first ]', "false"))
    out = run_cli("doctor")
    assert "the pre-push git hook in" in out and "is not the one this version of enf-git installs" in out
    assert "git enf init (rewrites our hooks" in out
    assert "updated pre-push: it was not this version's" in enf(repo_dir, "init")
    assert "all good" in run_cli("doctor")
