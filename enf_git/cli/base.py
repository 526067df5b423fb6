"""What every command module shares: click settings, opening the workspace, output."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

import click

from ..memory.workspace import Context
from ..plumbing import store
from . import text

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
JSON_OPTION = click.option("--json", "as_json", is_flag=True, help="Machine-readable output (a versioned envelope).")


class Options:
    """Group-level options, carried on click's context object."""

    def __init__(self, no_pager: bool = False) -> None:
        self.no_pager = no_pager


def workspace() -> Context:
    """The repository and working copy of the current folder (read once per command)."""
    return Context.open(Path.cwd())


def reading() -> Context:
    """workspace(), with what git fetched since the last read merged first: a teammate's
    memory that `git fetch` or a no-op `git pull` brought is in this read's answer."""
    from ..memory.share import fetched

    ctx = workspace()
    for line in fetched.said(fetched.catch_up(ctx)):
        click.echo(line, err=True)
    return ctx


def emit(ctx: Context | None, out: str, *, pageable: bool = False) -> None:
    """Print `out`, through git's pager when it is long output on a terminal."""
    options = click.get_current_context().find_object(Options)
    tty = sys.stdout.isatty()
    if pageable and tty and ctx is not None and not (options and options.no_pager):
        pager = text.pager_command(_git_pager(ctx))
        if pager is not None:
            text.page(out + "\n", pager)  # the bytes click.echo would have printed
            return
    click.echo(out, color=text.color_wanted(_color_ui(ctx), tty))


def style(ctx: Context | None, value: str, **styles: object) -> str:
    if not text.color_wanted(_color_ui(ctx), sys.stdout.isatty()):
        return value
    return click.style(value, **styles)  # type: ignore[arg-type]


def _color_ui(ctx: Context | None) -> str | None:
    """color.ui as git would read it: `git -c color.ui=…` first, then the config files."""
    given = text.command_line_config("color.ui")
    if given is not None or ctx is None:
        return given
    return store.config_value(ctx.repo, "color.ui")


def _git_pager(ctx: Context) -> str | None:
    import subprocess

    try:
        proc = subprocess.run(["git", "var", "GIT_PAGER"], cwd=ctx.top, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def parse_date(value: str | None, option: str, today: dt.date | None = None) -> str | None:
    """YYYY-MM-DD (a real day), `today`, `yesterday`, or a span before `today` (default:
    the local day; `3d`, `2w`, `1m`, `1y`, `7 days ago`); a usage error (exit 2) otherwise.
    Every option that takes a day reads it here, so they all accept the same words."""
    if value is None:
        return None
    from ..memory.record import queries

    try:
        return queries.parse_date(value, today or dt.date.today())
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint=option) from exc
