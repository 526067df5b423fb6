"""Toolset profiles, the pure layer: the seed's seven profiles read literally, every
tool's class, the shell and write rules, denial messages, and custom profiles layered
over the built-ins (malformed ones named, the built-in kept)."""

from __future__ import annotations

import pytest

from enf_git.pure import toolset_layers as layers
from enf_git.pure import toolsets as ts
from enf_git.pure.toolsets import Call, ShellVerdict

# The shell classifier is its own module with its own corpus; here a table stands in for it,
# so these tests pin what each profile does with each verdict.
VERDICTS = {"git log --oneline": "read", "rm -rf build": "write", "git push origin main": "push",
            "git push --force origin main": "force-push", "./deploy.sh": "unknown"}


def classify(command: str) -> ShellVerdict:
    return ShellVerdict(VERDICTS[command], f"`{command}`")


def allowed(profile: str, call: Call) -> bool:
    return ts.decide(ts.BUILTINS[profile], call, classify).allowed


# profile -> the tools (by Claude Code's names) it allows, every other tool below denied
TOOLS = ["Read", "Glob", "Grep", "LS", "Task", "Agent", "Write", "Edit", "MultiEdit", "NotebookEdit", "Bash",
         "BashOutput", "KillShell", "WebFetch", "WebSearch", "TodoWrite", "mcp__github__create_issue",
         "FutureTool", "Skill", "Workflow", "SendMessage", "Monitor", "CronCreate", "EnterWorktree", "ToolSearch",
         "ListAgents"]
TASKS = {"Task", "Agent", "Skill", "Workflow", "SendMessage"}
META = {"TodoWrite", "ToolSearch", "ListAgents"}
SHELL_IO = {"BashOutput", "KillShell", "Monitor"}
# The tools of Claude Code 2.1.337, as a real request lists them (tools, then deferred tools).
CLIENT_TOOLS = ["Agent", "Bash", "DeferredToolPlaceholder", "Edit", "ListAgents", "Read", "ReportFindings",
                "ScheduleWakeup", "Skill", "ToolSearch", "Workflow", "Write", "CronCreate", "CronDelete", "CronList",
                "EnterWorktree", "ExitWorktree", "Monitor", "NotebookEdit", "SendMessage", "TaskStop", "WebFetch",
                "WebSearch"]
ALLOWS = {
    "plan": {"Read", "Glob", "Grep", "LS"} | TASKS | META,
    "build": set(TOOLS),
    "review": {"Read", "Glob", "Grep", "LS", "Bash"} | SHELL_IO | META,
    "explore": {"Read", "Glob", "Grep", "LS"} | META,
    "deploy": {"Read", "Glob", "Grep", "LS", "Bash"} | SHELL_IO | META,
    "debug": {"Read", "Glob", "Grep", "LS", "Bash", "Edit", "MultiEdit", "NotebookEdit", "Write"} | SHELL_IO | META,
    "docs": {"Read", "Glob", "Grep", "LS", "Write", "Edit", "MultiEdit", "NotebookEdit"} | META,
}


@pytest.mark.parametrize("tool", CLIENT_TOOLS)
def test_every_tool_of_todays_client_has_a_class(tool: str) -> None:
    assert ts.tool_class(tool) != ts.UNKNOWN


@pytest.mark.parametrize("profile", sorted(ALLOWS))
@pytest.mark.parametrize("tool", TOOLS)
def test_each_profile_treats_each_tool_as_the_seed_table_says(profile: str, tool: str) -> None:
    # a read-only command and an existing Markdown file: what remains is the tool's class
    call = Call(tool, path="README.md", exists=True, command="git log --oneline")
    assert allowed(profile, call) == (tool in ALLOWS[profile])


def test_the_seven_builtins_and_the_default() -> None:
    assert list(ts.BUILTINS) == ["plan", "build", "review", "explore", "deploy", "debug", "docs"]
    assert ts.DEFAULT == "build"


def test_tool_classes() -> None:
    assert ts.tool_class("mcp__slack__post") == ts.MCP
    assert ts.tool_class("Teleport") == ts.UNKNOWN
    assert ts.tool_class("MultiEdit") == ts.EDIT
    assert ts.tool_class("Agent") == ts.TASK == ts.tool_class("Task")


@pytest.mark.parametrize("profile", sorted(ts.BUILTINS))
def test_own_mcp_tools_are_allowed_everywhere(profile: str) -> None:
    assert allowed(profile, Call("mcp__enf-git__recall"))


