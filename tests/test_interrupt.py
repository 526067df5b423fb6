"""Ctrl-C at any moment of a command: one line and exit 130, never a traceback nor death
by the signal (entry.py, cli/app.py).

A real process gets SIGINT (what a terminal's Ctrl-C sends) at several moments: while it
imports click and pygit2 (the first ~0.2 s of every command), and in the middle of
committing a large file, with the worktree's lock held. Python's own start-up, before
the first line of enf-git runs, is out of reach: the first test starts its clock once
entry.py is imported, as the console script does first.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from enf_git.memory.health.state_checks import lock_holder
from gitfixtures import run_git, session_text

GIT_ENF = str(Path(sys.executable).with_name("git-enf"))
LINE = "git enf {}: interrupted; what was done is kept, the rest was not started\n"
# What the console script does (`from enf_git.entry import main; sys.exit(main())`), and a
# byte on fd {ready} once entry.py is imported: from then on every moment is ours.
LAUNCHER = "import os, sys\nfrom enf_git.entry import main\nos.write({ready}, b'r')\nsys.exit(main())\n"


@pytest.fixture
def project(run_cli: Callable[..., str], repo_dir: Path) -> Path:
    run_cli("init")
    (repo_dir / ".claude-sessions" / "sessions" / "2026-04-13-a1b2c3d4.md").write_text(
        session_text(body="Moved search to Postgres.\n"))
    run_cli("commit", "-m", "first")
    return repo_dir


def _interrupted_after(cwd: Path, args: list[str], delay: float) -> subprocess.CompletedProcess[str]:
    """Start `git enf ARGS`, wait until entry.py is imported, then `delay` s, then SIGINT."""
    ready_r, ready_w = os.pipe()
    try:
        proc = subprocess.Popen([sys.executable, "-c", LAUNCHER.format(ready=ready_w), *args], cwd=cwd,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, pass_fds=(ready_w,))
        os.close(ready_w)
        assert os.read(ready_r, 1) == b"r", "the launcher did not start"
    finally:
        os.close(ready_r)
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@pytest.mark.parametrize("args", [["status"], ["log", "--oneline"], ["recall", "postgres"], ["commit"],
                                  ["doctor"], ["--no-pager", "show", "2026-04-13-a1b2c3d4"]])
def test_ctrl_c_while_a_command_starts_is_one_line_and_130(project: Path, args: list[str]) -> None:
    command = next(a for a in args if not a.startswith("-"))
    interrupted = 0
    for delay in (0.0, 0.005, 0.02, 0.05, 0.1, 0.2):
        done = _interrupted_after(project, args, delay)
        if done.returncode == 130:
            assert done.stderr == LINE.format(command), (delay, done.stderr)
            interrupted += 1
        else:  # it finished before the signal came: as if never pressed
            assert done.returncode in (0, 1) and "Traceback" not in done.stderr, (delay, done.returncode, done.stderr)
            assert "interrupted" not in done.stderr
    assert interrupted, "no signal landed while the command ran"
    assert run_git(project, "rev-parse", "--verify", "-q", "claude-memory").strip()


def test_the_console_script_leaves_no_traceback_of_ours_at_any_delay(project: Path) -> None:
    """The same through the installed script, from its first instant: before entry.py runs,
    Python may die of the signal on its own (its start-up, out of reach), never in our code."""
    for delay in (0.0, 0.01, 0.03, 0.06, 0.1, 0.15):
        proc = subprocess.Popen([GIT_ENF, "status"], cwd=project, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
        assert f"{os.sep}enf_git{os.sep}" not in err, (delay, proc.returncode, err)  # no frame of ours
        if proc.returncode == 130:
            assert err == LINE.format("status")


# What a Ctrl-C met on its way up, in the middle of a real run, made certain here: the
# command's own work (entry._main) is replaced by the situation, the boundary is the real one.
SITUATIONS = {
    # An import in C (PyCapsule_Import) turns the KeyboardInterrupt into an ImportError.
    "turned into another error": "try:\n    os.kill(os.getpid(), signal.SIGINT); time.sleep(5)\n"
                                 "except KeyboardInterrupt:\n    raise ImportError('could not import _socket') from None\n",
    # Caught and dropped on the way (the command then ends as if nothing happened).
    "swallowed": "try:\n    os.kill(os.getpid(), signal.SIGINT); time.sleep(5)\nexcept KeyboardInterrupt:\n    pass\n"
                 "raise SystemExit(0)\n",
    # Raised in a callback (an import lock's weakref cleanup): Python prints "Exception ignored in".
    "in a callback": "class A: pass\na = A()\n"
                     "def cb(ref):\n    os.kill(os.getpid(), signal.SIGINT); time.sleep(5)\n"
                     "r = weakref.ref(a, cb)\ndel a\n",
}


@pytest.mark.parametrize("situation", sorted(SITUATIONS))
def test_a_ctrl_c_lost_on_its_way_up_is_still_one_line_and_130(project: Path, situation: str) -> None:
    body = "".join(f"    {line}\n" for line in SITUATIONS[situation].splitlines())
    code = ("import os, signal, sys, time, weakref\nfrom enf_git import entry\n"
            f"def situation(argv):\n{body}entry._main = situation\nsys.argv[1:] = ['status']\nentry.main()\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=project, capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stderr) == (130, LINE.format("status"))


def _held_by(lock: Path, pid: int, proc: subprocess.Popen[str], wait: float = 60.0) -> bool:
    """Wait until process `pid` holds the flock on `lock` (False: it ended first)."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline and proc.poll() is None:
        holder = lock_holder(lock) if lock.exists() else None
        if holder is not None and holder[0] == pid:
            return True
        time.sleep(0.001)
    return False


