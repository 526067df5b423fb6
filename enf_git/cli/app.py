"""`git enf …`: the group, its one error boundary, and the commands' registration.

Exit codes: 0 success, 1 an error we explain (EnfError, or a command that could
not do all it was asked), 2 a usage error (click, or an argument we refuse), 130
interrupted (Ctrl-C).
Only this package imports click; the commands live one module per group of verbs
(setup, work, read, checks) and render what memory/ operations return.
"""

from __future__ import annotations

import sys
from typing import Any, NoReturn

import click

from .. import __version__, paths
from ..errors import EnfError, git_failure, interrupted_line, refused_write
from . import checks, dashboard, facts, instincts, lifecycle, pins, read, serve, setup, stats, sync, toolset, trust, work
from .base import CONTEXT, Options


class _Group(click.Group):
    """The error boundary: a core error becomes `error:`/`hint:` lines and exit 1."""

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: Any) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except KeyboardInterrupt:  # while parsing: click would say "Aborted!" and exit 1
            _interrupted(next((a for a in args if not a.startswith("-")), None))  # the command, as entry.py names it

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            _interrupted(ctx.invoked_subcommand)
        except EnfError as exc:
            _fail(exc.message, exc.hint)
        except OSError as exc:
            refused = refused_write(exc)
            if refused is None:
                raise  # a bug of ours: the traceback is what a report needs
            _fail(refused.message, refused.hint)  # a .git that is not ours to write
        except Exception as exc:
            from ..plumbing import store

            if not store.is_git_error(exc):
                raise  # a bug of ours: the traceback is what a report needs
            _fail(*git_failure(exc))


def _interrupted(command: str | None) -> NoReturn:
    """Ctrl-C: every write (a commit, the manifest, a push) lands whole or not at all, and
    the locks went with the unwinding; exit as git does (128 + SIGINT)."""
    click.echo(interrupted_line(command), err=True)
    sys.exit(130)


def _fail(message: str, hint: str | None) -> None:
    click.echo(f"error: {message}", err=True)
    if hint:
        click.echo(f"hint: {hint}", err=True)
    sys.exit(1)


@click.group(cls=_Group, context_settings=CONTEXT)
@click.version_option(__version__, "-V", "--version", prog_name="git-enf")
@click.option("--no-pager", is_flag=True, help="Never send output through a pager (as git --no-pager).")
@click.pass_context
def main(ctx: click.Context, no_pager: bool) -> None:
    """enf-git: your assistant's memory, versioned on the claude-memory branch."""
    ctx.obj = Options(no_pager=no_pager)


@main.command(name="help")
@click.argument("command", required=False)
@click.pass_context
def help_(ctx: click.Context, command: str | None) -> None:
    """Show help for git enf, or for one COMMAND (git enf --help opens the man page instead)."""
    parent = ctx.parent
    assert parent is not None
    if command is None:
        click.echo(main.get_help(parent))
        return
    found = main.get_command(parent, command)
    if found is None:
        raise click.UsageError(f"no such command {command!r}; git enf help lists them", ctx=ctx)
    with click.Context(found, info_name=command, parent=parent) as sub:
        click.echo(found.get_help(sub))


for module in (setup, work, read, stats, checks, sync, lifecycle, facts, pins, instincts, trust, toolset, serve,
               dashboard):
    for command in module.COMMANDS:
        main.add_command(command)
