"""Toolset profiles inside the real Claude Code client: the user types `/toolset NAME`, the
hook switches before the model reads the prompt, and the scripted model's tool calls meet
the profile in PreToolUse; what the client shows the model is read back from the stand-in.
Also measured here: the tool names today's client offers, each of which has a class."""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from projects import bash, init_project, run, session_turn
from standin import StandIn, Text, ToolUse

from enf_git.pure import toolsets as ts


@pytest.fixture
def repo(project: Path, claude_home: Path) -> Path:
    init_project(project, claude_home)
    (project / "README.md").write_text("# app\n")
    return project


def session_file(repo: Path, slug: str) -> Any:
    return session_turn(repo, slug, "Work in one mode.")


def outcomes(api: StandIn) -> list[tuple[bool, str]]:
    """(denied, text) of every tool result the client sent back, in order (each request
    repeats the conversation so far: a result counts once, by its tool_use_id)."""
    seen: dict[str, tuple[bool, str]] = {}
    for request in api.main_requests:
        for result in request.tool_results():
            text = json.dumps(result.get("content"))
            seen.setdefault(str(result.get("tool_use_id")), ("Denied by the toolset profile" in text, text))
    return list(seen.values())


def write(repo: Path, rel: str) -> ToolUse:
    return ToolUse("Write", {"file_path": str(repo / rel), "content": "x = 1\n"})


def edit(repo: Path, rel: str, old: str, new: str) -> ToolUse:
    return ToolUse("Edit", {"file_path": str(repo / rel), "old_string": old, "new_string": new})


def test_plan_denies_a_write_with_the_profiles_message_and_allows_a_read(claude_bin: str, standin: StandIn,
                                                                         repo: Path, claude_home: Path) -> None:
    standin.add(session_file(repo, "plan-mode"), write(repo, "src/new.py"),
                ToolUse("Read", {"file_path": str(repo / "app.py")}), Text("Planned."))
    run("/toolset plan", repo, claude_home, standin, claude_bin)
    first = standin.main_requests[0].text()
    assert "enf-git toolset: this session switched from build to the toolset profile plan" in first
    got = outcomes(standin)
    assert [d for d, _ in got] == [False, True, False]
    assert ("Denied by the toolset profile plan (no writes, no terminal): Write is a write tool. "
            "Switch with /toolset build to allow it") in got[1][1]
    assert "print('app')" in got[2][1]
    assert not (repo / "src" / "new.py").exists()


def test_review_denies_writes_in_the_shell_and_allows_a_read(claude_bin: str, standin: StandIn, repo: Path,
                                                           claude_home: Path) -> None:
    (repo / "build").mkdir()
    standin.add(session_file(repo, "review-mode"), bash("rm -rf build"), bash("git log > out.txt"),
                bash("git log --oneline"), Text("Reviewed."))
    run("/toolset review", repo, claude_home, standin, claude_bin)
    got = outcomes(standin)
    assert [d for d, _ in got] == [False, True, True, False]
    assert "(no writes, no edits)" in got[1][1] and "rm" in got[1][1]
    assert "app" in got[3][1]  # the commit subject from git log
    assert (repo / "build").is_dir() and not (repo / "out.txt").exists()


def test_build_denies_a_force_push(claude_bin: str, standin: StandIn, repo: Path, claude_home: Path) -> None:
    standin.add(session_file(repo, "build-mode"), bash("git push --force origin main"), Text("Stopped."))
    run("push it", repo, claude_home, standin, claude_bin)
    got = outcomes(standin)
    assert [d for d, _ in got] == [False, True]
    assert "Denied by the toolset profile build (no force push)" in got[1][1]


def test_debug_edits_an_existing_file_and_creates_none(claude_bin: str, standin: StandIn, repo: Path,
                                                      claude_home: Path) -> None:
    standin.add(session_file(repo, "debug-mode"), write(repo, "src/new.py"),
                ToolUse("Read", {"file_path": str(repo / "app.py")}), edit(repo, "app.py", "'app'", "'fixed'"),
                Text("Fixed."))
    run("/toolset debug", repo, claude_home, standin, claude_bin)
    got = outcomes(standin)
    assert [d for d, _ in got] == [False, True, False, False]
    assert "(no new files, no push): Write would create src/new.py" in got[1][1]
    assert (repo / "app.py").read_text() == "print('fixed')\n"


