"""Claude Code hook entry point: `enf-hook <event>` reads the event JSON on stdin.

Contract (measured, see CLAUDE-CODE.md): replies are `hookSpecificOutput` objects
naming the firing event; exit 0 always, except that the gate denies with
`permissionDecision: "deny"`. Any internal error, malformed or oversized input, a
missing repository, or a slow disk ends in exit 0 with nothing on stdout; details go
to `.git/enf/hook-errors.log`, never to the model. A timer ends the process before
Claude Code's own timeout would.

PreToolUse, PostToolUse(Failure) and UserPromptSubmit run on every call: their path
imports only the standard library (os, time, and json's C core through fastjson). SessionStart, Stop, PreCompact
and SessionEnd load the git machinery from lifecycle.py.
"""

from __future__ import annotations

import os
import sys
import time

from .plumbing import events, gitdirs

from . import fastjson

from .claude import gate

TYPE_CHECKING = False  # typing.TYPE_CHECKING would import typing on every tool call
if TYPE_CHECKING:
    from collections.abc import Callable

# How to run this module as a program (settings' commands, the background commit).
# `python -c` and `-m` put the current folder (the user's project) first on sys.path,
# so a project file named json.py or subprocess.py would be imported in place of the
# standard module and silently break the hook: drop that entry before importing.
LAUNCH = "import sys; sys.path[:] = [p for p in sys.path if p]; from enf_git.hook import main; main()"
MAX_STDIN = 16 * 1024 * 1024
BUDGET = {"fast": 3.0, "SessionStart": 25.0, "Stop": 25.0, "PreCompact": 25.0, "SessionEnd": 1.0,
          "background-commit": 60.0}
HEARTBEAT_PROMPTS = 5
NAMES = {
    "session-start": "SessionStart", "user-prompt-submit": "UserPromptSubmit", "pre-tool-use": "PreToolUse",
    "post-tool-use": "PostToolUse", "post-tool-use-failure": "PostToolUseFailure", "pre-compact": "PreCompact",
    "stop": "Stop", "session-end": "SessionEnd",
}


class Where:
    """Paths for one payload: the working copy and the per-machine state folder."""

    def __init__(self, top: str, common: str) -> None:
        self.top = top
        self.root = os.path.join(top, gate.WC_DIR)
        self.state = os.path.join(common, "enf")


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    event = NAMES.get(argv[0], argv[0]) if argv else ""
    if event not in ("PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit"):
        # A one-shot process that exits through os._exit: the cyclic GC would only
        # rescan what importing pygit2 allocated (~7 ms of each SessionStart/Stop).
        import gc

        gc.disable()
    _arm_timer(BUDGET.get(event, BUDGET["fast"]))
    if event == "background-commit":
        out = respond(event, b"", lambda: _background(argv[1:]))
    else:
        out = respond(event, b"", lambda: run(event, sys.stdin.buffer.read(MAX_STDIN + 1)))
    if out:
        sys.stdout.write(out)
        sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown; nothing is left to flush


def respond(event: str, raw: bytes, action: Callable[[], str] | None = None) -> str:
    """The error boundary: whatever happens inside, the answer is a reply or silence."""
    try:
        return action() if action is not None else run(event, raw)
    except BaseException as exc:  # noqa: BLE001 - the contract: never break the session
        _record_error(event, exc)
        return ""


def _background(args: list[str]) -> str:
    from .claude import lifecycle

    lifecycle.background_commit(args[0])
    return ""


def run(event: str, raw: bytes) -> str:
    """The reply (stdout text) for one event; '' for silence."""
    if len(raw) > MAX_STDIN:
        return ""
    try:
        payload = fastjson.loads(raw.decode("utf-8", "replace") or "{}")
    except ValueError:
        return ""
    if not isinstance(payload, dict):
        return ""
    where = locate(payload)
    if where is None:
        return ""
    handler = FAST.get(event)
    if handler is not None:
        return handler(where, payload)
    if event in ("SessionStart", "Stop", "PreCompact", "SessionEnd"):
        from .claude import lifecycle

        return lifecycle.handle(event, where, payload)
    return ""


def locate(payload: dict[str, object]) -> Where | None:
    """The project's working copy, if enf-git is set up there (else every hook is a no-op)."""
    start = os.environ.get("CLAUDE_PROJECT_DIR") or payload.get("cwd")
    if not isinstance(start, str) or not start:
        return None
    found = gitdirs.find(start)
    if found is None:
        return None
    return Where(found[0], found[2])


