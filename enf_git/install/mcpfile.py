"""`mcpServers.enf` in a client's JSON file (Cursor's mcp.json, Copilot CLI's
mcp-config.json): added, refused when the user wrote a server of that name, and
removed with nothing else; a file left empty goes too."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import EnfError
from . import claude, mcp
from .codex import Done


def install(path: Path, title: str, entry: dict[str, Any]) -> Done:
    data = claude.read_settings(path)
    servers = data.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise EnfError(f"{path}: \"mcpServers\" is not an object", hint="fix it by hand, then rerun")
    current = servers.get(mcp.SERVER)
    if current is not None and not mcp.is_ours(current):
        raise EnfError(f"{path} already defines an MCP server named {mcp.SERVER!r} that enf-git did not write; "
                       "left it untouched", hint=f"rename or remove that mcpServers.{mcp.SERVER} entry, then rerun")
    servers[mcp.SERVER] = entry
    done = Done(changed=claude.write_settings(path, data))
    verb = "registered" if done.changed else "already registered"
    done.lines.append(f"MCP server {mcp.SERVER!r} {verb} in {path} for {title}")
    return done


def uninstall(path: Path) -> Done:
    if not path.is_file():
        return Done()
    data = claude.read_settings(path)
    servers = data.get("mcpServers")
    if not isinstance(servers, dict) or not mcp.is_ours(servers.get(mcp.SERVER)):
        return Done()
    del servers[mcp.SERVER]
    if not servers:
        del data["mcpServers"]
    if data:
        claude.write_settings(path, data)
    else:
        path.unlink()
    return Done([f"removed the MCP server {mcp.SERVER!r} from {path}"], True)


def command_args(scope: str) -> dict[str, Any]:
    """Our server as `command` and `args` (the fields every one of these files reads)."""
    return {k: v for k, v in mcp.entry(scope).items() if k in ("command", "args")}


def prune(folder: Path, stop: Path) -> None:
    """Remove `folder` and its parents up to (not including) `stop` while they are empty:
    the folders install made for our files go with them, and nothing with anything in it."""
    while folder != stop and stop in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent
