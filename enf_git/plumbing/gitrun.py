"""Running `git` (stdlib only): a timeout after which the whole process group is killed,
no prompt and no controlling terminal, output decoded in the C locale, the end seen as
soon as git exits (a thread blocked in waitpid), and git's version.

gitcli.py and its neighbours (gitenv, gitclones, gitseen) start every git process here.
"""

from __future__ import annotations

import codecs
import os
import signal
import subprocess
import threading
import time
from collections.abc import Mapping
from functools import lru_cache
from typing import IO, NamedTuple


LS_REMOTE_TIMEOUT = 30.0
FETCH_TIMEOUT = 600.0
PUSH_TIMEOUT = 600.0
LOCAL_TIMEOUT = 15.0


class _Run(NamedTuple):
    code: int
    out: str
    err: str
    timed_out: bool = False


# --- running git -----------------------------------------------------------------------

def _run(repo_dir: str, args: list[str], env: Mapping[str, str], timeout: float,
         progress: IO[str] | None = None) -> _Run:
    """`git args` in repo_dir: no stdin, no terminal, killed (with its children) at `timeout`.

    stderr is copied to `progress` as it arrives (for a terminal) and kept for classifying.
    """
    return _Started(repo_dir, args, env, progress).finish(timeout)


class _Started:
    """A git process running (`_run` split in two, so a fetch can start before the caller
    has imported what it needs afterwards)."""

    def __init__(self, repo_dir: str, args: list[str], env: Mapping[str, str], progress: IO[str] | None) -> None:
        self.posix = os.name == "posix"
        self.started = time.monotonic()
        self.proc = subprocess.Popen(["git", *args], cwd=repo_dir, env=dict(env), stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=self.posix)
        self.out: list[bytes] = []
        self.err: list[bytes] = []
        self.readers = [threading.Thread(target=_drain, args=(self.proc.stdout, self.out, None), daemon=True),
                        threading.Thread(target=_drain, args=(self.proc.stderr, self.err, progress), daemon=True)]
        # `proc.wait(timeout)` would poll (sleeps doubling up to 50 ms: a git that takes 35 ms
        # was seen at 63), so a thread blocks in waitpid and we wait on it, which sleeps on a
        # lock until the very moment git exits, or until the timeout.
        self.waiter = threading.Thread(target=self.proc.wait, daemon=True)
        for thread in (*self.readers, self.waiter):
            thread.start()

    def finish(self, timeout: float) -> _Run:
        """Wait for git, `timeout` seconds from its start at most (then kill it)."""
        timed_out = False
        try:
            self.waiter.join(max(0.0, timeout - (time.monotonic() - self.started)))
            if self.waiter.is_alive():
                timed_out = True
                self.kill()
                self.waiter.join()
        except BaseException:  # Ctrl-C: the child is in its own session and did not get it
            self.kill()
            raise
        for reader in self.readers:  # an ssh master that outlives git may hold a pipe open
            reader.join(timeout=2.0)
        code = self.proc.wait()  # already reaped by the waiter: returns at once
        return _Run(code, b"".join(self.out).decode("utf-8", "replace"),
                    b"".join(self.err).decode("utf-8", "replace"), timed_out)

    def kill(self) -> None:
        _kill(self.proc, self.posix)



def _drain(pipe: IO[bytes] | None, sink: list[bytes], echo: IO[str] | None) -> None:
    if pipe is None:
        return
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    while chunk := pipe.read1(8192) if hasattr(pipe, "read1") else pipe.read(8192):
        sink.append(chunk)
        if echo is not None:
            try:
                echo.write(decoder.decode(chunk))
                echo.flush()
            except (OSError, ValueError):
                echo = None  # the terminal went away: keep collecting
    pipe.close()


def _kill(proc: subprocess.Popen[bytes], posix: bool) -> None:
    try:
        if posix:
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    except OSError:
        pass


@lru_cache(maxsize=1)
def git_version() -> tuple[int, ...]:
    proc = subprocess.run(["git", "version"], capture_output=True, stdin=subprocess.DEVNULL,
                          timeout=LOCAL_TIMEOUT, cwd=os.path.sep)
    words = proc.stdout.decode("ascii", "replace").split()
    digits = words[2].split(".") if len(words) > 2 else []
    return tuple(int(d) for d in digits[:3] if d.isdigit())


def _version_flags() -> list[str]:
    version = git_version()
    flags = ["--no-filter"] if version >= (2, 19) else []  # partial clones came with 2.19
    flags += ["--no-write-fetch-head"] if version >= (2, 29) else []
    return flags + (["--no-auto-maintenance"] if version >= (2, 29) else ["--no-auto-gc"])

def _rev(repo_dir: str, ref: str, env: Mapping[str, str]) -> str | None:
    run = _run(repo_dir, ["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], env, LOCAL_TIMEOUT)
    return (run.out.strip() or None) if run.code == 0 else None

