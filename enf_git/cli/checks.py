"""`git enf doctor`: every check, each problem with its fix."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from .base import CONTEXT, JSON_OPTION, workspace
from .text import envelope


@click.command(context_settings=CONTEXT)
@JSON_OPTION
def doctor(as_json: bool) -> None:
    """Validate the installation and the memory; name each problem and its fix (exit 1 on errors)."""
    from .. import paths
    from ..memory.health import doctor as doctor_mod

    result = doctor_mod.run(workspace(), Path.home(), paths.user_config_dir(os.environ))
    if as_json:
        click.echo(envelope("doctor", ok=not result.errors, checks=list(result.checks), problems=[
            {"severity": p.severity, "what": p.what, "fix": p.fix} for p in result.problems]))
    else:
        click.echo(f"checked: {', '.join(result.checks)}")
        for p in result.problems:
            click.echo(f"{p.severity}: {p.what}\n  fix: {p.fix}")
        if not result.problems:
            click.echo("all good")
    if result.errors:
        sys.exit(1)


COMMANDS = (doctor,)
