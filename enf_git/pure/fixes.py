"""Failures a session fixed: the raw material of instincts (seed 002), derived from the
hook event log without a model.

The data: one session's tool events in order (raw/<session>.jsonl, see
plumbing/events.py), each a `tool` (PostToolUse: it worked) or a `tool-failure`
(PostToolUseFailure: it failed, with the error), naming the tool and a redacted
summary of its input (a Bash command, a file path).

A failure is *fixed* when a later call of the same session is a success of a similar
call: the same tool, and

- Bash: the failed command's program (its first word once env assignments, `sudo`,
  `python -m`, `npx`, `uv run`… are skipped; `git push`, `npm test`: the subcommand of
  tools that have them) is one of the programs of the working command, and one
  command's words hold the other's or they share at least half their words (so
  `pytest tests/a.py` failing and an unrelated `pytest tests/b.py` passing teach nothing). A command that works unchanged after
  another step names that step; one that just worked on a retry teaches nothing;
- file tools (Read, Write, Edit, MultiEdit, NotebookEdit): the same file.

Each fix becomes a Fix: a one-line rule, "what failed, what works", and a key that
ignores what varies between occurrences (the error's detail, the arguments both
commands share), whose hash is the instinct's id, so the same lesson learned in two
sessions or two clones is one record. Everything is redacted before it is cut.
"""

from __future__ import annotations

import functools
import hashlib
import posixpath
import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..redact import redact

FILE_TOOLS = ("Read", "Write", "Edit", "MultiEdit", "NotebookEdit")
CMD_CHARS = 80  # of a command in a rule
ERROR_CHARS = 120  # of the error in a rule
RULE_CHARS = 320  # a whole rule: one line of the SessionStart context
MIN_SHARED = 0.5  # of all their words, two commands that neither holds the other must share
_WRAPPERS = frozenset({"sudo", "env", "time", "nohup", "command", "exec", "builtin", "nice"})
_RUNNERS = {"uv": "run", "poetry": "run", "pipenv": "run", "pdm": "run", "hatch": "run", "pnpm": "exec",
            "bundle": "exec", "npx": "", "bunx": "", "uvx": "", "pipx": "run"}
_SUBCOMMANDS = frozenset({"git", "npm", "pnpm", "yarn", "bun", "pip", "pip3", "cargo", "go", "docker", "kubectl",
                          "gh", "uv", "poetry", "brew", "apt", "apt-get", "dnf", "conda", "dotnet", "make",
                          "helm", "terraform", "systemctl", "deno", "rustup", "gcloud", "aws", "az"})
_SETUP = frozenset({"cd", "pushd", "popd", "export", "source", ".", "set", "unset"})
_BREAKS = frozenset({"&&", "||", ";", "|", "&", "|&", ";;"})
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_PYTHON = re.compile(r"^python[0-9.]*$")
_WORD = re.compile(r"^[a-z][a-z0-9._-]*$")
_EXIT = re.compile(r"^exit code (-?[0-9]+)\b[:.]?\s*", re.IGNORECASE)
_TELLING = re.compile(r"error|exception|not found|no such|denied|fatal|failed|cannot|can't|invalid|unknown|"
                      r"unrecognized|missing|refused|not allowed|no module|does not exist|has not been", re.IGNORECASE)
_DECORATION = re.compile(r"^[\s=*#~_-]+|[\s=*#~_-]+$")
_TAGS = re.compile(r"</?tool_use_error>")


@dataclass(frozen=True)
class Call:
    """One tool event of a session, as derivation reads it."""

    ok: bool
    tool: str
    summary: str
    error: str
    ts: str
    session: str


@dataclass(frozen=True)
class Fix:
    """A failure that a later call of the same session fixed, as a rule."""

    id: str
    tool: str
    program: str  # Bash: the program; file tools: the file
    rule: str
    session: str
    ts: str  # when the working call was logged


def calls_of(records: Iterable[Mapping[str, object]]) -> list[Call]:
    """The tool events of event-log records, in order; other events are left out."""
    return [c for c in map(call_of, records) if c is not None]


def call_of(r: Mapping[str, object]) -> Call | None:
    kind = r.get("event")
    if kind not in ("tool", "tool-failure"):
        return None
    return Call(kind == "tool", _text(r.get("tool")), _text(r.get("summary")), _text(r.get("error")),
                _text(r.get("ts")), _text(r.get("session")))


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def derive(calls: Sequence[Call], *, top: str = "", new_from: int = 0) -> list[Fix]:
    """The fixes in one session's `calls`, one per lesson (the first occurrence), in
    order; only those whose working call is at `new_from` or later (what an earlier
    derivation already saw is not learned twice). `top`: the project folder, so file
    paths are kept relative to it (the same on every clone)."""
    return scan(calls, top=top, new_from=new_from)[0]