def test_docs_edits_the_readme_and_not_the_source(claude_bin: str, standin: StandIn, repo: Path,
                                                 claude_home: Path) -> None:
    standin.add(session_file(repo, "docs-mode"), ToolUse("Read", {"file_path": str(repo / "README.md")}),
                edit(repo, "README.md", "# app", "# app, documented"),
                ToolUse("Read", {"file_path": str(repo / "app.py")}), edit(repo, "app.py", "'app'", "'docs'"),
                Text("Documented."))
    run("/toolset docs", repo, claude_home, standin, claude_bin)
    got = outcomes(standin)
    assert [d for d, _ in got] == [False, False, False, False, True]
    assert "(no source edits, no Bash): Edit of app.py" in got[4][1]
    assert (repo / "README.md").read_text() == "# app, documented\n"
    assert (repo / "app.py").read_text() == "print('app')\n"


def test_reset_restores_build_in_the_same_session(claude_bin: str, standin: StandIn, repo: Path,
                                                 claude_home: Path) -> None:
    standin.add(session_file(repo, "reset-mode"), write(repo, "one.py"), Text("Denied."))
    first = run("/toolset explore", repo, claude_home, standin, claude_bin)
    assert [d for d, _ in outcomes(standin)] == [False, True]
    standin.add(write(repo, "two.py"), Text("Written."))
    from harness import run_claude
    from projects import child_env

    again = run_claude("/toolset reset", repo, claude_home, standin.url, claude=claude_bin, resume=first.session_id,
                       extra_env=child_env())
    assert again.returncode == 0, again.describe()
    assert "switched from explore to the toolset profile build" in standin.main_requests[-2].text()
    assert [d for d, _ in outcomes(standin)][-1] is False
    assert (repo / "two.py").exists() and not (repo / "one.py").exists()
    own = next((repo / ".claude-sessions" / "sessions").glob("*-reset-mode.md"))
    assert "toolset: build\n" in own.read_text()  # memory knows the mode it ended in


def test_two_sessions_in_one_repository_work_in_two_modes_at_once(claude_bin: str, repo: Path,
                                                                 claude_home: Path) -> None:
    """Two clients at the same time, each with its own stand-in: one plans, one reviews."""
    (repo / "build").mkdir()
    runs: dict[str, list[tuple[bool, str]]] = {}

    def session(mode: str, calls: list[Any]) -> None:
        with StandIn() as api:
            api.add(session_file(repo, f"{mode}-at-once"), *calls, Text("Done."))
            run(f"/toolset {mode}", repo, claude_home, api, claude_bin)
            runs[mode] = outcomes(api)

    threads = [threading.Thread(target=session, args=("plan", [bash("git log --oneline"), write(repo, "p.py")])),
               threading.Thread(target=session, args=("review", [bash("git log --oneline"), bash("rm -rf build")]))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert [d for d, _ in runs["plan"]] == [False, True, True]  # plan: no terminal at all, no writes
    assert [d for d, _ in runs["review"]] == [False, False, True]  # review: a read-only shell
    assert (repo / "build").is_dir() and not (repo / "p.py").exists()


def test_every_tool_the_client_offers_has_a_class(claude_bin: str, standin: StandIn, repo: Path,
                                                  claude_home: Path) -> None:
    standin.add(Text("Hello."))
    run("hello", repo, claude_home, standin, claude_bin)
    body = standin.main_requests[0].body
    offered = [t["name"] for t in body.get("tools", []) if isinstance(t, dict) and "name" in t]
    text = standin.main_requests[0].text()
    deferred = re.search(r"deferred tools are now available via ToolSearch.*?:\n((?:[A-Za-z]+\n)+)", text, re.S)
    offered += deferred.group(1).split() if deferred else []
    assert "Bash" in offered and "Write" in offered
    unknown = [name for name in offered if ts.tool_class(name) == ts.UNKNOWN and not name.startswith("mcp__")]
    assert unknown == [], f"tools of this client with no class in pure/toolsets.py: {unknown}"
