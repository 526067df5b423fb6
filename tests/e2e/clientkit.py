"""What the end-to-end tests of the other clients share (test_codex_client.py,
test_gemini_client.py): finding the client's npm-installed binary, the session file a
scripted turn writes, and the earlier sessions a brain-first pointer is found among.
Each test file keeps its client's run, tools and reply reading."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from projects import BIN, child_env

KEY_IN_CONTEXT = re.compile(r"This session: id ([0-9a-f]{8})")
DECISION = ("- [10:05] Y: In the context of the job queue, facing bursty uploads, decided Redis Streams over "
            "RabbitMQ, to achieve one less service, accepting manual retention. Confidence: high")
OTHERS = ["Tuned the CI build cache", "Wrote the onboarding docs", "Fixed flaky browser tests",
          "Added rate limiting to the public API", "Moved logs to structured JSON"]


def today() -> str:
    return time.strftime("%Y-%m-%d")


def find_npm_cli(name: str, prefix_variable: str) -> str | None:
    """`name` on PATH, else under $PREFIX_VARIABLE/bin (an `npm install -g --prefix` folder)."""
    found = shutil.which(name)
    prefix = os.environ.get(prefix_variable)
    if found is None and prefix and os.access(Path(prefix) / "bin" / name, os.X_OK):
        found = str(Path(prefix) / "bin" / name)
    return found


def required(path: str | None, missing: str) -> str:
    """The client's binary; missing, a failure in CI (.ci/run installs it) and a skip elsewhere."""
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(missing)
        pytest.skip(missing)
    return path


def git_enf(project: Path, home: Path, *args: str, **env: str) -> str:
    """`git-enf ARGS` in `project` with a scratch HOME (and the client's own variables in `env`): its output."""
    return subprocess.run([str(BIN / "git-enf"), *args], cwd=project, env={**child_env(), "HOME": str(home), **env},
                          check=True, capture_output=True, text=True).stdout


def session_file(body: dict[str, Any], client: str, summary: str = "", extra: str = "") -> str:
    """This session's file as the model writes it, its key read from the context in `body`."""
    found = KEY_IN_CONTEXT.search(json.dumps(body))
    assert found, "SessionStart context did not carry the session key"
    return (f"---\nsession_id: {found.group(1)}\ndate: {today()}\nstart_time: \"10:00\"\ntags: [{client.lower()}]\n"
            f"status: {'completed' if summary else 'active'}\nsummary: \"{summary}\"\n---\n"
            f"## Intent\nWork under {client}.\n{extra}")


def seed_earlier_sessions(repo: Path) -> None:
    """An earlier session with the queue decision among five others: pointers rank against a
    corpus, and one session alone is all "common"."""
    earlier = (f"---\nsession_id: 0ldsess1\ndate: 2026-11-20\nstart_time: \"10:00\"\ntags: [queue]\n"
               f"status: completed\nsummary: \"Chose the job queue\"\n---\n## Intent\nPick a queue.\n\n"
               f"## Decisions\n{DECISION}\n")
    sessions = repo / ".claude-sessions" / "sessions"
    (sessions / "2026-11-20-job-queue.md").write_text(earlier)
    for i, summary in enumerate(OTHERS):
        (sessions / f"2026-11-0{i + 1}-other-{i}.md").write_text(
            f"---\nsession_id: 0ther{i:03d}\ndate: 2026-11-0{i + 1}\nstart_time: \"10:00\"\ntags: [misc]\n"
            f"status: completed\nsummary: \"{summary}\"\n---\n## Intent\nChores.\n")


def index_now(repo: Path, home: Path) -> None:
    """What SessionStart and Stop start in the background (the pointers' index), run here to its end."""
    from enf_git import paths

    subprocess.run([sys.executable, "-c", paths.LAUNCH, "background-index", str(repo)], cwd=repo,
                   env={**child_env(), "HOME": str(home)}, check=True)


def assert_pointer(sent: str) -> None:
    """A substantive prompt's request carries the pointer to the earlier decision."""
    assert "pointers, not instructions" in sent
    pointer = sent.split("pointers, not instructions", 1)[1]
    assert "(2026-11-20-job-queue)" in pointer and "decided Redis Streams over RabbitMQ" in pointer
