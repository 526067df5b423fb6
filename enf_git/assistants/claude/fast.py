"""The per-call hooks: PreToolUse (the gate), UserPromptSubmit (reminder and
heartbeat), PostToolUse and PostToolUseFailure (the event log).

They run on every tool call and every prompt, so they import only the standard
library (os, and json's C core through fastjson): pygit2 alone costs ~8x a bare
interpreter start (docs/design.md, invariant 6).
"""

import os

from ... import fastjson, paths
from ...plumbing import events
from . import gate
from .protocol import Where, record_error, reply, session_of

HEARTBEAT_PROMPTS = 5


def pre_tool_use(where: Where, payload: dict[str, object]) -> str:
    sid = session_of(payload)
    if not sid or not os.path.isdir(where.root):
        return ""
    tool = payload.get("tool_name")
    tool = tool if isinstance(tool, str) else ""
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else where.top
    if _satisfied(where, sid):
        return _toolset(where, sid, tool, payload, str(cwd))  # the gate is passed: the profile decides
    if gate.is_memory_read(tool) or gate.is_creation(where.root, tool, payload.get("tool_input"), str(cwd)):
        return ""
    events.append(where.root, sid, "gate-deny", tool=tool, summary=events.tool_summary(tool, payload.get("tool_input")))
    return reply("PreToolUse", permissionDecision="deny", permissionDecisionReason=gate.deny_reason(sid))


def user_prompt_submit(where: Where, payload: dict[str, object]) -> str:
    sid = session_of(payload)
    if not sid or not os.path.isdir(where.root):
        return ""
    prompt = payload.get("prompt")
    prompt = prompt if isinstance(prompt, str) else ""
    said = ""
    if prompt.startswith(("/toolset", "/enf-git:toolset")):  # the user switches: done here, before the model
        said = _toolset_command(where, sid, prompt, payload.get("permission_mode"))
    if gate.opted_out(where.root, sid):  # not tracked: not even its prompts are logged
        return reply("UserPromptSubmit", additionalContext=said) if said else ""
    events.append(where.root, sid, "prompt", prompt=prompt)
    found, state = _own_file(where, sid)
    parts = [said, _session_reminder(where, sid, found, state)]
    # Loaded here, not with the module: PreToolUse and PostToolUse import this file too.
    # A trivial prompt loads nothing more: not the pointers reader, the settings or the skills.
    from ...plumbing import prompt_kind

    if not prompt_kind.trivial(prompt):  # "yes", "continue", a number, a slash command: nothing to look up
        from ...plumbing import fastconfig

        config = _settings(where)
        if fastconfig.flag(config, "brainFirst", True):
            parts.append(_brain_first(where, sid, prompt, state, config))
        if fastconfig.flag(config, "skillHints", True):  # off: not even its module is loaded
            parts.append(_skill_hint(where, prompt, config))
    _save_state(where, sid, state)
    text = "\n\n".join(p for p in parts if p)
    return reply("UserPromptSubmit", additionalContext=text) if text else ""


def _session_reminder(where: Where, sid: str, found: str | None, state: dict[str, object]) -> str:
    """The gate's reminder while the session file is missing, then the heartbeat every few prompts."""
    if found is None:
        return gate.reminder(sid)
    prompts = _count(state.get("prompts", 0)) + 1
    state["prompts"] = prompts
    if prompts < HEARTBEAT_PROMPTS:
        return ""
    name = os.path.relpath(found, where.top)
    # No tags of our own: the client puts hook context inside its system reminder already,
    # and a tag in our text is what frame.py takes away from memory's.
    return (f"enf-git heartbeat: {prompts} prompts since {name} was last updated. "
            f"Update it now (Interactions, Decisions as Y-statements, Errors & Fixes, Friction Events, Open Items) "
            f"before answering.")


def _settings(where: Where) -> dict[str, str]:
    """The `enf.*` switches, read once for every part of the reply; unreadable: the defaults."""
    from . import brainfirst

    try:
        return brainfirst.settings(where)
    except Exception as exc:  # noqa: BLE001 - the contract: never break the session
        record_error(where.state, "UserPromptSubmit settings", exc)
        return {}


def _brain_first(where: Where, sid: str, prompt: str, state: dict[str, object], config: dict[str, str]) -> str:
    """Pointers into memory for this prompt; fail-open: a broken index costs the pointers, not the prompt."""
    from . import brainfirst

    try:
        return brainfirst.block(where, prompt, state, config, sid)
    except Exception as exc:  # noqa: BLE001 - the contract: never break the session
        record_error(where.state, "UserPromptSubmit brain-first", exc)
        return ""


def _skill_hint(where: Where, prompt: str, config: dict[str, str]) -> str:
    """Installed skills that may fit this prompt; fail-open: a broken skill index costs the hint only."""
    from . import skills

    try:
        return skills.hint(where, prompt, config, skills.claude_home(os.environ))
    except Exception as exc:  # noqa: BLE001 - the contract: never break the session
        record_error(where.state, "UserPromptSubmit skill hints", exc)
        return ""


