"""Toolset profiles (seed 003's least privilege by work mode): the built-in profiles,
the class of every tool, and the decision on one tool call. Pure: a call in, a
decision out; the shell classifier is passed in, so any assistant's PreToolUse can
call this with its own tool names mapped to a Call.

A profile is a set of tool classes it allows plus how it treats the shell and file
writes. The seven built-ins are the seed's table, read literally:

    profile  tools                                   restrictions
    plan     Read, Glob, Grep, Task                  no writes, no terminal
    build    Read, Write, Edit, Bash, Glob, Grep, Task  no force push (the default)
    review   Read, Glob, Grep, Bash (read-only)      no writes, no edits
    explore  Read, Glob, Grep                        no Bash, no writes
    deploy   Bash, Read, Glob, Grep                  no source code edits
    debug    Read, Glob, Grep, Bash, Edit            no new files, no push
    docs     Read, Write/Edit of *.md, Glob, Grep    no source edits, no Bash

build is the default and the mode a session works in when nobody chose one, so it
allows every class, unknown tools included: a profile nobody asked for must not take
tools away. Every other profile allows only what its row names; a tool of a class the
row does not name (WebFetch, another server's MCP tool, a tool Claude Code adds next
year) is denied, and the denial names it. Bookkeeping tools (TodoWrite, ExitPlanMode)
change nothing outside the conversation and are allowed everywhere.

This module runs in PreToolUse on every tool call: no dataclasses, enum, fnmatch or re
(each costs more to import than the whole decision), and typing only for the checker.
Custom profiles (toolsets.yaml) are read by toolset_layers.py.
"""


TYPE_CHECKING = False  # typing.TYPE_CHECKING would import typing on every tool call
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

# --- tool classes ----------------------------------------------------------------------

READ, TASK, WRITE, EDIT, SHELL, SHELL_IO, WEB, MCP, CONTROL, META, UNKNOWN = (
    "read", "task", "write", "edit", "shell", "shell-io", "web", "mcp", "control", "meta", "unknown")
CLASSES = (READ, TASK, WRITE, EDIT, SHELL, SHELL_IO, WEB, MCP, CONTROL, META, UNKNOWN)

# Claude Code's tool names as its requests and PreToolUse payloads spell them: those of
# 2.1.337 measured from the tools and deferred-tool list of a real request (see
# tests/e2e/test_toolset_client.py), and the older names (Glob, Grep, LS, TodoWrite...)
# that earlier releases and other set-ups still offer. Write creates or replaces a whole
# file; Edit, MultiEdit and NotebookEdit change one in place. Task-like tools hand work
# to a subagent, whose own tool calls meet PreToolUse again. Control tools change the
# client's own surroundings (scheduled prompts, worktrees): build only. Meta tools
# change nothing outside the conversation (a to-do list, loading a deferred tool's
# schema, listing agents): every profile.
TOOL_CLASS: dict[str, str] = {
    "Read": READ, "Glob": READ, "Grep": READ, "LS": READ, "NotebookRead": READ,
    "Task": TASK, "Agent": TASK, "SendMessage": TASK, "Skill": TASK, "Workflow": TASK, "TaskStop": TASK,
    "Write": WRITE,
    "Edit": EDIT, "MultiEdit": EDIT, "NotebookEdit": EDIT,
    "Bash": SHELL,
    "BashOutput": SHELL_IO, "KillShell": SHELL_IO, "KillBash": SHELL_IO, "Monitor": SHELL_IO,
    "WebFetch": WEB, "WebSearch": WEB,
    "CronCreate": CONTROL, "CronDelete": CONTROL, "EnterWorktree": CONTROL, "ExitWorktree": CONTROL,
    "TodoWrite": META, "ExitPlanMode": META, "WaitForMcpServers": META, "ToolSearch": META,
    "DeferredToolPlaceholder": META, "ListAgents": META, "CronList": META, "ReportFindings": META,
    "ScheduleWakeup": META,
}
# enf-git's own MCP tools (as a project .mcp.json names the server, as the plugin does,
# and the older spelling) read and write memory only: allowed in every profile.
OWN_MCP_PREFIXES = ("mcp__enf__", "mcp__plugin_enf-git_enf__", "mcp__enf-git__")


