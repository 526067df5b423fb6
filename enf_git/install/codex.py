"""Register the hooks, the skill and the MCP server with OpenAI's Codex CLI; remove
exactly what we added (docs/codex.md has the measured contract).

Where Codex reads them (0.171):
- hooks: `hooks.json` beside each config layer, Claude Code's shape. Scope `user`
  writes `$CODEX_HOME/hooks.json` (`~/.codex/`), calling this interpreter by absolute
  path; scope `project` writes `<repo>/.codex/hooks.json`, shared with the team, so it
  calls `enf-hook` from PATH, and Codex loads it only in a project the user trusts.
  Both call `enf-hook --assistant=codex EVENT`. Codex runs a hook only once its user
  has trusted it (`/hooks` in the interactive client stores a hash of the entry in
  config.toml); we do not write that trust ourselves: it is the user's review, and the
  hash is Codex's to compute. An unchanged entry keeps its trust across re-installs.
- the skill: `$CODEX_HOME/skills/enf-git/SKILL.md` (user) or `.agents/skills/enf-git/`
  (project); Codex lists a skill's name and description and reads it on demand, as
  Claude Code does. AGENTS.md, which Codex also reads, is left alone.
- MCP: `[mcp_servers.enf]` in `$CODEX_HOME/config.toml` (or the trusted project's
  `.codex/config.toml`, calling git-enf from PATH), written between two marker
  comments so that uninstall takes out those lines and nothing else; a server of that
  name the user wrote is refused, never overwritten. No TOML library: Python 3.10 has
  none, and a table appended at the end of a file cannot change what comes before it.

Our hook entries are recognized as claude.py recognizes its own (the `enf-hook`
program or `enf_git.hook` in the command), so re-running is idempotent.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import EnfError
from ..plumbing import atomic
from . import claude, mcp

SCOPES = ("user", "project")
ASSISTANT = "--assistant=codex"
# (event, matcher or None, timeout seconds, our event argument): Codex has no
# PostToolUseFailure (a failed command is a PostToolUse), and clamps SessionEnd to 3 s.
EVENTS = (
    ("SessionStart", None, 30, "session-start"),
    ("UserPromptSubmit", None, 10, "user-prompt-submit"),
    ("PreToolUse", "*", 10, "pre-tool-use"),
    ("PostToolUse", "*", 10, "post-tool-use"),
    ("PreCompact", None, 30, "pre-compact"),
    ("Stop", None, 30, "stop"),
    ("SessionEnd", None, 3, "session-end"),
)
BEGIN = "# enf-git: begin (git enf init --mcp --assistant codex; git enf uninstall --assistant codex removes it)"
END = "# enf-git: end"
TRUST_NOTE = ("Codex runs these hooks only once you trust them: start `codex` in this repository, type /hooks and "
              "trust the enf-git entries (automation: codex exec --dangerously-bypass-hook-trust)")


@dataclass
class Done:
    """What install or uninstall did, as lines for the user."""

    lines: list[str] = field(default_factory=list)
    changed: bool = False


def codex_home(env: "dict[str, str] | os._Environ[str]", home: Path) -> Path:
    """`$CODEX_HOME`, else `~/.codex`, as Codex resolves it."""
    value = env.get("CODEX_HOME")
    return Path(value) if value else home / ".codex"


def hooks_path(scope: str, top: Path, codex: Path) -> Path:
    if scope not in SCOPES:
        raise EnfError(f"Codex has no {scope!r} scope", hint="use --scope user ($CODEX_HOME) or --scope project (.codex/)")
    return codex / "hooks.json" if scope == "user" else top / ".codex" / "hooks.json"


def config_folder(scope: str, top: Path, codex: Path) -> Path:
    """The folder whose config.toml (and hooks.json) the scope writes."""
    return hooks_path(scope, top, codex).parent


def skill_path(scope: str, top: Path, codex: Path) -> Path:
    base = codex if scope == "user" else top / ".agents"
    return base / "skills" / claude.SKILL_NAME / "SKILL.md"


def merged(data: dict[str, Any], program: str) -> dict[str, Any]:
    """`data` (a hooks.json) with our entries (re)placed and everything else untouched."""
    out = claude.removed(data)
    hooks = out.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise EnfError("the hooks file's \"hooks\" is not an object", hint="fix it by hand, then rerun git enf init")
    for event, matcher, timeout, arg in EVENTS:
        group: dict[str, Any] = {} if matcher is None else {"matcher": matcher}
        group["hooks"] = [{"type": "command", "command": f"{program} {ASSISTANT} {arg}", "timeout": timeout}]
        hooks.setdefault(event, []).append(group)
    return out


def install(scope: str, top: Path, codex: Path) -> Done:
    """Our hooks in the scope's hooks.json, and the skill beside them."""
    path = hooks_path(scope, top, codex)
    program = claude.hook_program("project" if scope == "project" else "user")
    done = Done()
    done.changed = claude.write_settings(path, merged(claude.read_settings(path), program))
    verb = "registered" if done.changed else "already registered"
    done.lines.append(f"Codex hooks {verb} in {path} (scope {scope}), calling: {program} {ASSISTANT} EVENT")
    skill = skill_path(scope, top, codex)
    if claude.copy_skill(skill.parent):
        done.changed = True
        done.lines.append(f"Codex skill written to {skill}")
    done.lines.append(f"  {TRUST_NOTE}")
    if scope == "project":
        done.lines.append("  project scope: Codex loads .codex/hooks.json only in a project you trust "
                          "(codex exec --trust, or accept the prompt), and it calls enf-hook from PATH")
    return done


