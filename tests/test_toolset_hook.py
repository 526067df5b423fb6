"""Toolset profiles enforced by the hooks on a real repository: PreToolUse after the session
gate, `/toolset` typed by the user (UserPromptSubmit), the SessionStart line, the switch in
the event log and the session file's frontmatter, and what no profile may take away or give."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from enf_git import hook, memory
from enf_git.assistants.claude import gate
from enf_git.plumbing import session_head
from gitfixtures import session_text

SID = "a1b2c3d4-0000-4000-8000-000000000001"
OTHER = "ffff0000-0000-4000-8000-000000000002"
TODAY = gate.days()[0]


@pytest.fixture
def project(repo_dir: Path) -> Path:
    memory.init(memory.Context.open(repo_dir))
    (repo_dir / "src").mkdir()
    (repo_dir / "src" / "app.py").write_text("print('app')\n")
    return repo_dir


def started(project: Path, sid: str = SID, slug: str = "profile-work") -> Path:
    """The session file that passes the gate, so the profile alone decides."""
    path = project / ".claude-sessions" / "sessions" / f"{TODAY}-{slug}.md"
    path.write_text(session_text(session_id=sid[:8], date=TODAY, status="active"))
    return path


def call(event: str, project: Path, sid: str = SID, **fields: object) -> dict[str, object] | None:
    payload = {"session_id": sid, "cwd": str(project), "hook_event_name": event, **fields}
    out = hook.respond(event, json.dumps(payload).encode())
    return json.loads(out) if out else None


def tool(project: Path, name: str, sid: str = SID, mode: str = "default", **tool_input: object) -> str | None:
    """The denial's reason, or None when the hook lets the call through."""
    reply = call("PreToolUse", project, sid, tool_name=name, tool_input=tool_input, permission_mode=mode)
    if reply is None:
        return None
    out = reply["hookSpecificOutput"]
    assert isinstance(out, dict) and out["permissionDecision"] == "deny"
    return str(out["permissionDecisionReason"])


def prompt(project: Path, text: str, sid: str = SID) -> str:
    reply = call("UserPromptSubmit", project, sid, prompt=text, permission_mode="default")
    assert reply is not None
    out = reply["hookSpecificOutput"]
    assert isinstance(out, dict)
    return str(out["additionalContext"])


def events(project: Path, sid: str = SID) -> list[dict[str, object]]:
    path = project / ".claude-sessions" / "raw" / f"{sid}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_build_is_the_default_and_denies_only_a_force_push(project: Path) -> None:
    started(project)
    assert tool(project, "Write", file_path=str(project / "src" / "new.py"), content="x") is None
    assert tool(project, "Bash", command="rm -rf build && git push origin main") is None
    assert tool(project, "WebFetch", url="https://example.com") is None
    reason = tool(project, "Bash", command="git push --force origin main")
    assert reason is not None and reason.startswith("Denied by the toolset profile build (no force push)")


def test_plan_denies_a_write_and_allows_a_read(project: Path) -> None:
    started(project)
    said = prompt(project, "/toolset plan")
    assert "switched from build to the toolset profile plan" in said
    reason = tool(project, "Write", file_path=str(project / "src" / "new.py"), content="x")
    assert reason == ("Denied by the toolset profile plan (no writes, no terminal): Write is a write tool. "
                      "Switch with /toolset build to allow it, or do it another way.")
    assert tool(project, "Read", file_path=str(project / "src" / "app.py")) is None
    assert tool(project, "Bash", command="ls") is not None
    denial = [e for e in events(project) if e["event"] == "toolset-deny"]
    assert [(e["tool"], e["profile"]) for e in denial] == [("Write", "plan"), ("Bash", "plan")]


