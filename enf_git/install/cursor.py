"""Register the hooks and the MCP server with Cursor; remove exactly what we added.
Written from Cursor's hooks documentation, not tested against the real client
(docs/assistants.md).

- hooks: `hooks.json` version 1, `{"version": 1, "hooks": {event: [{"command",
  "timeout"}]}}`, camelCase events, timeouts in seconds. Scope `user` writes
  `~/.cursor/hooks.json`, calling this interpreter by absolute path; scope `project`
  writes `<repo>/.cursor/hooks.json`, shared with the team, calling `enf-hook` from PATH.
- MCP: `mcpServers.enf` in `~/.cursor/mcp.json` or `<repo>/.cursor/mcp.json`.
- Cursor can also run Claude Code's hooks (`.claude/settings*.json`, `~/.claude/`)
  when its third-party hooks setting is on: with both registered, every event would
  run twice, so install says so when it finds Claude Code's registered.

Our entries are those whose command runs `enf-hook` or `enf_git.hook` (claude.is_ours).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import EnfError
from . import claude, hookfile, mcpfile
from .hookfile import Done

SCOPES = ("user", "project")
FLAG = "--assistant=cursor"
TITLE = "Cursor"
# (Cursor event, timeout seconds, our event argument)
EVENTS = (
    ("sessionStart", 30, "session-start"),
    ("beforeSubmitPrompt", 10, "user-prompt-submit"),
    ("beforeShellExecution", 10, "pre-tool-use"),
    ("beforeMCPExecution", 10, "pre-tool-use"),
    ("beforeReadFile", 10, "pre-tool-use"),
    ("afterShellExecution", 10, "post-tool-use"),
    ("afterFileEdit", 10, "post-tool-use"),
    ("afterMCPExecution", 10, "post-tool-use"),
    ("preCompact", 30, "pre-compact"),
    ("stop", 30, "stop"),
    ("sessionEnd", 5, "session-end"),
)


def folder(scope: str, top: Path, home: Path) -> Path:
    if scope not in SCOPES:
        raise EnfError(f"Cursor has no {scope!r} scope", hint="use --scope user (~/.cursor/) or --scope project")
    return (home if scope == "user" else top) / ".cursor"


def merged(data: dict[str, Any], program: str) -> dict[str, Any]:
    out = removed(data)
    out.setdefault("version", 1)
    hooks = out.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise EnfError("hooks.json's \"hooks\" is not an object", hint="fix it by hand, then rerun git enf init")
    for event, timeout, arg in EVENTS:
        entries = hooks.setdefault(event, [])
        if not isinstance(entries, list):
            raise EnfError(f"hooks.json's \"{event}\" is not a list", hint="fix it by hand, then rerun git enf init")
        entries.append({"command": f"{program} {FLAG} {arg}", "timeout": timeout})
    return out


def removed(data: dict[str, Any]) -> dict[str, Any]:
    """`data` without our entries, and without the events we emptied (one the user left empty stays)."""
    return hookfile.flat_removed(data, claude.is_ours, keep_empty=True)


def registered(scope: str, top: Path, home: Path) -> list[str]:
    return hookfile.registered_flat(folder(scope, top, home) / "hooks.json", "command", claude.is_ours)


def install(scope: str, top: Path, home: Path) -> Done:
    path = folder(scope, top, home) / "hooks.json"
    program = claude.hook_program(scope)
    done = hookfile.write_hooks(path, merged(claude.read_settings(path), program), TITLE, scope, f"{program} {FLAG}")
    done.lines.append("  (from Cursor's documented contract, not tested against the real client)")
    return done


def uninstall(scope: str, top: Path, home: Path) -> Done:
    path = folder(scope, top, home) / "hooks.json"
    done = hookfile.take_out(path, removed, hookfile.only_version_left, f"removed enf-git's Cursor hooks from {path}")
    done.add(mcpfile.uninstall(folder(scope, top, home) / "mcp.json"))
    mcpfile.prune(folder(scope, top, home), home if scope == "user" else top)
    return done


def install_mcp(scope: str, top: Path, home: Path) -> Done:
    return mcpfile.install(folder(scope, top, home) / "mcp.json", TITLE, mcpfile.command_args(scope))