def uninstall(scope: str, top: Path, codex: Path) -> Done:
    """Our hook entries and our skill, nothing else; files we leave empty go too."""
    path = hooks_path(scope, top, codex)
    done = Done()
    if path.is_file():
        before = claude.read_settings(path)
        after = claude.removed(before)
        if after != before:
            if after:
                claude.write_settings(path, after)
            else:
                path.unlink()
            done.changed = True
            done.lines.append(f"removed enf-git's Codex hooks from {path}")
    skill = skill_path(scope, top, codex)
    removed, kept = claude.remove_skill_parts(skill.parent)
    if removed:
        _rmdir_if_empty(skill.parent)
        done.changed = True
        done.lines.append(f"removed the Codex skill {skill}")
    done.lines += [f"kept {part}: it differs from enf-git's skill (your edits?); delete it by hand" for part in kept]
    return done


def registered(scope: str, top: Path, codex: Path) -> list[str]:
    """The commands of our entries in the scope's hooks.json (none: not registered)."""
    path = hooks_path(scope, top, codex)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    hooks = data.get("hooks") if isinstance(data, dict) else None
    found = []
    for groups in (hooks or {}).values() if isinstance(hooks, dict) else ():
        for group in groups if isinstance(groups, list) else ():
            for entry in group.get("hooks", []) if isinstance(group, dict) else ():
                if claude.is_ours(entry):
                    found.append(str(entry["command"]))
    return found


def _rmdir_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:
        pass


# --- MCP in config.toml -------------------------------------------------------------------

def mcp_block(scope: str) -> str:
    """Our `[mcp_servers.enf]` table between its markers (TOML basic strings are JSON's)."""
    entry = mcp.entry(scope)
    args = ", ".join(json.dumps(a) for a in entry.get("args", []))
    return f"{BEGIN}\n[mcp_servers.{mcp.SERVER}]\ncommand = {json.dumps(entry['command'])}\nargs = [{args}]\n{END}\n"


def _outside_block(text: str) -> list[str]:
    """The file's lines that are not inside our block."""
    out, inside = [], False
    for line in text.splitlines():
        if line.strip() == BEGIN:
            inside = True
        elif inside and line.strip() == END:
            inside = False
        elif not inside:
            out.append(line)
    return out


def foreign_server(text: str) -> bool:
    """Whether the user's own text defines a server named like ours (a table or dotted keys)."""
    names = (f"mcp_servers.{mcp.SERVER}", f'mcp_servers."{mcp.SERVER}"')
    return any(line.strip().lstrip("[").startswith(names) for line in _outside_block(text))


def install_mcp(scope: str, codex: Path) -> Done:
    path = codex / "config.toml"
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    if foreign_server(text):
        raise EnfError(f"{path} already defines an MCP server named {mcp.SERVER!r} that enf-git did not write; "
                       "left it untouched", hint=f"rename or remove that [mcp_servers.{mcp.SERVER}] table, then rerun")
    kept = "\n".join(_outside_block(text)).rstrip("\n")
    new = (kept + "\n\n" if kept else "") + mcp_block(scope)
    done = Done(changed=new != text)
    if done.changed:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic.write(str(path), new.encode("utf-8"))
    verb = "registered" if done.changed else "already registered"
    done.lines.append(f"MCP server {mcp.SERVER!r} {verb} in {path} for Codex")
    return done


def uninstall_mcp(codex: Path) -> Done:
    path = codex / "config.toml"
    if not path.is_file():
        return Done()
    text = path.read_text(encoding="utf-8")
    if BEGIN not in text:
        return Done()
    kept = "\n".join(_outside_block(text)).rstrip("\n")
    if kept:
        atomic.write(str(path), (kept + "\n").encode("utf-8"))
    else:
        path.unlink()
    return Done([f"removed the MCP server {mcp.SERVER!r} from {path}"], True)
