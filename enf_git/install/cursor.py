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
from . import claude, mcpfile
from .codex import Done

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
    """`data` without our entries, and without events or a `hooks` we left empty."""
    out: dict[str, Any] = {**data}
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    kept: dict[str, Any] = {}
    for event, entries in hooks.items():
        if not isinstance(entries, list):
            kept[event] = entries
            continue
        left = [e for e in entries if not claude.is_ours(e)]
        if left or not entries:
            kept[event] = left
    out["hooks"] = kept
    return out


def registered(scope: str, top: Path, home: Path) -> list[str]:
    try:
        data = claude.read_settings(folder(scope, top, home) / "hooks.json")
    except EnfError:
        return []
    hooks = data.get("hooks")
    return [str(e["command"]) for entries in (hooks.values() if isinstance(hooks, dict) else ())
            for e in (entries if isinstance(entries, list) else ()) if claude.is_ours(e)]


def install(scope: str, top: Path, home: Path) -> Done:
    path = folder(scope, top, home) / "hooks.json"
    program = claude.hook_program(scope)
    done = Done(changed=claude.write_settings(path, merged(claude.read_settings(path), program)))
    verb = "registered" if done.changed else "already registered"
    done.lines.append(f"Cursor hooks {verb} in {path} (scope {scope}), calling: {program} {FLAG} EVENT")
    done.lines.append("  (from Cursor's documented contract, not tested against the real client)")
    return done


def uninstall(scope: str, top: Path, home: Path) -> Done:
    path = folder(scope, top, home) / "hooks.json"
    done = Done()
    if path.is_file():
        before = claude.read_settings(path)
        after = removed(before)
        if after != before:
            if after.get("hooks") or set(after) - {"version", "hooks"}:
                claude.write_settings(path, after)
            else:
                path.unlink()  # only what we wrote was in it
            done.changed = True
            done.lines.append(f"removed enf-git's Cursor hooks from {path}")
    mcp_done = mcpfile.uninstall(folder(scope, top, home) / "mcp.json")
    done.lines += mcp_done.lines
    done.changed = done.changed or mcp_done.changed
    mcpfile.prune(folder(scope, top, home), home if scope == "user" else top)
    return done


def install_mcp(scope: str, top: Path, home: Path) -> Done:
    return mcpfile.install(folder(scope, top, home) / "mcp.json", TITLE, mcpfile.command_args(scope))
