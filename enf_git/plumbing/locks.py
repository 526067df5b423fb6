"""The one file lock: an advisory flock with a bounded wait.

Writers of the branch queue on `.git/enf/write.lock`, commits and materializations of
one worktree on its `manifest.lock`, event-log flushes on the spool's lock. Stdlib
only, imported lazily by callers that need it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def file_lock(path: Path, wait: float) -> Iterator[bool]:
    """An exclusive flock on `path`, waiting at most `wait` seconds; yields whether it
    was taken (False: the holder seems stuck, go on without it or skip the work).

    Not re-entrant: flock locks belong to the open file, so taking it again in the
    same process waits for itself. Without fcntl (Windows) it yields True at once.
    """
    try:
        import fcntl
    except ImportError:
        yield True
        return
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                taken = True
                break
            except OSError:
                if time.monotonic() > deadline:
                    taken = False
                    break
                time.sleep(0.002)
        yield taken
    finally:
        os.close(fd)  # closing releases the flock
