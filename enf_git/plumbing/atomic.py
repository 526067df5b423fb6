"""The one atomic write: a temporary file beside the target, then a rename.

Readers (a concurrent commit, another hook, git) see the old bytes or the new ones,
never half a file; two writers each leave a whole file. Stdlib `os` only: the
per-call hooks save their state through here.
"""

import os


def write(path: str | os.PathLike[str], data: bytes) -> None:
    target = os.fspath(path)
    folder, name = os.path.split(target)
    # A dot-name ending in .tmp: the working-copy scan skips both, so a temporary file
    # caught by a concurrent commit is never committed.
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
