"""The per-session key for clients whose ids we have only read about (Cursor, Copilot
CLI, Qwen Code): the first 8 characters, as under Claude Code, unless the id is a UUIDv7,
whose first 8 hex digits are a clock that every session started in the same minute
shares; then Codex's rule (its random end, put first). Standard library only: every
tool call runs it."""


def neutral(session_id: object) -> object:
    """The id the core reads (`id8` names the key), or the value as given if not a string."""
    if isinstance(session_id, str) and len(session_id) >= 36 and session_id[14:15] == "7":
        from .codex.adapter import neutral_id

        return neutral_id(session_id)
    return session_id
