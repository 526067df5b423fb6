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
from . import claude, mcpfile
from .codex import Done

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
    given = env.get("COPILOT_HOME")
    return Path(given) if given else home / ".copilot"


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
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return data
    kept = {e: [x for x in v if not _ours(x)] if isinstance(v, list) else v for e, v in hooks.items()}
    return {**data, "hooks": {e: v for e, v in kept.items() if v != []}}


def registered(scope: str, top: Path, copilot: Path) -> list[str]:
    try:
        data = claude.read_settings(hooks_path(scope, top, copilot))
    except EnfError:
        return []
    hooks = data.get("hooks")
    return [str(e["bash"]) for entries in (hooks.values() if isinstance(hooks, dict) else ())
            for e in (entries if isinstance(entries, list) else ()) if _ours(e)]


def install(scope: str, top: Path, copilot: Path) -> Done:
    path = hooks_path(scope, top, copilot)
    program = claude.hook_program(scope)
    data = _without_ours(claude.read_settings(path))  # a user's own entries in our file stay
    new = content(program)
    for event, entries in (data.get("hooks") or {}).items():
        new["hooks"].setdefault(event, [])[:0] = entries if isinstance(entries, list) else []
    done = Done(changed=claude.write_settings(path, {**data, **new}))
    verb = "registered" if done.changed else "already registered"
    done.lines.append(f"Copilot CLI hooks {verb} in {path} (scope {scope}), calling: {program} {FLAG} EVENT")
    done.lines.append("  (from Copilot CLI's documented contract, not tested against the real client)")
    return done


def uninstall(scope: str, top: Path, copilot: Path) -> Done:
    path = hooks_path(scope, top, copilot)
    done = Done()
    if path.is_file():
        before = claude.read_settings(path)
        after = _without_ours(before)
        if after != before:
            if after.get("hooks") or set(after) - {"version", "hooks"}:
                claude.write_settings(path, after)
            else:
                path.unlink()
            done.changed = True
            done.lines.append(f"removed enf-git's Copilot CLI hooks from {path}")
    mcp_done = mcpfile.uninstall(mcp_path(scope, top, copilot))
    done.lines += mcp_done.lines
    done.changed = done.changed or mcp_done.changed
    if scope == "project":
        mcpfile.prune(path.parent, top)  # .github/hooks/, and .github/ if nothing else is there
    return done


def install_mcp(scope: str, top: Path, copilot: Path) -> Done:
    entry = {"type": "local", **mcpfile.command_args(scope), "tools": ["*"]}
    return mcpfile.install(mcp_path(scope, top, copilot), TITLE, entry)
