"""What the adapters' hook benchmarks share (adapter_hooks.py, codex_hooks.py): the
repository hooks_latency.py builds, in a scratch folder with a scratch HOME, and a
session file that opens the gate for one client's session key."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import hooks_latency as hl  # the bench folder is on sys.path: the scripts put it there


@contextmanager
def fixture_repo(python: str, sessions: int, prefix: str) -> Iterator[tuple[Path, dict[str, str]]]:
    """(the repository with `sessions` sessions, the environment to run hooks in); removed after."""
    tmp = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "CLAUDE", "ANTHROPIC", "CODEX"))}
        env.update(HOME=str(tmp / "home"), GIT_AUTHOR_NAME="Bench", GIT_AUTHOR_EMAIL="bench@example.com",
                   GIT_COMMITTER_NAME="Bench", GIT_COMMITTER_EMAIL="bench@example.com", GIT_CONFIG_NOSYSTEM="1")
        top = tmp / "repo"
        subprocess.run(["git", "init", "-q", str(top)], check=True, env=env)
        subprocess.run([python, "-c", hl.FIXTURE, str(top), str(sessions), hl.SID], check=True, env=env)
        yield top, env
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def own_session(top: Path, slug: str, key: str) -> Path:
    """Today's session file for the session keyed `key`: the gate lets its calls through."""
    today = time.strftime("%Y-%m-%d")
    own = top / ".claude-sessions" / "sessions" / f"{today}-{slug}.md"
    own.write_text(f"---\nsession_id: {key}\ndate: {today}\nstatus: active\n---\n## Intent\nx\n")
    return own
