"""The slash commands (/remember, /forget, /memories, /pin, /toolset, /stats): shipped twice (package and
plugin) with the same bytes, placed by `git enf init`, taken away by `git enf uninstall`,
and never at the cost of a user's own command of the same name."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

from enf_git.install import slash
from gitfixtures import Git, user_state

ROOT = Path(__file__).resolve().parents[1]
Run = Callable[..., str]
THEIRS = "Remember to water the plants: $ARGUMENTS\n"


def commands_in(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.md"))}


def shipped() -> dict[str, bytes]:
    return {f"{name}.md": slash.source(name).read_bytes() for name in slash.NAMES}


def test_the_plugin_ships_the_same_commands_as_the_package() -> None:
    assert commands_in(ROOT / "hooks" / "commands") == commands_in(ROOT / "enf_git" / "commands") == shipped()
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "commands/*.md" in data["tool"]["setuptools"]["package-data"]["enf_git"]  # else a wheel has none


@pytest.mark.parametrize("name", [n for n in slash.NAMES if n != "toolset"])
def test_each_command_says_which_git_enf_command_to_run(name: str) -> None:
    text = slash.source(name).read_text()
    head, body = text.removeprefix("---\n").split("\n---\n", 1)
    assert head.startswith("description: ") and f"allowed-tools: Bash(git enf {name}:*)" in head
    assert f"git enf {name}" in body and "$ARGUMENTS" in body
    assert len(text) < 1000  # it becomes the prompt: keep it cheap


def test_toolset_runs_nothing_the_hook_has_switched_already() -> None:
    """/toolset is acted on by UserPromptSubmit (the user's own words); the model only reports,
    and the command file grants it no tool, so a model cannot switch through it."""
    text = slash.source("toolset").read_text()
    head, body = text.removeprefix("---\n").split("\n---\n", 1)
    assert "allowed-tools" not in head
    assert "Run no command for it" in body and "$ARGUMENTS" in body and "git enf toolset" in body
    assert len(text) < 1000


def test_remember_and_forget_name_the_session_for_session_scope() -> None:
    """The Bash tool may not carry CLAUDE_CODE_SESSION_ID (older clients): the id is in the context."""
    for name in ("remember", "forget"):
        assert "--session <id>" in slash.source(name).read_text()


@pytest.mark.parametrize("scope", ["local", "project", "user"])
def test_init_places_the_commands_and_uninstall_removes_them(scope: str, run_cli: Run, repo_dir: Path,
                                                             hermetic: Path) -> None:
    folder = (hermetic if scope == "user" else repo_dir) / ".claude" / "commands"
    run_cli("init", "--scope", scope)
    assert commands_in(folder) == shipped()
    out = run_cli("uninstall", "--scope", scope)
    assert f"deleted the slash commands /remember, /forget, /memories, /pin, /toolset, /stats from {folder}\n" in out
    assert not folder.exists()


def test_local_scope_keeps_the_commands_out_of_git_status(run_cli: Run, repo_dir: Path) -> None:
    before = user_state(repo_dir)
    run_cli("init")
    assert (repo_dir / ".claude" / "commands" / "remember.md").is_file()
    assert user_state(repo_dir) == before


def test_project_scope_commands_are_for_the_team_to_commit(run_cli: Run, git: Git) -> None:
    run_cli("init", "--scope", "project")
    assert "?? .claude/commands/remember.md" in git("status", "--porcelain", "--untracked-files=all")


def test_init_twice_changes_nothing(run_cli: Run, repo_dir: Path) -> None:
    run_cli("init")
    record = repo_dir / ".git" / "enf" / "installed.json"
    folder = repo_dir / ".claude" / "commands"
    first = commands_in(folder), record.read_bytes(), (repo_dir / ".git" / "info" / "exclude").read_bytes()
    assert "already registered" in run_cli("init")
    assert (commands_in(folder), record.read_bytes(), (repo_dir / ".git" / "info" / "exclude").read_bytes()) == first


def test_a_users_own_command_of_the_same_name_is_kept_and_said(run_cli: Run, repo_dir: Path, git: Git) -> None:
    folder = repo_dir / ".claude" / "commands"
    folder.mkdir(parents=True)
    mine = folder / "remember.md"
    mine.write_text(THEIRS)
    out = run_cli("init")
    assert (f"kept {mine}: it is not enf-git's /remember (your own command, or edited), so enf-git's is not "
            "installed there; move yours aside and rerun git enf init to get it\n") in out
    assert mine.read_text() == THEIRS
    assert commands_in(folder) == {**shipped(), "remember.md": THEIRS.encode()}
    status = git("status", "--porcelain", "--untracked-files=all")
    assert status == "?? .claude/commands/remember.md\n"  # theirs is not hidden from git; ours are
    run_cli("init")
    assert mine.read_text() == THEIRS
    out = run_cli("uninstall")
    assert f"deleted the slash commands /forget, /memories, /pin, /toolset, /stats from {folder}\n" in out
    assert commands_in(folder) == {"remember.md": THEIRS.encode()}


def test_their_own_command_stays_even_if_it_later_matches_ours(run_cli: Run, repo_dir: Path) -> None:
    """Recorded as theirs at init: uninstall goes by that record, not by the text alone."""
    mine = repo_dir / ".claude" / "commands" / "pin.md"
    mine.parent.mkdir(parents=True)
    mine.write_text(THEIRS)
    run_cli("init")
    mine.write_bytes(slash.source("pin").read_bytes())  # they copied ours over theirs
    run_cli("uninstall")
    assert mine.read_bytes() == slash.source("pin").read_bytes()


def test_our_command_edited_by_the_user_is_kept(run_cli: Run, repo_dir: Path) -> None:
    run_cli("init")
    ours = repo_dir / ".claude" / "commands" / "memories.md"
    ours.write_text(ours.read_text() + "Also list pins.\n")
    assert f"kept {ours}: it is not enf-git's /memories" in run_cli("init")
    assert ours.read_text().endswith("Also list pins.\n")
    out = run_cli("uninstall")
    assert f"kept {ours}: it differs from the /memories enf-git wrote (your edits?); delete it if unwanted\n" in out
    assert ours.is_file()


def install_an_older_version(run_cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`git enf init` as an earlier enf-git, whose commands said something else."""
    old = tmp_path / "old"
    old.mkdir()
    for name in slash.NAMES:
        (old / f"{name}.md").write_text(f"old {name}: $ARGUMENTS\n")
    real = slash.source
    monkeypatch.setattr(slash, "source", lambda name: old / f"{name}.md")
    run_cli("init")
    monkeypatch.setattr(slash, "source", real)


def test_an_older_version_of_ours_is_updated(run_cli: Run, repo_dir: Path, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    install_an_older_version(run_cli, tmp_path, monkeypatch)
    folder = repo_dir / ".claude" / "commands"
    assert commands_in(folder)["pin.md"] == b"old pin: $ARGUMENTS\n"
    assert "kept" not in run_cli("init")  # recorded as ours: an upgrade, not a foreign file
    assert commands_in(folder) == shipped()


def test_an_older_version_of_ours_is_removed(run_cli: Run, repo_dir: Path, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    install_an_older_version(run_cli, tmp_path, monkeypatch)
    run_cli("uninstall")  # by the upgraded enf-git, before any init
    assert not (repo_dir / ".claude").exists()


def test_a_symlink_with_our_name_is_never_written_through(run_cli: Run, repo_dir: Path, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.md"
    target.write_text(THEIRS)
    link = repo_dir / ".claude" / "commands" / "forget.md"
    link.parent.mkdir(parents=True)
    link.symlink_to(target)
    assert f"kept {link}: it is not enf-git's /forget" in run_cli("init")
    run_cli("uninstall")
    assert link.is_symlink() and target.read_text() == THEIRS


def test_local_and_project_share_the_commands_in_either_order(run_cli: Run, repo_dir: Path) -> None:
    folder = repo_dir / ".claude" / "commands"
    run_cli("init", "--scope", "local")
    run_cli("init", "--scope", "project")
    run_cli("uninstall", "--scope", "local")
    assert commands_in(folder) == shipped()  # project scope still uses them
    run_cli("uninstall", "--scope", "project")
    assert not (repo_dir / ".claude").exists()  # the folders local scope created went with the last scope


def slash_problems(repo_dir: Path) -> list[dict[str, str]]:
    from click.testing import CliRunner

    from enf_git.cli.app import main

    result = CliRunner().invoke(main, ["doctor", "--json"])  # exit 1 on a warning: not checked here
    return [p for p in json.loads(result.output)["problems"] if "slash command" in p["what"]]


def test_doctor_says_when_a_command_is_missing(run_cli: Run, repo_dir: Path) -> None:
    run_cli("init")
    assert slash_problems(repo_dir) == []
    (repo_dir / ".claude" / "commands" / "pin.md").unlink()
    (repo_dir / ".claude" / "commands" / "forget.md").unlink()
    assert slash_problems(repo_dir) == [{
        "severity": "warning", "fix": "git enf init --scope local (copies the shipped commands)",
        "what": f"the slash command(s) /forget, /pin are missing from {repo_dir / '.claude' / 'commands'}: "
                "the assistant cannot run them"}]
    run_cli("init")
    assert slash_problems(repo_dir) == []
