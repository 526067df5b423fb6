"""`git enf mcp`: serve memory to an MCP client (Claude Code) over stdio."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import click

from .base import CONTEXT

SESSION_ENV = "CLAUDE_CODE_SESSION_ID"  # Claude Code sets it for the MCP servers it starts


@click.command(name="mcp", context_settings=CONTEXT)
def mcp_command() -> None:
    """Serve memory over MCP on stdin/stdout: recall, show, log, decisions, remember, forget.

    Claude Code starts it (git enf init --mcp registers it in .mcp.json). It needs the
    MCP Python SDK: pip install 'enf-git[mcp]'.
    """
    from ..mcp import server, tools
    from ..memory.record import fact_stores

    server.load_sdk()  # a missing SDK is an error here, before the client waits on a silent pipe
    if sys.stdin.isatty():  # a person, not a client: say what this is, since it answers nothing typed
        click.echo("git enf mcp serves MCP (JSON-RPC) on stdin and stdout for Claude Code; register it with "
                   "git enf init --mcp. Ctrl-D ends it.", err=True)
    where = tools.Where(Path.cwd(), fact_stores.user_dir(os.environ), os.environ.get(SESSION_ENV, "").strip(),
                        time.time)
    try:
        server.serve(where)
    except KeyboardInterrupt:
        sys.exit(130)  # Ctrl-C in a terminal: no traceback


COMMANDS = (mcp_command,)