@pytest.mark.parametrize("args", [["commit", "-m", "big"], ["commit", "--allow-deletions"]],
                         ids=["fast-path", "click"])
def test_ctrl_c_while_committing_a_large_file(project: Path, args: list[str]) -> None:
    session = project / ".claude-sessions" / "sessions" / "2026-04-14-b2c3d4e5.md"
    body = "".join(f"line {i} of a long transcript, with words to scan for secrets {i * 7919}\n"
                   for i in range(40_000))
    lock = project / ".git" / "enf" / "manifest.lock"
    tip = run_git(project, "rev-parse", "claude-memory").strip()
    for attempt in range(5):  # the lock is taken at once; the file keeps the commit busy ~1 s after it
        session.write_text(session_text(session_id="b2c3d4e5", date="2026-04-14", body=body + f"try {attempt}\n"))
        proc = subprocess.Popen([GIT_ENF, *args], cwd=project, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        if _held_by(lock, proc.pid, proc):
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=120)
            if proc.returncode != 0:
                break
        else:
            out, err = proc.communicate(timeout=120)
        tip = run_git(project, "rev-parse", "claude-memory").strip()  # it won the race: try again on this tip
    else:
        pytest.skip("every commit finished before the signal landed")
    assert proc.returncode == 130 and err == LINE.format("commit"), (proc.returncode, err)
    assert "Traceback" not in out + err
    # Whole or not at all: the branch is where it was, or holds the whole file; nothing is left behind.
    now = run_git(project, "rev-parse", "claude-memory").strip()
    assert now == tip or run_git(project, "show", "claude-memory:sessions/2026-04-14-b2c3d4e5.md") == session.read_text()
    assert lock_holder(lock) is None
    leftovers = [p for p in [*(project / ".git" / "enf").rglob("*"), *(project / ".claude-sessions").rglob("*")]
                 if p.name.endswith(".tmp")]
    assert leftovers == []
    again = subprocess.run([GIT_ENF, "commit", "-m", "again"], cwd=project, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert run_git(project, "show", "claude-memory:sessions/2026-04-14-b2c3d4e5.md") == session.read_text()
