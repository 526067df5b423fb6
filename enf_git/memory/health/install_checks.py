"""Doctor's checks of the installation: what `git enf init` set up outside the branch.

A hook is a command line in a Claude Code settings file; Claude Code runs it on
every event and says little when it fails. So every registered command is run
here the way Claude Code would start it, without side effects: the interpreter
it names (or the one in `enf-hook`'s shebang) imports enf_git and prints its
version. A deleted or moved virtualenv is then named, with the command that
re-registers the hooks, instead of every hook failing silently.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ... import __version__, paths
from ...errors import EnfError
from ...install import claude, slash
from ...plumbing import store
from .problem import Problem
from ..workspace import Context

PROBE_TIMEOUT = 10.0  # seconds: a hook's own timeout; an import slower than this fails every hook
# What a hook's interpreter runs to say which enf_git it imports: the hook's own
# sys.path fix (see paths.LAUNCH), then only the package's import-free __init__.
PROBE_TAIL = "import enf_git; print(enf_git.__version__); print(enf_git.__file__)"
PROBE = "import sys; sys.path[:] = [p for p in sys.path if p]; " + PROBE_TAIL
# Keep the scope Claude Code users share (project), then the one for all repos.
KEEP_ORDER = ("project", "user", "local")


@dataclass(frozen=True)
class Registered:
    """Our hook entries in one scope's settings file."""

    scope: str
    settings: Path
    programs: tuple[str, ...]  # each distinct command line without its event argument
    events: dict[str, int]  # event -> how many of our entries it has


def registered(top: Path, home: Path) -> tuple[list[Registered], list[Problem]]:
    """Our entries in every scope (project, local, user), and the files we could not read."""
    found, problems = [], []
    for scope in claude.SCOPES:
        path = claude.settings_path(scope, top, home)
        try:
            data = claude.read_settings(path)
        except EnfError as exc:
            problems.append(Problem("error", exc.message.removesuffix("; left it untouched"),
                                    f"fix {path} by hand (Claude Code cannot read it either)"))
            continue
        entry = _ours(scope, path, data)
        if entry is not None:
            found.append(entry)
    return found, problems


def _ours(scope: str, path: Path, data: dict[str, Any]) -> Registered | None:
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return None
    programs: dict[str, None] = {}
    events: dict[str, int] = {}
    for event, groups in hooks.items():
        for group in groups if isinstance(groups, list) else ():
            inner = group.get("hooks") if isinstance(group, dict) else None
            for hook in inner if isinstance(inner, list) else ():
                if claude.is_ours(hook):
                    programs[_program(hook["command"])] = None
                    events[event] = events.get(event, 0) + 1
    return Registered(scope, path, tuple(programs), events) if events else None


def _program(command: str) -> str:
    """The command line without its last word, our event argument."""
    return command.strip().rsplit(None, 1)[0] if len(command.split()) > 1 else command.strip()


def hook_commands(ctx: Context, home: Path) -> list[Problem]:
    found, problems = registered(ctx.top, home)
    seen: dict[str, list[Problem]] = {}
    for entry in found:
        for program in entry.programs:
            if program not in seen:
                seen[program] = _probe_program(program, ctx.top)
            problems += [_in_scope(p, entry) for p in seen[program]]
    return problems


def _in_scope(problem: Problem, entry: Registered) -> Problem:
    """The probe's finding, said of one scope's settings file, with that scope's fix."""
    return Problem(problem.severity, f"the {entry.scope} hooks ({entry.settings}) {problem.what}",
                   problem.fix.replace("{scope}", entry.scope))


def _probe_program(program: str, top: Path) -> list[Problem]:
    try:
        argv = shlex.split(program)
    except ValueError:
        argv = []
    if not argv:
        return [Problem("error", f"run {program!r}, which is not a command line", "git enf init --scope {scope}")]
    if os.path.basename(argv[0]) == claude.PROGRAM:
        return _probe_script(argv[0], top)
    interpreter = _locate(argv[0], top)
    if interpreter is None:
        return [Problem("error", f"call {argv[0]}, which does not exist (the virtualenv was moved or deleted?): "
                        "every hook fails", _reinstall())]
    return _probe_interpreter(interpreter, top, *_launch(argv))


def _launch(argv: list[str]) -> tuple[list[str], str]:
    """The interpreter options and the probe code that import enf_git exactly as this
    command line does (`-S` and its own sys.path: paths.launch_bare), or the plain probe."""
    if "-c" not in argv[1:-1]:
        return [], PROBE
    at = argv.index("-c")
    code, target = argv[at + 1], "from enf_git.hook import main; main()"
    if target not in code:
        return [], PROBE
    return argv[1:at], code.replace(target, PROBE_TAIL)


def _reinstall() -> str:
    return (f"git enf init --scope {{scope}} registers the interpreter running this git enf ({sys.executable}); "
            "reinstall enf-git first if that is not the one you want")


