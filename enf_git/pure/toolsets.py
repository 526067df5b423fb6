"""Toolset profiles (seed 003's least privilege by work mode): the built-in profiles,
the class of every tool, and the decision on one tool call. Pure: a call in, a
decision out; the shell classifier is passed in, so this module imports nothing
heavier than itself and any assistant's PreToolUse can call it.

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
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Iterable
from dataclasses import dataclass

# --- tool classes ----------------------------------------------------------------------

READ, TASK, WRITE, EDIT, SHELL, SHELL_IO, WEB, MCP, META, UNKNOWN = (
    "read", "task", "write", "edit", "shell", "shell-io", "web", "mcp", "meta", "unknown")
CLASSES = (READ, TASK, WRITE, EDIT, SHELL, SHELL_IO, WEB, MCP, META, UNKNOWN)

# Claude Code's tool names as its PreToolUse payloads spell them. Write creates or
# replaces a whole file; Edit, MultiEdit and NotebookEdit change a file in place.
TOOL_CLASS: dict[str, str] = {
    "Read": READ, "Glob": READ, "Grep": READ, "LS": READ, "NotebookRead": READ,
    "Task": TASK, "Agent": TASK,
    "Write": WRITE,
    "Edit": EDIT, "MultiEdit": EDIT, "NotebookEdit": EDIT,
    "Bash": SHELL,
    "BashOutput": SHELL_IO, "KillShell": SHELL_IO, "KillBash": SHELL_IO,
    "WebFetch": WEB, "WebSearch": WEB,
    "TodoWrite": META, "ExitPlanMode": META,
}
OWN_MCP_PREFIX = "mcp__enf-git__"  # enf-git's own MCP tools read memory: allowed in every profile


def tool_class(tool: str) -> str:
    """The class of a tool by its name; `mcp__server__tool` is MCP, anything else unknown."""
    if tool in TOOL_CLASS:
        return TOOL_CLASS[tool]
    return MCP if tool.startswith("mcp__") else UNKNOWN


# --- profiles --------------------------------------------------------------------------

SHELL_NONE, SHELL_READ, SHELL_NO_PUSH, SHELL_NO_FORCE, SHELL_ANY = "none", "read-only", "no-push", "no-force-push", "any"
WRITES_NONE, WRITES_EXISTING, WRITES_PATHS, WRITES_ANY = "none", "existing", "paths", "any"


@dataclass(frozen=True)
class Profile:
    """What one work mode allows. `allow`/`deny` name single tools on top of the classes."""

    name: str
    classes: frozenset[str]
    shell: str = SHELL_NONE
    writes: str = WRITES_NONE
    paths: tuple[str, ...] = ()  # with WRITES_PATHS: the globs a write or edit may touch
    allow: frozenset[str] = frozenset()
    deny: frozenset[str] = frozenset()
    deny_shell: tuple[str, ...] = ()  # command globs denied whatever the class ("docker *")
    restriction: str = ""  # the seed's words, for status and denials
    source: str = "built-in"


def _builtin(name: str, classes: Iterable[str], restriction: str, **kw: object) -> Profile:
    return Profile(name, frozenset([*classes, META]), restriction=restriction, **kw)  # type: ignore[arg-type]


BUILTINS: dict[str, Profile] = {p.name: p for p in (
    _builtin("plan", (READ, TASK), "no writes, no terminal"),
    _builtin("build", CLASSES, "no force push", shell=SHELL_NO_FORCE, writes=WRITES_ANY),
    _builtin("review", (READ, SHELL, SHELL_IO), "no writes, no edits", shell=SHELL_READ),
    _builtin("explore", (READ,), "no Bash, no writes"),
    _builtin("deploy", (READ, SHELL, SHELL_IO), "no source code edits", shell=SHELL_ANY),
    _builtin("debug", (READ, SHELL, SHELL_IO, EDIT, WRITE), "no new files, no push",
             shell=SHELL_NO_PUSH, writes=WRITES_EXISTING),
    _builtin("docs", (READ, WRITE, EDIT), "no source edits, no Bash", writes=WRITES_PATHS,
             paths=("*.md",)),  # fnmatch: "*" matches "/" too, so any folder
)}
DEFAULT = "build"


# --- one call --------------------------------------------------------------------------

@dataclass(frozen=True)
class Call:
    """One tool call, assistant-neutral: the tool's name in its client, the file it
    writes (relative to the repository, "/" separators), whether that file exists, and
    the shell command it runs."""

    tool: str
    path: str | None = None
    exists: bool | None = None
    command: str | None = None


@dataclass(frozen=True)
class ShellVerdict:
    """What the shell classifier says of a command: one of read, write, push,
    force-push, unknown (never read-only), and why, in a line."""

    kind: str
    reason: str = ""


@dataclass(frozen=True)
class Decision:
    allowed: bool
    rule: str = ""  # the profile's rule that denied ("no writes"), empty when allowed
    reason: str = ""  # what the call does that the rule forbids


ALLOW = Decision(True)
Classifier = Callable[[str], ShellVerdict]


def decide(profile: Profile, call: Call, classify: Classifier) -> Decision:
    """Whether `profile` allows `call`; a denial says the rule and what broke it."""
    if call.tool in profile.deny:
        return Decision(False, f"{call.tool} is denied in {profile.name}", f"the tool {call.tool}")
    if call.tool in profile.allow or call.tool.startswith(OWN_MCP_PREFIX):
        return ALLOW
    kind = tool_class(call.tool)
    if kind not in profile.classes:
        return Decision(False, _class_rule(profile, kind), _what(call.tool, kind))
    if kind == SHELL:
        return _shell(profile, call.command or "", classify)
    if kind in (WRITE, EDIT):
        return _write(profile, call, kind)
    return ALLOW


def _class_rule(profile: Profile, kind: str) -> str:
    if profile.restriction and kind in (WRITE, EDIT, SHELL, SHELL_IO):
        return profile.restriction
    return f"{profile.name} allows only {', '.join(_shown_classes(profile))}"


def _shown_classes(profile: Profile) -> list[str]:
    return [c for c in CLASSES if c in profile.classes and c != META]


def _what(tool: str, kind: str) -> str:
    if kind == UNKNOWN:
        return f"{tool} is a tool this profile does not know"
    if kind == MCP:
        return f"{tool} is another MCP server's tool"
    return f"{tool} is a {kind} tool"


def _shell(profile: Profile, command: str, classify: Classifier) -> Decision:
    for pattern in profile.deny_shell:
        if fnmatch.fnmatchcase(command.strip(), pattern):
            return Decision(False, f"{profile.name} denies `{pattern}`", f"`{_short(command)}`")
    if profile.shell == SHELL_ANY:
        return ALLOW
    verdict = classify(command)
    forbidden = {SHELL_READ: {"write", "push", "force-push", "unknown"},
                 SHELL_NO_PUSH: {"push", "force-push"},
                 SHELL_NO_FORCE: {"force-push"}}.get(profile.shell, {"read", "write", "push", "force-push", "unknown"})
    if verdict.kind not in forbidden:
        return ALLOW
    reason = verdict.reason or f"`{_short(command)}`"
    if verdict.kind == "unknown":
        reason += " (a command it cannot tell is read-only is not)"
    return Decision(False, profile.restriction or profile.shell, reason)


def _write(profile: Profile, call: Call, kind: str) -> Decision:
    path = call.path or ""
    if profile.writes == WRITES_ANY:
        return ALLOW
    if profile.writes == WRITES_EXISTING:
        if call.exists is False:
            return Decision(False, profile.restriction or "no new files", f"{call.tool} would create {path}")
        return ALLOW
    if profile.writes == WRITES_PATHS and path and any(fnmatch.fnmatchcase(path, p) for p in profile.paths):
        return ALLOW
    return Decision(False, profile.restriction or "no writes", f"{call.tool} of {path or 'a file'}")


def _short(command: str, width: int = 80) -> str:
    line = " ".join(command.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def denial(profile: Profile, decision: Decision, switch: str = "/toolset build") -> str:
    """The message a denied call gets: the profile, the rule, what broke it, how to switch."""
    return (f"Denied by the toolset profile {profile.name} ({decision.rule}): {decision.reason}. "
            f"Switch with {switch} to allow it, or do it another way.")


# --- custom profiles (toolsets.yaml) ---------------------------------------------------

@dataclass(frozen=True)
class Problem:
    """One thing wrong in a toolsets file: where, and what, in words a person acts on."""

    source: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: {self.message}"


KEYS = ("extends", "description", "classes", "allow", "deny", "deny_bash", "paths", "shell", "writes")
SHELL_MODES = (SHELL_NONE, SHELL_READ, SHELL_NO_PUSH, SHELL_NO_FORCE, SHELL_ANY)
WRITE_MODES = (WRITES_NONE, WRITES_EXISTING, WRITES_PATHS, WRITES_ANY)
Lines = dict[tuple[str, ...], int]  # a key's path in the file -> its line (1-based)


def layered(layers: Iterable[tuple[str, object, Lines]]) -> tuple[dict[str, Profile], list[Problem]]:
    """The profiles of the built-ins with each layer on top, lowest first (user, then
    project): a layer's profile replaces the one of its name below it, and `extends`
    names a profile of the layers below or one defined earlier in the same file (a
    profile extending its own name extends the one it replaces). A profile that is
    malformed is left out with a Problem, so the built-in of its name stays in force:
    never a crash, never a silent allow-all."""
    table = dict(BUILTINS)
    problems: list[Problem] = []
    for source, data, lines in layers:
        for name, spec in _entries(source, data, lines, problems):
            profile = _profile(source, name, spec, table, lines, problems)
            if profile is not None:
                table[name] = profile
    return table, problems


def _entries(source: str, data: object, lines: Lines, problems: list[Problem]) -> list[tuple[str, object]]:
    if data is None:
        return []
    if isinstance(data, dict) and set(data) == {"profiles"}:
        data = data["profiles"]
        lines = {k[1:]: v for k, v in lines.items() if k[:1] == ("profiles",)} | lines
    if not isinstance(data, dict):
        problems.append(Problem(source, 1, "expected a mapping of profile names to their settings"))
        return []
    out = []
    for name, spec in data.items():
        if not isinstance(name, str) or not name.replace("-", "").replace("_", "").isalnum():
            problems.append(Problem(source, lines.get((str(name),), 1), f"{name!r} is not a profile name "
                                    "(letters, digits, - and _)"))
            continue
        out.append((name, spec))
    return out


def _profile(source: str, name: str, spec: object, table: dict[str, Profile], lines: Lines,
             problems: list[Problem]) -> Profile | None:
    def bad(key: str | None, message: str) -> None:
        where = lines.get((name, key) if key else (name,), lines.get((name,), 1))
        problems.append(Problem(source, where, f"profile {name}: {message}; "
                                f"{'the built-in ' + name + ' is used' if name in BUILTINS else 'it is ignored'}"))

    if not isinstance(spec, dict):
        bad(None, "expected a mapping of settings (extends, allow, deny, deny_bash, paths, …)")
        return None
    unknown = [k for k in spec if k not in KEYS]
    if unknown:
        bad(str(unknown[0]), f"unknown setting {unknown[0]!r} (known: {', '.join(KEYS)})")
        return None
    base_name = spec.get("extends")
    if base_name is None:
        base = Profile(name, frozenset([META]))
    elif isinstance(base_name, str) and base_name in table:
        base = table[base_name]
    else:
        bad("extends", f"extends {base_name!r}, which is no profile defined before it "
            f"(built-ins: {', '.join(BUILTINS)})")
        return None
    fields: dict[str, list[str]] = {}
    for key in ("classes", "allow", "deny", "deny_bash", "paths"):
        if key in spec:
            items = spec[key]
            if not isinstance(items, list) or not all(isinstance(i, str) and i for i in items):
                bad(key, f"{key} must be a list of strings")
                return None
            fields[key] = items
    wrong = [c for c in fields.get("classes", []) if c not in CLASSES]
    if wrong:
        bad("classes", f"{wrong[0]!r} is no tool class (classes: {', '.join(CLASSES)})")
        return None
    for key, modes in (("shell", SHELL_MODES), ("writes", WRITE_MODES)):
        if key in spec and spec[key] not in modes:
            bad(key, f"{key} must be one of {', '.join(modes)}")
            return None
    return _extend(base, name, source, spec, fields)


def _extend(base: Profile, name: str, source: str, spec: dict[object, object], fields: dict[str, list[str]]) -> Profile:
    """`base` with a custom profile's settings on top: lists add to the base's, modes replace.
    `paths` alone makes the writes path-bound (a profile that names paths means them)."""
    def listed(key: str) -> list[str]:
        return fields.get(key, [])

    classes = base.classes | frozenset(listed("classes"))
    writes = str(spec.get("writes", WRITES_PATHS if "paths" in fields and base.writes != WRITES_NONE else base.writes))
    # a path-bound base (docs) keeps its paths and gains these; any other base is bound to these alone
    kept = base.paths if base.writes == WRITES_PATHS else ()
    return Profile(
        name=name, classes=classes, shell=str(spec.get("shell", base.shell)), writes=writes,
        paths=(*kept, *listed("paths")),
        allow=(base.allow | frozenset(listed("allow"))) - frozenset(listed("deny")),
        deny=(base.deny | frozenset(listed("deny"))) - frozenset(listed("allow")),
        deny_shell=(*base.deny_shell, *listed("deny_bash")),
        restriction=str(spec.get("description", base.restriction)), source=source)


def parse_layer(source: str, raw: bytes) -> tuple[tuple[str, object, Lines] | None, list[Problem]]:
    """One toolsets file's bytes as `layered` takes them; a file that is not UTF-8 or not
    YAML gives no layer and one Problem that says where."""
    from . import fm

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, [Problem(source, 1 + raw[: exc.start].count(b"\n"), "is not UTF-8 text; the file is ignored")]
    try:
        data, lines = fm.load_document(text)
    except Exception as exc:  # noqa: BLE001 - PyYAML raises YAMLError and, on odd tags, others
        line, what = fm.error_line(exc)
        return None, [Problem(source, line, f"is not valid YAML ({what}); the file is ignored")]
    return (source, data, lines), []


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
