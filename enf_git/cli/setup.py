"""`git enf init` and `git enf uninstall`: setting up, and taking away only what we set up."""

from __future__ import annotations

from pathlib import Path

import click

from .. import paths
from ..memory.workspace import Context
from .base import CONTEXT, workspace

SCOPE_HELP = ("Where to register the Claude Code hooks: local = .claude/settings.local.json (you, this repo), "
              "project = .claude/settings.json (the team), user = ~/.claude/settings.json (all repos).")


@click.command(context_settings=CONTEXT)
@click.option("--scope", type=click.Choice(["project", "local", "user"]), default="local", show_default=True,
              help=SCOPE_HELP)
@click.option("--no-hooks", is_flag=True, help="Only set up the branch and working copy.")
def init(scope: str, no_hooks: bool) -> None:
    """Create the memory branch and .claude-sessions/, and register the hooks (idempotent)."""
    from .. import memory

    ctx = workspace()
    report = memory.init(ctx)
    for w in report.warnings:
        click.echo(w)
    state = "created" if report.commit else "ready"
    click.echo(f"{paths.BRANCH} {state}; working copy in {ctx.root}")
    if not no_hooks:
        _install_hooks(ctx, scope)


def _install_hooks(ctx: Context, scope: str) -> None:
    from ..install import claude
    from ..plumbing import store, workcopy

    result = claude.install(scope, ctx.top, Path.home())
    if scope == "local":
        # Per-user files inside the repo: keep them out of `git status`, like the working copy.
        for line in claude.LOCAL_EXCLUDES:
            workcopy.ensure_excluded(store.common_dir(ctx.repo), line)
    verb = "registered" if result.changed else "already registered"
    click.echo(f"hooks {verb} in {result.settings} (scope {scope}), calling: {result.command}")
    if scope == "project":
        click.echo("  project scope is shared: it calls enf-hook from PATH, so every teammate needs enf-git "
                   "installed; --scope local uses an absolute path instead (faster, only for you)")


@click.command(context_settings=CONTEXT)
@click.option("--scope", type=click.Choice(["project", "local", "user"]), default="local", show_default=True,
              help="Which settings file to clean.")
def uninstall(scope: str) -> None:
    """Remove enf-git's hooks and skill from Claude Code settings (memory is kept)."""
    from ..install import claude

    ctx = workspace()
    changed = claude.uninstall(scope, ctx.top, Path.home())
    for path in changed:
        click.echo(f"removed enf-git entries from {path}")
    if not changed:
        click.echo(f"no enf-git hooks in {scope} scope")
    click.echo(f"the {paths.BRANCH} branch and {paths.WC_DIR}/ are untouched")


COMMANDS = (init, uninstall)
