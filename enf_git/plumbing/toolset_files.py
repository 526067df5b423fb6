"""Where toolset profiles live on disk, and each session's choice of one: bytes and
paths only (pure/toolsets.py parses and decides).

- `toolsets.yaml` at the top of the work tree: the team's profiles, committed with the
  code. Not on the claude-memory branch: that branch is written by assistants as they
  work, and a profile is a permission; an assistant must not be able to widen its own
  by writing memory, while a change to a committed file goes through the team's review.
- `toolsets.yaml` in the user's enf-git config folder: one person's profiles, for every
  project; the project's win over them, and both over the built-ins.
- `.claude/active-toolset` (seed 003's file): one profile name, the project's default
  for new sessions.
- `<git common dir>/enf/toolsets/<session id8>`: one session's choice. Per session, so
  two sessions in one repository can work in two modes at once; in the git dir, so it is
  never committed and every worktree's sessions are found in one place.
"""


import os

from .. import paths
from . import atomic

FILE_NAME = paths.TOOLSETS_FILE
DEFAULT_FILE = paths.ACTIVE_TOOLSET
CHOICES_DIR = paths.TOOLSET_CHOICES
ID_CHARS = 8  # a session's choice is named by its first 8 characters, as its file is


def layer_files(top: str, user_dir: str) -> list[tuple[str, str]]:
    """(path, name to show) of the toolsets files, lowest precedence first: the user's,
    then the project's."""
    user = os.path.join(user_dir, FILE_NAME)
    return [(user, user), (os.path.join(top, FILE_NAME), FILE_NAME)]


def read(path: str) -> bytes | None:
    """A toolsets file's bytes; None when there is none (OSError when it cannot be read)."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None


def project_default(top: str) -> str | None:
    """The profile `.claude/active-toolset` names, if it names one."""
    try:
        with open(os.path.join(top, DEFAULT_FILE), encoding="utf-8") as f:
            name = f.read().strip()
    except (OSError, UnicodeDecodeError):
        return None
    return name or None


def choice_path(state_dir: str, session_id: str) -> str:
    key = "".join(c for c in session_id if c.isalnum() or c in "-_")[:ID_CHARS]
    if not key:
        raise ValueError(f"{session_id!r} is no session id")
    return os.path.join(state_dir, CHOICES_DIR, key)


def chosen(state_dir: str, session_id: str) -> str | None:
    """The profile this session chose, if it chose one."""
    try:
        with open(choice_path(state_dir, session_id), encoding="utf-8") as f:
            return f.read().strip() or None
    except (OSError, UnicodeDecodeError, ValueError):
        return None


def choose(state_dir: str, session_id: str, name: str) -> None:
    path = choice_path(state_dir, session_id)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    atomic.write(path, f"{name}\n".encode())


def clear(state_dir: str, session_id: str) -> bool:
    """Forget this session's choice, so it falls back to the project's default; whether
    there was one."""
    try:
        os.unlink(choice_path(state_dir, session_id))
    except FileNotFoundError:
        return False
    return True


# --- the compiled table, so a tool call never parses YAML ---------------------------------

CACHE_FILE = "toolsets.json"


def signature(files: list[tuple[str, str]]) -> list[list[object]]:
    """What the compiled table depends on: each file's path, size and modification time
    (None for a file that is not there). Any edit changes one of them."""
    out: list[list[object]] = []
    for path, _shown in files:
        try:
            st = os.stat(path)
        except OSError:
            out.append([path, None, None])
        else:
            out.append([path, st.st_size, st.st_mtime_ns])
    return out


def read_cache(state_dir: str) -> dict[str, object] | None:
    from .. import fastjson

    try:
        with open(os.path.join(state_dir, CACHE_FILE), encoding="utf-8") as f:
            data = fastjson.loads(f.read())
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return data if isinstance(data, dict) else None


def write_cache(state_dir: str, data: dict[str, object]) -> None:
    """Best effort: a state folder that cannot be written costs a parse per call, not the call."""
    from .. import fastjson

    try:
        atomic.write(os.path.join(state_dir, CACHE_FILE), fastjson.dumps(data).encode("utf-8"))
    except OSError:
        pass