def _locate(program: str, top: Path) -> str | None:
    """Where `program` is: a path as given (relative to the project, where Claude Code runs hooks), else PATH."""
    if os.sep in program or (os.altsep and os.altsep in program):
        path = Path(program) if os.path.isabs(program) else top / program
        return str(path) if path.is_file() else None
    return shutil.which(program)


def _probe_script(name: str, top: Path) -> list[Problem]:
    script = _locate(name, top)
    if script is None:
        return [Problem("error", f"call {name}, which is not on PATH here: every hook fails",
                        "install enf-git where Claude Code finds it (pipx install enf-git), "
                        "or git enf init --scope local to call this interpreter by its path")]
    if not os.access(script, os.X_OK):
        return [Problem("error", f"call {script}, which is not executable: every hook fails", f"chmod +x {script}")]
    interpreter = shebang_interpreter(Path(script))
    if interpreter is None:
        return [Problem("warning", f"call {script}, whose interpreter could not be read from its first line",
                        "reinstall enf-git (pipx reinstall enf-git), then git enf doctor")]
    if _locate(interpreter, top) is None:
        return [Problem("error", f"call {script}, whose interpreter {interpreter} does not exist "
                        "(its virtualenv was moved or deleted?): every hook fails",
                        "reinstall enf-git (pipx reinstall enf-git), or git enf init --scope local")]
    return _probe_interpreter(_locate(interpreter, top) or interpreter, top)


def shebang_interpreter(script: Path) -> str | None:
    """The Python a console script runs: `#!/path/python`, `#!/usr/bin/env python3`,
    or pip's `/bin/sh` trampoline for long paths (`'''exec' "/path/python" "$0" "$@"`)."""
    try:
        with script.open("rb") as f:
            head = f.read(4096).decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    if not head or not head[0].startswith("#!"):
        return None
    try:
        words = shlex.split(head[0][2:])
        if words and os.path.basename(words[0]) == "sh" and len(head) > 1 and head[1].startswith("'''exec'"):
            words = shlex.split(head[1])[1:2]
    except ValueError:
        return None
    if words and os.path.basename(words[0]) == "env":
        words = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
    return words[0] if words else None


def _probe_interpreter(interpreter: str, top: Path, options: list[str] | None = None, probe: str = PROBE) -> list[Problem]:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}  # leave no __pycache__ behind
    try:
        proc = subprocess.run([interpreter, *(options or []), "-c", probe], cwd=top, env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=PROBE_TIMEOUT)
    except subprocess.TimeoutExpired:
        return [Problem("error", f"run {interpreter}, which took over {PROBE_TIMEOUT:g} s to import enf_git: "
                        "every hook times out", "git enf init --scope {scope} from a working enf-git install")]
    except OSError as exc:
        return [Problem("error", f"call {interpreter}, which cannot start ({exc.strerror}): every hook fails",
                        _reinstall())]
    lines = proc.stdout.splitlines()
    if proc.returncode != 0 or len(lines) < 2:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return [Problem("error", f"run {interpreter}, which cannot import enf_git ({last}): every hook fails",
                        f"pip install enf-git into {interpreter}, or " + _reinstall())]
    if lines[0] != __version__:
        return [Problem("warning", f"run enf-git {lines[0]} ({lines[1]}); this git enf is {__version__}",
                        f"upgrade that installation, or {_reinstall()}")]
    return []


def hook_scopes(ctx: Context, home: Path) -> list[Problem]:
    """Our hooks in two scopes (or twice in one) fire twice on every event."""
    found, _ = registered(ctx.top, home)
    problems = []
    problems += _registrations_gone(ctx, home, found)
    if len(found) > 1:
        keep = min(found, key=lambda r: KEEP_ORDER.index(r.scope))
        where = ", ".join(f"{r.scope} ({r.settings})" for r in found)
        drop = " and ".join(f"git enf uninstall --scope {r.scope}" for r in found if r is not keep)
        problems.append(Problem("error", f"enf-git hooks are registered in {len(found)} scopes, {where}: "
                                f"every event fires {len(found)} times", f"keep one ({keep.scope}): {drop}"))
    for entry in found:
        for event, count in sorted(entry.events.items()):
            if count > 1:
                problems.append(Problem("error", f"{entry.settings} registers enf-git's {event} hook {count} times: "
                                        f"it fires {count} times", f"git enf init --scope {entry.scope} "
                                        "(re-registers each event once)"))
    return problems


def _registrations_gone(ctx: Context, home: Path, found: list[Registered]) -> list[Problem]:
    """Scopes where `git enf init` registered our hooks (its record, which `git clean`
    does not reach) that no longer have them: `git clean -xfd` takes
    .claude/settings.local.json and the skill with it. `init --no-hooks` records none."""
    recorded = claude.recorded_settings(store.state_dir(ctx.repo) / claude.RECORD, ctx.top, home)
    have = {r.settings for r in found}
    out = []
    for scope in ("local", "project"):  # user scope's file is shared: another repository may have taken it back
        path = claude.settings_path(scope, ctx.top, home)
        if path in recorded and path not in have:
            out.append(Problem("warning", f"git enf init registered enf-git's hooks in {path} ({scope} scope), and "
                               "they are gone (git clean -xfd removes that file): sessions are neither gated nor "
                               "committed, and start without memory", f"git enf init --scope {scope}"))
    return out


