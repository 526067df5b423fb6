"""Failures a session fixed: the raw material of instincts (seed 002), derived from the
hook event log without a model.

The data: one session's tool events in order (raw/<session>.jsonl, see
plumbing/events.py), each a `tool` (PostToolUse: it worked) or a `tool-failure`
(PostToolUseFailure: it failed, with the error), naming the tool and a redacted
summary of its input (a Bash command, a file path).

A failure is *fixed* when a later call of the same session is a success of a similar
call. Only a lesson about the tool counts, never the ordinary red-green of work (a test
fails, the code is edited, the test passes), so:

- Bash: the failed command's program (its first word once env assignments, `sudo`,
  `python -m`, `npx`, `uv run`… are skipped; `git push`, `npm test`: the subcommand of
  tools that have them) is one of the programs of the working command, one command's
  words hold the other's or they share at least half their words, and they differ in
  more than their positional arguments: a flag, an env assignment, the invocation
  (`python -m pytest` for `pytest`), a step chained in front, or a word the error
  rejects by name (`No such command 'lgo'`), wherever the word sits in the command:
  inside a quoted script (`python3 -c "import zorblaxmod"`: `No module named
  'zorblaxmod'`), a URL or a path (`repository 'https://…/zorblaxmod.git/' not found`,
  `can't open file '…/zorblaxmod.py'`: a quoted path or URL names its words only on a
  line that says it is not there), when the words around it are alike too (two
  unrelated `python3 -c` scripts are not one lesson). So `pytest tests/a.py` failing and
  `pytest tests/b.py` passing, or two greps for two patterns, teach nothing. A command
  that works unchanged after a Bash step (not a look such as `ls` or `git status`)
  names that step; one that just worked on a retry teaches nothing;
- file tools (Read, Write, Edit, MultiEdit, NotebookEdit): a file that did not exist,
  then the same tool on a file of the same name elsewhere in the project (the layout
  is the lesson); a retry with other input (an Edit's old_string) teaches nothing.

No fix counts when a file was written in between (Write, Edit…): the code changed, and
that, not the command, may be what made it work.

Each fix becomes a Fix: a one-line rule, "what failed, what works", and a key that
ignores what varies between occurrences (the error's detail, the arguments both
commands share), whose hash is the instinct's id, so the same lesson learned in two
sessions or two clones is one record. Everything is redacted before it is cut.
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..redact import redact

FILE_TOOLS = ("Read", "Write", "Edit", "MultiEdit", "NotebookEdit")
WRITE_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit")  # one that worked in between: the code changed
CMD_CHARS = 80  # of a command in a rule
ERROR_CHARS = 120  # of the error in a rule
RULE_CHARS = 320  # a whole rule: one line of the SessionStart context
MIN_SHARED = 0.5  # of all their words, two commands that neither holds the other must share
MAX_PENDING = 100  # failures waiting for a fix at once: past it the oldest is no longer waited for
_WRAPPERS = frozenset({"sudo", "env", "time", "nohup", "command", "exec", "builtin", "nice"})
_RUNNERS = {"uv": "run", "poetry": "run", "pipenv": "run", "pdm": "run", "hatch": "run", "pnpm": "exec",
            "bundle": "exec", "npx": "", "bunx": "", "uvx": "", "pipx": "run"}
_SUBCOMMANDS = frozenset({"git", "npm", "pnpm", "yarn", "bun", "pip", "pip3", "cargo", "go", "docker", "kubectl",
                          "gh", "uv", "poetry", "brew", "apt", "apt-get", "dnf", "conda", "dotnet", "make",
                          "helm", "terraform", "systemctl", "deno", "rustup", "gcloud", "aws", "az"})
_SETUP = frozenset({"cd", "pushd", "popd", "export", "source", ".", "set", "unset"})
# Commands that only look: one of these between a failure and its unchanged rerun did not fix it.
_LOOKS = frozenset({"ls", "cat", "head", "tail", "less", "more", "grep", "egrep", "rg", "ag", "find", "fd", "pwd",
                    "echo", "printf", "which", "type", "whereis", "wc", "tree", "file", "stat", "du", "df", "diff",
                    "true", "date", "printenv", "ps", "git status", "git log", "git diff", "git show", "git branch",
                    "git blame", "git grep"})
_BREAKS = frozenset({"&&", "||", ";", "|", "&", "|&", ";;"})
class _Lazy:
    """A regex compiled at its first use: SessionStart imports this module (through the
    instincts block) and never matches anything, and compiling these cost ~5 ms there."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern, self.flags = pattern, flags
        self.compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        if self.compiled is None:
            self.compiled = re.compile(self.pattern, self.flags)
        return getattr(self.compiled, name)


