"""Claude Code hook entry point: `enf-hook <event>` reads the event JSON on stdin.

`enf-hook --assistant=codex <event>` serves another client through its adapter
(assistants/events.py: the neutral event and answer; docs/codex.md).

Contract (measured, see docs/claude-code.md): replies are `hookSpecificOutput` objects
naming the firing event; exit 0 always, except that the gate denies with
`permissionDecision: "deny"`. Any internal error, malformed or oversized input, a
missing repository, or a slow disk ends in exit 0 with nothing on stdout; details go
to `.git/enf/hook-errors.log`, never to the model. A timer ends the process before
Claude Code's own timeout would.

PreToolUse, PostToolUse(Failure) and UserPromptSubmit run on every call: their path
imports only the standard library (os, time, and json's C core through fastjson). SessionStart, Stop, PreCompact
and SessionEnd load the git machinery from lifecycle.py.
"""

import os
import sys

from .plumbing import gitdirs

from . import fastjson, paths
from .assistants import events

from .assistants.claude import fast
from .assistants.claude.protocol import locate, record_error
from .paths import LAUNCH  # noqa: F401 - re-exported: older settings and tests name it here

TYPE_CHECKING = False  # typing.TYPE_CHECKING would import typing on every tool call
if TYPE_CHECKING:
    from collections.abc import Callable

MAX_STDIN = 16 * 1024 * 1024
BUDGET = {"fast": 3.0, "SessionStart": 25.0, "Stop": 25.0, "PreCompact": 25.0, "SessionEnd": 1.0,
          "background-commit": 60.0, "background-fetch": 45.0, "background-index": 120.0}
NAMES = {
    "session-start": "SessionStart", "user-prompt-submit": "UserPromptSubmit", "pre-tool-use": "PreToolUse",
    "post-tool-use": "PostToolUse", "post-tool-use-failure": "PostToolUseFailure", "pre-compact": "PreCompact",
    "stop": "Stop", "session-end": "SessionEnd",
}


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    assistant = ""
    if argv and argv[0].startswith("--assistant="):  # another client's adapter (assistants/events.py)
        assistant, argv = argv[0].partition("=")[2], argv[1:]
    event = NAMES.get(argv[0], argv[0]) if argv else ""
    if event not in ("PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit"):
        # A one-shot process that exits through os._exit: the cyclic GC would only
        # rescan what importing pygit2 allocated (~7 ms of each SessionStart/Stop).
        import gc

        gc.disable()
    _arm_timer(BUDGET.get(event, BUDGET["fast"]))
    if event in ("background-commit", "background-fetch", "background-index"):
        out = respond(event, b"", lambda: _background(event, argv[1:]))
    else:
        out = respond(event, b"", lambda: run(event, sys.stdin.buffer.read(MAX_STDIN + 1), assistant))
    if out:
        sys.stdout.write(out)
        sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown; nothing is left to flush


def respond(event: str, raw: bytes, action: "Callable[[], str] | None" = None) -> str:
    """The error boundary: whatever happens inside, the answer is a reply or silence."""
    try:
        return action() if action is not None else run(event, raw)
    except BaseException as exc:  # noqa: BLE001 - the contract: never break the session
        _record_error(event, exc)
        return ""


def _background(event: str, args: list[str]) -> str:
    from .assistants.claude import lifecycle

    if event == "background-fetch":
        lifecycle.background_fetch(args[0])
    elif event == "background-index":
        lifecycle.background_index(args[0])
    else:
        lifecycle.background_commit(args[0])
    return ""


def run(event: str, raw: bytes, assistant: str = "") -> str:
    """The reply (stdout text) for one event; '' for silence. `assistant` names the
    client's adapter (none: Claude Code's), which maps its payload to the neutral event
    and the core's answer to its reply."""
    if len(raw) > MAX_STDIN:
        return ""
    try:
        payload = fastjson.loads(raw.decode("utf-8", "replace") or "{}")
    except ValueError:
        return ""
    if not isinstance(payload, dict):
        return ""
    adapter = events.adapter(assistant)
    neutral = adapter.event(event, payload)
    if neutral is None:
        return ""
    return adapter.answer(event, _core(adapter.core_event(event, neutral), neutral))


def _core(event: str, payload: "dict[str, object]") -> str:
    """The core's answer to a neutral event (assistants/events.py)."""
    where = locate(payload)
    if where is None:
        return ""
    handler = fast.HANDLERS.get(event)
    if handler is not None:
        return handler(where, payload)
    if event in ("SessionStart", "Stop", "PreCompact", "SessionEnd"):
        from .assistants.claude import lifecycle

        return lifecycle.handle(event, where, payload)
    return ""


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
        found = gitdirs.find(os.getcwd())
        folder = paths.state_dir(found[2]) if found else os.path.expanduser(paths.USER_FALLBACK_STATE)
    except BaseException:  # noqa: BLE001 - logging must not break the contract either
        return
    record_error(folder, event, exc)


if __name__ == "__main__":
    main()
