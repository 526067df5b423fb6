"""GitHub Copilot CLI's hooks, mapped to the neutral event and back (docs/assistants.md).

Not tested against the real client: written from Copilot CLI's hooks reference. Our
entries in `.github/hooks/enf-git.json` name events in PascalCase (SessionStart,
UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure, Stop, PreCompact,
SessionEnd), which makes Copilot send the VS Code compatible payload: snake_case,
Claude-like (session_id, cwd, hook_event_name, tool_name, tool_input, prompt,
transcript_path, error). What differs from Claude Code:

- The tools: `bash`/`powershell` (command), `create` (path, file_text), `edit` (path,
  old_str, new_str), `view` (path), `glob`, `grep`, `web_fetch`, `task`. `create` and
  `edit` are the neutral Write and Edit, so `create` of this session's file is the
  gate's creation path; `tool_input` may arrive as a JSON string.
- The replies: a denial is `permissionDecision`/`permissionDecisionReason` at the top
  level (Claude's `hookSpecificOutput` is sent alongside). Copilot CLI does not process
  SessionStart's or UserPromptSubmit's output: context at start, pointers and the
  toolset switch's note never reach the model. The gate's denial does, and it names
  the session's key and how to write the file.
- A PostToolUse whose `tool_result.result_type` is not "success" is the failure.
"""

from ..events import DENY, Adapter, Answer
from ..sessionkey import neutral

TOOLS = {"view": "Read", "glob": "Glob", "grep": "Grep", "web_fetch": "WebFetch", "task": "Task",
         "ask_user": "AskUserQuestion"}
SHELL_TOOLS = ("bash", "powershell")
HOW_TO_WRITE = ("Under Copilot CLI, create that file with the create tool (or with one bash command whose only "
                "effect is writing that file); anything else is denied until it exists.")
GATE_MARKS = ("No session file exists for THIS session", "has no session file yet")


class CopilotAdapter(Adapter):
    name = "copilot"

    def event(self, event: str, payload: "dict[str, object]") -> "dict[str, object] | None":
        payload["session_id"] = neutral(payload.get("session_id") or payload.get("sessionId"))
        if event in ("PreToolUse", "PostToolUse", "PostToolUseFailure"):
            tool, tool_input = neutral_tool(payload.get("tool_name"), payload.get("tool_input"))
            payload["tool_name"], payload["tool_input"] = tool, tool_input
            result = payload.get("tool_result")
            kind = result.get("result_type") if isinstance(result, dict) else None
            if event == "PostToolUse" and kind not in (None, "success"):
                text = result.get("text_result_for_llm") if isinstance(result, dict) else None
                payload["error"] = str(text or kind)
        return payload

    def core_event(self, event: str, payload: "dict[str, object]") -> str:
        return "PostToolUseFailure" if event == "PostToolUse" and "error" in payload else event

    def answer(self, event: str, reply: str) -> str:
        if not reply:
            return reply
        found = Answer.of(event, reply)
        if found.kind != DENY:
            return reply  # context: Claude's shape, which Copilot CLI reads where it reads any
        if any(m in found.text for m in GATE_MARKS):
            found.text = f"{found.text} {HOW_TO_WRITE}"
        from ... import fastjson

        data = fastjson.loads(found.hook_specific())
        data["permissionDecision"], data["permissionDecisionReason"] = "deny", found.text
        return fastjson.dumps(data)


def neutral_tool(tool: object, tool_input: object) -> "tuple[str, dict[str, object]]":
    """Copilot's tool call as the core names it (see the module docstring)."""
    name = tool if isinstance(tool, str) else ""
    given = _args(tool_input)
    path = given.get("path")
    if name in ("create", "edit") and isinstance(path, str):
        return ("Write" if name == "create" else "Edit"), {**given, "file_path": path}
    if name in SHELL_TOOLS:
        from ..gemini.adapter import neutral_tool as shell

        return shell("run_shell_command", given)
    if name == "view" and isinstance(path, str):
        return "Read", {**given, "file_path": path}
    return TOOLS.get(name, name), given


def _args(tool_input: object) -> "dict[str, object]":
    if isinstance(tool_input, str):  # "parsed from JSON string when possible": maybe not
        from ... import fastjson

        try:
            tool_input = fastjson.loads(tool_input)
        except ValueError:
            return {}
    return tool_input if isinstance(tool_input, dict) else {}


ADAPTER = CopilotAdapter()