_ASSIGNMENT = _Lazy(r"^[A-Za-z_][A-Za-z0-9_]*=")
_PYTHON = _Lazy(r"^python[0-9.]*$")
_WORD = _Lazy(r"^[a-z][a-z0-9._-]*$")
_EXIT = _Lazy(r"^exit code (-?[0-9]+)\b[:.]?\s*", re.IGNORECASE)
_TELLING = _Lazy(r"error|exception|not found|no such|denied|fatal|failed|cannot|can't|invalid|unknown|"
                      r"unrecognized|missing|refused|not allowed|no module|does not exist|has not been", re.IGNORECASE)
_DECORATION = _Lazy(r"^[\s=*#~_-]+|[\s=*#~_-]+$")
_TAGS = _Lazy(r"</?tool_use_error>")
# A file tool's error when its path was wrong (Read: "File does not exist.").
_MISSING = _Lazy(r"does not exist|no such file|file not found|ENOENT", re.IGNORECASE)
_QUOTED = _Lazy(r"""['"`\u2018\u201c]([A-Za-z][A-Za-z0-9_-]*)['"`\u2019\u201d]""")  # 'lgo' in an error
# A quoted path, URL or dotted name in an error ('/p/x.py', 'https://h/x.git/', 'a.b'), and
# the words in it and in a command (`python3 -c "import a.b"`: python3, c, import, a, b).
_QUOTED_SPAN = _Lazy(r"""['"`\u2018\u201c]([^'"`\u2018\u2019\u201c\u201d\s]+)['"`\u2019\u201d]""")
_PIECE = _Lazy(r"[A-Za-z][A-Za-z0-9_-]*")
# What an error line says of a quoted path or URL when it is not there, so that a line
# naming a file that is there (pytest's "ImportError while importing test module
# '/p/tests/test_a.py'") does not make the test file's name the lesson.
_NOT_THERE = _Lazy(r"no such|not found|no module|does not exist|doesn't exist|did not match|unknown|unrecogni[sz]ed|"
                   r"not recogni[sz]ed|invalid|cannot|can't|could not|couldn't|unable to|no matching|has no attribute",
                   re.IGNORECASE)


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
            if _may_be_fixed(call):
                pending.append(j)
                del pending[:-MAX_PENDING]  # each success is compared with every waiting failure
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


def _may_be_fixed(failed: Call) -> bool:
    """A failure a later call can fix as a lesson: any command; a file tool's only when
    its path did not exist (another error of one, such as an Edit's old_string not
    found, is fixed by other input, which teaches nothing)."""
    if failed.tool == "Bash":
        return bool(failed.summary)
    return failed.tool in FILE_TOOLS and bool(failed.summary) and bool(_MISSING.search(failed.error))


def _similar(failed: Call, worked: Call) -> bool:
    """`worked` is the same call again or a call that may fix `failed` (see the module's
    docstring); the same call counts so that a rerun ends the wait, lesson or not."""
    if failed.tool != worked.tool or not failed.summary:
        return False
    if failed.tool in FILE_TOOLS:
        return posixpath.basename(failed.summary) == posixpath.basename(worked.summary)
    if failed.tool != "Bash":
        return False
    if failed.summary == worked.summary:
        return True
    program = primary_program(failed.summary)
    if not program or program.split()[-1] not in worked.summary:
        return False  # the common case, without parsing the command: a log has thousands
    a, b = _shape(failed.summary), _shape(worked.summary)
    if program not in b.programs:
        return False
    if _related(a.words, b.words) and (a.form != b.form or _rejected_word(failed.error, a, b)):
        return True
    # A word inside one of its words (`"import zorblaxmod"`, `scripts/zorblaxmod.py`): the
    # words around it must be alike too, or any two `python3 -c` scripts would be related.
    return _rejected_piece(failed.error, a, b) and _related(a.pieces, b.pieces)