def tool_class(tool: str) -> str:
    """The class of a tool by its name; `mcp__server__tool` is MCP, anything else unknown."""
    if tool in TOOL_CLASS:
        return TOOL_CLASS[tool]
    return MCP if tool.startswith("mcp__") else UNKNOWN


def own_tool(tool: str) -> bool:
    return tool.startswith(OWN_MCP_PREFIXES)


# --- profiles --------------------------------------------------------------------------

SHELL_NONE, SHELL_READ, SHELL_NO_PUSH, SHELL_NO_FORCE, SHELL_ANY = "none", "read-only", "no-push", "no-force-push", "any"
WRITES_NONE, WRITES_EXISTING, WRITES_PATHS, WRITES_ANY = "none", "existing", "paths", "any"
SHELL_MODES = (SHELL_NONE, SHELL_READ, SHELL_NO_PUSH, SHELL_NO_FORCE, SHELL_ANY)
WRITE_MODES = (WRITES_NONE, WRITES_EXISTING, WRITES_PATHS, WRITES_ANY)
# What each shell mode forbids, by the classifier's verdict.
FORBIDDEN_SHELL = {SHELL_READ: ("write", "push", "force-push", "unknown"), SHELL_NO_PUSH: ("push", "force-push"),
                   SHELL_NO_FORCE: ("force-push",), SHELL_ANY: ()}


class Profile:
    """What one work mode allows. `allow`/`deny` name single tools on top of the classes;
    `paths` (with writes "paths") are the globs a write or edit may touch; `deny_shell`
    are command globs denied whatever the classifier says ("docker *")."""

    __slots__ = ("name", "classes", "shell", "writes", "paths", "allow", "deny", "deny_shell", "restriction",
                 "source")

    def __init__(self, name: str, classes: frozenset[str], shell: str = SHELL_NONE, writes: str = WRITES_NONE,
                 paths: tuple[str, ...] = (), allow: frozenset[str] = frozenset(), deny: frozenset[str] = frozenset(),
                 deny_shell: tuple[str, ...] = (), restriction: str = "", source: str = "built-in") -> None:
        self.name, self.classes, self.shell, self.writes, self.paths = name, classes, shell, writes, paths
        self.allow, self.deny, self.deny_shell = allow, deny, deny_shell
        self.restriction, self.source = restriction, source

    def _key(self) -> tuple[object, ...]:
        return tuple(getattr(self, k) for k in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Profile) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Profile({self.name!r}, source={self.source!r})"


def _builtin(name: str, classes: "Iterable[str]", restriction: str, shell: str = SHELL_NONE,
             writes: str = WRITES_NONE, paths: tuple[str, ...] = ()) -> Profile:
    return Profile(name, frozenset([*classes, META]), shell=shell, writes=writes, paths=paths, restriction=restriction)


BUILTINS: dict[str, Profile] = {p.name: p for p in (
    _builtin("plan", (READ, TASK), "no writes, no terminal"),
    _builtin("build", CLASSES, "no force push", shell=SHELL_NO_FORCE, writes=WRITES_ANY),
    _builtin("review", (READ, SHELL, SHELL_IO), "no writes, no edits", shell=SHELL_READ),
    _builtin("explore", (READ,), "no Bash, no writes"),
    _builtin("deploy", (READ, SHELL, SHELL_IO), "no source code edits", shell=SHELL_ANY),
    _builtin("debug", (READ, SHELL, SHELL_IO, EDIT, WRITE), "no new files, no push",
             shell=SHELL_NO_PUSH, writes=WRITES_EXISTING),
    _builtin("docs", (READ, WRITE, EDIT), "no source edits, no Bash", writes=WRITES_PATHS,
             paths=("*.md",)),  # "*" matches "/" too, so any folder
)}
DEFAULT = "build"