@pytest.mark.parametrize(("profile", "command", "ok"), [
    ("build", "git push origin main", True),
    ("build", "git push --force origin main", False),
    ("build", "./deploy.sh", True),
    ("review", "git log --oneline", True),
    ("review", "rm -rf build", False),
    ("review", "./deploy.sh", False),  # what the classifier cannot tell is not read-only
    ("debug", "rm -rf build", True),
    ("debug", "git push origin main", False),
    ("debug", "git push --force origin main", False),
    ("deploy", "git push --force origin main", True),
    ("deploy", "./deploy.sh", True),
])
def test_the_shell_rules(profile: str, command: str, ok: bool) -> None:
    assert allowed(profile, Call("Bash", command=command)) == ok


def test_an_empty_command_is_classified_not_assumed() -> None:
    seen: list[str] = []

    def spy(command: str) -> ShellVerdict:
        seen.append(command)
        return ShellVerdict("unknown")

    assert not ts.decide(ts.BUILTINS["review"], Call("Bash"), spy).allowed
    assert seen == [""]


@pytest.mark.parametrize(("profile", "tool", "path", "exists", "ok"), [
    ("debug", "Edit", "src/app.py", True, True),
    ("debug", "Write", "src/app.py", True, True),  # overwriting an existing file is an edit
    ("debug", "Write", "src/new.py", False, False),
    ("docs", "Edit", "README.md", True, True),
    ("docs", "Write", "docs/guide/new.md", False, True),
    ("docs", "Edit", "src/app.py", True, False),
    ("docs", "Write", "notes.md.py", False, False),
    ("build", "Write", "src/new.py", False, True),
    ("deploy", "Edit", "deploy.yaml", True, False),
])
def test_the_write_rules(profile: str, tool: str, path: str, exists: bool, ok: bool) -> None:
    assert allowed(profile, Call(tool, path=path, exists=exists)) == ok


def test_a_denial_names_the_profile_the_rule_what_and_how_to_switch() -> None:
    plan = ts.BUILTINS["plan"]
    decision = ts.decide(plan, Call("Write", path="src/app.py", exists=False), classify)
    message = ts.denial(plan, decision)
    assert message == ("Denied by the toolset profile plan (no writes, no terminal): Write is a write tool. "
                       "Switch with /toolset build to allow it, or do it another way.")
    review = ts.BUILTINS["review"]
    message = ts.denial(review, ts.decide(review, Call("Bash", command="rm -rf build"), classify))
    assert "(no writes, no edits): `rm -rf build`." in message


def test_an_unknown_tool_is_named_in_its_denial() -> None:
    decision = ts.decide(ts.BUILTINS["explore"], Call("Teleport"), classify)
    assert not decision.allowed
    assert decision.reason == "Teleport is a tool this profile does not know"
    assert decision.rule == "explore allows only read"


# --- custom profiles ---------------------------------------------------------------------

def test_a_custom_profile_extends_a_builtin() -> None:
    data = {"review-web": {"extends": "review", "allow": ["WebFetch"], "deny_bash": ["docker *"]}}
    table, problems = layers.layered([("toolsets.yaml", data, {})])
    assert problems == []
    p = table["review-web"]
    assert ts.decide(p, Call("WebFetch"), classify).allowed
    assert not ts.decide(p, Call("WebSearch"), classify).allowed
    assert ts.decide(p, Call("Bash", command="git log --oneline"), classify).allowed
    denied = ts.decide(p, Call("Bash", command="docker compose up"), classify)
    assert (denied.allowed, denied.rule) == (False, "review-web denies `docker *`")
    assert table["review"] == ts.BUILTINS["review"]


def test_paths_bind_the_writes_of_a_profile_that_writes() -> None:
    table, _ = layers.layered([("t.yaml", {"docs": {"extends": "docs", "paths": ["site/**"]},
                                       "web": {"extends": "build", "paths": ["web/*"]}}, {})])
    assert allowed_in(table["docs"], Call("Write", path="site/index.html", exists=False))
    assert allowed_in(table["docs"], Call("Edit", path="README.md", exists=True))
    assert allowed_in(table["web"], Call("Edit", path="web/app.js", exists=True))
    assert not allowed_in(table["web"], Call("Edit", path="api/app.py", exists=True))


def allowed_in(profile: ts.Profile, call: Call) -> bool:
    return ts.decide(profile, call, classify).allowed


def test_project_overrides_user_overrides_builtin() -> None:
    user = {"review": {"extends": "review", "allow": ["WebFetch"]}}
    project = {"review": {"extends": "review", "deny": ["Grep"]}}
    table, problems = layers.layered([("user", user, {}), ("project", project, {})])
    assert problems == []
    assert allowed_in(table["review"], Call("WebFetch"))  # extends the user's review
    assert not allowed_in(table["review"], Call("Grep"))
    assert table["review"].source == "project"


