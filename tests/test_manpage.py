"""git-enf(1) is the click help: `git enf --help` runs `man git-enf`, and the page the
build renders (setup.py) must say what `git enf COMMAND -h` says. The installed page
itself is checked by tests/test_install_readme.py, which pip-installs this checkout."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest

from enf_git.cli import manpage
from enf_git.cli.app import main

ROOT = Path(__file__).resolve().parent.parent


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
    assert '.SS "git enf instincts forget ' in page  # a group's subcommands too
    assert manpage.render(main) == page  # the same help, the same bytes


def test_the_module_prints_the_page_the_build_installs() -> None:
    proc = subprocess.run([sys.executable, "-m", "enf_git.cli.manpage"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout == manpage.render(main), proc.stderr
    setup = (ROOT / "setup.py").read_text(encoding="utf-8")
    assert '"enf_git.cli.manpage"' in setup and '("share/man/man1", [PAGE])' in setup


@pytest.mark.skipif(shutil.which("man") is None, reason="no man here")
def test_man_renders_it_without_a_warning(tmp_path: Path) -> None:
    page = tmp_path / "git-enf.1"
    page.write_text(manpage.render(main), encoding="utf-8")
    proc = subprocess.run(["man", "--warnings", "-l", str(page)], capture_output=True, text=True,
                          env={"MANPAGER": "cat", "MANWIDTH": "100", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
    assert proc.returncode == 0 and "GIT-ENF(1)" in proc.stdout
    assert proc.stderr == "", proc.stderr
    assert "git enf recall" in proc.stdout and "\\-" not in proc.stdout