def test_the_gate_comes_first_and_its_creation_path_is_open_in_every_profile(project: Path) -> None:
    prompt(project, "/toolset explore")  # chosen before the session file exists
    reason = tool(project, "Read", file_path=str(project / "src" / "app.py"))
    assert reason is not None and "No session file exists for THIS session" in reason  # the gate, not the profile
    target = project / ".claude-sessions" / "sessions" / f"{TODAY}-explore-first.md"
    assert tool(project, "Write", file_path=str(target), content=session_text(session_id=SID[:8], date=TODAY)) is None
    target.write_text(session_text(session_id=SID[:8], date=TODAY))
    assert tool(project, "Read", file_path=str(project / "src" / "app.py")) is None
    assert tool(project, "Write", file_path=str(project / "notes.md"), content="x") is not None


@pytest.mark.parametrize("profile", ["plan", "review", "explore", "deploy", "debug", "docs"])
def test_memory_stays_writable_in_every_profile(project: Path, profile: str) -> None:
    own = started(project)
    prompt(project, f"/toolset {profile}")
    assert tool(project, "Edit", file_path=str(own), old_string="a", new_string="b") is None
    new_decision = project / ".claude-sessions" / "decisions" / "use-x.md"
    assert tool(project, "Write", file_path=str(new_decision), content="x") is None
    assert tool(project, "Bash", command='git enf remember "we deploy on Fridays; never on Mondays"') is None
    assert tool(project, "mcp__enf__recall", query="deploy") is None
    # ...but only memory: a command riding along, or a path that leaves by `..`, is judged as itself
    rides = tool(project, "Bash", command='git enf remember x; rm -rf src')
    assert (rides is None) == (profile in ("deploy", "debug"))  # their shell may delete; the others' may not
    escaped = str(project / ".claude-sessions" / ".." / "src" / "app.py")
    assert (tool(project, "Write", file_path=escaped, content="x") is None) == (profile == "debug")


def test_a_symlink_out_of_the_working_copy_is_no_memory_write(project: Path) -> None:
    started(project)
    prompt(project, "/toolset plan")
    link = project / ".claude-sessions" / "decisions" / "escape.py"
    link.parent.mkdir(exist_ok=True)
    link.symlink_to(project / "src" / "app.py")
    assert tool(project, "Write", file_path=str(link), content="x") is not None


@pytest.mark.parametrize(("command", "ok"), [
    ("rm -rf build", False), ("git log > out.txt", False), ("git log --oneline", True),
    ("git diff HEAD~1 | head -50", True), ("cat src/app.py && sed -i s/a/b/ src/app.py", False),
])
def test_review_allows_bash_that_only_reads(project: Path, command: str, ok: bool) -> None:
    started(project)
    prompt(project, "/toolset review")
    reason = tool(project, "Bash", command=command)
    assert (reason is None) == ok, reason
    if not ok:
        assert reason is not None and reason.startswith("Denied by the toolset profile review (no writes, no edits)")


def test_debug_edits_existing_files_and_creates_none(project: Path) -> None:
    started(project)
    prompt(project, "/toolset debug")
    assert tool(project, "Edit", file_path=str(project / "src" / "app.py"), old_string="a", new_string="b") is None
    reason = tool(project, "Write", file_path=str(project / "src" / "new.py"), content="x")
    assert reason is not None and "(no new files, no push): Write would create src/new.py" in reason
    assert tool(project, "Bash", command="git push origin HEAD") is not None


def test_docs_edits_markdown_only(project: Path) -> None:
    started(project)
    prompt(project, "/toolset docs")
    assert tool(project, "Edit", file_path=str(project / "README.md"), old_string="h", new_string="H") is None
    assert tool(project, "Write", file_path="docs/guide.md", content="x") is None  # relative to cwd
    reason = tool(project, "Edit", file_path=str(project / "src" / "app.py"), old_string="a", new_string="b")
    assert reason is not None and "(no source edits, no Bash): Edit of src/app.py" in reason
    outside = tool(project, "Write", file_path="/tmp/elsewhere.md", content="x")
    assert outside is not None and "outside the repository" in outside


