"""`git enf toolset` from a terminal: status, list, a switch of one session, the project's
default, exact messages and exit codes, and the pinned JSON envelopes; then the same
switch seen by the hook, as the session's next tool call meets it."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from enf_git import hook
from enf_git.cli.app import main

Run = Callable[..., tuple[int, str, str]]
SID = "c0ffee12-0000-4000-8000-000000000001"


@pytest.fixture
def run(repo_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Run:
    monkeypatch.chdir(repo_dir)

    def _run(*args: str) -> tuple[int, str, str]:
        result = CliRunner().invoke(main, list(args), catch_exceptions=False)
        return result.exit_code, result.stdout, result.stderr

    assert _run("init")[0] == 0
    return _run


def test_status_without_a_session_is_what_new_sessions_get(run: Run) -> None:
    code, out, _ = run("toolset")
    assert code == 0
    assert out.startswith("Toolset: a new session works in the toolset profile build (no force push; ")
    assert run("toolset", "status")[1] == out


def test_a_switch_names_the_session_and_the_change(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = run("toolset", "review", "--session", SID)
    assert code == 0
    assert err == "session c0ffee12: build -> review\n"
    assert out.startswith("Toolset: session c0ffee12 works in the toolset profile review (no writes, no edits; ")
    assert "chosen in this session" in out
    monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", SID)  # the Bash tool's environment names the session
    assert "profile review" in run("toolset")[1]
    assert run("toolset", "reset")[2] == "session c0ffee12: review -> build\n"


def test_a_switch_without_a_session_says_how_to_name_one(run: Run) -> None:
    code, out, err = run("toolset", "plan")
    assert code == 1
    assert err == ("error: which session? a profile belongs to one session, and none is named here\n"
                   "hint: git enf toolset plan --session ID (the id in the session's enf-git context), "
                   "or git enf toolset plan --default for new sessions\n")


def test_an_unknown_profile_is_a_usage_error_that_lists_the_profiles(run: Run) -> None:
    code, _, err = run("toolset", "planning", "--session", SID)
    assert code == 2
    assert ("Error: no toolset profile named 'planning'; profiles: plan, build, review, explore, deploy, debug, docs"
            in err)


def test_the_project_default_is_a_file_the_team_can_commit(run: Run, repo_dir: Path) -> None:
    code, _, err = run("toolset", "docs", "--default")
    assert code == 0 and "wrote .claude/active-toolset: new sessions work in docs" in err
    assert (repo_dir / ".claude" / "active-toolset").read_text() == "docs\n"
    assert "profile docs" in run("toolset")[1] and "the project's default" in run("toolset")[1]
    assert run("toolset", "reset", "--default")[0] == 0
    assert not (repo_dir / ".claude" / "active-toolset").exists()


def test_list_names_every_profile_with_its_source(run: Run, repo_dir: Path) -> None:
    (repo_dir / "toolsets.yaml").write_text("review-web:\n  extends: review\n  allow: [WebFetch]\n")
    code, out, _ = run("toolset", "list")
    assert code == 0
    names = [line.split()[0] for line in out.splitlines()]
    assert names == ["plan", "build", "review", "explore", "deploy", "debug", "docs", "review-web"]
    assert out.splitlines()[-1].endswith("also WebFetch  [toolsets.yaml]")


def test_list_envelope(run: Run, repo_dir: Path) -> None:
    (repo_dir / "toolsets.yaml").write_text("plan:\n  colour: red\n")
    data = json.loads(run("toolset", "list", "--json")[1])
    assert (data["schema"], data["command"]) == (1, "toolset list")
    assert set(data["profiles"][0]) == {"name", "source", "restriction", "classes", "shell", "writes", "paths",
                                        "allow", "deny", "deny_bash"}
    assert data["profiles"][2] == {"name": "review", "source": "built-in", "restriction": "no writes, no edits",
                                   "classes": ["read", "shell", "shell-io", "meta"], "shell": "read-only",
                                   "writes": "none", "paths": [], "allow": [], "deny": [], "deny_bash": []}
    assert data["problems"] == ["toolsets.yaml:2: profile plan: unknown setting 'colour' (known: extends, "
                                "description, classes, allow, deny, deny_bash, paths, shell, writes); "
                                "the built-in plan is used"]


def test_status_envelope(run: Run) -> None:
    run("toolset", "explore", "--session", SID)
    data = json.loads(run("toolset", "--session", SID, "--json")[1])
    assert set(data) == {"schema", "command", "session", "profile", "why", "missing", "problems"}
    assert (data["session"], data["profile"]["name"], data["why"]) == ("c0ffee12", "explore", "chosen in this session")


def test_a_terminal_switch_is_what_the_sessions_next_tool_call_meets(run: Run, repo_dir: Path) -> None:
    from enf_git.assistants.claude import gate
    from gitfixtures import session_text

    today = gate.days()[0]
    own = repo_dir / ".claude-sessions" / "sessions" / f"{today}-cli-switch.md"
    own.write_text(session_text(session_id=SID[:8], date=today))
    run("toolset", "plan", "--session", SID)
    assert "toolset: plan\n" in own.read_text()
    payload = {"session_id": SID, "cwd": str(repo_dir), "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": "ls"}}
    reply = json.loads(hook.respond("PreToolUse", json.dumps(payload).encode()))
    assert reply["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_git_enf_toolset_help_runs_as_git_runs_it(repo_dir: Path) -> None:
    out = subprocess.run([str(Path(sys.executable).parent / "git-enf"), "toolset", "-h"], cwd=repo_dir, text=True,
                         capture_output=True)
    assert out.returncode == 0 and "[NAME|status|list|reset]" in out.stdout


def test_doctor_names_a_malformed_toolsets_file_and_a_default_that_names_no_profile(run: Run, repo_dir: Path,
                                                                                   hermetic: Path) -> None:
    user = hermetic / ".config" / "enf-git" / "toolsets.yaml"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text("mine: [Read]\n")
    (repo_dir / "toolsets.yaml").write_text("review:\n  extends: [review\n")
    (repo_dir / ".claude").mkdir(exist_ok=True)
    (repo_dir / ".claude" / "active-toolset").write_text("planning\n")
    code, out, _ = run("doctor")
    assert code == 0  # warnings: a built-in stays in force, nothing is allowed that was not
    assert "toolset profiles" in out.splitlines()[0]
    assert f"warning: toolsets file {user}:1: profile mine: expected a mapping of settings" in out
    assert "warning: toolsets file toolsets.yaml:3: is not valid YAML" in out
    assert "warning: the project's default names 'planning', which is no profile; build is used" in out