@dataclass(frozen=True)
class _Shape:
    """What comparing a command needs, worked out once per command (see _shape)."""

    programs: tuple[str, ...]
    words: frozenset[str]
    pieces: frozenset[str]  # the words inside its words: `"import a.b"` holds import, a, b
    form: tuple[object, ...]


@functools.lru_cache(maxsize=4096)
def _shape(command: str) -> _Shape:
    # Cached: a scan compares each success with up to MAX_PENDING failures.
    tokens = words(command)
    return _Shape(tuple(programs(command)), frozenset(tokens), frozenset(_PIECE.findall(command)), _form(tokens))


def _related(a: frozenset[str], b: frozenset[str]) -> bool:
    """One command's words hold the other's (a flag added or dropped, a step chained in
    front), or they share at least MIN_SHARED of all their words."""
    return a <= b or b <= a or len(a & b) >= MIN_SHARED * len(a | b)


def _rejected_word(error: str, a: _Shape, b: _Shape) -> bool:
    """The error names, quoted, a plain word of the failed command that the working one
    dropped: `No such command 'lgo'`, `pathspec 'main' did not match`. A positional
    argument is then the lesson, unlike `pytest tests/a.py` then `pytest tests/b.py`."""
    return bool(set(_QUOTED.findall(error)) & (a.words - b.words))


def _rejected_piece(error: str, a: _Shape, b: _Shape) -> bool:
    """The error names, quoted, a word that the working command changed, inside a quoted
    script, a URL or a path: `No module named 'zorblaxmod'` for `python3 -c "import
    zorblaxmod"` then `python3 -c "import zorblaxlib"`."""
    named = _named(error)
    return bool(named) and not named.isdisjoint(a.pieces - b.pieces)


@functools.lru_cache(maxsize=256)
def _named(error: str) -> frozenset[str]:
    """The words an error names, quoted: a quoted word ('zorblaxmod'); the words of a
    quoted path, URL or dotted name ('/p/scripts/zorblaxmod.py') on a line that says it
    is not there (`can't open file`, `not found`, `No module named`)."""
    if not any(q in error for q in "'\"`\u2018\u201c"):
        return frozenset()  # the common case: no quote, nothing named
    out: set[str] = set()
    for line in error.splitlines():
        for span in _QUOTED_SPAN.findall(line):
            if _PIECE.fullmatch(span):
                out.add(span)
            elif _NOT_THERE.search(line):
                out.update(_PIECE.findall(span))
    return frozenset(out)  # cached: a failure is compared with every success after it


def _fix(failed: Call, worked: Call, between: Sequence[Call]) -> Fix | None:
    if any(c.ok and c.tool in WRITE_TOOLS for c in between):
        return None  # a file was written in between: that code change may be the fix, not a lesson
    if failed.tool == "Bash":
        return _bash_fix(failed, worked, between)
    return _file_fix(failed, worked)


def _bash_fix(failed: Call, worked: Call, between: Sequence[Call]) -> Fix | None:
    program = primary_program(failed.summary)
    head = f"Bash `{program}`: `{_cmd(failed.summary)}` failed{_because(failed.error)}; "
    if failed.summary != worked.summary:
        f_rest, w_rest = _without_shared_tail(words(failed.summary), words(worked.summary))
        key: tuple[str, ...] = ("Bash", program, " ".join(f_rest), " ".join(w_rest))
        return _make(key, failed, worked, program, head + f"`{_cmd(worked.summary)}` worked")
    steps = [c for c in between if c.ok and c.tool == "Bash" and c.summary and not _looks(c.summary)]
    if not steps:
        return None  # the same command just worked on a retry (or after a look around): nothing to learn
    step = steps[-1]
    key = ("Bash", program, " ".join(words(failed.summary)), "after", step.tool, " ".join(words(step.summary)))
    return _make(key, failed, worked, program, head + f"it worked after `{_cmd(step.summary)}`")


def _looks(command: str) -> bool:
    """Every program of the command only looks (`ls`, `cat x | grep y`, `git status`)."""
    found = programs(command)
    return bool(found) and all(p in _LOOKS for p in found)