def test_reset_restores_the_default_and_both_are_logged_and_in_the_header(project: Path) -> None:
    own = started(project)
    prompt(project, "/toolset plan")
    assert session_head.value(str(own), "toolset") == "plan"
    said = prompt(project, "/toolset reset")
    assert "switched from plan to the toolset profile build" in said
    assert tool(project, "Write", file_path=str(project / "src" / "new.py"), content="x") is None
    switches = [(e["profile"], e["previous"]) for e in events(project) if e["event"] == "toolset"]
    assert switches == [("plan", "build"), ("build", "plan")]
    assert session_head.value(str(own), "toolset") == "build"
    assert own.read_text().endswith("## Intent\nDo the thing.\n")  # the body untouched


def test_two_sessions_in_one_repository_work_in_two_modes(project: Path) -> None:
    started(project, SID, "first-session")
    started(project, OTHER, "second-session")
    prompt(project, "/toolset plan", SID)
    prompt(project, "/toolset review", OTHER)
    write = {"file_path": str(project / "src" / "app.py"), "content": "x"}
    assert tool(project, "Write", SID, **write) is not None
    assert tool(project, "Write", OTHER, **write) is not None
    assert tool(project, "Bash", SID, command="git log") is not None  # plan: no terminal
    assert tool(project, "Bash", OTHER, command="git log") is None  # review: read-only shell


def test_the_clients_plan_mode_is_plan_until_a_profile_is_chosen(project: Path) -> None:
    started(project)
    write = {"file_path": str(project / "src" / "new.py"), "content": "x"}
    reason = tool(project, "Write", mode="plan", **write)
    assert reason is not None and "toolset profile plan" in reason
    prompt(project, "/toolset build")
    assert tool(project, "Write", mode="plan", **write) is None


def test_the_project_default_applies_to_new_sessions(project: Path) -> None:
    started(project)
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "active-toolset").write_text("review\n")
    assert tool(project, "Write", file_path=str(project / "src" / "app.py"), content="x") is not None
    assert "review" in prompt(project, "/toolset status")


def test_an_unknown_profile_changes_nothing_and_says_which_exist(project: Path) -> None:
    started(project)
    said = prompt(project, "/toolset planning")
    assert "no profile named 'planning', so nothing changed" in said and "plan, build, review" in said
    assert tool(project, "Write", file_path=str(project / "src" / "new.py"), content="x") is None


def test_the_plugins_spelling_of_the_command_switches_too(project: Path) -> None:
    started(project)
    prompt(project, "/enf-git:toolset explore")
    assert tool(project, "Bash", command="ls") is not None


@pytest.mark.parametrize(("name", "what"), [
    ("Write", {"file_path": "toolsets.yaml", "content": "plan: {extends: build}"}),
    ("Edit", {"file_path": ".claude/active-toolset", "old_string": "plan", "new_string": "build"}),
    ("Bash", {"command": "git enf toolset build"}),
    ("Bash", {"command": "echo build > .git/enf/toolsets/a1b2c3d4"}),
    ("Bash", {"command": "env -u CLAUDE_CODE_SESSION_ID git-enf toolset build --session a1b2c3d4"}),
])
def test_no_profile_but_build_lets_the_assistant_change_its_profile(project: Path, name: str,
                                                                     what: dict[str, object]) -> None:
    started(project)
    prompt(project, "/toolset deploy")  # deploy: any shell command, so only the guard stands
    reason = tool(project, name, **what)
    assert reason is not None and "(profiles are the user's to change)" in reason


def test_reading_the_profiles_is_no_change(project: Path) -> None:
    started(project)
    prompt(project, "/toolset review")
    assert tool(project, "Bash", command="cat toolsets.yaml") is None
    assert tool(project, "Bash", command="git enf toolset status") is None
    assert tool(project, "Read", file_path=str(project / "toolsets.yaml")) is None


def test_a_custom_profile_from_the_project_file(project: Path) -> None:
    started(project)
    (project / "toolsets.yaml").write_text(
        "review-web:\n  extends: review\n  allow: [WebFetch]\n  deny_bash: ['docker *']\n"
        "site:\n  extends: docs\n  paths: ['site/**']\n")
    prompt(project, "/toolset review-web")
    assert tool(project, "WebFetch", url="https://example.com") is None
    reason = tool(project, "Bash", command="docker compose up")
    assert reason is not None and "(review-web denies `docker *`)" in reason
    prompt(project, "/toolset site")
    assert tool(project, "Write", file_path="site/index.html", content="x") is None
    assert tool(project, "Write", file_path="src/x.py", content="x") is not None


