"""Hook registration: merge, idempotence, uninstall removes only ours; the plugin matches."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from enf_git import hook
from enf_git.install import claude as install
from enf_git.cli.app import main
from gitfixtures import Git, user_state

ROOT = Path(__file__).resolve().parents[1]
THEIRS = {"permissions": {"allow": ["Bash(ls)"]}, "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "/opt/lint-hook", "timeout": 3}]}],
    "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}]}}


def run_cli(repo: Path, *args: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(repo)
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_local_scope_merges_with_existing_hooks_and_is_idempotent(repo_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = repo_dir / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps(THEIRS))
    out = run_cli(repo_dir, "init", monkeypatch=monkeypatch)
    program = install.hook_program("local")
    assert program.startswith(f"{sys.executable} -S -c ")
    assert f"hooks registered in {settings} (scope local), calling: {program}" in out
    data = json.loads(settings.read_text())
    assert data["permissions"] == THEIRS["permissions"]
    assert data["hooks"]["Notification"] == THEIRS["hooks"]["Notification"]
    pre = data["hooks"]["PreToolUse"]
    assert pre[0] == THEIRS["hooks"]["PreToolUse"][0]
    assert pre[1] == {"matcher": "*", "hooks": [{"type": "command", "command": f"{program} pre-tool-use", "timeout": 10}]}
    assert set(data["hooks"]) == {e for e, *_ in install.EVENTS} | {"Notification"}
    first = settings.read_text()
    assert "already registered" in run_cli(repo_dir, "init", monkeypatch=monkeypatch)
    assert settings.read_text() == first


def test_uninstall_removes_only_ours(repo_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = repo_dir / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps(THEIRS))
    run_cli(repo_dir, "init", monkeypatch=monkeypatch)
    assert (repo_dir / ".claude" / "skills" / "enf-git" / "SKILL.md").is_file()
    out = run_cli(repo_dir, "uninstall", monkeypatch=monkeypatch)
    assert f"removed enf-git entries from {settings}" in out
    assert json.loads(settings.read_text()) == THEIRS
    assert not (repo_dir / ".claude" / "skills" / "enf-git").exists()
    assert "no enf-git hooks in local scope" in run_cli(repo_dir, "uninstall", monkeypatch=monkeypatch)


def test_local_scope_keeps_git_status_clean(repo_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = user_state(repo_dir)
    run_cli(repo_dir, "init", monkeypatch=monkeypatch)
    assert user_state(repo_dir) == before


def test_project_scope_uses_a_portable_command_and_says_so(repo_dir: Path, git: Git,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    out = run_cli(repo_dir, "init", "--scope", "project", monkeypatch=monkeypatch)
    data = json.loads((repo_dir / ".claude" / "settings.json").read_text())
    assert data["hooks"]["Stop"][0]["hooks"][0]["command"] == "enf-hook stop"
    assert "project scope is shared" in out
    assert "?? .claude/" in git("status", "--porcelain")  # meant to be committed by the team


def test_user_scope_writes_home_settings(repo_dir: Path, hermetic: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run_cli(repo_dir, "init", "--scope", "user", monkeypatch=monkeypatch)
    assert (hermetic / ".claude" / "settings.json").is_file()
    assert (hermetic / ".claude" / "skills" / "enf-git" / "SKILL.md").is_file()


def test_invalid_settings_file_is_left_untouched(repo_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = repo_dir / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text("{not json")
    monkeypatch.chdir(repo_dir)
    result = CliRunner().invoke(main, ["init"])
    assert result.exit_code == 1 and "is not valid JSON" in result.output
    assert settings.read_text() == "{not json"


def test_plugin_hooks_json_matches_the_installed_set() -> None:
    data = json.loads((ROOT / "hooks" / "hooks" / "hooks.json").read_text())
    expected = install.merged({}, "${CLAUDE_PLUGIN_ROOT}/bin/enf-hook")["hooks"]
    assert data["hooks"] == expected
    manifest = json.loads((ROOT / "hooks" / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["name"] == "enf-git"
    import enf_git
    assert manifest["version"] == enf_git.__version__


def test_skill_is_shipped_short_and_well_formed() -> None:
    skill = (ROOT / "hooks" / "skills" / "enf-git" / "SKILL.md").read_text()
    assert skill == install.skill_source().read_text()
    assert skill.startswith("---\nname: enf-git\ndescription: ")
    assert len(skill) < 4000  # loaded into context: keep it cheap


def test_the_skill_sends_the_assistant_only_to_parts_it_ships(repo_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SKILL.md names analytics.md; init copies every part beside it, the plugin links each,
    and doctor names a part that went missing."""
    skill = install.skill_source().read_text()
    parts = sorted(p.name for p in install.skill_sources())
    assert parts == ["SKILL.md", "analytics.md"] and "`analytics.md`" in skill
    for name in parts:
        assert (ROOT / "hooks" / "skills" / "enf-git" / name).read_text() == (install.skill_source().parent / name).read_text()
    analytics = (install.skill_source().parent / "analytics.md").read_text()
    assert "git enf stats --json" in analytics and "bands" in analytics
    run_cli(repo_dir, "init", monkeypatch=monkeypatch)
    copied = repo_dir / ".claude" / "skills" / "enf-git" / "analytics.md"
    assert copied.read_text() == analytics
    copied.unlink()
    result = CliRunner().invoke(main, ["doctor"], catch_exceptions=False)
    out = result.output
    assert result.exit_code != 0 or "warning" in out
    assert f"{copied} is missing: the skill sends the assistant to it" in out


def test_registered_command_ignores_project_files_that_shadow_modules(repo_dir: Path, git: Git,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Claude Code runs hooks in the project folder, and `python -c` puts that folder
    first on sys.path: a project's json.py or pathlib.py must not replace ours."""
    import subprocess

    run_cli(repo_dir, "init", monkeypatch=monkeypatch)
    for name in ("json", "pathlib", "signal", "fcntl"):
        (repo_dir / f"{name}.py").write_text("raise SystemExit('shadowed the standard library')\n")
    settings = json.loads((repo_dir / ".claude" / "settings.local.json").read_text())
    command = settings["hooks"]["Stop"][0]["hooks"][0]["command"]
    session = repo_dir / ".claude-sessions" / "sessions" / "2026-04-13-shadow-test.md"
    session.write_text("---\nsession_id: a1b2c3d4\ndate: 2026-04-13\nstatus: active\n---\n## Intent\nx\n")
    payload = json.dumps({"session_id": "a1b2c3d4-0000", "cwd": str(repo_dir), "hook_event_name": "Stop"})
    proc = subprocess.run(command, shell=True, cwd=repo_dir, input=payload, capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout == ""
    assert "sessions/2026-04-13-shadow-test.md" in git("ls-tree", "-r", "--name-only", "claude-memory")
    assert not (repo_dir / ".git" / "enf" / "hook-errors.log").exists()
