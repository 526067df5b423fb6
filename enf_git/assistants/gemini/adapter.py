"""Google's Gemini CLI hooks, mapped to the neutral event and back (docs/gemini.md).

Gemini CLI (0.61, measured offline) runs command hooks from `settings.json` `hooks`
with Claude-like payloads (session_id, transcript_path, cwd, hook_event_name,
timestamp; tool_name and tool_input on BeforeTool/AfterTool; prompt on BeforeAgent),
registered as `enf-hook --assistant=gemini EVENT` under our neutral event names
(BeforeAgent is UserPromptSubmit, BeforeTool PreToolUse, AfterTool PostToolUse,
AfterAgent Stop, PreCompress PreCompact). What differs from Claude Code:

- The replies. A denial is `{"decision": "deny", "reason": …}` (the model reads
  "Tool execution blocked: <reason>"); Claude Code's `permissionDecision` is ignored
  (measured: the tool ran). Context stays `hookSpecificOutput.additionalContext`,
  under Gemini's own event name.
- The tools. `write_file` (file_path, content) and `replace` (file_path, old_string,
  new_string) are the neutral Write and Edit; `run_shell_command` (command, dir_path)
  is Bash, or the Write of the one file a command does nothing but write (the shell
  classifier, as under Codex); the read-only tools get Claude Code's names so the
  toolsets class them; MCP tools `mcp_SERVER_TOOL` become `mcp__SERVER__TOOL`.
- A failed tool is an AfterTool whose `tool_response.error` is set: the neutral
  PostToolUseFailure, so instincts see it.
- Headless, SessionStart's context is prepended to the first prompt, which BeforeAgent
  then carries: the adapter gives the core the prompt as typed.
- Session ids are random UUIDs (v4): the first 8 characters are a fine key. A v7
  id (a timestamp first) would get Codex's rule, should a release switch.

Runs on every tool call: standard library only; the shell lexer loads only for a
command that names the memory folder.
"""

from ... import paths
from ..events import CONTEXT, DENY, Adapter, Answer

GEMINI_EVENTS = {"SessionStart": "SessionStart", "UserPromptSubmit": "BeforeAgent", "PreToolUse": "BeforeTool",
                 "PostToolUse": "AfterTool", "PostToolUseFailure": "AfterTool", "Stop": "AfterAgent",
                 "PreCompact": "PreCompress", "SessionEnd": "SessionEnd"}
# Gemini's tools under the names the core (the gate, the toolsets, the event log) reads.
TOOLS = {"read_file": "Read", "read_many_files": "Read", "list_directory": "LS", "glob": "Glob",
         "grep_search": "Grep", "search_file_content": "Grep", "web_fetch": "WebFetch",
         "google_web_search": "WebSearch", "write_todos": "TodoWrite", "invoke_agent": "Task",
         "activate_skill": "Skill", "read_background_output": "BashOutput",
         "list_background_processes": "BashOutput"}
SHELL_TOOLS = ("run_shell_command",)
CONTEXT_OPEN, CONTEXT_CLOSE = "<hook_context>", "</hook_context>"
GATE_MARKS = ("No session file exists for THIS session", "has no session file yet")
HOW_TO_WRITE = (  # no `<` in it: Gemini shows hook context HTML-escaped (`<<'EOF'` became `&lt;&lt;`)
    "Under Gemini CLI, create that file with write_file (or with one run_shell_command whose only effect is "
    "writing that file); anything else is denied until it exists."
)


