"""OpenAI Codex CLI's hooks, mapped to the neutral event and back (docs/codex.md).

Codex sends Claude-like payloads (session_id, transcript_path, cwd, hook_event_name,
model, permission_mode, turn_id …) and reads Claude-like replies (`hookSpecificOutput`),
so most of the mapping is the identity. What differs:

- The session key. Codex's ids are UUIDv7: the first 8 hex digits are a timestamp that
  every session started in the same minute or so shares, so Claude Code's "first 8
  characters" would let one session's file satisfy another's gate. The key is the last
  8 hex digits instead (random in a v7 UUID, as in a v4), put first in the neutral id.
- The tools. Codex has no Write tool: it writes with a shell command (`tool_name:
  "Bash"`, `tool_input.command`; 0.169 sent `exec_command` with `cmd`, older releases
  `shell` with an argv list) or with `apply_patch` (`tool_input.command` is the patch,
  also reachable as `apply_patch <<'EOF'` in a shell command). A command whose only
  effect is writing one file, and a patch that adds or updates exactly one file, become
  the neutral Write and Edit of that file: the gate's creation path and the toolsets'
  memory rule then treat them as they treat Claude Code's Write. Anything else stays
  a shell command (or `apply_patch`, with the files it touches) and is judged as one.
- The words. The gate's reminder and denial, and SessionStart's instructions, say how
  a Codex session writes its file.

Runs on every tool call: standard library only; the shell lexer and the patch reader
load only for a command that names the memory folder or applies a patch.
"""

from ... import paths
from ..events import CONTEXT, DENY, Adapter, Answer

KEY_LENGTH = 8
HEX = "0123456789abcdef"
SHELL_TOOLS = ("Bash", "exec_command", "shell", "local_shell", "shell_command")
GATE_MARKS = ("No session file exists for THIS session", "has no session file yet")
HOW_TO_WRITE = (
    f"Under Codex there is no Write tool: create the file with apply_patch (`*** Add File: {paths.WC_DIR}/sessions/"
    f"DATE-SLUG.md`), or with one shell command that writes only that file (`cat > PATH <<'EOF'` … `EOF`, "
    f"`touch {paths.WC_DIR}/.opt-out/KEY` to opt out); a command that does anything else as well is denied until "
    f"the file exists."
)


def session_key(session_id: str) -> str:
    """The last 8 hex digits of a UUID (its random end); any other id keeps its own first 8."""
    digits = [c for c in session_id.lower() if c in HEX]
    if len(digits) >= 32 and len(session_id) >= 32:
        return "".join(digits[-KEY_LENGTH:])
    return session_id


def neutral_id(session_id: str) -> str:
    """The key first, the client's id after it: `id8` reads the key, logs keep the whole id."""
    key = session_key(session_id)
    return session_id if key == session_id else f"{key}-{session_id}"


class CodexAdapter(Adapter):
    name = "codex"

    def event(self, event: str, payload: "dict[str, object]") -> "dict[str, object] | None":
        sid = payload.get("session_id")
        if isinstance(sid, str) and sid:
            payload["session_id"] = neutral_id(sid)
        if event in ("PreToolUse", "PostToolUse", "PostToolUseFailure"):
            tool, tool_input = neutral_tool(payload.get("tool_name"), payload.get("tool_input"), payload.get("cwd"))
            payload["tool_name"], payload["tool_input"] = tool, tool_input
        return payload

    def answer(self, event: str, reply: str) -> str:
        if not reply:
            return reply
        found = Answer.of(event, reply)
        if found.kind == CONTEXT and (event == "SessionStart" or any(m in found.text for m in GATE_MARKS)):
            found.text = f"{found.text}\n\n{HOW_TO_WRITE}"
        elif found.kind == DENY and any(m in found.text for m in GATE_MARKS):
            found.text = f"{found.text} {HOW_TO_WRITE}"
        else:
            return reply
        return found.hook_specific()


def neutral_tool(tool: object, tool_input: object, cwd: object) -> "tuple[str, dict[str, object]]":
    """Codex's tool call as the core names it (see the module docstring)."""
    name = tool if isinstance(tool, str) else ""
    given = tool_input if isinstance(tool_input, dict) else {}
    if name in SHELL_TOOLS:
        command = _command(given)
        if command is None:
            return "Bash", given
        return _shell(command)
    if name == "apply_patch":
        patch = given.get("command") if isinstance(given.get("command"), str) else given.get("input")
        return _patch(patch) if isinstance(patch, str) else (name, given)
    return name, given


def _command(given: "dict[str, object]") -> "str | None":
    command = given.get("command", given.get("cmd"))
    if isinstance(command, list) and all(isinstance(w, str) for w in command):
        # `shell`'s argv: ["bash", "-lc", LINE] carries the line; anything else joined plainly.
        words = [str(w) for w in command]
        return words[2] if len(words) == 3 and words[1] in ("-lc", "-c") else " ".join(words)
    return command if isinstance(command, str) else None


def _shell(command: str) -> "tuple[str, dict[str, object]]":
    if command.lstrip().startswith("apply_patch"):
        from ...pure import applypatch

        patch = applypatch.from_shell(command)
        if patch is not None:
            return _patch(patch)
    if paths.WC_DIR in command:  # else it cannot be the session file's creation: no lexer to load
        from ...pure import shellwrite

        target = shellwrite.sole_write(command)
        if target is not None:
            return "Write", {"file_path": target}
    return "Bash", {"command": command}


def _patch(patch: str) -> "tuple[str, dict[str, object]]":
    from ...pure import applypatch

    touched = applypatch.files(patch)
    if len(touched) == 1 and touched[0][0] in ("add", "update") and touched[0][1]:
        return ("Write" if touched[0][0] == "add" else "Edit"), {"file_path": touched[0][1]}
    return "apply_patch", {"command": patch, "files": [path for _, path in touched]}


ADAPTER = CodexAdapter()