# --- one call --------------------------------------------------------------------------

class Call:
    """One tool call, assistant-neutral: the tool's name in its client, the file it
    writes (relative to the repository, "/" separators; None when it lies outside),
    whether that file exists, and the shell command it runs."""

    __slots__ = ("tool", "path", "exists", "command")

    def __init__(self, tool: str, path: str | None = None, exists: bool | None = None,
                 command: str | None = None) -> None:
        self.tool, self.path, self.exists, self.command = tool, path, exists, command


class ShellVerdict:
    """What the shell classifier says of a command: one of read, write, push,
    force-push, unknown (never read-only), and why, in a line."""

    __slots__ = ("kind", "reason")

    def __init__(self, kind: str, reason: str = "") -> None:
        self.kind, self.reason = kind, reason


class Decision:
    """allowed, or the profile's rule that denied ("no writes") and what the call does
    that the rule forbids."""

    __slots__ = ("allowed", "rule", "reason")

    def __init__(self, allowed: bool, rule: str = "", reason: str = "") -> None:
        self.allowed, self.rule, self.reason = allowed, rule, reason

    def __repr__(self) -> str:
        return f"Decision({self.allowed}, {self.rule!r}, {self.reason!r})"


ALLOW = Decision(True)
if TYPE_CHECKING:
    Classifier = Callable[[str], ShellVerdict]


def decide(profile: Profile, call: Call, classify: "Classifier") -> Decision:
    """Whether `profile` allows `call`; a denial says the rule and what broke it."""
    if call.tool in profile.deny:
        return Decision(False, f"{call.tool} is denied in {profile.name}", f"the tool {call.tool}")
    if call.tool in profile.allow or own_tool(call.tool):
        return ALLOW
    kind = tool_class(call.tool)
    if kind not in profile.classes:
        return Decision(False, _class_rule(profile, kind), _what(call.tool, kind))
    if kind == SHELL:
        return _shell(profile, call.command or "", classify)
    if kind in (WRITE, EDIT):
        return _write(profile, call)
    return ALLOW


def _class_rule(profile: Profile, kind: str) -> str:
    if profile.restriction and kind in (WRITE, EDIT, SHELL, SHELL_IO):
        return profile.restriction
    return f"{profile.name} allows only {', '.join(c for c in CLASSES if c in profile.classes and c != META)}"


def _what(tool: str, kind: str) -> str:
    if kind == UNKNOWN:
        return f"{tool} is a tool this profile does not know"
    if kind == MCP:
        return f"{tool} is another MCP server's tool"
    return f"{tool} is a {kind} tool"


def _shell(profile: Profile, command: str, classify: "Classifier") -> Decision:
    for pattern in profile.deny_shell:
        if glob_match(command.strip(), pattern):
            return Decision(False, f"{profile.name} denies `{pattern}`", f"`{short(command)}`")
    if profile.shell == SHELL_ANY:
        return ALLOW
    verdict = classify(command)
    forbidden = FORBIDDEN_SHELL.get(profile.shell, ("read", "write", "push", "force-push", "unknown"))
    if verdict.kind not in forbidden:
        return ALLOW
    reason = verdict.reason or f"`{short(command)}`"
    if verdict.kind == "unknown":
        reason += " (a command it cannot tell is read-only is not)"
    return Decision(False, profile.restriction or profile.shell, reason)


def _write(profile: Profile, call: Call) -> Decision:
    path = call.path
    if profile.writes == WRITES_ANY:
        return ALLOW
    if profile.writes == WRITES_EXISTING:
        if call.exists is False:
            return Decision(False, profile.restriction or "no new files", f"{call.tool} would create {path}")
        return ALLOW
    if profile.writes == WRITES_PATHS and path and any(glob_match(path, p) for p in profile.paths):
        return ALLOW
    where = path or "a file outside the repository"
    return Decision(False, profile.restriction or "no writes", f"{call.tool} of {where}")