class GeminiAdapter(Adapter):
    name = "gemini"

    def event(self, event: str, payload: "dict[str, object]") -> "dict[str, object] | None":
        sid = payload.get("session_id")
        if isinstance(sid, str) and len(sid) >= 36 and sid[14:15] == "7":  # a UUIDv7: its first 8 are a clock
            from ..codex.adapter import neutral_id

            payload["session_id"] = neutral_id(sid)
        prompt = payload.get("prompt")
        if isinstance(prompt, str) and prompt.startswith(CONTEXT_OPEN):
            payload["prompt"] = user_prompt(prompt)
        if event in ("PreToolUse", "PostToolUse", "PostToolUseFailure"):
            tool, tool_input = neutral_tool(payload.get("tool_name"), payload.get("tool_input"),
                                            payload.get("mcp_context"))
            payload["tool_name"], payload["tool_input"] = tool, tool_input
            error = _error(payload.get("tool_response"))
            if error is not None:
                payload["error"] = error
        return payload

    def core_event(self, event: str, payload: "dict[str, object]") -> str:
        return "PostToolUseFailure" if event == "PostToolUse" and "error" in payload else event

    def answer(self, event: str, reply: str) -> str:
        if not reply:
            return reply
        found = Answer.of(event, reply)
        gated = any(m in found.text for m in GATE_MARKS)
        if found.kind == DENY:
            text = f"{found.text} {HOW_TO_WRITE}" if gated else found.text
            return _dumps({"decision": "deny", "reason": text})
        if found.kind == CONTEXT:
            text = f"{found.text}\n\n{HOW_TO_WRITE}" if gated or event == "SessionStart" else found.text
            return _dumps({"hookSpecificOutput": {"hookEventName": GEMINI_EVENTS.get(event, event),
                                                  "additionalContext": text}})
        return ""


def user_prompt(prompt: str) -> str:
    """The prompt as the user typed it. Headless (`gemini -p`), SessionStart's context is
    prepended to the first prompt as `<hook_context>…</hook_context>` and BeforeAgent sees
    it there: a `/toolset` line would not start the prompt, and pointers would search our
    own context. Gemini escapes `<` inside hook context, so the first closing tag ends it."""
    end = prompt.find(CONTEXT_CLOSE)
    return prompt[end + len(CONTEXT_CLOSE):].lstrip("\n") if end >= 0 else prompt


def neutral_tool(tool: object, tool_input: object, mcp: object = None) -> "tuple[str, dict[str, object]]":
    """Gemini's tool call as the core names it (see the module docstring)."""
    name = tool if isinstance(tool, str) else ""
    given = tool_input if isinstance(tool_input, dict) else {}
    if name == "write_file":
        return "Write", given
    if name == "replace":
        return "Edit", given
    if name in SHELL_TOOLS:
        command = given.get("command")
        return _shell(command, given.get("dir_path") or given.get("directory")) if isinstance(command, str) \
            else ("Bash", given)
    if name in TOOLS:
        return TOOLS[name], given
    if name.startswith("mcp_"):
        return _mcp(name, mcp), given
    return name, given


def _shell(command: str, folder: object) -> "tuple[str, dict[str, object]]":
    if paths.WC_DIR in command:  # else it cannot be the session file's creation: no lexer to load
        from ...pure import shellwrite

        target = shellwrite.sole_write(command)
        if target is not None:
            if isinstance(folder, str) and folder:  # the command runs there: its relative paths do too
                import os

                target = os.path.join(folder, target)
            return "Write", {"file_path": target}
    return "Bash", {"command": command}


def _mcp(name: str, mcp: object) -> str:
    """`mcp__SERVER__TOOL` from the payload's mcp_context, else from Gemini's `mcp_SERVER_TOOL`
    (split at the first `_` after the prefix: a server name with `_` in it needs the context)."""
    if isinstance(mcp, dict):
        server, tool = mcp.get("server_name"), mcp.get("tool_name")
        if isinstance(server, str) and isinstance(tool, str) and server and tool:
            return f"mcp__{server}__{tool}"
    server, _, tool = name[len("mcp_"):].partition("_")
    return f"mcp__{server}__{tool}" if server and tool else name


def _error(response: object) -> "str | None":
    """A failed tool's error text (Gemini puts `error` in tool_response), else None."""
    if not isinstance(response, dict) or not response.get("error"):
        return None
    error = response["error"]
    if isinstance(error, dict):
        error = error.get("message") or error
    return str(error)


def _dumps(data: "dict[str, object]") -> str:
    from ... import fastjson

    return fastjson.dumps(data)


ADAPTER = GeminiAdapter()
