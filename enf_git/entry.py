"""Console-script entry for `git-enf`.

`git enf recall WORD` is meant to be as quick as `git grep`. When the recall index is
already built for the current branch tip, it is answered here with the standard
library alone (no click, no pygit2); anything else goes to the full CLI.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def main() -> None:
    argv = sys.argv[1:]
    if argv[:1] == ["recall"] and _fast_recall(argv[1:]):
        return
    from .cli import main as cli_main

    cli_main()


def _fast_recall(args: list[str]) -> bool:
    """Answer from a warm index; False (nothing printed) means: use the full CLI."""
    limit, as_json, words = 10, False, []
    it = iter(args)
    for arg in it:
        if arg == "--json":
            as_json = True
        elif arg in ("-n", "--limit"):
            value = next(it, "")
            if not value.isdigit() or not 1 <= int(value) <= 1000:
                return False
            limit = int(value)
        elif arg.startswith("-"):
            return False
        else:
            words.append(arg)
    if not words:
        return False
    try:
        from . import gitdirs, search

        dirs = gitdirs.find(os.getcwd())
        if dirs is None:
            return False
        db_file = Path(dirs[2]) / "enf" / "search.db"
        tip = gitdirs.read_ref(dirs[2], "refs/heads/claude-memory")
        if tip is None or not db_file.is_file():
            return False
        db = search.connect(db_file)
        if search.indexed_tip(db) != tip:
            return False
        text = " ".join(words)
        hits = search.query(db, text, limit)
        out = search.format_json(hits) if as_json else search.format_hits(hits, text)
    except Exception:  # noqa: BLE001 - any doubt: the full path rebuilds and reports properly
        return False
    sys.stdout.write(out + "\n")
    return True