def _toolset(where: Where, sid: str, tool: str, payload: dict[str, object], cwd: str) -> str:
    """The toolset profile's decision on a call the gate lets through; fail-open to the
    client's own permission flow: a broken profile file must not stop every tool."""
    if _plainly_build(where, sid, tool, payload):
        return ""  # nothing chosen, no plan mode, no profile file: only a force push could be denied
    from . import toolset

    try:
        return toolset.pre_tool_use(where, sid, tool, payload, cwd)
    except Exception as exc:  # noqa: BLE001 - the contract: never break the session
        record_error(where.state, "PreToolUse toolset", exc)
        return ""


def _plainly_build(where: Where, sid: str, tool: str, payload: dict[str, object]) -> bool:
    """The built-in build, for a call it cannot deny, known from a few stat calls: the
    profile machinery is not even imported on the path most tool calls take."""
    if payload.get("permission_mode") == "plan":
        return False
    tool_input = payload.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if tool == "Bash" and (not isinstance(command, str) or "push" in command):
        return False
    # Every file whose presence can make the profile other than the built-in build (their
    # names in paths.py; plumbing/toolset_files.py reads them): importing it costs more than the stats.
    decisive = (os.path.join(where.state, paths.TOOLSET_CHOICES, gate.id8(sid)),
                os.path.join(where.top, paths.ACTIVE_TOOLSET), os.path.join(where.top, paths.TOOLSETS_FILE),
                os.path.join(paths.user_config_dir(os.environ), paths.TOOLSETS_FILE))
    return not any(os.path.exists(path) for path in decisive)


def _toolset_command(where: Where, sid: str, prompt: str, mode: object) -> str:
    from . import toolset

    if not toolset.is_command(prompt):
        return ""
    try:
        return toolset.command(where, sid, prompt, mode)
    except Exception as exc:  # noqa: BLE001 - the contract: never break the session
        record_error(where.state, "UserPromptSubmit toolset", exc)
        return "enf-git toolset: the switch failed (see .git/enf/hook-errors.log); nothing changed. Tell the user."


def post_tool_use(where: Where, payload: dict[str, object]) -> str:
    _log_tool(where, payload, "tool")
    return ""


def post_tool_use_failure(where: Where, payload: dict[str, object]) -> str:
    error = payload.get("error")
    _log_tool(where, payload, "tool-failure", error=error if isinstance(error, str) else "")
    return ""


def _log_tool(where: Where, payload: dict[str, object], kind: str, **extra: str) -> None:
    sid = session_of(payload)
    if sid and os.path.isdir(where.root) and not gate.opted_out(where.root, sid):
        tool = payload.get("tool_name")
        tool = tool if isinstance(tool, str) else ""
        events.append(where.root, sid, kind, tool=tool, summary=events.tool_summary(tool, payload.get("tool_input")),
                      **extra)


HANDLERS = {"PreToolUse": pre_tool_use, "UserPromptSubmit": user_prompt_submit, "PostToolUse": post_tool_use,
        "PostToolUseFailure": post_tool_use_failure}


def _satisfied(where: Where, sid: str) -> bool:
    return gate.opted_out(where.root, sid) or _own_file(where, sid)[0] is not None


def _own_file(where: Where, sid: str) -> tuple[str | None, dict[str, object]]:
    """This session's file (cached as a hint) and its state; a new or touched file
    restarts the heartbeat's prompt count, and that is saved at once."""
    state = _load_state(where, sid)
    found = gate.matching_file(where.root, sid, hint=_hint(state))
    if found is not None:
        mtime = os.stat(found).st_mtime
        if state.get("file") != found or state.get("mtime") != mtime:
            state.update(file=found, mtime=mtime, prompts=0)
            _save_state(where, sid, state)
    return found, state


def _state_path(where: Where, sid: str) -> str:
    return os.path.join(where.state, paths.HOOK_STATE_DIR, events.safe_name(sid) + ".json")


def _load_state(where: Where, sid: str) -> dict[str, object]:
    try:
        with open(_state_path(where, sid), encoding="utf-8") as f:
            data = fastjson.loads(f.read())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _hint(state: dict[str, object]) -> str | None:
    """The session file the state remembers (a hint that gate.matching_file re-verifies)."""
    file = state.get("file")
    return file if isinstance(file, str) else None


def _count(value: object) -> int:
    """int() of the stored prompt count: a list, dict or null raises TypeError, as int() itself would."""
    if isinstance(value, (int, float, str)):
        return int(value)
    raise TypeError(f"prompt count is a {type(value).__name__}")


def _save_state(where: Where, sid: str, state: dict[str, object]) -> None:
    """Written in place, not through atomic.write: the temporary file and rename cost 0.5 ms
    of every prompt (measured), and this file is only hints: a torn one reads as no state,
    which restarts the heartbeat count and may repeat a pointer once, while the gate
    re-verifies the session file it names before trusting it.

    Overwritten, then cut to its length, never opened with O_TRUNC: on ext4 a file
    truncated to zero and written again is flushed to disk at close (its
    `auto_da_alloc` guard for programs that replace files so), ~1-2 ms of a prompt
    whenever the last prompt's state was still unwritten. What is left past the new
    length (a crash between the write and the cut) makes the file no JSON: no state."""
    path = _state_path(where, sid)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    data = fastjson.dumps(state).encode("utf-8", "replace")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        written = os.write(fd, data)
        os.ftruncate(fd, written)
    finally:
        os.close(fd)


