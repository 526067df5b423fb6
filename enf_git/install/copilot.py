"""Register the hooks and the MCP server with GitHub Copilot CLI; remove exactly what
we added. Written from Copilot CLI's hooks reference and its configuration-directory
reference, not tested against the real client (docs/assistants.md).

- hooks: a file of our own, `enf-git.json`, `{"version": 1, "hooks": {Event: [{"type":
  "command", "bash", "timeoutSec"}]}}`. Events are named in PascalCase so that Copilot
  sends its Claude-compatible (snake_case) payloads. Scope `project` writes
  `<repo>/.github/hooks/enf-git.json`, shared with the team, calling `enf-hook` from
  PATH; scope `user` writes `$COPILOT_HOME/hooks/enf-git.json` (`~/.copilot/hooks/`),
  calling this interpreter by absolute path. The file is ours alone: uninstall deletes
  it when every entry in it is ours, and otherwise removes only our entries.
- MCP: `mcpServers.enf` in `$COPILOT_HOME/mcp-config.json` (user) or the repository's
  `.github/mcp.json` (project).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..errors import EnfError
from . import claude, hookfile, mcpfile
from .hookfile import Done

SCOPES = ("user", "project")
FLAG = "--assistant=copilot"
TITLE = "Copilot CLI"
FILE = "enf-git.json"
# (Copilot event in PascalCase, timeout seconds, our event argument)
EVENTS = (
    ("SessionStart", 30, "session-start"),
    ("UserPromptSubmit", 10, "user-prompt-submit"),
    ("PreToolUse", 10, "pre-tool-use"),
    ("PostToolUse", 10, "post-tool-use"),
    ("PostToolUseFailure", 10, "post-tool-use-failure"),
    ("PreCompact", 30, "pre-compact"),
    ("Stop", 30, "stop"),
    ("SessionEnd", 5, "session-end"),
)


def copilot_home(env: "dict[str, str] | os._Environ[str]", home: Path) -> Path:
    """`$COPILOT_HOME`, else `~/.copilot`, as Copilot CLI resolves it."""
    return hookfile.client_home(env, "COPILOT_HOME", home, ".copilot")


def hooks_path(scope: str, top: Path, copilot: Path) -> Path:
    if scope not in SCOPES:
        raise EnfError(f"Copilot CLI has no {scope!r} scope",
                       hint="use --scope user ($COPILOT_HOME/hooks/) or --scope project (.github/hooks/)")
    return (copilot / "hooks" if scope == "user" else top / ".github" / "hooks") / FILE


def mcp_path(scope: str, top: Path, copilot: Path) -> Path:
    return copilot / "mcp-config.json" if scope == "user" else top / ".github" / "mcp.json"


def content(program: str) -> dict[str, Any]:
    return {"version": 1, "hooks": {event: [{"type": "command", "bash": f"{program} {FLAG} {arg}",
                                             "timeoutSec": timeout}] for event, timeout, arg in EVENTS}}


def _ours(entry: object) -> bool:
    return isinstance(entry, dict) and claude.is_ours({"command": entry.get("bash")})


def _without_ours(data: dict[str, Any]) -> dict[str, Any]:
    return hookfile.flat_removed(data, _ours, keep_empty=False)


def registered(scope: str, top: Path, copilot: Path) -> list[str]:
    return hookfile.registered_flat(hooks_path(scope, top, copilot), "bash", _ours)


def install(scope: str, top: Path, copilot: Path) -> Done:
    path = hooks_path(scope, top, copilot)
    program = claude.hook_program(scope)
    data = _without_ours(claude.read_settings(path))  # a user's own entries in our file stay
    new = content(program)
    for event, entries in (data.get("hooks") or {}).items():
        new["hooks"].setdefault(event, [])[:0] = entries if isinstance(entries, list) else []
    done = hookfile.write_hooks(path, {**data, **new}, TITLE, scope, f"{program} {FLAG}")
    done.lines.append("  (from Copilot CLI's documented contract, not tested against the real client)")
    return done


def uninstall(scope: str, top: Path, copilot: Path) -> Done:
    path = hooks_path(scope, top, copilot)
    done = hookfile.take_out(path, _without_ours, hookfile.only_version_left,
                             f"removed enf-git's Copilot CLI hooks from {path}")
    done.add(mcpfile.uninstall(mcp_path(scope, top, copilot)))
    if scope == "project":
        mcpfile.prune(path.parent, top)  # .github/hooks/, and .github/ if nothing else is there
    return done


def install_mcp(scope: str, top: Path, copilot: Path) -> Done:
    entry = {"type": "local", **mcpfile.command_args(scope), "tools": ["*"]}
    return mcpfile.install(mcp_path(scope, top, copilot), TITLE, entry)