def scan(calls: Sequence[Call], *, top: str = "", new_from: int = 0) -> tuple[list[Fix], int | None]:
    """`derive`, and the index of the oldest failure not fixed yet (None: none is), where
    the next derivation over a longer log may start: nothing before it can be a fix."""
    calls = [_relative(c, top) for c in calls]
    pending: list[int] = []  # failures not fixed yet, oldest first
    found: dict[str, Fix] = {}
    for j, call in enumerate(calls):
        if not call.ok:
            pending.append(j)
            continue
        matched = [i for i in pending if _similar(calls[i], call)]
        if not matched:
            continue
        pending = [i for i in pending if i not in matched]
        if j < new_from:
            continue
        fix = _fix(calls[matched[0]], call, calls[matched[0] + 1:j])
        if fix is not None:
            found.setdefault(fix.id, fix)
    return list(found.values()), (pending[0] if pending else None)


def _relative(call: Call, top: str) -> Call:
    if call.tool not in FILE_TOOLS or not top or not posixpath.isabs(call.summary):
        return call
    rel = posixpath.relpath(posixpath.normpath(call.summary), posixpath.normpath(top))
    if rel.startswith(".."):
        return call
    return Call(call.ok, call.tool, rel, call.error, call.ts, call.session)


def _similar(failed: Call, worked: Call) -> bool:
    if failed.tool != worked.tool or not failed.summary:
        return False
    if failed.tool in FILE_TOOLS:
        return failed.summary == worked.summary
    if failed.tool != "Bash":
        return False
    program = primary_program(failed.summary)
    if not program or program.split()[-1] not in worked.summary:
        return False  # the common case, without parsing the command: a log has thousands
    return program in programs(worked.summary) and _alike(words(failed.summary), words(worked.summary))


def _alike(a: list[str], b: list[str]) -> bool:
    """One command's words hold the other's (a flag added or dropped, a step chained in
    front), or they share at least MIN_SHARED of all their words."""
    sa, sb = set(a), set(b)
    return sa <= sb or sb <= sa or len(sa & sb) >= MIN_SHARED * len(sa | sb)


def _fix(failed: Call, worked: Call, between: Sequence[Call]) -> Fix | None:
    if failed.tool == "Bash":
        return _bash_fix(failed, worked, between)
    return _file_fix(failed, worked, between)


def _bash_fix(failed: Call, worked: Call, between: Sequence[Call]) -> Fix | None:
    program = primary_program(failed.summary)
    head = f"Bash `{program}`: `{_cmd(failed.summary)}` failed{_because(failed.error)}; "
    if failed.summary != worked.summary:
        f_rest, w_rest = _without_shared_tail(words(failed.summary), words(worked.summary))
        key: tuple[str, ...] = ("Bash", program, " ".join(f_rest), " ".join(w_rest))
        return _make(key, failed, worked, program, head + f"`{_cmd(worked.summary)}` worked")
    steps = [c for c in between if c.ok]
    if not steps:
        return None  # the same command just worked on a retry: nothing to learn
    step = steps[-1]
    key = ("Bash", program, " ".join(words(failed.summary)), "after", step.tool, " ".join(words(step.summary)))
    return _make(key, failed, worked, program, head + f"it worked after {_step(step)}")


def _file_fix(failed: Call, worked: Call, between: Sequence[Call]) -> Fix:
    path = failed.summary
    head = f"{failed.tool} `{_cmd(path)}`: failed{_because(failed.error)}; "
    steps = [c for c in between if c.ok and c.summary == path]
    if steps:
        key = (failed.tool, path, "after", steps[-1].tool)
        return _make(key, failed, worked, path, head + f"it worked after {steps[-1].tool} of the same file")
    error_class = re.sub(r"[0-9]+", "N", error_digest(failed.error))[:60]
    return _make((failed.tool, path, "retry", error_class), failed, worked, path,
                 head + f"a retry of {failed.tool} with corrected input worked")


def _make(key: tuple[str, ...], failed: Call, worked: Call, program: str, rule: str) -> Fix:
    return Fix(instinct_id(key), failed.tool, _cut(redact(program), CMD_CHARS), _cut(redact(rule), RULE_CHARS),
               worked.session or failed.session, worked.ts)


