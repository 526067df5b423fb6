"""Doctor's checks of the installation: what `git enf init` set up outside the branch."""

from __future__ import annotations

from collections.abc import Callable

from .. import paths
from ..plumbing import store
from .doctor import Problem
from .workspace import Context


def exclude_entry(ctx: Context) -> list[Problem]:
    exclude = store.common_dir(ctx.repo) / "info" / "exclude"
    text = exclude.read_text(encoding="utf-8") if exclude.is_file() else ""
    if paths.EXCLUDE_LINE not in text.splitlines():
        return [Problem("warning", f"{paths.WC_DIR}/ is not in .git/info/exclude", "git enf init")]
    return []


CHECKS: tuple[tuple[str, Callable[[Context], list[Problem]]], ...] = (
    ("exclude entry", exclude_entry),
)
