"""Run the real Claude Code client headless (``-p``) and offline against a stand-in API.

See docs/claude-code.md, "Running the real client offline".
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Env vars kept from the parent: enough to run processes and find interpreters, nothing that
# could point the client at a real account, config or proxy.
_KEEP_ENV = ("PATH", "LANG", "LC_ALL", "TMPDIR", "TZ")

DEFAULT_TIMEOUT = 120.0


def find_claude() -> str | None:
    """The Claude Code binary: the one bundled in the ``claude-agent-sdk`` wheel, else
    ``claude`` on PATH (e.g. npm ``@anthropic-ai/claude-code``)."""
    # find_spec locates the package without importing it (the import costs ~1 s: pydantic, mcp).
    try:
        spec = importlib.util.find_spec("claude_agent_sdk")
    except (ImportError, ValueError):
        spec = None
    for location in (spec.submodule_search_locations or []) if spec else []:
        bundled = Path(location) / "_bundled" / "claude"
        if bundled.is_file() and os.access(bundled, os.X_OK):
            return str(bundled)
    return shutil.which("claude")


def claude_env(
    home: Path | str, base_url: str, extra: dict[str, str] | None = None
) -> dict[str, str]:
    """A scrubbed environment: HOME is a scratch dir, the API is the stand-in.

    Nothing named CLAUDE_* / ANTHROPIC_* is inherited: the test itself may be running inside
    Claude Code, whose variables (session id, entrypoint, ...) would leak into the child.
    """
    env = {k: v for k, v in os.environ.items() if k in _KEEP_ENV}
    env.update(
        HOME=str(home),
        ANTHROPIC_BASE_URL=base_url,
        ANTHROPIC_API_KEY="sk-ant-standin",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_TELEMETRY="1",
        DISABLE_AUTOUPDATER="1",
        DISABLE_ERROR_REPORTING="1",
        # Fail fast: with the default retries an unreachable or broken stand-in makes the
        # client back off for minutes instead of exiting with "API Error".
        CLAUDE_CODE_MAX_RETRIES="0",
    )
    if extra:
        env.update(extra)
    return env


@dataclass
class ClaudeRun:
    """The outcome of one ``claude -p`` run."""

    args: list[str]
    returncode: int
    events: list[dict[str, Any]]  # parsed stream-json lines
    stdout: str
    stderr: str
    duration: float

    @property
    def session_id(self) -> str | None:
        """From the ``{"type":"system","subtype":"init"}`` line (else any line carrying one)."""
        for event in self.events:
            if event.get("type") == "system" and event.get("subtype") == "init":
                return str(event["session_id"])
        for event in self.events:
            if event.get("session_id"):
                return str(event["session_id"])
        return None

    @property
    def result(self) -> dict[str, Any] | None:
        """The final ``{"type":"result"}`` line."""
        return next((e for e in reversed(self.events) if e.get("type") == "result"), None)

    def describe(self) -> str:
        """Everything useful for an assertion message."""
        return (
            f"$ {' '.join(self.args)}\nreturncode={self.returncode} ({self.duration:.1f}s)\n"
            f"--- stdout ---\n{self.stdout[-4000:]}\n--- stderr ---\n{self.stderr[-4000:]}"
        )


def run_claude(
    prompt: str,
    cwd: Path | str,
    home: Path | str,
    base_url: str,
    *,
    settings: Path | str | dict[str, Any] | None = None,
    plugin_dir: Path | str | None = None,
    resume: str | None = None,
    allowed_tools: str | None = "Bash,Write,Read,Edit",
    extra_args: list[str] | None = None,
    extra_env: dict[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    claude: str | None = None,
) -> ClaudeRun:
    """Run ``claude -p PROMPT --output-format stream-json --verbose`` and parse its output.

    ``settings`` may be a path or a dict (passed inline: ``--settings`` accepts JSON text).
    Raises ``subprocess.TimeoutExpired`` if the client hangs; it is killed first.
    """
    binary = claude or find_claude()
    if binary is None:
        raise FileNotFoundError("Claude Code client not found (pip install claude-agent-sdk)")
    args: list[str] = [binary, "-p", prompt, "--output-format", "stream-json", "--verbose"]
    if allowed_tools:
        args += ["--allowedTools", allowed_tools]
    if settings is not None:
        # --settings takes a path or inline JSON text.
        args += [
            "--settings",
            json.dumps(settings) if isinstance(settings, dict) else str(settings),
        ]
    if plugin_dir is not None:
        args += ["--plugin-dir", str(plugin_dir)]
    if resume is not None:
        args += ["--resume", resume]
    args += extra_args or []
    Path(home).mkdir(parents=True, exist_ok=True)

    start = time.monotonic()
    # Own session/process group, so a timeout also kills hook processes the client spawned.
    proc = subprocess.Popen(
        args,
        cwd=str(cwd),
        env=claude_env(home, base_url, extra_env),
        stdin=subprocess.DEVNULL,  # -p must never wait for a terminal
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    stdout, stderr = communicate(proc, timeout)
    duration = time.monotonic() - start
    return ClaudeRun(
        args=args,
        returncode=proc.returncode,
        events=parse_stream_json(stdout),
        stdout=stdout,
        stderr=stderr,
        duration=duration,
    )


def communicate(proc: subprocess.Popen[str], timeout: float) -> tuple[str, str]:
    """A client's stdout and stderr. Past `timeout`, its process group is killed (the hook
    processes it spawned too: it runs in a session of its own) and TimeoutExpired raised
    with what it wrote."""
    try:
        return proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        raise subprocess.TimeoutExpired(exc.cmd, timeout, output=stdout, stderr=stderr) from None


def parse_stream_json(stdout: str) -> list[dict[str, Any]]:
    """One JSON object per line; non-JSON lines are skipped (they end up in ``stdout``)."""
    events: list[dict[str, Any]] = []
    for line in stdout.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            events.append(obj)
    return events


def read_jsonl(path: Path | str) -> list[dict[str, Any]]:
    """Read a JSONL log (e.g. a probe hook's), skipping torn lines."""
    p = Path(path)
    if not p.exists():
        return []
    return parse_stream_json(p.read_text())
