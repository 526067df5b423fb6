"""Cursor's hooks, mapped to the neutral event and back (docs/assistants.md).

Not tested against the real client: written from Cursor's hooks documentation. Cursor
reads `.cursor/hooks.json` (version 1) with camelCase events, each entry a command and
a timeout in seconds. Every payload carries conversation_id (the session),
hook_event_name (Cursor's name), workspace_roots and, where it has one, cwd; each event
its own fields. Our entries call `enf-hook --assistant=cursor EVENT` with our event
argument, and the adapter reads Cursor's name from hook_event_name:

    sessionStart          SessionStart      reply {"additional_context"}
    beforeSubmitPrompt    UserPromptSubmit  reply: none we use (it only allows or blocks)
    beforeShellExecution  PreToolUse Bash   (command, cwd)
    beforeMCPExecution    PreToolUse mcp__SERVER__TOOL (tool_name, tool_input, command|url)
    beforeReadFile        PreToolUse Read   (file_path)
    afterShellExecution   PostToolUse Bash
    afterFileEdit         PostToolUse Edit  (file_path, edits)
    afterMCPExecution     PostToolUse mcp__SERVER__TOOL
    preCompact            PreCompact
    stop                  Stop
    sessionEnd            SessionEnd

The before* replies are `{"permission": "allow"|"deny"|"ask", "user_message",
"agent_message"}`. Cursor's file edits have no before-hook here, so the gate cannot
hold an edit back: it denies shell commands, MCP tools and file reads until the session
file exists, and an edit is how that file gets written. Context that Cursor has no
field for (pointers on a prompt, the gate's reminder after a tool) is dropped.
"""

from ..events import CONTEXT, DENY, Adapter, Answer
from ..sessionkey import neutral

HOW_TO_WRITE = ("Under Cursor, create that file with your file-editing tool (edits are not held back); shell "
                "commands, MCP tools and file reads are denied until it exists.")
GATE_MARKS = ("No session file exists for THIS session", "has no session file yet")
BEFORE = ("beforeShellExecution", "beforeMCPExecution", "beforeReadFile")


class CursorAdapter(Adapter):
    name = "cursor"

    def event(self, event: str, payload: "dict[str, object]") -> "dict[str, object] | None":
        payload["session_id"] = neutral(payload.get("conversation_id") or payload.get("session_id"))
        if not isinstance(payload.get("cwd"), str) or not payload.get("cwd"):
            roots = payload.get("workspace_roots")
            if isinstance(roots, list) and roots and isinstance(roots[0], str):
                payload["cwd"] = roots[0]
        if event in ("PreToolUse", "PostToolUse", "PostToolUseFailure"):
            tool, tool_input = neutral_tool(payload)
            if not tool:
                return None  # an event we did not register: nothing to do
            payload["tool_name"], payload["tool_input"] = tool, tool_input
        return payload

    def answer(self, event: str, reply: str) -> str:
        if not reply:
            return reply
        found = Answer.of(event, reply)
        gated = any(m in found.text for m in GATE_MARKS)
        if found.kind == DENY:
            text = f"{found.text} {HOW_TO_WRITE}" if gated else found.text
            return _dumps({"permission": "deny", "user_message": "enf-git: " + found.text.split(".")[0] + ".",
                           "agent_message": text})
        if found.kind == CONTEXT and event == "SessionStart":
            return _dumps({"additional_context": f"{found.text}\n\n{HOW_TO_WRITE}"})
        return ""  # Cursor has no field for context on this event


def neutral_tool(payload: "dict[str, object]") -> "tuple[str, dict[str, object]]":
    """The tool call a Cursor event stands for, as the core names it; ("", {}) for none."""
    kind = payload.get("hook_event_name")
    if kind in ("beforeShellExecution", "afterShellExecution"):
        command = payload.get("command")
        if not isinstance(command, str):
            return "Bash", {}
        from ..gemini.adapter import neutral_tool as shell

        return shell("run_shell_command", {"command": command})
    if kind in ("beforeReadFile", "afterFileEdit"):
        path = payload.get("file_path")
        return ("Read" if kind == "beforeReadFile" else "Edit"), {"file_path": path if isinstance(path, str) else ""}
    if kind in ("beforeMCPExecution", "afterMCPExecution"):
        given = payload.get("tool_input")
        return _mcp(payload), given if isinstance(given, dict) else {}
    return "", {}


def _mcp(payload: "dict[str, object]") -> str:
    """`mcp__SERVER__TOOL`. Cursor names the tool but not the server: the server is `enf`
    when the one Cursor started is `git enf mcp` (its command says so), else `cursor`."""
    tool = payload.get("tool_name")
    command = payload.get("command")
    ours = isinstance(command, str) and ("git-enf" in command or "enf_git" in command) and "mcp" in command
    return f"mcp__{'enf' if ours else 'cursor'}__{tool if isinstance(tool, str) else ''}"


def _dumps(data: "dict[str, object]") -> str:
    from ... import fastjson

    return fastjson.dumps(data)


ADAPTER = CursorAdapter()
