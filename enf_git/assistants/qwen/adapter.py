"""Qwen Code's hooks, mapped to the neutral event and back (docs/assistants.md).

Not tested against the real client: written from Qwen Code's hooks reference. Qwen Code
is a Gemini CLI fork that took Claude Code's hook contract: Claude's event names in
`.qwen/settings.json`, Claude-like payloads (session_id, transcript_path, cwd,
hook_event_name, tool_name, tool_input, prompt, error on PostToolUseFailure) and
Claude's replies (`hookSpecificOutput` with permissionDecision or additionalContext),
so replies pass through. What differs:

- The tools are Gemini's (`run_shell_command`, `write_file`, `edit` where Gemini says
  `replace`, `read_file` …): mapped by the Gemini adapter's table, so a shell command
  that only writes the session file is the gate's creation path here too.
- UserPromptSubmit also fires before a tool result goes back to the model: `prompt` is
  then not what the user typed. `submitted_prompt`, when Qwen sends it, is.
- The gate's reminder and SessionStart's instructions say how to write under Qwen.
"""

from ..events import CONTEXT, DENY, Adapter, Answer
from ..sessionkey import neutral

HOW_TO_WRITE = ("Under Qwen Code, create that file with write_file (or with one run_shell_command whose only "
                "effect is writing that file); anything else is denied until it exists.")
GATE_MARKS = ("No session file exists for THIS session", "has no session file yet")


class QwenAdapter(Adapter):
    name = "qwen"

    def event(self, event: str, payload: "dict[str, object]") -> "dict[str, object] | None":
        payload["session_id"] = neutral(payload.get("session_id"))
        submitted = payload.get("submitted_prompt")
        if isinstance(submitted, str) and submitted:
            payload["prompt"] = submitted
        if event in ("PreToolUse", "PostToolUse", "PostToolUseFailure"):
            from ..gemini.adapter import neutral_tool

            name = payload.get("tool_name")
            name = "replace" if name == "edit" else name  # Qwen's name for Gemini's replace
            tool, tool_input = neutral_tool(name, payload.get("tool_input"), payload.get("mcp_context"))
            payload["tool_name"], payload["tool_input"] = tool, tool_input
        return payload

    def answer(self, event: str, reply: str) -> str:
        if not reply:
            return reply
        found = Answer.of(event, reply)
        gated = any(m in found.text for m in GATE_MARKS)
        if found.kind == DENY and gated:
            found.text = f"{found.text} {HOW_TO_WRITE}"
        elif found.kind == CONTEXT and (gated or event == "SessionStart"):
            found.text = f"{found.text}\n\n{HOW_TO_WRITE}"
        else:
            return reply
        return found.hook_specific()


ADAPTER = QwenAdapter()
