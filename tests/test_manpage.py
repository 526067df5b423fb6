"""git-enf(1) is the click help: `git enf --help` runs `man git-enf`, and the page the
package installs must say what `git enf COMMAND -h` says."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import click
import pytest

from enf_git.cli import manpage
from enf_git.cli.app import main

PAGE = Path(__file__).resolve().parent.parent / "man" / "git-enf.1"


def test_the_committed_page_is_the_current_help() -> None:
    assert PAGE.read_text(encoding="utf-8") == manpage.render(main), (
        "man/git-enf.1 lags the help: python -m enf_git.cli.manpage > man/git-enf.1")


def test_every_command_and_option_is_on_the_page() -> None:
    page = manpage.render(main)
    ctx = click.Context(main, info_name="git enf")
    for name in main.list_commands(ctx):
        command = main.get_command(ctx, name)
        assert command is not None
        assert f'.SS "git enf {name} ' in page, name
        for param in command.params:
            for opt in getattr(param, "opts", []) if isinstance(param, click.Option) else []:
                assert opt.replace("-", "\\-") in page, (name, opt)


def test_the_package_installs_it_where_man_looks() -> None:
    pyproject = (PAGE.parent.parent / "pyproject.toml").read_text(encoding="utf-8")
    assert '"share/man/man1" = ["man/git-enf.1"]' in pyproject


@pytest.mark.skipif(shutil.which("man") is None, reason="no man here")
def test_man_renders_it_without_a_warning(tmp_path: Path) -> None:
    proc = subprocess.run(["man", "--warnings", "-l", str(PAGE)], capture_output=True, text=True,
                          env={"MANPAGER": "cat", "MANWIDTH": "100", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
    assert proc.returncode == 0 and "GIT-ENF(1)" in proc.stdout
    assert proc.stderr == "", proc.stderr
    assert "git enf recall" in proc.stdout and "\\-" not in proc.stdout
