"""The assistant-neutral event and answer: what every client's hooks are turned into,
and what the core's reply is turned back from.

Data model. A client (Claude Code, Codex, …) runs `enf-hook [--assistant=NAME] EVENT`
with its own JSON payload on stdin. Its adapter maps that payload to the *neutral
event*, a dict in the vocabulary the core (the gate, the event log, context, commits,
pointers, instincts, handoff, toolsets) reads:

    session_id       the session's id; its first 8 characters (`id8`) are the
                     per-session key that names its file's frontmatter `session_id`,
                     its opt-out marker and its per-session state, so an adapter
                     whose client's ids share a prefix puts a distinct key first
    cwd, transcript_path, permission_mode, source, prompt, stop_hook_active …
    tool_name        Bash (tool_input.command: the command line), Write and Edit
                     (tool_input.file_path), Read, mcp__SERVER__TOOL, or the client's
                     own name for anything else (classed unknown by the toolsets)

The core answers with a reply string (empty for silence), the *neutral answer*:
`{"hookSpecificOutput": {"hookEventName": …, "additionalContext" | "permissionDecision"
…}}` as claude/protocol.py writes it. `Answer.of` reads one as a kind and its text;
each adapter renders it the way its client reads replies.

Claude Code's payload and replies are the neutral ones, so its adapter is this base
class (identity both ways). Runs on every tool call: standard library only (fastjson).
"""

from .. import fastjson

SILENCE, CONTEXT, DENY = "silence", "context", "deny"


class Answer:
    """The core's reply as a kind (silence, context, deny) and the text the model reads."""

    __slots__ = ("event", "kind", "text")

    def __init__(self, event: str, kind: str, text: str = "") -> None:
        self.event, self.kind, self.text = event, kind, text

    @classmethod
    def of(cls, event: str, reply: str) -> "Answer":
        if not reply:
            return cls(event, SILENCE)
        try:
            data = fastjson.loads(reply)
        except ValueError:
            return cls(event, SILENCE)
        fields = data.get("hookSpecificOutput") if isinstance(data, dict) else None
        if not isinstance(fields, dict):
            return cls(event, SILENCE)
        if fields.get("permissionDecision") == "deny":
            return cls(event, DENY, str(fields.get("permissionDecisionReason") or ""))
        text = fields.get("additionalContext")
        return cls(event, CONTEXT, text) if isinstance(text, str) and text else cls(event, SILENCE)

    def hook_specific(self) -> str:
        """The `hookSpecificOutput` form (Claude Code's, and Codex's, which reads the same)."""
        if self.kind == DENY:
            fields = {"permissionDecision": "deny", "permissionDecisionReason": self.text}
        elif self.kind == CONTEXT:
            fields = {"additionalContext": self.text}
        else:
            return ""
        return fastjson.dumps({"hookSpecificOutput": {"hookEventName": self.event, **fields}})


class Adapter:
    """One client's mapping. The base is Claude Code's: its payloads and replies are the
    neutral ones. `event` may answer None to make the hook a no-op for that payload."""

    name = "claude"

    def event(self, event: str, payload: "dict[str, object]") -> "dict[str, object] | None":
        return payload

    def core_event(self, event: str, payload: "dict[str, object]") -> str:
        """The event the core handles for this (mapped) payload: the registered one, unless
        the client folds two of ours into one event (Gemini's AfterTool is also the failure)."""
        return event

    def answer(self, event: str, reply: str) -> str:
        return reply


CLAUDE = Adapter()
# Imported by name only when a hook names its client (`--assistant=codex`): the other
# adapters' modules stay off Claude Code's per-call path.
MODULES = {"codex": "enf_git.assistants.codex.adapter", "gemini": "enf_git.assistants.gemini.adapter",
           "cursor": "enf_git.assistants.cursor.adapter", "copilot": "enf_git.assistants.copilot.adapter",
           "qwen": "enf_git.assistants.qwen.adapter"}


def adapter(name: str) -> Adapter:
    """The adapter for `--assistant=NAME`; Claude Code's for none. An unknown name raises
    (the hook's error boundary logs it and stays silent)."""
    if not name or name == CLAUDE.name:
        return CLAUDE
    module = __import__(MODULES[name], fromlist=["ADAPTER"])
    found: Adapter = module.ADAPTER
    return found