def short(command: str, width: int = 80) -> str:
    line = " ".join(command.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def glob_match(text: str, pattern: str) -> bool:
    """Shell-style match of the whole text: `*` any run of characters ("/" included),
    `?` one character, everything else itself. No brackets: a profile's globs name paths
    and commands, and fnmatch would cost an import of re on every tool call."""
    t = p = 0
    star, mark = -1, 0
    while t < len(text):
        if p < len(pattern) and pattern[p] in ("?", text[t]) and pattern[p] != "*":
            t, p = t + 1, p + 1
        elif p < len(pattern) and pattern[p] == "*":
            star, mark, p = p, t, p + 1
        elif star >= 0:
            mark += 1
            t, p = mark, star + 1
        else:
            return False
    return pattern[p:].strip("*") == ""


def denial(profile: Profile, decision: Decision, switch: str = "/toolset build") -> str:
    """The message a denied call gets: the profile, the rule, what broke it, how to switch."""
    return (f"Denied by the toolset profile {profile.name} ({decision.rule}): {decision.reason}. "
            f"Switch with {switch} to allow it, or do it another way.")


# --- which profile ---------------------------------------------------------------------

PLAN_MODE = "plan"  # Claude Code's permission_mode for its own plan mode


def pick(table: dict[str, Profile], chosen: str | None, permission_mode: str | None,
         project_default: str | None) -> tuple[Profile, str, list[str]]:
    """The profile a session works in, why, and what was named but does not exist:
    its own choice, else the client's plan mode, else the project's default
    (`.claude/active-toolset`), else build."""
    missing: list[str] = []
    for name, why in ((chosen, "chosen in this session"),
                      (PLAN_MODE if permission_mode == PLAN_MODE else None, "the client's plan mode"),
                      (project_default, "the project's default (.claude/active-toolset)")):
        if name is None:
            continue
        if name in table:
            return table[name], why, missing
        missing.append(f"{why.split(' (')[0]} names {name!r}, which is no profile")
    return table[DEFAULT], "the default", missing


def shell_verdict(command: str) -> ShellVerdict:
    """The shell classifier's verdict in this module's terms (the Classifier `decide` takes)."""
    from . import shellclass

    verdict = shellclass.classify(command)
    return ShellVerdict(verdict.name, verdict.reason)


# --- the compiled table (toolset_layers.compiled writes it) -------------------------------
# Here, not in toolset_layers: reading it is what a tool call in a custom profile does,
# and that module (YAML layering) need not be loaded for it.

class Problem:
    """One thing wrong in a toolsets file: where, and what, in words a person acts on."""

    __slots__ = ("source", "line", "message")

    def __init__(self, source: str, line: int, message: str) -> None:
        self.source, self.line, self.message = source, line, message

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: {self.message}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Problem) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))

    def __repr__(self) -> str:
        return f"Problem({str(self)!r})"


def from_compiled(data: object) -> tuple[dict[str, Profile], list[Problem]] | None:
    """The table `compiled` wrote, or None when the data is not that shape (a torn cache)."""
    try:
        assert isinstance(data, dict)
        table = dict(BUILTINS)
        for name, f in data["profiles"].items():
            table[name] = Profile(name, frozenset(f["classes"]), f["shell"], f["writes"], tuple(f["paths"]),
                                  frozenset(f["allow"]), frozenset(f["deny"]), tuple(f["deny_shell"]),
                                  f["restriction"], f["source"])
        problems = [Problem(str(s), int(n), str(m)) for s, n, m in data["problems"]]
    except (AssertionError, KeyError, TypeError, ValueError, AttributeError):
        return None
    return table, problems