def session_of(payload: dict[str, object]) -> str:
    sid = payload.get("session_id")
    if not isinstance(sid, str) or not sid:
        sid = os.environ.get("CLAUDE_CODE_SESSION_ID", "")
    return sid


def reply(event: str, **fields: str) -> str:
    return fastjson.dumps({"hookSpecificOutput": {"hookEventName": event, **fields}})


def pre_tool_use(where: Where, payload: dict[str, object]) -> str:
    sid = session_of(payload)
    if not sid or not os.path.isdir(where.root) or _satisfied(where, sid):
        return ""
    tool = payload.get("tool_name")
    tool = tool if isinstance(tool, str) else ""
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else where.top
    if gate.is_creation(where.root, tool, payload.get("tool_input"), str(cwd)):
        return ""
    events.append(where.root, sid, "gate-deny", tool=tool, summary=events.tool_summary(tool, payload.get("tool_input")))
    return reply("PreToolUse", permissionDecision="deny", permissionDecisionReason=gate.deny_reason(sid))


def user_prompt_submit(where: Where, payload: dict[str, object]) -> str:
    sid = session_of(payload)
    if not sid or not os.path.isdir(where.root):
        return ""
    prompt = payload.get("prompt")
    events.append(where.root, sid, "prompt", prompt=prompt if isinstance(prompt, str) else "")
    if gate.opted_out(where.root, sid):
        return ""
    found, state = _own_file(where, sid)
    if found is None:
        return reply("UserPromptSubmit", additionalContext=gate.reminder(sid))
    prompts = _count(state.get("prompts", 0)) + 1
    state["prompts"] = prompts
    _save_state(where, sid, state)
    if prompts >= HEARTBEAT_PROMPTS:
        name = os.path.relpath(found, where.top)
        return reply("UserPromptSubmit", additionalContext=(
            f"<system-reminder>enf-git heartbeat: {prompts} prompts since {name} was last updated. "
            f"Update it now (Interactions, Decisions as Y-statements, Errors & Fixes, Friction Events, Open Items) "
            f"before answering.</system-reminder>"))
    return ""


def post_tool_use(where: Where, payload: dict[str, object]) -> str:
    _log_tool(where, payload, "tool")
    return ""


def post_tool_use_failure(where: Where, payload: dict[str, object]) -> str:
    error = payload.get("error")
    _log_tool(where, payload, "tool-failure", error=error if isinstance(error, str) else "")
    return ""


def _log_tool(where: Where, payload: dict[str, object], kind: str, **extra: str) -> None:
    sid = session_of(payload)
    if sid and os.path.isdir(where.root):
        tool = payload.get("tool_name")
        tool = tool if isinstance(tool, str) else ""
        events.append(where.root, sid, kind, tool=tool, summary=events.tool_summary(tool, payload.get("tool_input")),
                      **extra)


FAST = {"PreToolUse": pre_tool_use, "UserPromptSubmit": user_prompt_submit, "PostToolUse": post_tool_use,
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
    return os.path.join(where.state, "sessions", events.safe_name(sid) + ".json")


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
    path = _state_path(where, sid)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(fastjson.dumps(state))
    os.replace(tmp, path)


def _arm_timer(seconds: float) -> None:
    """Exit 0 silently before Claude Code's timeout can turn us into a 'hook error'."""
    try:
        # The C module: `signal` would pull in enum on the hot path. typeshed has no stub for it.
        import _signal  # type: ignore[import-not-found]

        _signal.signal(_signal.SIGALRM, lambda *_: os._exit(0))
        _signal.setitimer(_signal.ITIMER_REAL, seconds)
    except (ImportError, AttributeError, ValueError, OSError):
        pass  # no SIGALRM (Windows): the per-hook timeout in settings still bounds us


def _record_error(event: str, exc: BaseException) -> None:
    try:
        import traceback

        found = gitdirs.find(os.getcwd())
        folder = os.path.join(found[2], "enf") if found else os.path.expanduser("~/.cache/enf-git")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "hook-errors.log"), "a", encoding="utf-8") as f:
            f.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {event}: {''.join(traceback.format_exception(exc))[-4000:]}\n")
    except BaseException:  # noqa: BLE001, S110 - logging must not break the contract either
        pass


if __name__ == "__main__":
    main()
