"""Find the git dir, common dir and a ref's value with the standard library alone.

The per-call hooks and the warm recall path must not import pygit2 (~80 ms), so
they locate things the way git does for the common cases (a `.git` folder, a
`.git` file of a linked worktree, loose or packed refs) and return None for
anything unusual, letting the caller take the full pygit2 path instead.
"""

import os


def find(start: str) -> tuple[str, str, str] | None:
    """(work tree top, git dir, common dir) for `start`; None if unsure or none."""
    if os.environ.get("GIT_DIR") or os.environ.get("GIT_COMMON_DIR") or os.environ.get("GIT_WORK_TREE"):
        return None  # unusual set-ups: let pygit2/git decide
    folder = os.path.abspath(start)
    while True:
        dotgit = os.path.join(folder, ".git")
        if os.path.isdir(dotgit):
            return folder, dotgit, _common(dotgit)
        if os.path.isfile(dotgit):
            git_dir = _pointer(dotgit, folder)
            return (folder, git_dir, _common(git_dir)) if git_dir else None
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _pointer(dotgit: str, folder: str) -> str | None:
    try:
        with open(dotgit, encoding="utf-8") as f:
            text = f.read().strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    return os.path.normpath(os.path.join(folder, text[len("gitdir:"):].strip()))


def _common(git_dir: str) -> str:
    try:
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8") as f:
            return os.path.normpath(os.path.join(git_dir, f.read().strip()))
    except OSError:
        return git_dir


def read_ref(common: str, ref: str) -> str | None:
    """A ref's OID from its loose file or packed-refs; None if absent or symbolic."""
    try:
        with open(os.path.join(common, ref), encoding="utf-8") as f:
            value = f.read().strip()
        return value if len(value) == 40 and all(c in "0123456789abcdef" for c in value) else None
    except OSError:
        pass
    try:
        with open(os.path.join(common, "packed-refs"), encoding="utf-8") as f:
            for line in f:
                if line.rstrip("\n").endswith(f" {ref}"):
                    return line.split(" ", 1)[0]
    except OSError:
        return None
    return None
