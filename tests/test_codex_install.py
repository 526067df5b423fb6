"""`git enf init --assistant codex` and its uninstall: Codex's hooks.json, the skill and the
MCP table in config.toml, merged idempotently and taken out exactly (the real client reads
them in tests/e2e/test_codex_client.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from enf_git.errors import EnfError
from enf_git.install import codex

THEIRS = {"description": "mine", "hooks": {"PreToolUse": [{"matcher": "^Bash$", "hooks": [
    {"type": "command", "command": "/usr/local/bin/audit.sh", "timeout": 5}]}]}}
CONFIG = 'model = "o3"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n'


def test_install_merges_beside_the_users_hooks_and_uninstall_restores_them(tmp_path: Path) -> None:
    home = tmp_path / "codex"
    home.mkdir()
    (home / "hooks.json").write_text(json.dumps(THEIRS))
    first = codex.install("user", tmp_path, home)
    text = (home / "hooks.json").read_text()
    assert first.changed and not codex.install("user", tmp_path, home).changed  # idempotent
    data = json.loads(text)
    assert data["description"] == "mine" and THEIRS["hooks"]["PreToolUse"][0] in data["hooks"]["PreToolUse"]
    commands = codex.registered("user", tmp_path, home)
    assert len(commands) == len(codex.EVENTS) and all("--assistant=codex" in c for c in commands)
    assert (home / "skills" / "enf-git" / "SKILL.md").is_file()
    assert (home / "skills" / "enf-git" / "analytics.md").is_file()  # SKILL.md sends the assistant there
    codex.uninstall("user", tmp_path, home)
    assert json.loads((home / "hooks.json").read_text()) == THEIRS
    assert not (home / "skills" / "enf-git").exists()


def test_project_scope_calls_enf_hook_from_path(tmp_path: Path) -> None:
    codex.install("project", tmp_path, tmp_path / "codex")
    assert all(c.startswith("enf-hook --assistant=codex ") for c in codex.registered("project", tmp_path, tmp_path))
    assert (tmp_path / ".agents" / "skills" / "enf-git" / "SKILL.md").is_file()
    codex.uninstall("project", tmp_path, tmp_path / "codex")
    assert not (tmp_path / ".codex" / "hooks.json").exists()


def test_a_missing_part_of_the_codex_skill_is_seen_and_put_back(tmp_path: Path) -> None:
    from enf_git.install import claude

    codex.install("user", tmp_path, tmp_path)
    folder = tmp_path / "skills" / "enf-git"
    assert claude.skill_as_shipped(folder)
    (folder / "analytics.md").unlink()
    assert not claude.skill_as_shipped(folder)
    assert codex.install("user", tmp_path, tmp_path).changed and claude.skill_as_shipped(folder)


def test_an_edited_skill_is_kept(tmp_path: Path) -> None:
    codex.install("user", tmp_path, tmp_path)
    skill = tmp_path / "skills" / "enf-git" / "SKILL.md"
    skill.write_text("my notes\n")
    done = codex.uninstall("user", tmp_path, tmp_path)
    assert skill.read_text() == "my notes\n" and any("kept" in line for line in done.lines)


def test_mcp_table_goes_in_and_out_leaving_the_users_config_byte_for_byte(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(CONFIG)
    assert codex.install_mcp("user", tmp_path).changed
    text = (tmp_path / "config.toml").read_text()
    assert text.startswith(CONFIG) and "[mcp_servers.enf]" in text and 'args = ["mcp"]' in text
    assert not codex.install_mcp("user", tmp_path).changed
    codex.uninstall_mcp(tmp_path)
    assert (tmp_path / "config.toml").read_text() == CONFIG


def test_a_server_of_our_name_the_user_wrote_is_refused(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text('[mcp_servers.enf]\ncommand = "theirs"\n')
    with pytest.raises(EnfError, match="did not write"):
        codex.install_mcp("user", tmp_path)
    assert (tmp_path / "config.toml").read_text() == '[mcp_servers.enf]\ncommand = "theirs"\n'


def test_codex_home_follows_the_environment(tmp_path: Path) -> None:
    assert codex.codex_home({"CODEX_HOME": "/x/y"}, tmp_path) == Path("/x/y")
    assert codex.codex_home({}, tmp_path) == tmp_path / ".codex"


def test_doctor_checks_a_registered_codex_install(repo_dir: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from enf_git import memory
    from enf_git.memory.health import codex_checks

    memory.init(memory.Context.open(repo_dir))
    ctx = memory.Context.open(repo_dir)
    home = tmp_path / "codex-home"
    monkeypatch.setenv("CODEX_HOME", str(home))
    assert codex_checks.codex_install(ctx, tmp_path) == []  # nothing registered: nothing to say
    codex.install("user", repo_dir, home)
    said = [p.what for p in codex_checks.codex_install(ctx, tmp_path)]
    assert len(said) == 1 and "no trust" in said[0]
    (home / "config.toml").write_text(f'[hooks.state."{home / "hooks.json"}:pre_tool_use:0:0"]\n'
                                      'trusted_hash = "sha256:00"\n')
    assert codex_checks.codex_install(ctx, tmp_path) == []
    hooks = home / "hooks.json"
    program = codex.registered("user", repo_dir, home)[0].split(" ", 1)[0]
    hooks.write_text(hooks.read_text().replace(program, str(tmp_path / "gone" / "python3")))
    problems = codex_checks.codex_install(ctx, tmp_path)
    assert [p.severity for p in problems] == ["error"] and "is gone" in problems[0].what
