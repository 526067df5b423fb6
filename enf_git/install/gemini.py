"""Register the hooks, the skill and the MCP server with Google's Gemini CLI (and Qwen
Code, its fork, which reads the same files under `.qwen/`); remove exactly what we added.
docs/gemini.md has the measured contract.

Where Gemini CLI reads them (0.61):
- hooks: `settings.json` `hooks`, Claude Code's shape with Gemini's event names and a
  `timeout` in milliseconds. Scope `user` writes `~/.gemini/settings.json`, calling this
  interpreter by absolute path; scope `project` writes `<repo>/.gemini/settings.json`,
  shared with the team, so it calls `enf-hook` from PATH (Gemini loads a project's
  settings only in a trusted folder, and warns once per new project hook). Hooks are on
  by default. PreCompress is registered for `manual` only: 0.61 fires it with `auto`
  before every model request, compression or not, and a commit per request would cost
  more than it saves (AfterAgent commits at the end of every turn anyway).
- the skill: `~/.gemini/skills/enf-git/SKILL.md` (user) or `.gemini/skills/` (project);
  Gemini lists its name and description and activates it on demand (measured: the
  request's `activate_skill` tool names it). GEMINI.md is left alone.
- MCP: `mcpServers.enf` (`command`, `args`) in the same settings.json; a server of that
  name the user wrote is refused, never overwritten.

Our entries are recognized as claude.py recognizes its own, so re-running is idempotent.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import EnfError
from . import claude, mcp
from .codex import Done

SCOPES = ("user", "project")


@dataclass(frozen=True)
class Client:
    """One settings.json client: its name, its folder, and its events as
    (client event, matcher or None, timeout ms, our event argument)."""

    name: str
    title: str
    folder: str
    events: tuple[tuple[str, str | None, int, str], ...]

    @property
    def flag(self) -> str:
        return f"--assistant={self.name}"


GEMINI = Client("gemini", "Gemini CLI", ".gemini", (
    ("SessionStart", None, 30000, "session-start"),
    ("BeforeAgent", None, 10000, "user-prompt-submit"),
    ("BeforeTool", "*", 10000, "pre-tool-use"),
    ("AfterTool", "*", 10000, "post-tool-use"),
    ("AfterAgent", None, 30000, "stop"),
    ("PreCompress", "manual", 30000, "pre-compact"),
    ("SessionEnd", None, 5000, "session-end"),
))
# Qwen Code (written from its hooks reference, not tested against the real client):
# Claude Code's event names, timeouts in milliseconds, the same settings.json and skills.
QWEN = Client("qwen", "Qwen Code", ".qwen", (
    ("SessionStart", None, 30000, "session-start"),
    ("UserPromptSubmit", None, 10000, "user-prompt-submit"),
    ("PreToolUse", "*", 10000, "pre-tool-use"),
    ("PostToolUse", "*", 10000, "post-tool-use"),
    ("PostToolUseFailure", "*", 10000, "post-tool-use-failure"),
    ("Stop", None, 30000, "stop"),
    ("PreCompact", None, 30000, "pre-compact"),
    ("SessionEnd", None, 5000, "session-end"),
))
CLIENTS = {c.name: c for c in (GEMINI, QWEN)}


def settings_path(client: Client, scope: str, top: Path, home: Path) -> Path:
    if scope not in SCOPES:
        raise EnfError(f"{client.title} has no {scope!r} scope",
                       hint=f"use --scope user (~/{client.folder}/) or --scope project ({client.folder}/)")
    return (home if scope == "user" else top) / client.folder / "settings.json"


def skill_path(client: Client, scope: str, top: Path, home: Path) -> Path:
    return settings_path(client, scope, top, home).parent / "skills" / claude.SKILL_NAME / "SKILL.md"


def merged(client: Client, data: dict[str, Any], program: str) -> dict[str, Any]:
    """`data` (a settings.json) with our hook entries (re)placed, everything else untouched."""
    out = claude.removed(data)
    hooks = out.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise EnfError("the settings file's \"hooks\" is not an object", hint="fix it by hand, then rerun git enf init")
    for event, matcher, timeout, arg in client.events:
        group: dict[str, Any] = {} if matcher is None else {"matcher": matcher}
        group["hooks"] = [{"type": "command", "name": f"enf-git-{arg}", "command": f"{program} {client.flag} {arg}",
                           "timeout": timeout}]
        hooks.setdefault(event, []).append(group)
    # Keys where they were (removed() drops a "hooks" it emptied): a rerun writes the same file.
    return {k: out[k] for k in [*data, *out] if k in out}


def install(client: Client, scope: str, top: Path, home: Path) -> Done:
    path = settings_path(client, scope, top, home)
    program = claude.hook_program(scope)
    done = Done()
    done.changed = claude.write_settings(path, merged(client, claude.read_settings(path), program))
    verb = "registered" if done.changed else "already registered"
    done.lines.append(f"{client.title} hooks {verb} in {path} (scope {scope}), calling: {program} {client.flag} EVENT")
    skill = skill_path(client, scope, top, home)
    if claude.copy_skill(skill.parent):
        done.changed = True
        done.lines.append(f"{client.title} skill written to {skill}")
    if scope == "project":
        done.lines.append(f"  project scope: {client.title} reads {client.folder}/settings.json only in a trusted "
                          "folder, and calls enf-hook from PATH")
    return done


def uninstall(client: Client, scope: str, top: Path, home: Path) -> Done:
    """Our hook entries, our MCP server and our skill, nothing else; a file left empty goes too."""
    path = settings_path(client, scope, top, home)
    done = Done()
    if path.is_file():
        before = claude.read_settings(path)
        after = _without_server(claude.removed(before))
        if after != before:
            if after:
                claude.write_settings(path, after)
            else:
                path.unlink()
            done.changed = True
            done.lines.append(f"removed enf-git's {client.title} hooks and MCP server from {path}")
    skill = skill_path(client, scope, top, home)
    removed, kept = claude.remove_skill_parts(skill.parent)
    if removed:
        _rmdir_if_empty(skill.parent)
        done.changed = True
        done.lines.append(f"removed the {client.title} skill {skill}")
    done.lines += [f"kept {part}: it differs from enf-git's skill (your edits?); delete it by hand" for part in kept]
    if client.name != "gemini":  # Gemini's folder predates this: its uninstall stays as measured
        from .mcpfile import prune

        prune(skill.parent.parent, path.parent.parent)
    return done


def registered(client: Client, scope: str, top: Path, home: Path) -> list[str]:
    """The commands of our hook entries in the scope's settings.json (none: not registered)."""
    try:
        data = json.loads(settings_path(client, scope, top, home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    hooks = data.get("hooks") if isinstance(data, dict) else None
    found = []
    for groups in hooks.values() if isinstance(hooks, dict) else ():
        for group in groups if isinstance(groups, list) else ():
            for entry in group.get("hooks", []) if isinstance(group, dict) else ():
                if claude.is_ours(entry):
                    found.append(str(entry["command"]))
    return found


def install_mcp(client: Client, scope: str, top: Path, home: Path) -> Done:
    """`mcpServers.enf` in the scope's settings.json (Gemini's shape: command and args)."""
    path = settings_path(client, scope, top, home)
    data = claude.read_settings(path)
    servers = data.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise EnfError(f"{path}: \"mcpServers\" is not an object", hint="fix it by hand, then rerun")
    current = servers.get(mcp.SERVER)
    if current is not None and not mcp.is_ours(current):
        raise EnfError(f"{path} already defines an MCP server named {mcp.SERVER!r} that enf-git did not write; "
                       "left it untouched", hint=f"rename or remove that mcpServers.{mcp.SERVER} entry, then rerun")
    entry = {k: v for k, v in mcp.entry(scope).items() if k in ("command", "args")}
    servers[mcp.SERVER] = entry
    done = Done(changed=claude.write_settings(path, data))
    verb = "registered" if done.changed else "already registered"
    done.lines.append(f"MCP server {mcp.SERVER!r} {verb} in {path} for {client.title}")
    return done


def _without_server(data: dict[str, Any]) -> dict[str, Any]:
    servers = data.get("mcpServers")
    if isinstance(servers, dict) and mcp.is_ours(servers.get(mcp.SERVER)):
        del servers[mcp.SERVER]
        if not servers:
            del data["mcpServers"]
    return data


def _rmdir_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:
        pass