@pytest.mark.parametrize(("data", "line", "words"), [
    ({"plan": {"extends": "nosuch"}}, 3, "extends 'nosuch', which is no profile"),
    ({"plan": {"allow": "WebFetch"}}, 4, "allow must be a list of strings"),
    ({"plan": {"extends": "plan", "colour": "red"}}, 5, "unknown setting 'colour'"),
    ({"plan": {"extends": "plan", "shell": "sometimes"}}, 6, "shell must be one of"),
    ({"plan": {"classes": ["read", "teleport"]}}, 7, "'teleport' is no tool class"),
    ({"plan": ["Read"]}, 2, "expected a mapping of settings"),
])
def test_a_malformed_profile_is_named_and_the_builtin_kept(data: dict[str, object], line: int, words: str) -> None:
    lines = {("plan",): 2, ("plan", "extends"): 3, ("plan", "allow"): 4, ("plan", "colour"): 5,
             ("plan", "shell"): 6, ("plan", "classes"): 7}
    table, problems = layers.layered([("toolsets.yaml", data, lines)])
    assert table["plan"] == ts.BUILTINS["plan"]
    assert len(problems) == 1
    assert (problems[0].source, problems[0].line) == ("toolsets.yaml", line)
    assert words in problems[0].message
    assert problems[0].message.endswith("the built-in plan is used")


def test_a_file_that_is_no_mapping_changes_nothing() -> None:
    table, problems = layers.layered([("toolsets.yaml", ["plan"], {})])
    assert table == ts.BUILTINS
    assert [str(p) for p in problems] == ["toolsets.yaml:1: expected a mapping of profile names to their settings"]


def test_profiles_under_a_profiles_key() -> None:
    table, problems = layers.layered([("t", {"profiles": {"ro": {"extends": "explore"}}}, {})])
    assert problems == [] and table["ro"].classes == ts.BUILTINS["explore"].classes


# --- files and choosing -------------------------------------------------------------------

def test_a_file_is_read_with_the_line_of_each_key() -> None:
    raw = b"# team profiles\nreview-web:\n  extends: review\n  allow: [WebFetch]\n  colour: red\n"
    layer, problems = layers.parse_layer("toolsets.yaml", raw)
    assert problems == [] and layer is not None
    _, found = layers.layered([layer])
    assert [str(p) for p in found] == [
        "toolsets.yaml:5: profile review-web: unknown setting 'colour' (known: extends, description, classes, "
        "allow, deny, deny_bash, paths, shell, writes); it is ignored"]


@pytest.mark.parametrize(("raw", "line", "words"), [
    (b"plan:\n  extends: [review\n", 3, "is not valid YAML"),
    (b"plan:\n  extends: review\n\xff\n", 3, "is not UTF-8 text"),
    (b"a: &x [1]\nb: *x\n", 2, "aliases"),
])
def test_a_broken_file_is_named_where_it_breaks(raw: bytes, line: int, words: str) -> None:
    layer, problems = layers.parse_layer("toolsets.yaml", raw)
    assert layer is None
    assert [(p.source, p.line) for p in problems] == [("toolsets.yaml", line)]
    assert words in problems[0].message and problems[0].message.endswith("the file is ignored")


@pytest.mark.parametrize(("chosen", "mode", "default", "want", "why"), [
    (None, None, None, "build", "the default"),
    (None, "default", "docs", "docs", "the project's default (.claude/active-toolset)"),
    (None, "plan", "docs", "plan", "the client's plan mode"),
    ("review", "plan", "docs", "review", "chosen in this session"),
])
def test_which_profile_a_session_works_in(chosen: str | None, mode: str | None, default: str | None,
                                          want: str, why: str) -> None:
    profile, reason, missing = ts.pick(ts.BUILTINS, chosen, mode, default)
    assert (profile.name, reason, missing) == (want, why, [])


def test_a_default_that_names_no_profile_is_said_and_build_used() -> None:
    profile, reason, missing = ts.pick(ts.BUILTINS, None, None, "planning")
    assert (profile.name, reason) == ("build", "the default")
    assert missing == ["the project's default names 'planning', which is no profile"]


@pytest.mark.parametrize(("profile", "command", "ok"), [
    ("review", "rm -rf build", False), ("review", "git log > out.txt", False), ("review", "git log --oneline", True),
    ("build", "git push --force origin main", False), ("build", "git push origin main", True),
    ("debug", "git push origin main", False), ("debug", "make test", True),
])
def test_the_profiles_with_the_real_classifier(profile: str, command: str, ok: bool) -> None:
    decision = ts.decide(ts.BUILTINS[profile], Call("Bash", command=command), ts.shell_verdict)
    assert decision.allowed == ok
    if not ok:
        assert command.split()[0] in decision.reason
