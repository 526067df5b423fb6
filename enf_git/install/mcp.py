"""Register `git enf mcp` in the project's `.mcp.json`; remove exactly that entry again.

Claude Code loads `.mcp.json` at the top of the work tree (`{"mcpServers": {NAME:
{"command": ..., "args": [...]}}}`). Our entry is the server named SERVER whose
command runs git-enf; every other server, and every other key of the file and of
our entry (an `env` the user added), stays as it was. A server of the same name that
is not ours is refused, never overwritten.

The command follows the hooks' rule (claude.py): `project` scope means the file is
shared with the team, so it calls `git-enf` from PATH; `local` and `user` call this
installation by absolute path (the console script beside this interpreter), which
only works on this machine, so a `.mcp.json` created for them is kept out of
`git status` (.git/info/exclude) like `.claude/settings.local.json`.

The record (`.git/enf/mcp-installed.json`) remembers, per file, whether init created
it and with which scope, so uninstall deletes only a file it made and is left empty.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import EnfError
from . import copied
from .claude import read_settings, save_record, write_settings

FILE = ".mcp.json"
SERVER = "enf"  # tools reach the model as mcp__enf__recall, ...
PROGRAM = "git-enf"
EXCLUDE = f"/{FILE}"
RECORD = "mcp-installed.json"
# Like paths.LAUNCH: `python -c` puts the project folder first on sys.path; drop it.
LAUNCH = "import sys; sys.path[:] = [p for p in sys.path if p]; from enf_git.entry import main; main()"


@dataclass(frozen=True)
class Registered:
    path: Path
    entry: dict[str, Any]
    changed: bool
    created: bool  # the file did not exist before
    exclude: str | None  # the .git/info/exclude line this needs (a machine-specific file init created)


def entry(scope: str) -> dict[str, Any]:
    """Our server entry: git-enf from PATH (project scope), else this installation by path."""
    if scope == "project":
        return {"type": "stdio", "command": PROGRAM, "args": ["mcp"]}
    script = Path(sys.executable).with_name(PROGRAM)
    if script.is_file() and os.access(script, os.X_OK):
        return {"type": "stdio", "command": str(script), "args": ["mcp"]}
    return {"type": "stdio", "command": sys.executable, "args": ["-c", LAUNCH, "mcp"]}


def is_ours(server: object) -> bool:
    if not isinstance(server, dict) or not isinstance(server.get("command"), str):
        return False
    args = server.get("args")
    args = args if isinstance(args, list) else []
    program = os.path.basename(server["command"].strip())
    return (program == PROGRAM and args[:1] == ["mcp"]) or any(isinstance(a, str) and "enf_git.entry" in a
                                                                for a in args)


def _servers(path: Path, data: dict[str, Any]) -> dict[str, Any]:
    servers = data.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise EnfError(f"{path}: \"mcpServers\" is not an object; left the file untouched",
                       hint=f"fix {path} by hand, then rerun the command")
    return servers


def install(scope: str, top: Path, record: Path | None = None) -> Registered:
    """Add (or update) our server in `top/.mcp.json`, keeping everything else."""
    path = top / FILE
    existed = path.exists()
    data = read_settings(path)
    servers = _servers(path, data)
    current = servers.get(SERVER)
    if current is not None and not is_ours(current):
        raise EnfError(f"{path} already has an MCP server named {SERVER!r} that is not enf-git's; left it untouched",
                       hint=f"rename or remove that server in {path}, then rerun git enf init --mcp")
    ours = entry(scope)
    servers[SERVER] = {**current, **ours} if isinstance(current, dict) else ours
    changed = write_settings(path, data)
    if record is not None:
        _remember(record, path, scope, created=not existed)
    exclude = EXCLUDE if scope != "project" and _recorded(record, path).get("created") else None
    return Registered(path, servers[SERVER], changed, not existed, exclude)


def uninstall(scope: str, top: Path, record: Path | None = None) -> list[str]:
    """Remove our server from `top/.mcp.json` (the file too, if init created it and
    nothing else is left), when `scope` is the one init registered it with (or
    nothing was recorded). Lines saying what was done."""
    path = top / FILE
    noted = _recorded(record, path)
    if noted.get("scope") not in (None, scope) or not path.is_file():
        return []
    try:
        data = read_settings(path)
    except EnfError as exc:
        return [f"kept {path}: {exc.message}"]
    servers = data.get("mcpServers")
    if not isinstance(servers, dict) or not is_ours(servers.get(SERVER)):
        return []
    del servers[SERVER]
    if not servers:
        del data["mcpServers"]
    _forget(record, path)
    if not data and noted.get("created", True):
        path.unlink()
        return [f"deleted {path} (enf-git created it; nothing else was in it)"]
    write_settings(path, data)
    return [f"removed the {SERVER} MCP server from {path}"]


def _load(record: Path | None, top: Path) -> dict[str, Any]:
    """The record, an original's paths (a `cp -a` copy of the repository) read as `top`'s."""
    if record is None:
        return {}
    try:
        data = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return copied.rebase(data, top, top, record.parent.parent) if isinstance(data, dict) else {}


def _recorded(record: Path | None, path: Path) -> dict[str, Any]:
    found = _load(record, path.parent).get(str(path))
    return found if isinstance(found, dict) else {}


def _remember(record: Path, path: Path, scope: str, created: bool) -> None:
    """The first init's `created` stands (a rerun finds the file it made); the scope is the latest."""
    data = _load(record, path.parent)
    before = data.get(str(path))
    before = before if isinstance(before, dict) else {}
    data[str(path)] = {"created": bool(before.get("created", created)), "scope": scope}
    save_record(record, data)


def _forget(record: Path | None, path: Path) -> None:
    if record is not None:
        data = _load(record, path.parent)
        if data.pop(str(path), None) is not None:
            save_record(record, data)
