"""`git enf init --mcp` and `git enf uninstall`: our server in .mcp.json, and only ours.

Also the plugin's `.mcp.json` and its shim, which find the installed git-enf.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from enf_git.install import mcp
from enf_git.memory.health.install_checks import shebang_interpreter
from gitfixtures import Git

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = str(Path(sys.executable).with_name("git-enf"))
OURS = {"type": "stdio", "command": SCRIPT, "args": ["mcp"]}
Run = Callable[..., str]


def _read(repo: Path) -> object:
    return json.loads((repo / ".mcp.json").read_text())


def _excluded(repo: Path) -> list[str]:
    return [line for line in (repo / ".git" / "info" / "exclude").read_text().splitlines() if line == "/.mcp.json"]


def test_init_mcp_registers_this_git_enf_once_and_keeps_it_out_of_git_status(
        run_cli: Run, repo_dir: Path, git: Git) -> None:
    out = run_cli("init", "--no-hooks", "--mcp")
    path = repo_dir / ".mcp.json"
    assert f"MCP server 'enf' registered in {path}, calling: {SCRIPT} mcp\n" in out
    assert _read(repo_dir) == {"mcpServers": {"enf": OURS}}
    assert _excluded(repo_dir) == ["/.mcp.json"]
    assert git("status", "--porcelain") == ""
    before = path.read_bytes()
    assert "MCP server 'enf' already registered" in run_cli("init", "--no-hooks", "--mcp")
    assert path.read_bytes() == before and _excluded(repo_dir) == ["/.mcp.json"]


def test_init_mcp_merges_with_the_servers_and_keys_already_there(run_cli: Run, repo_dir: Path, git: Git) -> None:
    theirs = {"mcpServers": {"docs": {"command": "npx", "args": ["docs-server"]}}, "note": "team file"}
    (repo_dir / ".mcp.json").write_text(json.dumps(theirs, indent=4) + "\n")  # the user's, not committed
    out = run_cli("init", "--no-hooks", "--mcp")
    assert _read(repo_dir) == {"mcpServers": {**theirs["mcpServers"], "enf": OURS}, "note": "team file"}
    assert "if .mcp.json is committed, git enf init --mcp --scope project calls git-enf from PATH" in out
    assert _excluded(repo_dir) == []  # a file the user had (and commits) is never hidden
    # What the user adds to our entry (an env) survives a rerun.
    data = _read(repo_dir)
    assert isinstance(data, dict)
    data["mcpServers"]["enf"]["env"] = {"ENF_DEBUG": "1"}
    (repo_dir / ".mcp.json").write_text(json.dumps(data))
    run_cli("init", "--no-hooks", "--mcp")
    assert _read(repo_dir)["mcpServers"]["enf"] == {**OURS, "env": {"ENF_DEBUG": "1"}}  # type: ignore[index]

    out = run_cli("uninstall")
    assert f"removed the enf MCP server from {repo_dir / '.mcp.json'}" in out
    assert _read(repo_dir) == theirs


@pytest.mark.parametrize("layout", [
    '{"mcpServers": {"docs": {"command": "npx", "args": ["docs-server"]}}}\n',  # one line
    '{"mcpServers":{"docs":{"command":"npx","args":["docs-server"]}}}',  # minified, no newline
    '{\n\t"mcpServers": {\n\t\t"docs": {\n\t\t\t"command": "npx",\n\t\t\t"args": [\n\t\t\t\t"docs-server"\n'
    '\t\t\t]\n\t\t}\n\t}\n}\n',  # tabs
])
def test_the_users_layout_of_mcp_json_is_kept(run_cli: Run, repo_dir: Path, layout: str) -> None:
    path = repo_dir / ".mcp.json"
    path.write_text(layout)
    run_cli("init", "--no-hooks", "--mcp")
    text = path.read_text()
    assert text.count("\n") == layout.count("\n") if "\t" not in layout else text.startswith('{\n\t"mcpServers"')
    assert ('":{' in text) == ('":{' in layout) and text.endswith("\n") == layout.endswith("\n")
    assert _read(repo_dir)["mcpServers"]["enf"] == OURS  # type: ignore[index]
    run_cli("uninstall")
    assert path.read_text() == layout  # taking our entry out gives the user's bytes back


def test_a_committed_mcp_json_gets_no_machine_path(run_cli: Run, repo_dir: Path, git: Git) -> None:
    theirs = {"mcpServers": {"docs": {"command": "npx", "args": ["docs-server"]}}}
    (repo_dir / ".mcp.json").write_text(json.dumps(theirs, indent=4) + "\n")
    git("add", ".mcp.json")
    git("commit", "-q", "-m", "team MCP servers")
    before = (repo_dir / ".mcp.json").read_bytes()
    from click.testing import CliRunner

    from enf_git.cli.app import main

    result = CliRunner().invoke(main, ["init", "--no-hooks", "--mcp"])
    assert result.exit_code == 1
    assert ".mcp.json is tracked by git" in result.output and "--scope project" in result.output
    assert (repo_dir / ".mcp.json").read_bytes() == before
    run_cli("init", "--no-hooks", "--mcp", "--scope", "project")  # for the team: git-enf from PATH
    assert _read(repo_dir)["mcpServers"]["enf"]["command"] == "git-enf"  # type: ignore[index]
    assert _read(repo_dir)["mcpServers"]["docs"] == theirs["mcpServers"]["docs"]  # type: ignore[index]


def test_project_scope_calls_git_enf_from_path(run_cli: Run, repo_dir: Path) -> None:
    run_cli("init", "--no-hooks", "--mcp", "--scope", "project")
    assert _read(repo_dir) == {"mcpServers": {"enf": {"type": "stdio", "command": "git-enf", "args": ["mcp"]}}}
    assert _excluded(repo_dir) == []  # shared with the team: meant to be committed


@pytest.mark.parametrize(("text", "expected"), [
    ("{\"mcpServers\": {", "is not valid JSON"),
    ("[1, 2]", "is not a JSON object"),
    ("{\"mcpServers\": []}", "\"mcpServers\" is not an object"),
    ("{\"mcpServers\": {\"enf\": {\"command\": \"node\", \"args\": [\"enf.js\"]}}}",
     "already has an MCP server named 'enf' that is not enf-git's"),
])
def test_a_file_we_cannot_merge_with_is_left_untouched(run_cli: Run, repo_dir: Path, text: str,
                                                        expected: str) -> None:
    (repo_dir / ".mcp.json").write_text(text)
    from click.testing import CliRunner

    from enf_git.cli.app import main

    result = CliRunner().invoke(main, ["init", "--no-hooks", "--mcp"])
    assert result.exit_code == 1, result.output
    assert expected in result.output and "left" in result.output and "hint: " in result.output
    assert (repo_dir / ".mcp.json").read_text() == text


def test_uninstall_deletes_the_file_init_created_and_its_exclude_line(run_cli: Run, repo_dir: Path) -> None:
    run_cli("init", "--no-hooks", "--mcp")
    out = run_cli("uninstall")
    assert f"deleted {repo_dir / '.mcp.json'} (enf-git created it; nothing else was in it)" in out
    assert "removed /.mcp.json from .git/info/exclude" in out
    assert not (repo_dir / ".mcp.json").exists() and _excluded(repo_dir) == []
    assert "MCP" not in run_cli("uninstall")  # nothing left to remove: nothing said


def test_uninstall_of_another_scope_leaves_the_entry(run_cli: Run, repo_dir: Path) -> None:
    run_cli("init", "--no-hooks", "--mcp")
    run_cli("uninstall", "--scope", "user")
    assert _read(repo_dir) == {"mcpServers": {"enf": OURS}}


def test_a_server_the_user_added_after_init_keeps_the_file(run_cli: Run, repo_dir: Path) -> None:
    run_cli("init", "--no-hooks", "--mcp")
    data = _read(repo_dir)
    assert isinstance(data, dict)
    data["mcpServers"]["docs"] = {"command": "npx", "args": ["docs-server"]}
    (repo_dir / ".mcp.json").write_text(json.dumps(data))
    run_cli("uninstall")
    assert _read(repo_dir) == {"mcpServers": {"docs": {"command": "npx", "args": ["docs-server"]}}}


def test_entries_are_recognized_by_their_command() -> None:
    assert mcp.is_ours(OURS)
    assert mcp.is_ours({"command": "/opt/venv/bin/python", "args": ["-c", mcp.LAUNCH, "mcp"]})
    assert mcp.is_ours(mcp.entry("local")) and mcp.is_ours(mcp.entry("project"))
    for foreign in ({"command": "git-enf", "args": ["recall"]}, {"command": "node", "args": ["git-enf.js", "mcp"]},
                    {"url": "https://example.com/mcp"}, "git-enf mcp", None):
        assert not mcp.is_ours(foreign), foreign


# --- the plugin --------------------------------------------------------------------------

PLUGIN = ROOT / "hooks"
SHIM = PLUGIN / "bin" / "enf-mcp"


def test_the_plugin_registers_the_same_server_through_its_shim() -> None:
    data = json.loads((PLUGIN / ".mcp.json").read_text())
    assert list(data["mcpServers"]) == [mcp.SERVER]
    assert data["mcpServers"][mcp.SERVER]["command"] == "${CLAUDE_PLUGIN_ROOT}/bin/enf-mcp"
    assert os.access(SHIM, os.X_OK)


def test_the_shim_runs_git_enf_mcp_or_says_why_it_cannot(tmp_path: Path) -> None:
    fake = tmp_path / "bin" / "git-enf"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho \"called with: $*\"\n")
    fake.chmod(0o755)
    env = {"PATH": f"{fake.parent}:/usr/bin:/bin"}
    assert subprocess.run([str(SHIM)], env=env, capture_output=True, text=True).stdout == "called with: mcp\n"
    env = {"PATH": "/usr/bin:/bin", "ENF_GIT": str(fake)}
    assert subprocess.run([str(SHIM)], env=env, capture_output=True, text=True).stdout == "called with: mcp\n"
    missing = subprocess.run([str(SHIM)], env={"PATH": "/usr/bin:/bin"}, capture_output=True, text=True)
    assert missing.returncode == 1 and missing.stdout == ""
    assert "git-enf is not on PATH; pip install 'enf-git[mcp]'" in missing.stderr


# --- git enf doctor ----------------------------------------------------------------------

def _doctor(repo: Path) -> tuple[int, list[dict[str, str]]]:
    from click.testing import CliRunner

    from enf_git.cli.app import main

    result = CliRunner().invoke(main, ["doctor", "--json"])
    found = [p for p in json.loads(result.output)["problems"] if "MCP" in p["what"] or ".mcp.json" in p["what"]]
    return result.exit_code, found


def _register(repo: Path, command: str, args: list[str] | None = None) -> None:
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"enf": {"command": command, "args": args or ["mcp"]}}}))


def test_doctor_passes_a_registered_server_it_could_start(run_cli: Run, repo_dir: Path) -> None:
    run_cli("init", "--no-hooks", "--mcp")
    assert _doctor(repo_dir) == (0, [])


def test_doctor_names_a_server_command_that_no_longer_exists(run_cli: Run, repo_dir: Path, tmp_path: Path) -> None:
    run_cli("init", "--no-hooks")
    gone = tmp_path / "old-venv" / "bin" / "git-enf"
    _register(repo_dir, str(gone))
    code, found = _doctor(repo_dir)
    assert code == 1 and found == [{
        "severity": "error",
        "what": f"the MCP server 'enf' in {repo_dir / '.mcp.json'} calls {gone}, which does not exist here (the "
                "virtualenv was moved or deleted, or git-enf is not on PATH): Claude Code cannot start it",
        "fix": "git enf init --mcp (registers the git-enf running this doctor)"}]


def test_doctor_names_an_interpreter_without_the_sdk(run_cli: Run, repo_dir: Path, tmp_path: Path) -> None:
    """A git-enf whose Python has no `mcp` (here: the same Python without site-packages)."""
    run_cli("init", "--no-hooks")
    bare = tmp_path / "bin" / "python-without-extras"
    bare.parent.mkdir()
    bare.write_text(f"#!/bin/sh\nexec {sys.executable} -S \"$@\"\n")
    bare.chmod(0o755)
    script = tmp_path / "bin" / "git-enf"
    script.write_text(f"#!{bare}\nfrom enf_git.entry import main\nmain()\n")
    script.chmod(0o755)
    _register(repo_dir, str(script))
    code, found = _doctor(repo_dir)
    assert code == 1 and [p["what"] for p in found] == [
        f"the MCP server 'enf' in {repo_dir / '.mcp.json'} runs {bare}, which lacks the MCP SDK: the server "
        "exits at once"]
    assert "pip install 'enf-git[mcp]'" in found[0]["fix"]


def test_doctor_ignores_servers_that_are_not_ours_and_warns_of_an_unreadable_file(
        run_cli: Run, repo_dir: Path) -> None:
    run_cli("init", "--no-hooks")
    _register(repo_dir, "/nowhere/node", ["server.js"])
    assert _doctor(repo_dir) == (0, [])
    (repo_dir / ".mcp.json").write_text("{")
    code, found = _doctor(repo_dir)
    assert code == 0 and [p["severity"] for p in found] == ["warning"]
    assert "Claude Code cannot read the MCP servers in it" in found[0]["what"]


HIDE_SDK = "import sys; sys.modules['mcp'] = None; from enf_git.entry import main; main()"  # as if not installed


def test_init_mcp_without_the_sdk_registers_and_says_the_pip_command(repo_dir: Path) -> None:
    """The server is registered all the same (the next session starts it once the SDK is
    there), and init says so, with the install command for the interpreter it runs on."""
    proc = subprocess.run([sys.executable, "-c", HIDE_SDK, "init", "--no-hooks", "--mcp"], cwd=repo_dir,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert _read(repo_dir) == {"mcpServers": {"enf": OURS}}
    python = shebang_interpreter(Path(SCRIPT))  # what the registered git-enf runs on
    assert proc.stderr == (f"warning: the MCP server needs the MCP Python SDK, which {python} lacks: Claude Code "
                           f"lists the server as failed until it is installed: {python} -m pip install "
                           "'enf-git[mcp]' (installed with pipx: pipx inject enf-git mcp)\n")
    with_sdk = subprocess.run([SCRIPT, "init", "--no-hooks", "--mcp"], cwd=repo_dir, capture_output=True, text=True)
    assert with_sdk.returncode == 0 and "warning" not in with_sdk.stderr, with_sdk.stderr


def test_init_mcp_asks_the_git_enf_on_path_in_project_scope(run_cli: Run, repo_dir: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Project scope calls git-enf from PATH, maybe another installation than this one: its
    interpreter is the one asked (here: this Python without site-packages, so no SDK)."""
    bare = tmp_path / "bin" / "python-without-extras"
    bare.parent.mkdir()
    bare.write_text(f"#!/bin/sh\nexec {sys.executable} -S \"$@\"\n")
    bare.chmod(0o755)
    script = tmp_path / "bin" / "git-enf"
    script.write_text(f"#!{bare}\nfrom enf_git.entry import main\nmain()\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{script.parent}{os.pathsep}{os.environ['PATH']}")
    from click.testing import CliRunner

    from enf_git.cli.app import main

    result = CliRunner().invoke(main, ["init", "--no-hooks", "--mcp", "--scope", "project"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert f"which {bare} lacks: Claude Code lists the server as failed until it is installed: {bare} -m pip " \
        "install 'enf-git[mcp]'" in result.output
