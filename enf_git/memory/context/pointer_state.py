"""Where the brain-first pointers file is, and whether it lags the branch: what SessionStart
and Stop ask after every commit, so this module imports neither sqlite nor the indexer."""

from __future__ import annotations

from pathlib import Path

from ... import paths
from ...plumbing import pointers, store
from ...pure.pins import PINS_DIR


def pointers_path(repo: store.Repo) -> Path:
    return store.state_dir(repo) / paths.POINTERS


# What the pointers file is made of: the records, and the pins that order its pointers.
POINTER_SOURCES = (paths.SESSIONS_DIR, paths.DECISIONS_DIR, PINS_DIR)


def pointers_stale(repo: store.Repo) -> bool:
    """Whether the per-prompt pointers file lags the branch tip (or is missing, or its
    verdicts on instruction-like texts are another version's).

    A tip that moved without touching sessions/, decisions/ or pins/ (every start and
    stop commits log.md) leaves it current: rebuilding it then would cost a background
    process for nothing after most hooks."""
    tip = store.tip(repo)
    if tip is None:
        return False
    found = pointers.load_current(str(pointers_path(repo)))
    if found is None:
        return True
    if found.tip != str(tip.id):
        built = store.commit_at(repo, found.tip)
        if built is None:
            return True
        now, then = store.root_entries(tip.tree), store.root_entries(built.tree)
        if any(now.get(name) != then.get(name) for name in POINTER_SOURCES):
            return True
    return _other_rules(found)


def _other_rules(found: pointers.Index | pointers.Layered) -> bool:
    """Whether the file's verdicts on its texts (which read as instructions) came from other
    rules than this version's, or it has none: written again, or a prompt would show the old
    verdicts (or, with none, load the rules to judge its pointers itself)."""
    from ...pure import suspicious

    files = [found.base, found.delta] if isinstance(found, pointers.Layered) else [found]
    return any(f.header.get("rules") != suspicious.RULES_VERSION for f in files)
