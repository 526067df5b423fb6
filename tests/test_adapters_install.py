"""`git enf init --assistant cursor|copilot|qwen` and their uninstall: each client's
hooks file (and MCP entry) merged idempotently beside the user's own entries and taken
out exactly, byte for byte, folders we made included. Written from the clients'
documented formats (docs/assistants.md); no real client reads them here."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from enf_git.errors import EnfError
from enf_git.install import copilot, cursor, gemini

CURSOR_THEIRS = {"version": 1, "hooks": {"afterFileEdit": [{"command": "./hooks/format.sh"}],
                                         "beforeShellExecution": [{"command": "audit", "timeout": 5}]}}
COPILOT_THEIRS = {"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "./audit.sh"}]}}
QWEN_THEIRS = {"model": {"name": "qwen3-coder"}, "hooks": {"PreToolUse": [{"matcher": "write_file", "hooks": [
    {"type": "command", "command": "/usr/local/bin/check.sh", "timeout": 5000}]}]}}


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def folders(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_dir())


def test_cursor_merges_beside_the_users_hooks_and_uninstall_restores_them_exactly(tmp_path: Path) -> None:
    (tmp_path / ".cursor").mkdir()
    (tmp_path / ".cursor" / "hooks.json").write_text(json.dumps(CURSOR_THEIRS, indent=2) + "\n")
    before = snapshot(tmp_path)
    assert cursor.install("project", tmp_path, tmp_path / "home").changed
    once = snapshot(tmp_path)
    assert not cursor.install("project", tmp_path, tmp_path / "home").changed and snapshot(tmp_path) == once
    data = json.loads((tmp_path / ".cursor" / "hooks.json").read_text())
    assert data["version"] == 1 and data["hooks"]["afterFileEdit"][0] == {"command": "./hooks/format.sh"}
    events = {e for e, entries in data["hooks"].items() for x in entries if "--assistant=cursor" in x["command"]}
    assert events == {e for e, _t, _a in cursor.EVENTS}
    assert all(isinstance(x["timeout"], int) and x["timeout"] <= 30 for v in data["hooks"].values() for x in v
               if "enf-hook" in x["command"])  # seconds
    assert cursor.install_mcp("project", tmp_path, tmp_path / "home").changed
    cursor.uninstall("project", tmp_path, tmp_path / "home")
    assert snapshot(tmp_path) == before


def test_cursor_files_we_alone_filled_go_with_their_folder(tmp_path: Path) -> None:
    cursor.install("project", tmp_path, tmp_path / "home")
    cursor.install_mcp("project", tmp_path, tmp_path / "home")
    assert len(cursor.registered("project", tmp_path, tmp_path / "home")) == len(cursor.EVENTS)
    assert cursor.uninstall("project", tmp_path, tmp_path / "home").changed
    assert folders(tmp_path) == [] and not cursor.uninstall("project", tmp_path, tmp_path / "home").changed


def test_copilot_writes_a_file_of_its_own_in_pascal_case_and_takes_it_back(tmp_path: Path) -> None:
    (tmp_path / ".github" / "hooks").mkdir(parents=True)
    (tmp_path / ".github" / "hooks" / "audit.json").write_text(json.dumps(COPILOT_THEIRS))
    before = snapshot(tmp_path)
    home = tmp_path / "copilot-home"
    assert copilot.install("project", tmp_path, home).changed
    assert not copilot.install("project", tmp_path, home).changed
    data = json.loads((tmp_path / ".github" / "hooks" / "enf-git.json").read_text())
    assert data["version"] == 1 and set(data["hooks"]) == {e for e, _t, _a in copilot.EVENTS}
    entry = data["hooks"]["PreToolUse"][0]
    assert entry["type"] == "command" and entry["bash"] == "enf-hook --assistant=copilot pre-tool-use"
    assert entry["timeoutSec"] == 10
    assert copilot.install_mcp("project", tmp_path, home).changed
    server = json.loads((tmp_path / ".github" / "mcp.json").read_text())["mcpServers"]["enf"]
    assert server["command"] == "git-enf" and server["args"] == ["mcp"]
    copilot.uninstall("project", tmp_path, home)
    assert snapshot(tmp_path) == before and folders(tmp_path) == [".github", ".github/hooks"]


def test_copilot_user_scope_goes_to_copilot_home_and_keeps_a_users_entry_added_to_our_file(tmp_path: Path) -> None:
    home = copilot.copilot_home({"COPILOT_HOME": str(tmp_path / "ch")}, tmp_path)
    assert home == tmp_path / "ch"
    copilot.install("user", tmp_path, home)
    path = home / "hooks" / "enf-git.json"
    data = json.loads(path.read_text())
    assert sys.executable in data["hooks"]["Stop"][0]["bash"]  # this interpreter, by path
    data["hooks"]["Stop"].append({"type": "command", "bash": "notify-send done"})
    path.write_text(json.dumps(data))
    copilot.install("user", tmp_path, home)
    copilot.uninstall("user", tmp_path, home)
    assert json.loads(path.read_text())["hooks"] == {"Stop": [{"type": "command", "bash": "notify-send done"}]}


def test_qwen_uses_claudes_event_names_in_milliseconds_and_uninstall_restores(tmp_path: Path) -> None:
    (tmp_path / ".qwen").mkdir()
    (tmp_path / ".qwen" / "settings.json").write_text(json.dumps(QWEN_THEIRS, indent=2))
    before = snapshot(tmp_path)
    q = gemini.QWEN
    assert gemini.install(q, "project", tmp_path, tmp_path / "home").changed
    assert gemini.install_mcp(q, "project", tmp_path, tmp_path / "home").changed
    once = snapshot(tmp_path)
    assert not gemini.install(q, "project", tmp_path, tmp_path / "home").changed  # idempotent, mcp or not
    assert snapshot(tmp_path) == once
    hooks = json.loads((tmp_path / ".qwen" / "settings.json").read_text())["hooks"]
    assert {"SessionStart", "PreToolUse", "PostToolUseFailure", "Stop", "PreCompact"} <= set(hooks)
    assert all(g["hooks"][0]["timeout"] >= 5000 for groups in hooks.values() for g in groups)
    assert (tmp_path / ".qwen" / "skills" / "enf-git" / "SKILL.md").is_file()
    gemini.uninstall(q, "project", tmp_path, tmp_path / "home")
    assert snapshot(tmp_path) == before and folders(tmp_path) == [".qwen"]


@pytest.mark.parametrize("which", ["cursor", "copilot"])
def test_a_server_named_like_ours_is_refused_not_overwritten(tmp_path: Path, which: str) -> None:
    path = tmp_path / (".cursor/mcp.json" if which == "cursor" else ".github/mcp.json")
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"mcpServers": {"enf": {"command": "someone-elses"}}}))
    with pytest.raises(EnfError, match="did not write"):
        (cursor if which == "cursor" else copilot).install_mcp("project", tmp_path, tmp_path / "h")  # type: ignore[attr-defined]
    assert json.loads(path.read_text()) == {"mcpServers": {"enf": {"command": "someone-elses"}}}


@pytest.mark.parametrize("which", ["cursor", "copilot", "qwen"])
def test_init_and_uninstall_on_the_command_line(repo_dir: Path, run_cli: Callable[..., str], which: str) -> None:
    out = run_cli("init", "--assistant", which, "--scope", "project", "--mcp")
    assert "hooks registered" in out and "MCP server 'enf' registered" in out
    assert "not tested against the real client" in out or which == "qwen"  # qwen shares Gemini's installer
    assert [p for p in (".cursor", ".github", ".qwen") if (repo_dir / p).exists()]
    gone = run_cli("uninstall", "--assistant", which, "--scope", "project")
    assert "removed" in gone
    assert not [p for p in (".cursor", ".github", ".qwen") if (repo_dir / p).exists()]


def test_cursor_warns_that_claude_codes_hooks_would_run_too(repo_dir: Path, run_cli: Callable[..., str]) -> None:
    run_cli("init")  # Claude Code's hooks, local scope
    out = run_cli("init", "--assistant", "cursor", "--scope", "project")
    assert "every event would then run twice" in out


@pytest.mark.parametrize("which", ["cursor", "copilot", "qwen"])
def test_doctor_checks_each_registered_client(repo_dir: Path, tmp_path: Path, which: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from enf_git import memory
    from enf_git.memory.health import adapter_checks

    monkeypatch.delenv("COPILOT_HOME", raising=False)
    ctx = memory.Context.open(repo_dir)
    home = tmp_path / "h"
    assert adapter_checks.adapters_install(ctx, home) == []  # nothing registered: nothing to say
    if which == "cursor":
        cursor.install("user", repo_dir, home)
        path = home / ".cursor" / "hooks.json"
    elif which == "copilot":
        copilot.install("user", repo_dir, home / ".copilot")
        path = home / ".copilot" / "hooks" / "enf-git.json"
    else:
        gemini.install(gemini.QWEN, "user", repo_dir, home)
        path = home / ".qwen" / "settings.json"
    assert adapter_checks.adapters_install(ctx, home) == []
    text = path.read_text()
    path.write_text(text.replace(sys.executable, "/gone/python"))
    problems = adapter_checks.adapters_install(ctx, home)
    assert any(p.severity == "error" and "/gone/python" in p.what for p in problems), problems
    data = json.loads(text)
    first = next(iter(data["hooks"]))
    del data["hooks"][first]
    path.write_text(json.dumps(data))
    assert any(p.severity == "warning" and "lack" in p.what for p in adapter_checks.adapters_install(ctx, home))
