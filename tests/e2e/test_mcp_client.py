"""`git enf mcp` inside the real Claude Code client: the scripted model calls the server's
recall, the call reaches the server, and its hits are in the model's next request.

Three ways the client finds the server: `--mcp-config FILE`, the project `.mcp.json`
that `git enf init --mcp` writes, and the plugin's `.mcp.json` (`--plugin-dir hooks/`).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness import ClaudeRun, run_claude
from projects import session_turn
from standin import StandIn, Text, ToolUse

pytestmark = pytest.mark.skipif(importlib.util.find_spec("mcp") is None,
                                reason="the MCP SDK is the `mcp` extra: pip install -e '.[mcp]'")

BIN = Path(sys.executable).parent
GIT_ENF = str(BIN / "git-enf")
DECISION = ("- [10:00] Y: In the context of storage engine, facing write bursts, decided SQLite WAL over "
            "plain files, to achieve crash safety, accepting a single writer. Confidence: high")


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def child_env() -> dict[str, str]:
    """`git enf` on PATH, and the enf_git under test (PYTHONPATH from a checkout): the
    client passes its environment on to the MCP servers it starts."""
    env = {"PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}"}
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env


def remembering(project: Path, home: Path, *init: str) -> Path:
    """A git project whose memory holds one session with a storage decision."""
    git(project, "init", "-q", "-b", "main")
    git(project, "config", "user.name", "E2E")
    git(project, "config", "user.email", "e2e@example.com")
    git(project, "commit", "-q", "--allow-empty", "-m", "start")
    env = {**child_env(), "HOME": str(home)}
    subprocess.run([GIT_ENF, "init", "--no-hooks", *init], cwd=project, env=env, check=True, capture_output=True)
    day = time.strftime("%Y-%m-%d")
    (project / ".claude-sessions" / "sessions" / f"{day}-storage.md").write_text(
        f"---\nsession_id: 5707a6e0\ndate: {day}\nstart_time: \"10:00\"\ntags: [storage]\nstatus: completed\n"
        f"summary: \"Chose the storage engine\"\n---\n## Intent\nPick storage.\n\n## Decisions\n{DECISION}\n")
    subprocess.run([GIT_ENF, "commit", "-m", "storage"], cwd=project, env=env, check=True, capture_output=True)
    return project


def session_file(project: Path) -> Callable[[dict[str, Any]], ToolUse]:
    """A turn writing this session's file: the gate denies every other tool, MCP tools
    included, until it exists."""
    return session_turn(project, "mcp", "Recall the storage decision.")


def recall_round_trip(tool: str, project: Path, home: Path, standin: StandIn, claude: str, *,
                      gated: bool = False, **kw: Any) -> tuple[ClaudeRun, dict[str, Any]]:
    """Script: the model waits for the MCP servers, calls `tool` (recall), then ends (`gated`:
    writes its session file first); the recall's tool_result as the next request carried it.

    The wait is what a model does when a server is still connecting (in `-p` mode the client
    does not wait for servers; on a loaded machine ours may take over a second): without it
    the first request may list no tool of ours, and the test would measure the machine."""
    first = [session_file(project)] if gated else []
    standin.add(*first, ToolUse("WaitForMcpServers", {}),
                ToolUse(tool, {"query": "storage engine crash safety", "limit": 3}), Text("Done."))
    result = run_claude("what did we decide about storage?", project, home, standin.url, claude=claude,
                        allowed_tools=f"Write,WaitForMcpServers,{tool}", extra_env=child_env(), **kw)
    assert result.returncode == 0, result.describe()
    asked = len(first) + 1  # the wait's turn
    call = standin.main_requests[asked].reply
    assert isinstance(call, ToolUse) and call.name == tool
    [answer] = [r for r in standin.main_requests[asked + 1].tool_results() if r["tool_use_id"] == call.id]
    return result, answer


def _hits(answer: dict[str, Any]) -> dict[str, Any]:
    assert not answer.get("is_error"), answer
    content = answer["content"]
    text = content if isinstance(content, str) else "".join(c["text"] for c in content if c.get("type") == "text")
    found: dict[str, Any] = json.loads(text)
    return found


def test_recall_over_mcp_config_reaches_the_server_and_the_next_request(
        claude_bin: str, standin: StandIn, project: Path, claude_home: Path, tmp_path: Path) -> None:
    repo = remembering(project, claude_home)
    config = tmp_path / "mcp-config.json"
    config.write_text(json.dumps({"mcpServers": {"enf": {"command": GIT_ENF, "args": ["mcp"]}}}))
    _, answer = recall_round_trip("mcp__enf__recall", repo, claude_home, standin, claude_bin,
                                  extra_args=["--mcp-config", str(config)])
    hits = _hits(answer)
    assert hits["command"] == "recall" and not hits["weak"]
    top = hits["results"][0]
    assert top["kind"] == "decision" and top["status"] == "standing"
    assert "decided SQLite WAL over plain files" in top["snippet"]
    assert top["target"] in git(repo, "show", "claude-memory:decisions.md")  # the id the branch's view lists


def test_init_mcp_registers_the_server_the_client_starts(
        claude_bin: str, standin: StandIn, project: Path, claude_home: Path) -> None:
    """No --mcp-config: the project .mcp.json that `git enf init --mcp` wrote is enough."""
    repo = remembering(project, claude_home, "--mcp")
    assert json.loads((repo / ".mcp.json").read_text())["mcpServers"]["enf"]["command"] == GIT_ENF
    _, answer = recall_round_trip("mcp__enf__recall", repo, claude_home, standin, claude_bin)
    assert "decided SQLite WAL" in _hits(answer)["results"][0]["snippet"]


def test_the_plugin_serves_the_same_tools(
        claude_bin: str, standin: StandIn, project: Path, claude_home: Path) -> None:
    """`--plugin-dir hooks/`: the plugin's server, named by the client after the plugin, behind
    the plugin's own hooks (so the session file comes first)."""
    repo = remembering(project, claude_home)
    plugin = Path(__file__).resolve().parents[2] / "hooks"
    tool = "mcp__plugin_enf-git_enf__recall"
    _, answer = recall_round_trip(tool, repo, claude_home, standin, claude_bin, gated=True, plugin_dir=plugin)
    assert "decided SQLite WAL" in _hits(answer)["results"][0]["snippet"]
    assert tool in standin.main_requests[2].text()  # the name the client listed to the model, once connected
