"""Toolset profiles in Claude Code: the PreToolUse check that runs after the session
gate, and the `/toolset` command the user types (memory/toolsets.py decides which
profile a session works in; pure/toolsets.py what a profile allows).

Always allowed, in every profile: enf-git's own MCP tools, writes into the memory
working copy (`.claude-sessions/`), and `git enf` memory commands (`remember`, `pin`,
`recall`…) run alone, since a session in plan mode must still keep its notes. Never
allowed outside the built-in build: changing what decides the profile (toolsets.yaml,
`.claude/active-toolset`, the per-session choices, `git enf toolset NAME`), so an
assistant cannot widen its own permissions; the switch is the user's, typed as
`/toolset NAME`, which this hook acts on before the model sees the prompt.

Runs on every tool call: standard library only.
"""

import os

from ... import paths
from ...memory.context import toolsets as sessions
from ...plumbing import events, toolset_files
from ...pure import toolsets as ts
from . import gate
from .protocol import Where, reply

COMMANDS = ("/toolset", "/enf-git:toolset")
# `git enf` verbs that only read memory or write it: allowed alone whatever the profile.
MEMORY_VERBS = ("remember", "forget", "memories", "pin", "unpin", "recall", "show", "log", "status", "decisions",
                "instincts", "facts", "trust")
# What decides a profile, by name in a path or a command.
GUARDED = (toolset_files.FILE_NAME, "active-toolset", "enf/toolsets", "enf toolset", "git-enf toolset")
READ_VERBS = ("status", "list", "show")
SHELL_META = ";&|<>()`$\n\r{}"


def places(where: Where) -> sessions.Places:
    return sessions.Places(where.top, where.root, where.state, paths.user_config_dir(os.environ))


# --- PreToolUse ----------------------------------------------------------------------------

def pre_tool_use(where: Where, sid: str, tool: str, payload: "dict[str, object]", cwd: str) -> str:
    """'' to let the call through (to the client's own permission flow), or a deny reply."""
    profile = sessions.active(places(where), sid, payload.get("permission_mode")).profile
    tool_input = payload.get("tool_input")
    tool_input = tool_input if isinstance(tool_input, dict) else {}
    if profile is ts.BUILTINS[ts.DEFAULT] and not _may_push(tool, tool_input):
        return ""  # the built-in default denies only force pushes: nothing else to look at
    decision = _decide(where, profile, tool, tool_input, cwd)
    if decision.allowed:
        return ""
    if not gate.opted_out(where.root, sid):
        events.append(where.root, sid, "toolset-deny", tool=tool, profile=profile.name, rule=decision.rule,
                      summary=events.tool_summary(tool, tool_input))
    return reply("PreToolUse", permissionDecision="deny", permissionDecisionReason=ts.denial(profile, decision))


def _may_push(tool: str, tool_input: "dict[str, object]") -> bool:
    command = tool_input.get("command")
    return tool == "Bash" and isinstance(command, str) and "push" in command


def _decide(where: Where, profile: ts.Profile, tool: str, tool_input: "dict[str, object]", cwd: str) -> ts.Decision:
    target = tool_input.get("file_path") or tool_input.get("notebook_path")
    target = target if isinstance(target, str) and target and "\x00" not in target else None
    command = tool_input.get("command")
    command = command if isinstance(command, str) else None
    written = target if tool in gate.WRITE_TOOLS else None
    guarded = _touches_profiles(written, command) if profile is not ts.BUILTINS[ts.DEFAULT] else ""
    if guarded:
        return ts.Decision(False, "profiles are the user's to change",
                           f"{tool} would change what decides the toolset profile ({guarded})")
    if tool in gate.WRITE_TOOLS and target is not None and _in_memory(where, target, cwd):
        return ts.ALLOW  # the session's notes are kept in every profile
    if tool == "Bash" and command is not None and memory_command(command):
        return ts.ALLOW
    path, exists = _relative(where, target, cwd) if target is not None else (None, None)
    return ts.decide(profile, ts.Call(tool, path=path, exists=exists, command=command), ts.shell_verdict)


