"""What every Claude Code hook handler shares: where a payload's project is, which
session it is, and the reply shape (see docs/claude-code.md: `hookSpecificOutput` naming
the firing event). Stdlib only: the per-call hooks import it.
"""

import os

TYPE_CHECKING = False  # not typing's: the per-call hooks import this module
if TYPE_CHECKING:
    from collections.abc import Callable

from ... import fastjson, paths
from ...plumbing import gitdirs


class Where:
    """Paths for one payload: the working copy and the per-machine state folder."""

    def __init__(self, top: str, common: str, git_dir: str | None = None) -> None:
        self.top = top
        self.root = os.path.join(top, paths.WC_DIR)
        self.common = common
        self.git_dir = git_dir or common  # this worktree's git dir (a linked worktree's differs)
        self.state = paths.state_dir(common)


def locate(payload: dict[str, object]) -> Where | None:
    """The project's working copy, if enf-git is set up there (else every hook is a no-op)."""
    start = os.environ.get("CLAUDE_PROJECT_DIR") or payload.get("cwd")
    if not isinstance(start, str) or not start:
        return None
    found = gitdirs.find(start)
    if found is None:
        return None
    return Where(found[0], found[2], found[1])


def session_of(payload: dict[str, object]) -> str:
    sid = payload.get("session_id")
    if not isinstance(sid, str) or not sid:
        sid = os.environ.get("CLAUDE_CODE_SESSION_ID", "")
    return sid


def reply(event: str, **fields: str) -> str:
    """The hook's answer. Its context passes the tag rule once more as a whole (every
    memory text in it was shown through frame.py already): whatever produced it, no
    `</system-reminder>` reaches the client from us."""
    for key in ("additionalContext", "permissionDecisionReason"):  # a denial can quote a team's toolsets.yaml
        text = fields.get(key, "")
        if any(c in text for c in "<&\\\uff1c\ufe64\u2329\u3008"):  # else no spelling of `<`: frame.py not loaded
            from ... import frame

            fields[key] = frame.tags_only(text)
    return fastjson.dumps({"hookSpecificOutput": {"hookEventName": event, **fields}})


def record_note(folder: str, what: str, line: str) -> None:
    """One line in `folder`/hook-errors.log: an expected failure (no traceback to read)."""
    _append_log(folder, what, lambda: line)


def record_error(folder: str, what: str, exc: BaseException) -> None:
    """Append `exc` with its traceback to `folder`/hook-errors.log: where a hook's internal
    errors go, never to the model. Logging must not break the hook either."""
    def text() -> str:
        import traceback

        return "".join(traceback.format_exception(exc))[-4000:]

    _append_log(folder, what, text)


def _append_log(folder: str, what: str, text: "Callable[[], str]") -> None:
    try:
        import time

        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, paths.HOOK_ERRORS), "a", encoding="utf-8") as f:
            f.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {what}: {text()}\n")
    except BaseException:  # noqa: BLE001, S110 - a log that cannot be written must not break the hook
        pass