def in_custom_profile(project: Path) -> tuple[Path, Path]:
    """A session in the project's profile `mine` (explore): its file and the compiled table."""
    started(project)
    spec = project / "toolsets.yaml"
    spec.write_text("mine:\n  extends: explore\n")
    prompt(project, "/toolset mine")
    return spec, project / ".git" / "enf" / "toolsets.json"


def test_a_custom_file_is_compiled_once_and_read_again_only_when_it_changes(project: Path) -> None:
    spec, cache = in_custom_profile(project)
    assert json.loads(cache.read_text())["table"]["profiles"]["mine"]["source"] == "toolsets.yaml"
    assert tool(project, "Bash", command="ls") is not None
    spec.write_text("mine:\n  extends: explore\n  classes: [shell]\n  shell: read-only\n")
    os.utime(spec, ns=(1, 1))  # a new size and time: the compiled table is stale
    assert tool(project, "Bash", command="ls") is None


def test_a_malformed_file_keeps_the_builtin_and_is_named_at_session_start(project: Path) -> None:
    started(project)
    (project / "toolsets.yaml").write_text("plan:\n  extends: build\n  shell: sometimes\n")
    prompt(project, "/toolset plan")
    assert tool(project, "Bash", command="ls") is not None  # the built-in plan, not an allow-all
    context = call("SessionStart", project, source="startup")
    assert context is not None
    text = str(context["hookSpecificOutput"]["additionalContext"])  # type: ignore[index]
    assert "Toolset: this session works in the toolset profile plan" in text
    assert "toolsets file toolsets.yaml:3: profile plan: shell must be one of" in text
    assert "the built-in plan is used" in text


def test_a_broken_yaml_file_is_named_not_a_crash(project: Path) -> None:
    started(project)
    (project / "toolsets.yaml").write_bytes(b"plan:\n  extends: [review\n\xff")
    said = prompt(project, "/toolset status")
    assert "toolsets.yaml:" in said and "the file is ignored" in said
    assert tool(project, "Write", file_path="src/x.py", content="x") is None  # build


def test_session_start_names_the_profile_in_one_line(project: Path) -> None:
    reply = call("SessionStart", project, source="startup")
    assert reply is not None
    text = str(reply["hookSpecificOutput"]["additionalContext"])  # type: ignore[index]
    lines = [line for line in text.splitlines() if line.startswith("Toolset:")]
    assert lines == ["Toolset: this session works in the toolset profile build (no force push; allows every tool), "
                     "the default. Switch with /toolset "
                     "plan|build|review|explore|deploy|debug|docs (or a team profile), /toolset status, "
                     "/toolset reset."]


def test_stop_records_a_profile_chosen_before_the_file_existed(project: Path) -> None:
    prompt(project, "/toolset review")
    own = started(project)
    assert session_head.value(str(own), "toolset") is None
    call("Stop", project, stop_hook_active=False)
    assert session_head.value(str(own), "toolset") == "review"


def test_an_opted_out_session_keeps_its_profile_but_no_log(project: Path) -> None:
    optout = project / ".claude-sessions" / ".opt-out" / SID[:8]
    optout.parent.mkdir(parents=True, exist_ok=True)
    optout.write_text("")
    prompt(project, "/toolset explore")
    assert tool(project, "Bash", command="ls") is not None
    assert events(project) == []


def test_a_broken_choice_file_falls_back_and_never_breaks_the_call(project: Path) -> None:
    started(project)
    choice = project / ".git" / "enf" / "toolsets" / SID[:8]
    choice.parent.mkdir(parents=True, exist_ok=True)
    choice.write_bytes(b"\xff\xfe not a profile")
    assert tool(project, "Write", file_path="src/x.py", content="x") is None
    choice.write_text("nosuch\n")
    assert tool(project, "Write", file_path="src/x.py", content="x") is None


