"""git-enf(1): the man page, rendered from the click help of every command.

git turns `git enf --help` (and `git help enf`) into `man git-enf`, so the page is
what those print. It is made from the same help text `git enf -h` shows, never
written by hand: the package build runs `python -m enf_git.cli.manpage` (setup.py) and
installs the page to share/man/man1. No version or date in it: the same help gives the
same bytes.
"""

from __future__ import annotations

import inspect
import sys

import click

PROG = "git enf"


def render(group: click.Group) -> str:
    """The whole page, in man(7) roff."""
    ctx = click.Context(group, info_name=PROG, **group.context_settings)  # -h as well as --help
    summary = _first_line(group.help or "").removeprefix("enf-git: ")
    out = [
        '.TH GIT\\-ENF 1 "" "enf-git" "enf-git manual"',
        ".SH NAME", f"git-enf \\- {_esc(summary)}",
        ".SH SYNOPSIS", f".B {PROG}", _esc(" ".join(group.collect_usage_pieces(ctx))),
        ".SH DESCRIPTION", *_paragraphs(group.help or ""),
        ".PP", "Every command takes \\fB\\-h\\fR (the help below); \\fBgit enf help\\fR \\fICOMMAND\\fR prints it too.",
        ".SH OPTIONS", *_options(group, ctx),
        ".SH COMMANDS",
    ]
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is not None and not command.hidden:
            out += _command(command, click.Context(command, info_name=name, parent=ctx))
    out += [".SH SEE ALSO", "\\fBgit\\fR(1), docs/commands.md of enf-git (every command, with where it is described)."]
    return "\n".join(out) + "\n"


def _command(command: click.Command, ctx: click.Context) -> list[str]:
    usage = " ".join(command.collect_usage_pieces(ctx))
    out = [f'.SS "{_esc(ctx.command_path)} {_esc(usage)}"', *_paragraphs(command.help or "")]
    out += _options(command, ctx)
    if isinstance(command, click.Group):  # `instincts forget`: each subcommand its own entry
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                out += _command(sub, click.Context(sub, info_name=name, parent=ctx))
    return out


def _options(command: click.Command, ctx: click.Context) -> list[str]:
    out = []
    for param in command.get_params(ctx):
        record = param.get_help_record(ctx) if isinstance(param, click.Option) else None
        if record is None:  # an argument: the usage line names it
            continue
        names, text = record
        out += [".TP", f"\\fB{_esc(names)}\\fR", _esc(text) or "."]
    return out


def _paragraphs(text: str) -> list[str]:
    """click's help text as roff paragraphs (a `\\b` line keeps its block unwrapped, as in click)."""
    out: list[str] = []
    for block in _clean(text).split("\n\n"):
        if not block.strip():
            continue
        if block.lstrip().startswith("\b"):
            out += [".PP", ".nf", *(_esc(line) for line in block.split("\n")[1:]), ".fi"]
        else:
            out += [".PP", _esc(" ".join(line.strip() for line in block.splitlines()))]
    return out


def _first_line(text: str) -> str:
    return _clean(text).split("\n\n")[0].replace("\n", " ").strip()


def _clean(text: str) -> str:
    """Help text as click prints it: dedented, and nothing after a `\\f` line."""
    return inspect.cleandoc(text).partition("\f")[0]


def _esc(text: str) -> str:
    """Plain text safe in roff: backslashes and dashes escaped, no line read as a request."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\n".join(("\\&" + line) if line[:1] in (".", "'") else line for line in text.split("\n"))


def main() -> None:
    from .app import main as group

    sys.stdout.write(render(group))


if __name__ == "__main__":
    main()
