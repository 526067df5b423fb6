"""The one build step pyproject.toml cannot say: render git-enf(1) from the click help.

git turns `git enf --help` and `git help enf` into `man git-enf`. The page is made while
the package is built (`pip install .`, a wheel, an editable install), by running
enf_git/cli/manpage.py from this source tree, so it always says what `git enf -h` says;
it is installed to share/man/man1 (a venv's, ~/.local's with --user). Rendering imports
the CLI, which is why pyproject.toml's build requirements list the runtime ones too.
"""

from __future__ import annotations

import os
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
PAGE = os.path.join("build", "man", "git-enf.1")  # relative: setuptools wants data_files so


def render_man_page() -> None:
    env = {**os.environ, "PYTHONPATH": HERE + os.pathsep + os.environ.get("PYTHONPATH", "")}
    page = subprocess.run([sys.executable, "-m", "enf_git.cli.manpage"], cwd=HERE, env=env, check=True,
                          capture_output=True, text=True).stdout
    target = os.path.join(HERE, PAGE)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "w", encoding="utf-8") as f:
        f.write(page)


class BuildWithManPage(build_py):
    def run(self) -> None:
        super().run()
        render_man_page()


setup(cmdclass={"build_py": BuildWithManPage}, data_files=[("share/man/man1", [PAGE])])