def _touches_profiles(target: "str | None", command: "str | None") -> str:
    """The guarded name a call's file or command mentions ('' for none); `git enf
    toolset status` and a read-only command such as `cat toolsets.yaml` change nothing."""
    text = (target or "").replace(os.sep, "/") + " " + (command or "")
    found = next((name for name in GUARDED if name in text), "")
    if not found or target is not None or command is None:
        return found
    if memory_command(command):
        return ""  # `git enf toolset status|list|show`: memory_command admits no switch
    words = command.split()
    if "toolset" not in words and ts.shell_verdict(command).kind == "read":
        return ""
    return found


def memory_command(command: str) -> bool:
    """`git enf VERB …` (or `git-enf VERB …`) alone: no pipe, list, redirection,
    substitution or expansion outside single quotes, so nothing else can ride along."""
    words = command.split()
    start = 2 if words[:2] == ["git", "enf"] else 1 if words[:1] == ["git-enf"] else 0
    if not start or len(words) <= start or words[start] not in MEMORY_VERBS + ("toolset",):
        return False
    if words[start] == "toolset" and (len(words) <= start + 1 or words[start + 1] not in READ_VERBS):
        return False
    return _simple(command)


def _simple(command: str) -> bool:
    """No shell syntax but words and quotes: outside single quotes no backslash, and none
    of ; & | < > ( ) ` $ { } or a line break (inside double quotes no $ or `)."""
    quote = ""
    for c in command:
        if quote == "'":
            quote = "" if c == "'" else quote
        elif c == "\\" or (quote == '"' and c in "$`"):
            return False
        elif quote == '"':
            quote = "" if c == '"' else quote
        elif c in "'\"":
            quote = c
        elif c in SHELL_META:
            return False
    return quote == ""


def _in_memory(where: Where, target: str, cwd: str) -> bool:
    """The file lies inside the memory working copy (after symlinks: no escape by link)."""
    real = os.path.realpath(os.path.join(cwd, target))
    return real.startswith(os.path.realpath(where.root) + os.sep)


def _relative(where: Where, target: str, cwd: str) -> "tuple[str | None, bool]":
    """The file relative to the work tree ("/"-separated; None outside it) and whether it exists."""
    full = os.path.realpath(os.path.join(cwd, target))
    top = os.path.realpath(where.top)
    exists = os.path.exists(full)
    if not full.startswith(top + os.sep):
        return None, exists
    return full[len(top) + 1:].replace(os.sep, "/"), exists


# --- /toolset ------------------------------------------------------------------------------

def is_command(prompt: str) -> bool:
    words = prompt.split(None, 1)
    return bool(words) and words[0] in COMMANDS


def command(where: Where, sid: str, prompt: str, permission_mode: object = None) -> str:
    """Act on `/toolset [NAME|status|reset]` as the user typed it, and say what happened
    (context for the model, which tells the user)."""
    args = prompt.split()[1:]
    verb = args[0] if args else "status"
    here = places(where)
    if verb in ("status", "list"):
        return "enf-git " + sessions.status_line(sessions.active(here, sid, permission_mode)) + " Tell the user."
    try:
        before, now = sessions.switch(here, sid, None if verb == "reset" else verb)
    except KeyError:
        table, _ = sessions.load(here)
        return (f"enf-git toolset: there is no profile named {ts.short(verb, 40)!r}, so nothing changed "
                f"(profiles: {', '.join(table)}). Tell the user, with /toolset status to see the one in force.")
    return (f"enf-git toolset: this session switched from {before} to {sessions.describe(now.profile)}, "
            f"{now.why}. Tool calls it does not allow are denied until /toolset reset or another /toolset NAME. "
            f"Tell the user in one line." + sessions.problems_text(now))
