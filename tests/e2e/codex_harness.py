"""Run the real Codex CLI (`codex exec`) headless and offline against codex_standin.py.

See docs/codex.md, "Running the real client offline". The hooks are the ones
`git enf init --assistant codex` registers in a scratch `$CODEX_HOME`; `codex exec`
runs them with `--dangerously-bypass-hook-trust` (Codex runs no untrusted hook, and
trusting one is an interactive step).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_KEEP_ENV = ("PATH", "LANG", "LC_ALL", "TMPDIR", "TZ")
DEFAULT_TIMEOUT = 120.0
MODEL = "gpt-5.5"  # a model Codex has metadata for: it offers apply_patch as a tool


def find_codex() -> str | None:
    """`codex` on PATH (npm `@openai/codex`), else under $CODEX_NPM_PREFIX/bin."""
    found = shutil.which("codex")
    prefix = os.environ.get("CODEX_NPM_PREFIX")
    if found is None and prefix and os.access(Path(prefix) / "bin" / "codex", os.X_OK):
        found = str(Path(prefix) / "bin" / "codex")
    return found


def codex_env(home: Path, codex_home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """A scrubbed environment: a scratch HOME and CODEX_HOME, no OPENAI_* but the stand-in's key."""
    env = {k: v for k, v in os.environ.items() if k in _KEEP_ENV}
    env.update(HOME=str(home), CODEX_HOME=str(codex_home), OPENAI_API_KEY="sk-standin")
    env.update(extra or {})
    return env


@dataclass
class CodexRun:
    args: list[str]
    returncode: int
    events: list[dict[str, Any]]
    stdout: str
    stderr: str
    duration: float

    @property
    def thread_id(self) -> str | None:
        return next((str(e["thread_id"]) for e in self.events if e.get("type") == "thread.started"), None)

    def describe(self) -> str:
        return (f"$ {' '.join(self.args)}\nreturncode={self.returncode} ({self.duration:.1f}s)\n"
                f"--- stdout ---\n{self.stdout[-4000:]}\n--- stderr ---\n{self.stderr[-4000:]}")


def run_codex(prompt: str, cwd: Path, home: Path, codex_home: Path, base_url: str, *, codex: str,
              extra_env: dict[str, str] | None = None, timeout: float = DEFAULT_TIMEOUT) -> CodexRun:
    """`codex exec --json PROMPT` with the stand-in as its model provider."""
    provider = {"name": "standin", "base_url": base_url, "wire_api": "responses", "env_key": "OPENAI_API_KEY"}
    args = [codex, "exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-hook-trust",
            "--dangerously-bypass-approvals-and-sandbox", "-m", MODEL, "-c", "model_provider=standin"]
    for key, value in provider.items():
        args += ["-c", f"model_providers.standin.{key}={json.dumps(value)}"]
    args.append(prompt)
    home.mkdir(parents=True, exist_ok=True)
    codex_home.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    proc = subprocess.Popen(args, cwd=str(cwd), env=codex_env(home, codex_home, extra_env), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        raise subprocess.TimeoutExpired(exc.cmd, timeout, output=stdout, stderr=stderr) from None
    events = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    return CodexRun(args, proc.returncode, events, stdout, stderr, time.monotonic() - start)