def instinct_id(key: Sequence[str]) -> str:
    """The stable id of a lesson: `i` and 8 hex digits of a hash of its normalized key."""
    norm = "\x1f".join(" ".join(redact(part).split()) for part in key)
    return "i" + hashlib.sha256(norm.encode("utf-8")).hexdigest()[:8]


def _step(call: Call) -> str:
    return f"`{_cmd(call.summary)}`" if call.tool == "Bash" else f"{call.tool} `{_cmd(call.summary)}`"


def _because(error: str) -> str:
    digest = error_digest(error)
    return f" ({digest})" if digest else ""


def _cmd(text: str) -> str:
    """A command or path for a rule: redacted, on one line, without backticks, cut short."""
    return _cut(" ".join(redact(text).split()).replace("`", "'"), CMD_CHARS)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def error_digest(error: str) -> str:
    """What a rule says of an error: the exit code, and its most telling line (the last
    one that names an error, else the first), redacted and cut short."""
    lines = [ln.strip() for ln in _TAGS.sub("\n", redact(error)).splitlines() if ln.strip()]
    code = ""
    if lines:
        m = _EXIT.match(lines[0])
        if m:
            code, rest = m.group(1), lines[0][m.end():].strip()
            lines = ([rest] if rest else []) + lines[1:]
    lines = [t for t in (_DECORATION.sub("", ln) for ln in lines) if t]
    telling = [ln for ln in lines if _TELLING.search(ln)]
    pick = (telling[-1] if telling else lines[0] if lines else "").replace("`", "'")
    text = f"exit {code}: {pick}" if code and pick else f"exit {code}" if code else pick
    return _cut(" ".join(text.split()), ERROR_CHARS)


# --- commands -------------------------------------------------------------------------------

def words(command: str) -> list[str]:
    """A shell command's words, operators (`&&`, `|`) as words of their own; plain
    whitespace splitting when it does not parse (an open quote)."""
    return list(_words(command))


@functools.lru_cache(maxsize=1024)
def _words(command: str) -> tuple[str, ...]:
    # Cached: derivation compares each failure with the calls after it (shlex: ~30 µs a command).
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        return tuple(lexer)
    except ValueError:
        return tuple(command.split())


def programs(command: str) -> list[str]:
    """The program of each part of a command line (`cd x && pytest -q | tee log`: pytest,
    tee); set-up parts (`cd`, `export`) count only when nothing else is there."""
    found = [p for p in (_program(part) for part in _segments(words(command))) if p]
    real = [p for p in found if p not in _SETUP]
    return real or found


def primary_program(command: str) -> str:
    found = programs(command)
    return found[0] if found else ""


def _segments(tokens: list[str]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for tok in tokens:
        if tok in _BREAKS:
            out.append([])
        else:
            out[-1].append(tok)
    return [s for s in out if s]


def _program(tokens: list[str]) -> str:
    rest = list(tokens)
    while rest and (_ASSIGNMENT.match(rest[0]) or rest[0] in _WRAPPERS or (rest[0].startswith("-") and len(rest) > 1)):
        rest = rest[1:]  # FOO=1 sudo -E env BAR=2 cmd: cmd
    if not rest:
        return ""
    name = posixpath.basename(rest[0]) or rest[0]
    if _PYTHON.match(name) and len(rest) > 2 and rest[1] == "-m":
        return _program(rest[2:])
    if name in _RUNNERS and (not _RUNNERS[name] or (len(rest) > 1 and rest[1] == _RUNNERS[name])):
        skip = rest[1:] if not _RUNNERS[name] else rest[2:]
        while skip and skip[0].startswith("-"):
            skip = skip[1:]
        return _program(skip) if skip else name
    if name in _SUBCOMMANDS:
        return _with_subcommand(name, rest[1:])
    return name


def _with_subcommand(name: str, args: list[str]) -> str:
    """`git push`, `npm test`, `make build`: the first plain word after the tool's own options."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in ("-C", "-c") else 1  # git -C DIR / -c KEY=VALUE take a value
    return f"{name} {args[i]}" if i < len(args) and _WORD.match(args[i]) else name


def _without_shared_tail(a: list[str], b: list[str]) -> tuple[list[str], list[str]]:
    """Both word lists without the words they end with alike (the arguments that stayed)."""
    n = 0
    while n < min(len(a), len(b)) and a[-1 - n] == b[-1 - n]:
        n += 1
    return a[:len(a) - n], b[:len(b) - n]
