"""`git enf init --assistant gemini` and its uninstall: Gemini CLI's settings.json hooks
and mcpServers, and the skill, merged idempotently and taken out exactly (the real client
reads them in tests/e2e/test_gemini_client.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from enf_git.errors import EnfError
from enf_git.install import gemini

THEIRS = {"model": {"name": "gemini-2.5-pro"}, "hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [
    {"type": "command", "command": "/usr/local/bin/audit.sh", "timeout": 5000}]}]},
    "mcpServers": {"docs": {"command": "docs-mcp"}}}
G = gemini.GEMINI


def settings(home: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((home / ".gemini" / "settings.json").read_text())
    return data


def test_install_merges_beside_the_users_settings_and_uninstall_restores_them(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(THEIRS, indent=2))
    assert gemini.install(G, "user", tmp_path, home).changed
    assert not gemini.install(G, "user", tmp_path, home).changed  # idempotent
    assert gemini.install_mcp(G, "user", tmp_path, home).changed
    assert not gemini.install_mcp(G, "user", tmp_path, home).changed
    data = settings(home)
    hooks = data["hooks"]
    assert isinstance(hooks, dict) and THEIRS["hooks"]["BeforeTool"][0] in hooks["BeforeTool"]  # type: ignore[index]
    assert hooks["PreCompress"][-1]["matcher"] == "manual"  # not the auto one fired before every request
    assert all(g["hooks"][0]["timeout"] >= 5000 for groups in hooks.values() for g in groups)  # milliseconds
    commands = gemini.registered(G, "user", tmp_path, home)
    assert len(commands) == len(G.events) and all("--assistant=gemini" in c for c in commands)
    assert data["mcpServers"]["enf"]["args"][-1] == "mcp" and data["model"] == THEIRS["model"]  # type: ignore[index]
    assert (home / ".gemini" / "skills" / "enf-git" / "SKILL.md").is_file()
    assert (home / ".gemini" / "skills" / "enf-git" / "analytics.md").is_file()  # SKILL.md sends the assistant there
    gemini.uninstall(G, "user", tmp_path, home)
    assert settings(home) == THEIRS
    assert not (home / ".gemini" / "skills" / "enf-git").exists()


def test_a_file_we_alone_filled_goes_and_project_scope_calls_enf_hook_from_path(tmp_path: Path) -> None:
    gemini.install(G, "project", tmp_path, tmp_path / "home")
    assert all(c.startswith("enf-hook --assistant=gemini ") for c in gemini.registered(G, "project", tmp_path, tmp_path))
    assert (tmp_path / ".gemini" / "skills" / "enf-git" / "SKILL.md").is_file()
    gemini.uninstall(G, "project", tmp_path, tmp_path / "home")
    assert not (tmp_path / ".gemini" / "settings.json").exists()
    assert not gemini.uninstall(G, "project", tmp_path, tmp_path / "home").changed


def test_a_server_named_like_ours_is_refused_not_overwritten(tmp_path: Path) -> None:
    (tmp_path / ".gemini").mkdir()
    mine = {"mcpServers": {"enf": {"command": "my-own-enf"}}}
    (tmp_path / ".gemini" / "settings.json").write_text(json.dumps(mine))
    with pytest.raises(EnfError, match="did not write"):
        gemini.install_mcp(G, "user", tmp_path, tmp_path)
    assert settings(tmp_path) == mine


def test_broken_settings_are_left_alone_with_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / ".gemini").mkdir()
    (tmp_path / ".gemini" / "settings.json").write_text("{ // a comment\n}")
    with pytest.raises(EnfError, match="not valid JSON"):
        gemini.install(G, "user", tmp_path, tmp_path)
    assert (tmp_path / ".gemini" / "settings.json").read_text() == "{ // a comment\n}"


def test_the_cli_registers_and_removes_gemini(repo_dir: Path, tmp_path: Path) -> None:
    home = tmp_path / "h"
    home.mkdir()
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM": "1"}
    git_enf = [str(Path(sys.executable).with_name("git-enf"))]
    run = lambda *a: subprocess.run([*git_enf, *a], cwd=repo_dir, env=env, capture_output=True, text=True)  # noqa: E731
    out = run("init", "--assistant", "gemini", "--mcp")
    assert out.returncode == 0, out.stderr
    assert "Gemini CLI hooks registered" in out.stdout and len(gemini.registered(G, "user", repo_dir, home)) == 7
    assert "enf" in settings(home)["mcpServers"]  # type: ignore[operator]
    out = run("uninstall", "--assistant", "gemini")
    assert out.returncode == 0 and "removed enf-git's Gemini CLI hooks" in out.stdout, out.stdout + out.stderr
    assert not (home / ".gemini" / "settings.json").exists()


def test_doctor_reports_a_gemini_install_whose_interpreter_is_gone(repo_dir: Path, tmp_path: Path) -> None:
    from enf_git import memory
    from enf_git.memory.health import gemini_checks

    ctx = memory.Context.open(repo_dir)
    home = tmp_path / "h"
    gemini.install(G, "user", repo_dir, home)
    assert gemini_checks.gemini_install(ctx, home) == []
    path = home / ".gemini" / "settings.json"
    path.write_text(path.read_text().replace(sys.executable, "/gone/python"))
    problems = gemini_checks.gemini_install(ctx, home)
    assert any(p.severity == "error" and "/gone/python" in p.what for p in problems), problems