def _skill_parts(skill_md: Path, fix: str) -> list[Problem]:
    """Each file of the skill's folder (SKILL.md and what it sends the assistant to), as shipped."""
    out = []
    for source in claude.skill_sources():
        part = skill_md.parent / source.name
        if not part.is_file():
            out.append(Problem("warning", f"{part} is missing: the skill sends the assistant to it", fix))
        elif part.read_bytes() != source.read_bytes():
            out.append(Problem("warning", f"{part} differs from the skill enf-git {__version__} ships "
                               "(edited, or left by another version)", fix))
    return out


def skill(ctx: Context, home: Path) -> list[Problem]:
    """The skill beside each scope that has our hooks, as shipped with this version."""
    found, _ = registered(ctx.top, home)
    problems: list[Problem] = []
    done: set[Path] = set()
    for entry in found:
        path = claude.skill_path(entry.scope, ctx.top, home)
        if path in done:
            continue
        done.add(path)
        fix = f"git enf init --scope {entry.scope} (copies the shipped skill)"
        if not path.is_file():
            problems.append(Problem("warning", f"the enf-git skill is missing ({path}): the assistant does not "
                                    "know how to write memory", fix))
        else:
            problems += _skill_parts(path, fix)
        gone = slash.missing(entry.scope, ctx.top, home)
        if gone:
            problems.append(Problem("warning", f"the slash command(s) {', '.join(gone)} are missing from "
                                    f"{slash.folder(entry.scope, ctx.top, home)}: the assistant cannot run them",
                                    f"git enf init --scope {entry.scope} (copies the shipped commands)"))
    return problems


def exclude_entry(ctx: Context, home: Path) -> list[Problem]:
    exclude = store.common_dir(ctx.repo) / "info" / "exclude"
    text = exclude.read_text(encoding="utf-8") if exclude.is_file() else ""
    lines = {line.strip() for line in text.splitlines()}
    problems = []
    if paths.EXCLUDE_LINE not in lines:
        problems.append(Problem("warning", f"{paths.WC_DIR}/ is not in .git/info/exclude: git status shows it "
                                "and git add -A would commit memory to your branch", "git enf init"))
    found, _ = registered(ctx.top, home)
    if any(r.scope == "local" for r in found):
        for line in claude.LOCAL_EXCLUDES:
            if line not in lines:
                problems.append(Problem("warning", f"{line} is not in .git/info/exclude: your local settings "
                                        "show in git status", "git enf init --scope local"))
    return problems


def git_hooks(ctx: Context, home: Path) -> list[Problem]:
    """With memory shared (enf.remote), the git hooks that carry it with push and pull are
    in place, and the interpreter each one calls still exists."""
    from ...install import githooks

    if ctx.settings.remote is None:
        return []  # nothing to carry
    folder = githooks.hooks_dir(ctx.top)
    if githooks.in_repository(ctx.top, folder):
        folder = githooks.side_dir(store.common_dir(ctx.repo))  # the team's tracked hook calls ours there
    out = []
    for hook in githooks.HOOKS:
        path = folder / hook
        if not githooks.is_ours(path):
            out.append(Problem("warning", f"the {hook} git hook of enf-git is not installed in {folder}: memory does "
                               "not travel with git push and git pull", "git enf init (your own hook is kept and "
                               "chained)"))
            continue
        python = _shim_python(path)
        if python and not Path(python).exists():
            out.append(Problem("error", f"the {hook} git hook calls {python}, which does not exist (the virtualenv "
                               "was moved or deleted?): memory no longer travels with push and pull",
                               "git enf init (registers the interpreter running this git enf)"))
        elif python and _text(path) != githooks.render(hook, python):
            out.append(Problem("warning", f"the {hook} git hook in {folder} is not the one this version of enf-git "
                               "installs (an older version wrote it, or it was edited by hand): it may lack what this "
                               "version does", "git enf init (rewrites our hooks; a hook of your own stays chained)"))
    return out


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _shim_python(path: Path) -> str | None:
    """The interpreter a shim calls (its `py='…'` line)."""
    try:
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("py="):
                return shlex.split(line[3:])[0] if line[3:].strip() else None
    except (OSError, ValueError):
        return None
    return None


CHECKS: tuple[tuple[str, Callable[[Context, Path], list[Problem]]], ...] = (
    ("hook commands", hook_commands),
    ("hook scopes", hook_scopes),
    ("skill", skill),
    ("exclude entry", exclude_entry),
    ("git hooks", git_hooks),
)  # then mcp_checks.CHECKS, which uses this module's helpers
