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
TOOL_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure")
# How the gate's denial and reminder read (claude/gate.py): where an adapter says how its
# client writes the session file.
GATE_MARKS = ("No session file exists for THIS session", "has no session file yet")


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

    def tell(self, how: str) -> bool:
        """Add a client's `how` (to write the session file) where the model needs it: after
        the gate's denial or reminder, and to SessionStart's context. False: nothing added."""
        gated = any(m in self.text for m in GATE_MARKS)
        if self.kind == DENY and gated:
            self.text = f"{self.text} {how}"
        elif self.kind == CONTEXT and (gated or self.event == "SessionStart"):
            self.text = f"{self.text}\n\n{how}"
        else:
            return False
        return True

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


class Mapped(Adapter):
    """A client whose replies need more than Claude Code's: the core's reply is read once
    (silence passes as it is) and `render`ed. The default render is Claude Code's shape
    with the client's `how` (to write the session file) added where Answer.tell puts it."""

    how = ""
    folds_failure = False  # the client's PostToolUse is also the failure, marked by the `error` its adapter set

    def core_event(self, event: str, payload: "dict[str, object]") -> str:
        return "PostToolUseFailure" if self.folds_failure and event == "PostToolUse" and "error" in payload else event

    def answer(self, event: str, reply: str) -> str:
        if not reply:
            return reply
        return self.render(Answer.of(event, reply), reply)

    def render(self, found: Answer, reply: str) -> str:
        return found.hook_specific() if found.tell(self.how) else reply


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