def _file_fix(failed: Call, worked: Call) -> Fix | None:
    path, there = failed.summary, worked.summary
    if path == there:
        return None  # the file came to exist where it was looked for: nothing about the layout
    if posixpath.isabs(path) or posixpath.isabs(there):
        return None  # outside the project: not the same on a teammate's machine
    head = f"{failed.tool} `{_cmd(path)}`: failed{_because(failed.error)}; "
    return _make((failed.tool, path, "at", there), failed, worked, path,
                 head + f"{worked.tool} `{_cmd(there)}` worked")


def _make(key: tuple[str, ...], failed: Call, worked: Call, program: str, rule: str) -> Fix:
    return Fix(instinct_id(key), failed.tool, cut(redact(program), CMD_CHARS), cut(redact(rule), RULE_CHARS),
               worked.session or failed.session, worked.ts)


def instinct_id(key: Sequence[str]) -> str:
    """The stable id of a lesson: `i` and 8 hex digits of a hash of its normalized key."""
    norm = "\x1f".join(" ".join(redact(part).split()) for part in key)
    import hashlib  # here: the module is imported at every SessionStart, hashed from only at Stop

    return "i" + hashlib.sha256(norm.encode("utf-8")).hexdigest()[:8]


def _because(error: str) -> str:
    digest = error_digest(error)
    return f" ({digest})" if digest else ""


def _cmd(text: str) -> str:
    """A command or path for a rule: redacted, on one line, without backticks, cut short."""
    return cut(" ".join(redact(text).split()).replace("`", "'"), CMD_CHARS)


def cut(text: str, limit: int) -> str:
    """`text` within `limit` characters, an ellipsis marking a cut."""
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
    return cut(" ".join(text.split()), ERROR_CHARS)


# --- commands -------------------------------------------------------------------------------

def words(command: str) -> list[str]:
    """A shell command's words, operators (`&&`, `|`) as words of their own; plain
    whitespace splitting when it does not parse (an open quote)."""
    return list(_words(command))


@functools.lru_cache(maxsize=1024)
def _words(command: str) -> tuple[str, ...]:
    # Cached: derivation compares each failure with the calls after it (shlex: ~30 µs a command).
    try:
        import shlex  # here, as hashlib above

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


@functools.lru_cache(maxsize=4096)
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
    at = _head(tokens)
    if at >= len(tokens):
        return ""
    name = posixpath.basename(tokens[at]) or tokens[at]
    return _with_subcommand(name, tokens[at + 1:]) if name in _SUBCOMMANDS else name


def _head(tokens: list[str]) -> int:
    """Where one part's program is: past env assignments, wrappers and their flags,
    `python -m`, runners (`FOO=1 sudo -E env BAR=2 cmd`, `uv run cmd`: cmd); len(tokens)
    when there is none."""
    at = 0
    while True:
        while at < len(tokens) and (_ASSIGNMENT.match(tokens[at]) or tokens[at] in _WRAPPERS
                                    or (tokens[at].startswith("-") and at + 1 < len(tokens))):
            at += 1
        if at >= len(tokens):
            return at
        name = posixpath.basename(tokens[at]) or tokens[at]
        if _PYTHON.match(name) and len(tokens) - at > 2 and tokens[at + 1] == "-m":
            at += 2
            continue
        runner = _RUNNERS.get(name)
        if runner is None or (runner and (at + 1 >= len(tokens) or tokens[at + 1] != runner)):
            return at
        skip = at + (2 if runner else 1)
        while skip < len(tokens) and tokens[skip].startswith("-"):
            skip += 1
        if skip >= len(tokens):
            return at  # the runner alone is the program
        at = skip


def _form(tokens: list[str]) -> tuple[object, ...]:
    """A command without its positional arguments: per part, the words before its program
    (env assignments, wrappers, `python -m`, a runner), the program as typed and as
    named, its flags (`--opt=value`: --opt); the operators between the parts."""
    out: list[object] = []
    part: list[str] = []
    for tok in tokens:
        if tok in _BREAKS:
            out += [_part_form(part), tok] if part else [tok]
            part = []
        else:
            part.append(tok)
    if part:
        out.append(_part_form(part))
    return tuple(out)


def _part_form(part: list[str]) -> tuple[object, ...]:
    at = _head(part)
    flags = sorted({t.split("=", 1)[0] for t in part[at + 1:] if t.startswith("-") and len(t) > 1})
    return tuple(part[:at]), part[at] if at < len(part) else "", _program(part), tuple(flags)


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
