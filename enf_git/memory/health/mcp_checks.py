"""Doctor's check of the MCP server `git enf init --mcp` registered in `.mcp.json`.

Claude Code starts the command it names at every session and, when it cannot, only
lists the server as failed. So doctor does what starting it needs, without starting
it: the command exists (by path, or on PATH), and its interpreter can import the MCP
SDK, the optional extra (a cheap `find_spec`, not the SDK's ~1 s import).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

from ...errors import EnfError
from ...install import claude, mcp
from .problem import Problem
from .install_checks import PROBE_TIMEOUT, shebang_interpreter
from ..workspace import Context

# Exit 3: the SDK is missing; anything else than 0 or 3: the interpreter itself is broken.
SDK_PROBE = "import importlib.util, sys; sys.exit(0 if importlib.util.find_spec('mcp') else 3)"


def mcp_server(ctx: Context, home: Path) -> list[Problem]:
    path = ctx.top / mcp.FILE
    if not path.is_file():
        return []
    try:
        data = claude.read_settings(path)
    except EnfError as exc:
        return [Problem("warning", f"{exc.message.removesuffix('; left it untouched')}: Claude Code cannot read "
                        "the MCP servers in it", f"fix {path} by hand")]
    servers = data.get("mcpServers")
    server = servers.get(mcp.SERVER) if isinstance(servers, dict) else None
    if not mcp.is_ours(server):
        return []
    assert isinstance(server, dict)  # is_ours
    where = f"the MCP server {mcp.SERVER!r} in {path}"
    command = _locate(str(server["command"]), ctx.top)
    if command is None:
        return [Problem("error", f"{where} calls {server['command']}, which does not exist here (the virtualenv "
                        "was moved or deleted, or git-enf is not on PATH): Claude Code cannot start it",
                        "git enf init --mcp (registers the git-enf running this doctor)")]
    interpreter = shebang_interpreter(Path(command)) if os.path.basename(command) == mcp.PROGRAM else command
    found = _locate(interpreter, ctx.top) if interpreter else None
    if found is None:
        return [Problem("error", f"{where} calls {command}, whose interpreter {interpreter or '(unreadable)'} "
                        "does not exist: Claude Code cannot start it",
                        "reinstall enf-git (pipx reinstall enf-git), then git enf init --mcp")]
    return _probe(where, found, ctx.top)


def sdk_missing(command: str, top: Path) -> str | None:
    """The interpreter that `command` (a registered server's) runs, when it lacks the MCP
    SDK; None when it has it, or when it cannot be told here (doctor says why). The
    interpreter running this, as in local scope, is asked in-process."""
    import sys
    from importlib.util import find_spec

    found = _locate(command, top)
    interpreter = shebang_interpreter(Path(found)) if found and os.path.basename(found) == mcp.PROGRAM else found
    located = _locate(interpreter, top) if interpreter else None
    if located is None:
        return None
    # Same folder, same environment (a venv's python and python3); not realpath: every venv's
    # python links to the one base interpreter, with site-packages of its own.
    if os.path.dirname(os.path.abspath(located)) == os.path.dirname(os.path.abspath(sys.executable)):
        return None if find_spec("mcp") is not None else located
    try:
        proc = subprocess.run([located, "-c", SDK_PROBE], cwd=top, stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=PROBE_TIMEOUT, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    except (OSError, subprocess.TimeoutExpired):
        return None
    return located if proc.returncode == 3 else None


def install_command(interpreter: str) -> str:
    """How to add the MCP extra to that interpreter's environment."""
    return f"{interpreter} -m pip install 'enf-git[mcp]' (installed with pipx: pipx inject enf-git mcp)"


def _locate(program: str, top: Path) -> str | None:
    from shutil import which

    if os.sep in program:
        candidate = Path(program) if os.path.isabs(program) else top / program
        return str(candidate) if candidate.is_file() else None
    return which(program)


def _probe(where: str, interpreter: str, top: Path) -> list[Problem]:
    try:
        proc = subprocess.run([interpreter, "-c", SDK_PROBE], cwd=top, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=PROBE_TIMEOUT,
                              env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    except (OSError, subprocess.TimeoutExpired) as exc:
        return [Problem("error", f"{where} runs {interpreter}, which cannot start ({exc})",
                        "reinstall enf-git, then git enf init --mcp")]
    if proc.returncode == 3:
        return [Problem("error", f"{where} runs {interpreter}, which lacks the MCP SDK: the server exits at once",
                        install_command(interpreter))]
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return [Problem("error", f"{where} runs {interpreter}, which fails ({last})",
                        "reinstall enf-git, then git enf init --mcp")]
    return []


CHECKS: tuple[tuple[str, Callable[[Context, Path], list[Problem]]], ...] = (("mcp server", mcp_server),)
