"""A git process started with the standard library's lightest parts (the pre-push hook's push).

The usual pre-push sends memory that is already committed: what it adds before memory
goes is mostly Python's own start, and subprocess (with signal's enum, threading and
selectors) costs more to import than the git process it would start. So the push is
started with os.posix_spawnp, and what reads its answer (threads, the result's
classification in gitcli) is imported while git transfers. None where posix_spawnp is
missing (Windows): the caller takes gitcli's way.
"""

import os

TYPE_CHECKING = False  # typing.TYPE_CHECKING would import typing before git starts
if TYPE_CHECKING:
    from collections.abc import Mapping


class Spawned:
    """`git args` in the current folder, stdin /dev/null, stdout and stderr to pipes, in a
    session of its own so that a kill reaches what it starts (ssh, a credential helper)."""

    def __init__(self, args: list[str], env: "Mapping[str, str]") -> None:
        out_r, out_w = os.pipe()  # os.pipe's ends are not inherited; dup2 makes the child's ends so
        err_r, err_w = os.pipe()
        null = os.open(os.devnull, os.O_RDONLY)
        try:
            self.pid = os.posix_spawnp("git", ["git", *args], dict(env), file_actions=[
                (os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, out_w, 1), (os.POSIX_SPAWN_DUP2, err_w, 2)],
                setsid=True)
        except BaseException:
            os.close(out_r)
            os.close(err_r)
            raise
        finally:
            for fd in (out_w, err_w, null):
                os.close(fd)
        self.fds = (out_r, err_r)

    def finish(self, timeout: float) -> tuple[int, str, str, bool]:
        """(exit code, stdout, stderr, timed out): waits `timeout` seconds at most, then
        kills git with its session; an exception meanwhile (the hook's alarm) kills it too."""
        import threading

        sinks: tuple[list[bytes], list[bytes]] = ([], [])
        readers = [threading.Thread(target=_drain, args=(fd, sink), daemon=True) for fd, sink in zip(self.fds, sinks)]
        status: list[int] = []
        waiter = threading.Thread(target=lambda: status.append(os.waitpid(self.pid, 0)[1]), daemon=True)
        for thread in (*readers, waiter):
            thread.start()
        try:
            waiter.join(timeout)
            timed_out = waiter.is_alive()
            if timed_out:
                self.kill()
                waiter.join()
        except BaseException:
            self.kill()
            raise
        for reader in readers:  # an ssh master that outlives git may hold a pipe open
            reader.join(timeout=2.0)
        code = os.waitstatus_to_exitcode(status[0]) if status else -9
        out, err = (b"".join(sink).decode("utf-8", "replace") for sink in sinks)
        return code, out, err, timed_out

    def kill(self) -> None:
        import signal

        try:
            os.killpg(self.pid, signal.SIGKILL)
        except OSError:
            pass  # gone already


def _drain(fd: int, sink: list[bytes]) -> None:
    try:
        while chunk := os.read(fd, 65536):
            sink.append(chunk)
    except OSError:
        pass
    finally:
        os.close(fd)


def available() -> bool:
    return hasattr(os, "posix_spawnp") and hasattr(os, "POSIX_SPAWN_DUP2")