@pytest.mark.parametrize("garbage", [b"", b"{", b"[]", b'{"signature": 1, "table": 2}', b"\xff\xfe"])
def test_a_torn_or_foreign_compiled_table_is_compiled_again(project: Path, garbage: bytes) -> None:
    _spec, cache = in_custom_profile(project)
    cache.write_bytes(garbage)
    assert tool(project, "Bash", command="ls") is not None  # mine, from the file, not an allow-all
    assert json.loads(cache.read_text())["table"]["profiles"]["mine"]["classes"] == ["meta", "read"]


def test_a_compiled_table_of_other_files_is_not_trusted(project: Path) -> None:
    _spec, cache = in_custom_profile(project)
    data = json.loads(cache.read_text())
    data["table"]["profiles"]["mine"]["classes"] = list(("read", "shell", "meta"))
    data["table"]["profiles"]["mine"]["shell"] = "any"
    data["signature"][1][1] = 999  # another size: not this file's table
    cache.write_text(json.dumps(data))
    assert tool(project, "Bash", command="ls") is not None


def test_the_users_own_toolsets_file_applies_to_a_session_that_chose_nothing(project: Path, hermetic: Path) -> None:
    """Each file that can change a profile is noticed, the user's too: the per-call hook
    skips the profile machinery only when none of them exists."""
    started(project)
    assert tool(project, "Bash", command="ls -la") is None
    user = hermetic / ".config" / "enf-git" / "toolsets.yaml"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text("build:\n  extends: build\n  deny_bash: ['ls *']\n")
    reason = tool(project, "Bash", command="ls -la")
    assert reason is not None and "(build denies `ls *`)" in reason


PROBE = """
import json, sys
sys.path.insert(0, sys.argv[1])
before = set(sys.modules)
from enf_git import hook
print(hook.respond("PreToolUse", sys.argv[2].encode()))
print(json.dumps(sorted(set(sys.modules) - before)))
"""
COSTLY = {"typing", "collections", "re", "enum", "dataclasses", "fnmatch", "yaml", "pathlib", "functools",
          "subprocess", "pygit2", "sqlite3"}


@pytest.mark.parametrize("command", ["git log --oneline -20 | grep -i fix | head -5", "docker run x"])
def test_a_call_in_a_custom_profile_imports_nothing_costly(project: Path, command: str) -> None:
    """Without site (whose editable-install finder loads re and collections itself), so that
    what the hook loads is seen: the compiled table, the classifier, and no more."""
    import subprocess
    import sys

    started(project)
    (project / "toolsets.yaml").write_text("ci:\n  extends: review\n  deny_bash: ['docker *']\n")
    prompt(project, "/toolset ci")  # compiles the table
    payload = json.dumps({"session_id": SID, "cwd": str(project), "hook_event_name": "PreToolUse",
                          "tool_name": "Bash", "tool_input": {"command": command}})
    root = str(Path(__file__).resolve().parents[1])
    out = subprocess.run([sys.executable, "-S", "-c", PROBE, root, payload], capture_output=True, text=True,
                         check=True, cwd=project).stdout.splitlines()
    assert ('"deny"' in out[0]) == command.startswith("docker")
    modules = json.loads(out[1])
    loaded = {m.split(".")[0] for m in modules}
    assert "enf_git" in loaded and not loaded & COSTLY, sorted(loaded & COSTLY)
    assert "enf_git.pure.toolset_layers" not in modules  # the compiled table is read without the YAML layering
    assert "enf_git.pure.shellprograms" not in modules  # git, grep, head: the common programs' rules only


def test_a_switch_before_the_session_file_still_carries_the_gates_reminder(project: Path) -> None:
    said = prompt(project, "/toolset review")
    assert said.startswith("enf-git toolset: this session switched from build to the toolset profile review")
    assert "has no session file yet" in said  # the gate's reminder is not lost to the switch
    assert [e["event"] for e in events(project)] == ["toolset", "prompt"]
