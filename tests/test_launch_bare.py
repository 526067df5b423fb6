"""The hook command `git enf init` registers for local and user scope skips site.py on the
per-call events (python -S with its own sys.path) and still runs every event: the
lifecycle ones load site.py as a normal start would, and a stale folder falls back to it."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

from enf_git import paths
from enf_git.install import claude as install
from enf_git.cli.app import main
from click.testing import CliRunner

SID = "5e5e5e5e-0000-4000-8000-000000000000"


def _init(repo: Path, monkeypatch: object) -> None:
    monkeypatch.chdir(repo)  # type: ignore[attr-defined]
    result = CliRunner().invoke(main, ["init"], catch_exceptions=False)
    assert result.exit_code == 0, result.output


def _registered(repo: Path, event: str) -> str:
    settings = json.loads((repo / ".claude" / "settings.local.json").read_text())
    return str(settings["hooks"][event][0]["hooks"][0]["command"])


def _run(command: str, repo: Path, payload: dict[str, object], importtime: bool = False) -> subprocess.CompletedProcess[str]:
    argv = shlex.split(command)
    if importtime:  # which modules the interpreter imported, in the order it did
        argv[1:1] = ["-X", "importtime"]
    return subprocess.run(argv, cwd=repo, input=json.dumps({**payload, "session_id": SID, "cwd": str(repo)}),
                          capture_output=True, text=True, timeout=60)


def _imported(stderr: str) -> set[str]:
    return {line.rsplit("|", 1)[1].strip() for line in stderr.splitlines() if line.startswith("import time:")}


def test_a_prompt_runs_without_site_and_a_start_with_it(repo_dir: Path, monkeypatch: object) -> None:
    _init(repo_dir, monkeypatch)
    prompt = _registered(repo_dir, "UserPromptSubmit")
    assert " -S -c " in prompt and "enf_git.hook" in prompt  # still recognised as ours
    got = _run(prompt, repo_dir, {"prompt": "why did we pick sqlite"}, importtime=True)
    assert got.returncode == 0, got.stderr
    assert "site" not in _imported(got.stderr)
    assert "enf_git.assistants.claude.fast" in _imported(got.stderr)
    start = _run(_registered(repo_dir, "SessionStart"), repo_dir, {"source": "startup"}, importtime=True)
    assert start.returncode == 0, start.stderr
    assert "site" in _imported(start.stderr) and "pygit2" in _imported(start.stderr)
    assert json.loads(start.stdout)["hookSpecificOutput"]["hookEventName"] == "SessionStart"


def test_a_folder_enf_git_left_falls_back_to_site(repo_dir: Path, tmp_path: Path) -> None:
    empty = tmp_path / "gone"
    empty.mkdir()
    stale = install.hook_program("local").replace(shlex.quote(paths.launch_bare(install.launch_dirs())),
                                                  shlex.quote(paths.launch_bare([str(empty)])))
    assert str(empty) in stale
    got = _run(stale + " session-start", repo_dir, {"source": "startup"})
    assert got.returncode == 0 and "SessionStart" in got.stdout, got.stderr


def test_doctor_probes_the_command_as_registered(repo_dir: Path, tmp_path: Path, monkeypatch: object) -> None:
    _init(repo_dir, monkeypatch)
    result = CliRunner().invoke(main, ["doctor"], catch_exceptions=False)
    assert "cannot import enf_git" not in result.output
    # A folder listed first that holds a broken enf_git: the hooks import it (no site.py),
    # so doctor must too, where a probe through site.py would find the good one.
    fake = tmp_path / "fake"
    (fake / "enf_git").mkdir(parents=True)
    (fake / "enf_git" / "__init__.py").write_text("raise ImportError('half-installed')\n")
    settings = repo_dir / ".claude" / "settings.local.json"
    text = settings.read_text()
    settings.write_text(text.replace(json.dumps(install.launch_dirs())[1:-1].replace('"', '\\"'),
                                     json.dumps([str(fake), *install.launch_dirs()])[1:-1].replace('"', '\\"')))
    assert settings.read_text() != text
    result = CliRunner().invoke(main, ["doctor"], catch_exceptions=False)
    assert "cannot import enf_git (ImportError: half-installed)" in result.output
