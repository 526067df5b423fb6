"""The one way enf-git starts work that outlives a hook: `enf-hook <job> <top>` detached.

A new session (no signal from the terminal reaches it), no inherited descriptors, no
stdin or output (the hook's own stdout is Claude Code's pipe), the same interpreter
as the caller, launched through paths.LAUNCH so a project file named like a standard
module cannot shadow it. The job's errors go where every hook's go (hook.py).
"""

from __future__ import annotations

import sys

from .. import paths


def start(job: str, top: str) -> None:
    """Run `enf-hook <job> <top>` in the background, from `top`."""
    import subprocess  # here: a start that spawns nothing never loads it (~2 ms)

    subprocess.Popen(
        [sys.executable, "-c", paths.LAUNCH, job, top],
        cwd=top, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True, close_fds=True,
    )
