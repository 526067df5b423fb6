"""The README's install line, run as a new user runs it: its exact text, taken from
README.md, typed into a shell whose HOME is empty and whose PATH lacks ~/.local/bin (a
fresh Debian login, where ~/.profile adds that folder only once it exists at login).
Afterwards `git enf` works in that shell, `git enf --help` and `git help enf` open the
man page, and so does the next login.

It pip-installs this checkout (~30 s to a minute). pip reads a wheelhouse in pytest's
cache, filled once from the index pip is configured with, so later runs need no network.
Deselect it with `-m "not install"`.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PLACEHOLDER = "/path/to/your/repo"
pytestmark = pytest.mark.install


def readme_install_line() -> str:
    """The one-line install of README's Set-up section, as written there."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    setup = text.split("\n## Set-up", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", setup, re.S)
    lines = [line for block in blocks for line in block.splitlines() if "git enf init" in line]
    assert len(lines) == 1, lines
    return lines[0]


def _requirements() -> list[str]:
    """What the install needs from an index: the build backend and the dependencies."""
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    build = re.search(r"\[build-system\][^\[]*?\nrequires\s*=\s*\[(.*?)\]", pyproject, re.S)
    assert build is not None
    needs = re.findall(r'"([^"]+)"', build.group(1)) + ["wheel"]
    return needs + [r for r in importlib.metadata.requires("enf-git") or [] if "extra ==" not in r]


def _wheelhouse(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    needs = _requirements()
    key = hashlib.sha256(f"{sys.version_info[:2]}{needs}".encode()).hexdigest()[:12]
    cache = getattr(request.config, "cache", None)  # none under -p no:cacheprovider: a wheelhouse for this run
    house = Path(cache.mkdir(f"readme-install-wheels-{key}")) if cache is not None else tmp_path / "wheels"
    house.mkdir(parents=True, exist_ok=True)
    if not (house / "complete").exists():
        proc = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "-d", str(house), *needs],
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, f"could not fill the wheelhouse: {proc.stderr[-2000:]}"
        (house / "complete").write_text("\n".join(needs))
    return house


def _checkout_copy(dest: Path) -> Path:
    """This checkout as a user has it (pip builds in the source tree: keep ours clean)."""
    skip = shutil.ignore_patterns(".venv", ".git", "build", "*.egg-info", "__pycache__", ".*_cache",
                                  ".claude-sessions", "tests", "bench", "docs")
    shutil.copytree(ROOT, dest, ignore=skip)
    return dest


def _fresh_login_env(tmp_path: Path, home: Path, wheels: Path) -> dict[str, str]:
    shims = tmp_path / "system-bin"  # `python3` as the system has it: this interpreter's base
    shims.mkdir()
    (shims / "python3").symlink_to(getattr(sys, "_base_executable", sys.executable))
    git_dir = str(Path(shutil.which("git") or "/usr/bin/git").parent)
    path = os.pathsep.join(dict.fromkeys([str(shims), git_dir, "/usr/bin", "/bin"]))
    for folder in path.split(os.pathsep):
        assert not (Path(folder) / "git-enf").exists(), f"{folder} already holds a git-enf: the test would prove nothing"
    return {"HOME": str(home), "PATH": path, "LANG": "C.UTF-8", "GIT_CONFIG_NOSYSTEM": "1",
            "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels), "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "80"}


def _sh(script: str, cwd: Path, env: dict[str, str], *flags: str) -> str:
    proc = subprocess.run(["sh", *flags, "-c", script], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout + proc.stderr


def test_the_readme_install_line_works_on_a_fresh_login(tmp_path: Path, repo_dir: Path,
                                                        request: pytest.FixtureRequest) -> None:
    line = readme_install_line()
    assert PLACEHOLDER in line
    home = tmp_path / "fresh-home"
    home.mkdir()
    env = _fresh_login_env(tmp_path, home, _wheelhouse(request, tmp_path))
    src = _checkout_copy(tmp_path / "enf-git")
    has_man = shutil.which("man") is not None  # man-db: Debian's default, absent from slim images
    checks = "git enf status && git enf --help && git help enf" if has_man else "git enf status"
    out = _sh(f"{line.replace(PLACEHOLDER, str(repo_dir))} && {checks}", src, env)
    assert "claude-memory created" in out, out
    if has_man:
        assert "GIT-ENF(1)" in out and out.count("git enf instincts forget") >= 2, out  # the man page, twice
        assert "No manual entry" not in out
    assert (repo_dir / ".claude-sessions" / "index.md").is_file()
    page = home / ".local" / "share" / "man" / "man1" / "git-enf.1"
    from enf_git.cli import manpage
    from enf_git.cli.app import main

    assert page.resolve().is_file() and page.resolve().read_text() == manpage.render(main)  # rendered by the build
    if Path("/etc/skel/.profile").is_file():  # Debian and Ubuntu: the next login finds it all by itself
        shutil.copy("/etc/skel/.profile", home / ".profile")
        login = {k: v for k, v in env.items() if k != "PATH"} | {"PATH": "/usr/bin:/bin"}
        after = "git enf status && git help enf" if has_man else "git enf status"
        out = _sh(f"PATH=\"{env['PATH']}:$PATH\"; . \"$HOME/.profile\"; {after}", repo_dir, login)
        assert "GIT-ENF(1)" in out or not has_man, out
