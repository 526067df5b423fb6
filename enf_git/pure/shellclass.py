"""Classify a shell command line as read, write, push or force push, for least-privilege toolsets.

A profile such as "review" allows Bash only when the command cannot change anything, and
"build" allows everything but a force push; both need to know what a command line does
before it runs. This module answers that from the text alone: it lexes the line itself
(quotes, escapes, `$(…)`, backticks, here-docs, redirections), splits it into simple
commands, unwraps `env`/`sudo`/`xargs`/`find -exec`/`sh -c`, and judges each program and
its flags. The verdict is the worst of its parts.

Why our own lexer rather than bashlex or tree-sitter-bash: the classifier runs inside the
PreToolUse hook, whose whole process must stay within 1.3x a bare interpreter start, and
shlex alone cannot see operators inside words, here-docs or substitutions. Anything this
module cannot understand is UNKNOWN, which every caller treats as not read-only: a gap in
the grammar costs a needless denial, never a silent allow.

Assistant-neutral: nothing here knows about Claude Code's payloads.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING would import typing in the hook on every tool call
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["Kind", "NAMES", "Verdict", "classify"]


class Kind:
    """What a command may do, ordered so that the worst of several parts is their max.

    Plain ints rather than an IntEnum: `enum` (with collections and functools behind it)
    would more than double this module's import time in the per-call hook.
    UNKNOWN sits above WRITE (it is never read-only) and below PUSH (an unclassified
    program is not known to push; profiles that forbid pushes only need PUSH and up).
    """

    READ = 0
    WRITE = 1
    UNKNOWN = 2
    PUSH = 3
    FORCE_PUSH = 4


NAMES = {Kind.READ: "read", Kind.WRITE: "write", Kind.UNKNOWN: "unknown", Kind.PUSH: "push",
         Kind.FORCE_PUSH: "force-push"}


class Verdict:
    """The kind of the worst part, that part's text, and a one-line reason for a denial."""

    __slots__ = ("kind", "segment", "reason")

    def __init__(self, kind: int, segment: str, reason: str) -> None:
        self.kind = kind
        self.segment = segment
        self.reason = reason

    @property
    def name(self) -> str:
        """The kind as the profiles name it: read, write, unknown, push or force-push."""
        return NAMES[self.kind]

    @property
    def read_only(self) -> bool:
        """True only for READ: UNKNOWN counts as a possible write."""
        return self.kind == Kind.READ

    @property
    def pushes(self) -> bool:
        """True when the command pushes (forced or not)."""
        return self.kind >= Kind.PUSH

    def __repr__(self) -> str:
        return f"Verdict({self.name}, {self.segment!r}, {self.reason!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Verdict) and (self.kind, self.segment, self.reason) == (
            other.kind, other.segment, other.reason)

    def __hash__(self) -> int:
        return hash((self.kind, self.segment, self.reason))


def worst(verdicts: list[Verdict], default: Verdict) -> Verdict:
    """The verdict of highest kind; the first of equals, so the reason names the earliest culprit."""
    best = default
    for verdict in verdicts:
        if verdict.kind > best.kind:
            best = verdict
    return best


MAX_DEPTH = 12  # nested sh -c / $(…) beyond this are UNKNOWN rather than a deep recursion


def classify(command: str) -> Verdict:
    """The verdict for a whole command line (the text a Bash tool call would run)."""
    return _classify(command, 0)


def _classify(command: str, depth: int) -> Verdict:
    read = Verdict(Kind.READ, command.strip(), "reads only")
    if depth > MAX_DEPTH:
        return Verdict(Kind.UNKNOWN, command.strip(), "nests commands too deeply to classify")
    try:
        tokens = _Lexer(command).tokens()
    except _LexError as exc:
        return Verdict(Kind.UNKNOWN, command.strip(), f"cannot be parsed ({exc})")
    parts = [_classify_simple(cmd, command, depth) for cmd in _split(tokens)]
    return worst(parts, read)


# --- lexer ----------------------------------------------------------------------------

class _LexError(Exception):
    """Unbalanced quotes or substitutions: the command is UNKNOWN."""


class _Token:
    """A word (quotes removed, substitutions kept as text) or an operator."""

    __slots__ = ("kind", "text", "start", "end", "subs", "expands", "fd", "heredoc")

    def __init__(self, kind: str, text: str, start: int, end: int) -> None:
        self.kind = kind          # "word", "op", "redir"
        self.text = text
        self.start = start
        self.end = end
        self.subs: list[str] = []     # inner command lines of $(…), `…`, <(…), >(…)
        self.expands = False          # holds an unquoted-or-double-quoted $ expansion or glob
        self.fd = ""                  # a redirection's explicit file descriptor ("2" in 2>)
        self.heredoc = False          # a << redirection (its body is stdin data)


_META = set(" \t\n;&|()<>")
_OPS = ("&&", "||", ";;&", ";;", ";&", "|&", "|", "&", ";", "(", ")")
_REDIRS = ("&>>", "&>", "<<<", "<<-", "<<", "<>", "<&", ">>", ">|", ">&", "<", ">")


class _Lexer:
    """Turns a command line into tokens; here-doc bodies are skipped, their substitutions kept."""

    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0
        self.out: list[_Token] = []
        self.pending: list[tuple[str, bool, bool, _Token]] = []  # delimiter, strip tabs, quoted, token

    def tokens(self) -> list[_Token]:
        while self._step():
            pass
        if self.pending:
            self._heredoc_bodies()  # a here-doc without its body: nothing more to read
        return self.out

    def _step(self) -> bool:
        s = self.s
        while self.i < len(s) and (s[self.i] in " \t" or s.startswith("\\\n", self.i)):
            self.i += 2 if s[self.i] == "\\" else 1
        if self.i >= len(s):
            return False
        c = s[self.i]
        if c == "#":
            while self.i < len(s) and s[self.i] != "\n":
                self.i += 1
        elif c == "\n":
            self.out.append(_Token("op", "\n", self.i, self.i + 1))
            self.i += 1
            self._heredoc_bodies()
        elif s.startswith("((", self.i) and self._at_command_start():
            self._arith_command()
        elif c in "<>" and s.startswith("(", self.i + 1):
            self._word()  # process substitution: a word whose inner command is classified
        else:
            self._operator_or_word()
        return True

    def _at_command_start(self) -> bool:
        return not self.out or self.out[-1].kind == "op"

    def _operator_or_word(self) -> None:
        s, start = self.s, self.i
        for op in _REDIRS:
            if s.startswith(op, start):
                self._redirection(op, "")
                return
        for op in _OPS:
            if s.startswith(op, start):
                self.out.append(_Token("op", op, start, start + len(op)))
                self.i += len(op)
                return
        self._word()

    def _redirection(self, op: str, fd: str) -> None:
        start = self.i - len(fd)
        self.i += len(op)
        tok = _Token("redir", op, start, self.i)
        tok.fd = fd
        self.out.append(tok)
        if op in ("<<", "<<-"):
            tok.heredoc = True
            self._skip_blanks()
            delim = self._word(append=False)
            quoted = any(q in self.s[delim.start:delim.end] for q in "'\"\\")
            self.pending.append((delim.text, op == "<<-", quoted, tok))
            tok.end = delim.end
            tok.text = op  # the delimiter is not a target file

    def _skip_blanks(self) -> None:
        while self.i < len(self.s) and self.s[self.i] in " \t":
            self.i += 1

    def _heredoc_bodies(self) -> None:
        """Consume the lines of each pending here-doc; an unquoted delimiter's body still expands."""
        s = self.s
        for delim, strip, quoted, tok in self.pending:
            body_start = self.i
            while self.i < len(s):
                end = s.find("\n", self.i)
                end = len(s) if end < 0 else end
                line = s[self.i:end]
                self.i = min(end + 1, len(s))
                if (line.lstrip("\t") if strip else line) == delim:
                    body = s[body_start:end - len(line)]
                    break
            else:
                body = s[body_start:]
            if not quoted:
                tok.subs.extend(_substitutions(body))
            tok.end = self.i
        self.pending = []

    def _arith_command(self) -> None:
        start = self.i
        end = _match_close(self.s, self.i + 2, "((", "))")
        tok = _Token("word", "((", start, end)
        tok.subs.extend(_substitutions(self.s[start + 2:end - 2]))
        self.out.append(tok)
        self.i = end

    def _word(self, append: bool = True) -> _Token:
        """Read one word; an all-digit word directly before < or > is a redirection's fd."""
        s, start = self.s, self.i
        text: list[str] = []
        tok = _Token("word", "", start, start)
        while self.i < len(s):
            c = s[self.i]
            if c in _META and not (c in "<>" and s.startswith("(", self.i + 1)):
                if c in "<>" and text and "".join(text).isdigit() and self.i - start == len(text) and append:
                    for op in _REDIRS:
                        if s.startswith(op, self.i):
                            self._redirection(op, "".join(text))
                            return self.out[-1]
                break
            self._word_part(c, text, tok)
        tok.text = "".join(text)
        tok.end = self.i
        if self.i == start:
            raise _LexError(f"unexpected {s[start]!r}")
        if append:
            self.out.append(tok)
        return tok

    def _word_part(self, c: str, text: list[str], tok: _Token) -> None:
        s = self.s
        if c == "\\":
            if s.startswith("\n", self.i + 1):
                self.i += 2
                return
            text.append(s[self.i + 1:self.i + 2])
            self.i += 2
        elif c == "'":
            end = s.find("'", self.i + 1)
            if end < 0:
                raise _LexError("unterminated single quote")
            text.append(s[self.i + 1:end])
            self.i = end + 1
        elif c == '"':
            self._double_quoted(text, tok)
        elif c in "$`<>":
            self._expansion(text, tok)
        else:
            if c in "*?[":
                tok.expands = True
            text.append(c)
            self.i += 1

    def _double_quoted(self, text: list[str], tok: _Token) -> None:
        s = self.s
        self.i += 1
        while self.i < len(s) and s[self.i] != '"':
            c = s[self.i]
            if c == "\\" and self.i + 1 < len(s):
                nxt = s[self.i + 1]
                text.append(nxt if nxt in '"\\$`\n' else c + nxt)
                self.i += 2
            elif c in "$`":
                self._expansion(text, tok)
            else:
                text.append(c)
                self.i += 1
        if self.i >= len(s):
            raise _LexError("unterminated double quote")
        self.i += 1

    def _expansion(self, text: list[str], tok: _Token) -> None:
        """$(…), $((…)), ${…}, $name, `…`, <(…), >(…): kept as text, commands collected."""
        s, start = self.s, self.i
        if s.startswith("$((", start):
            end = _match_close(s, start + 3, "((", "))")
            tok.subs.extend(_substitutions(s[start + 3:end - 2]))
        elif s.startswith(("$(", "<(", ">("), start):
            end = _match_close(s, start + 2, "(", ")")
            tok.subs.append(s[start + 2:end - 1])
        elif s[start] == "`":
            end = _backtick_end(s, start + 1)
            tok.subs.append(s[start + 1:end - 1].replace("\\`", "`"))
        elif s.startswith("${", start):
            end = _match_close(s, start + 2, "{", "}")
            tok.subs.extend(_substitutions(s[start + 2:end - 1]))
        else:
            end = start + 1
            while end < len(s) and (s[end].isalnum() or s[end] == "_"):
                end += 1
            if end == start + 1 and end < len(s) and s[end] in "@*#?$!-0123456789":
                end += 1
        if s[start] != "$" or end > start + 1:
            tok.expands = True
        text.append(s[start:end])
        self.i = end


def _match_close(s: str, i: int, open_: str, close: str) -> int:
    """Index just past the `close` matching an opener before i; quotes and nesting respected."""
    depth = 1
    while i < len(s):
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "'" and close != "))":
            end = s.find("'", i + 1)
            if end < 0:
                raise _LexError("unterminated single quote")
            i = end + 1
            continue
        if c == '"':
            i = _dquote_end(s, i + 1)
            continue
        if c == "`":
            i = _backtick_end(s, i + 1)
            continue
        if s.startswith(close, i):
            depth -= 1
            if depth == 0:
                return i + len(close)
            i += len(close)
            continue
        if s.startswith(open_, i) or s.startswith("$(", i):
            depth += 1
            i += len(open_) if s.startswith(open_, i) else 2
            continue
        i += 1
    raise _LexError(f"unterminated {open_}")


def _dquote_end(s: str, i: int) -> int:
    while i < len(s):
        if s[i] == "\\":
            i += 2
        elif s[i] == '"':
            return i + 1
        elif s.startswith("$(", i):
            i = _match_close(s, i + 2, "(", ")")
        else:
            i += 1
    raise _LexError("unterminated double quote")


def _backtick_end(s: str, i: int) -> int:
    while i < len(s):
        if s[i] == "\\":
            i += 2
        elif s[i] == "`":
            return i + 1
        else:
            i += 1
    raise _LexError("unterminated backtick")


def _substitutions(text: str) -> list[str]:
    """The command substitutions inside text that expands like a double-quoted string."""
    found: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text.startswith("$((", i):
            end = _match_close(text, i + 3, "((", "))")
            found.extend(_substitutions(text[i + 3:end - 2]))
            i = end
        elif text.startswith("$(", i):
            end = _match_close(text, i + 2, "(", ")")
            found.append(text[i + 2:end - 1])
            i = end
        elif text[i] == "`":
            end = _backtick_end(text, i + 1)
            found.append(text[i + 1:end - 1])
            i = end
        else:
            i += 1
    return found


# --- grammar: simple commands -------------------------------------------------------------

class _Simple:
    """One simple command: its words, its redirections (operator, target), where it sits."""

    __slots__ = ("words", "redirs", "start", "end", "subs", "terminator")

    def __init__(self) -> None:
        self.words: list[_Token] = []
        self.redirs: list[tuple[_Token, _Token | None]] = []
        self.start = -1
        self.end = -1
        self.subs: list[str] = []
        self.terminator = ""


_SEPARATORS = {"&&", "||", ";;", ";;&", ";&", "|&", "|", "&", ";", "(", ")", "\n"}


def _split(tokens: list[_Token]) -> list[_Simple]:
    """Simple commands between operators; a redirection takes the word after it as its target."""
    commands: list[_Simple] = []
    cur = _Simple()
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        in_test = bool(cur.words) and cur.words[0].text == "[[" and cur.words[-1].text != "]]"
        if tok.kind == "op" and not (in_test and tok.text != "\n"):
            cur.terminator = tok.text
            commands.append(cur)
            cur = _Simple()
        elif tok.kind == "redir" and not (in_test and tok.text in "<>"):
            target = None
            if not tok.heredoc and i + 1 < len(tokens) and tokens[i + 1].kind == "word":
                i += 1
                target = tokens[i]
            _extend(cur, tok)
            if target is not None:
                _extend(cur, target)
            cur.redirs.append((tok, target))
        else:
            if tok.kind != "word":  # an operator inside [[ … ]] is part of the test
                tok = _Token("word", tok.text, tok.start, tok.end)
            _extend(cur, tok)
            cur.words.append(tok)
        i += 1
    commands.append(cur)
    return [c for c in commands if c.words or c.redirs]


def _extend(cmd: _Simple, tok: _Token) -> None:
    cmd.start = tok.start if cmd.start < 0 else cmd.start
    cmd.end = max(cmd.end, tok.end)
    cmd.subs.extend(tok.subs)


_KEYWORDS_SKIP = {"if", "then", "elif", "else", "do", "while", "until", "!", "{", "}", "fi", "done", "esac",
                  "function", "select"}


def _classify_simple(cmd: _Simple, line: str, depth: int) -> Verdict:
    segment = line[cmd.start:cmd.end].strip()
    parts = [_classify(sub, depth + 1) for sub in cmd.subs]
    parts.extend(_redirection_verdict(op, target, segment) for op, target in cmd.redirs)
    words = _strip_keywords([w for w in cmd.words])
    if words:
        stdin_data = any(op.heredoc or op.text == "<<<" for op, _ in cmd.redirs)
        parts.append(_program(words, segment, depth, stdin_data))
    return worst(parts, Verdict(Kind.READ, segment, "reads only"))


def _strip_keywords(words: list[_Token]) -> list[_Token]:
    """Drop reserved words that only structure the script (`if`, `do`, `{`, `}`, `fi` …)."""
    while words and not words[0].expands and words[0].text in _KEYWORDS_SKIP:
        words = words[1:]
    if words and words[-1].text == "}":
        words = words[:-1]
    if words and words[0].text in ("for", "case", "[[", "((", "in"):
        return []  # loop headers, case headers, tests and arithmetic change nothing themselves
    if len(words) == 1 and words[0].text.endswith(")"):
        return []  # a case pattern such as `*)` or `start)`
    return words


_HARMLESS_TARGETS = {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "-"}


def _redirection_verdict(op: _Token, target: _Token | None, segment: str) -> Verdict:
    """Output redirections write a file unless the target is /dev/null or an fd (2>&1, >&2)."""
    if op.heredoc or op.text in ("<", "<<<", "<&"):
        return Verdict(Kind.READ, segment, "reads its input")
    name = target.text if target is not None else ""
    if op.text in (">&", "<&") and (name.isdigit() or name == "-"):
        return Verdict(Kind.READ, segment, "duplicates a file descriptor")
    if name in _HARMLESS_TARGETS or name.startswith("/dev/fd/"):
        return Verdict(Kind.READ, segment, "discards output")
    return Verdict(Kind.WRITE, segment, f"`{segment}` writes to {name or 'a file'} by redirection")


# --- programs ----------------------------------------------------------------------------

def _program(words: list[_Token], segment: str, depth: int, stdin_data: bool) -> Verdict:
    """Unwrap assignments and wrappers, then judge the program and its arguments."""
    assigned = words[:len(words) - len(_skip_assignments(words))]
    words = _skip_assignments(words)
    if words and words[0].text in _ASSIGNING and not words[0].expands:  # `export PATH=…; ls` counts too
        assigned += [w for w in words[1:] if _is_assignment(w)]
    verdict = _run(words, segment, depth, stdin_data)
    risky = _risky_assignment([w.text for w in assigned]) or next(
        (w.text.partition("=")[0] for w in assigned if _stores_code(w)), "")
    if risky:  # worst of the two, so `GIT_SSH_COMMAND=… git push -f` stays a force push
        unknown = Verdict(Kind.UNKNOWN, segment, f"`{segment}` sets {risky}, which can make a program run other code")
        return worst([verdict], unknown)
    return verdict


_ASSIGNING = {"env", "export", "declare", "typeset", "readonly", "local"}


def _run(words: list[_Token], segment: str, depth: int, stdin_data: bool) -> Verdict:
    if not words:
        return Verdict(Kind.READ, segment, "sets shell variables")
    head = words[0]
    if head.expands and head.text != "[":  # a lone `[` is the test builtin, not a glob
        return Verdict(Kind.UNKNOWN, segment, f"`{segment}` runs a program named by an expansion")
    name = head.text.rsplit("/", 1)[-1] if not head.text.startswith("./") else head.text
    args = [w.text for w in words[1:]]
    ctx = _Ctx(segment, depth, stdin_data, words[1:])
    wrapper = _WRAPPERS.get(name)
    if wrapper is not None:
        inner = wrapper(args)
        if inner is None:
            return ctx.unknown(f"`{segment}` wraps a command this classifier cannot find")
        if not inner:
            return ctx.read()
        return _program(words[1 + len(args) - len(inner):], segment, depth, stdin_data)
    return _judge(name, args, ctx)


def _judge(name: str, args: list[str], ctx: _Ctx) -> Verdict:
    handler = _HANDLERS.get(name)
    if handler is None and name in _MORE_PROGRAMS:
        from . import shellprograms  # rarer programs' rules: loaded for the call that names one

        handler = shellprograms.HANDLERS[name]
    if handler is not None:
        return handler(args, ctx)
    if name in _READ_PROGRAMS:
        return ctx.read()
    if name in _WRITE_PROGRAMS:
        return ctx.write(_WRITE_PROGRAMS[name])
    if "/" not in name and args in (["--version"], ["--help"], ["-V"], ["version"]):
        return ctx.read()
    if "/" in name or name.endswith((".sh", ".py")):
        return ctx.unknown(f"`{ctx.segment}` runs a script")
    return ctx.unknown(f"`{ctx.segment}` runs `{name}`, which this classifier does not know")


class _Ctx:
    """What a program handler needs besides its arguments."""

    __slots__ = ("segment", "depth", "stdin_data", "tokens")

    def __init__(self, segment: str, depth: int, stdin_data: bool, tokens: list[_Token]) -> None:
        self.segment = segment
        self.depth = depth
        self.stdin_data = stdin_data
        self.tokens = tokens

    def read(self) -> Verdict:
        return Verdict(Kind.READ, self.segment, "reads only")

    def write(self, what: str) -> Verdict:
        return Verdict(Kind.WRITE, self.segment, f"`{self.segment}` {what}")

    def unknown(self, reason: str) -> Verdict:
        return Verdict(Kind.UNKNOWN, self.segment, reason)


if TYPE_CHECKING:
    _Handler = Callable[[list[str], _Ctx], Verdict]


def _is_assignment(tok: _Token) -> bool:
    return _is_assignment_text(tok.text)


def _is_assignment_text(text: str) -> bool:
    name, eq, _ = text.partition("=")
    return bool(eq) and name.replace("_", "a").isalnum() and not name[:1].isdigit() and name != ""


# Variables that make an otherwise read-only program run other code: pagers and editors
# git or man start, loader and shell start-up hooks, git's ssh and diff helpers, and a PATH
# that puts a relative (repository-controlled) directory in front of the system's programs.
_CODE_VARS = {
    "PAGER", "GIT_PAGER", "MANPAGER", "SYSTEMD_PAGER", "LESSOPEN", "LESSCLOSE", "EDITOR", "VISUAL",
    "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_EXTERNAL_DIFF", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS",
    "SSH_ASKPASS", "GIT_EXEC_PATH", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM", "GIT_CONFIG", "GIT_TEMPLATE_DIR", "GIT_PROXY_COMMAND", "BASH_ENV", "ENV",
    "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "PS4",
    "PYTHONSTARTUP", "PYTHONPATH", "NODE_OPTIONS", "PERL5OPT", "PERL5LIB", "RUBYOPT", "PATH",
}
_CODE_VAR_PREFIXES = ("DYLD_", "GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_")
_PLAIN_PAGERS = {"", "cat", "less", "more", "less -R", "less -FRX", "less -FRSX"}


def _stores_code(tok: _Token) -> bool:
    """Does an assigned value hold a command substitution as text (quoted, or spelled with escapes)?
    Bash arithmetic evaluates a variable's value, array subscripts included, so
    `x='a[$(touch f)]'; echo $((x))` runs the command: such a value is never read-only."""
    text = tok.text
    for sub in tok.subs:
        text = text.replace(f"$({sub})", "").replace(f"`{sub}`", "")
    return any(mark in text for mark in ("$(", "`", "\\x", "\\0", "\\u", "\\U"))


def _risky_assignment(assignments: list[str]) -> str:
    """The first assignment that can make a program run other code ("" when none does)."""
    for text in assignments:
        name, _, value = text.partition("=")
        if name not in _CODE_VARS and not name.startswith(_CODE_VAR_PREFIXES):
            continue
        if name.endswith("PAGER") and value in _PLAIN_PAGERS:
            continue
        if name == "PATH" and all(part.startswith(("/", "$HOME", "${HOME}", "~", "$PATH", "${PATH}"))
                                  for part in value.split(":")):
            continue
        return name
    return ""


def _skip_assignments(words: list[_Token]) -> list[_Token]:
    i = 0
    while i < len(words) and _is_assignment(words[i]):
        i += 1
    return words[i:]


# Wrappers return the words of the command they run ([] when none: the wrapper alone only
# reads), or None when the inner command cannot be located.

def _after_options(args: list[str], with_value: set[str], stop_at_first: bool = True) -> list[str] | None:
    """Skip leading options (and the values of those in with_value); what remains is the command."""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            return args[i + 1:]
        if not arg.startswith("-") or arg == "-":
            return args[i:]
        if arg in with_value:
            i += 1
        i += 1
    return []


def _wrap_env(args: list[str]) -> list[str] | None:
    rest = _after_options(args, {"-u", "--unset", "-C", "--chdir", "-S", "--split-string"})
    if rest is None:
        return None
    i = 0
    while i < len(rest) and "=" in rest[i] and not rest[i].startswith("="):
        i += 1
    return rest[i:]


def _wrap_sudo(args: list[str]) -> list[str] | None:
    return _after_options(args, {"-u", "--user", "-g", "--group", "-C", "-D", "--chdir", "-h", "--host",
                                 "-p", "--prompt", "-r", "--role", "-t", "--type", "-U", "--other-user"})


def _wrap_simple(args: list[str]) -> list[str] | None:
    return _after_options(args, set())


def _wrap_nice(args: list[str]) -> list[str] | None:
    return _after_options(args, {"-n", "--adjustment"})


def _wrap_timeout(args: list[str]) -> list[str] | None:
    rest = _after_options(args, {"-s", "--signal", "-k", "--kill-after"})
    return None if rest is None else rest[1:]


def _wrap_command(args: list[str]) -> list[str] | None:
    if args[:1] in (["-v"], ["-V"]):
        return []  # `command -v git` looks a program up
    return _after_options(args, set())


def _wrap_xargs(args: list[str]) -> list[str] | None:
    rest = _after_options(args, {"-I", "-i", "-n", "-P", "-d", "-L", "-l", "-s", "-a", "-E", "-e",
                                 "--max-args", "--max-procs", "--delimiter", "--arg-file", "--max-lines"})
    if rest == []:
        return ["echo"]  # xargs without a command runs echo
    return rest


def _wrap_stdbuf(args: list[str]) -> list[str] | None:
    return _after_options(args, {"-i", "-o", "-e"})


_WRAPPERS = {
    "env": _wrap_env, "sudo": _wrap_sudo, "doas": _wrap_sudo, "nice": _wrap_nice, "time": _wrap_simple,
    "nohup": _wrap_simple, "command": _wrap_command, "builtin": _wrap_simple, "exec": _wrap_simple,
    "timeout": _wrap_timeout, "xargs": _wrap_xargs, "stdbuf": _wrap_stdbuf, "ionice": _wrap_nice,
    "unbuffer": _wrap_simple, "chronic": _wrap_simple, "noglob": _wrap_simple,
}

_READ_PROGRAMS = {
    "ls", "cat", "rg", "grep", "egrep", "fgrep", "head", "tail", "wc", "stat", "file", "which", "type",
    "whereis", "echo", "printf", "pwd", "du", "df", "tree", "less", "more", "jq", "yq", "uniq", "cut", "tr",
    "diff", "cmp", "comm", "basename", "dirname", "realpath", "readlink", "printenv", "id", "whoami",
    "uname", "ps", "top", "nl", "od", "xxd", "hexdump", "md5sum", "sha1sum", "sha256sum", "sha512sum",
    "cksum", "true", "false", "test", "[", "seq", "yes", "sleep", "cd", "pushd", "popd", "dirs", ":",
    "column", "fold", "fmt", "paste", "join", "rev", "tac", "expand", "unexpand", "strings", "zcat",
    "zless", "zgrep", "bzcat", "xzcat", "pgrep", "lsof", "free", "uptime", "w", "who", "groups", "locale",
    "nproc", "lscpu", "lsblk", "getconf", "tput", "export", "set", "unset", "shopt", "local", "declare",
    "readonly", "typeset", "read", "exit", "return", "shift", "wait", "alias", "unalias", "hash", "last", "lastlog",
    "jobs", "ulimit", "umask", "getopts", "let", "ag", "ack", "fd", "bat", "exa", "eza", "base64",
    "sha224sum", "b2sum", "htop", "vmstat", "iostat", "dmesg", "journalctl", "env", "tty", "logname",
    "bc", "expr", "numfmt", "shuf", "look", "cal", "arch", "ldd", "nm", "objdump", "readelf", "size",
    "pstree", "lsmod", "ss", "netstat", "ping", "dig", "nslookup", "host", "man", "info", "help",
    "apropos", "whatis", "tldr", "diffstat", "colordiff", "cloc", "tokei", "sloc", "shellcheck", "hadolint",
    "mypy", "ruff", "flake8", "pylint", "tsc", "eslint", "pyright",
}

_WRITE_PROGRAMS = {
    "rm": "deletes files", "rmdir": "deletes directories", "mv": "moves files", "cp": "copies files",
    "mkdir": "creates directories", "touch": "creates or touches files", "chmod": "changes file modes",
    "chown": "changes file owners", "chgrp": "changes file groups", "ln": "creates links",
    "dd": "writes blocks", "truncate": "truncates files", "install": "installs files",
    "shred": "destroys files", "patch": "patches files", "make": "runs a build", "cmake": "runs a build",
    "ninja": "runs a build", "wget": "downloads files", "scp": "copies files", "rsync": "copies files",
    "unlink": "deletes a file", "mkfifo": "creates a fifo", "mknod": "creates a node",
    "kill": "signals processes", "pkill": "signals processes", "killall": "signals processes",
    "zip": "writes an archive", "gzip": "compresses files", "gunzip": "decompresses files",
    "bzip2": "compresses files", "xz": "compresses files", "unxz": "decompresses files",
    "useradd": "changes users", "userdel": "changes users", "usermod": "changes users",
    "passwd": "changes passwords", "mount": "mounts filesystems", "umount": "unmounts filesystems",
    "reboot": "reboots", "shutdown": "shuts down", "vi": "edits files", "vim": "edits files",
    "nano": "edits files", "emacs": "edits files", "ed": "edits files", "ex": "edits files",
    "npx": "runs a package", "pre-commit": "runs hooks that may rewrite files", "black": "reformats files",
    "prettier": "reformats files", "terraform": "changes infrastructure", "ssh-keygen": "writes keys",
    "gpg": "changes the keyring", "mktemp": "creates a temporary file", "split": "writes files",
    "csplit": "writes files", "tee": "writes files", "pytest": "runs tests", "tox": "runs tests",
    "nox": "runs tests", "poetry": "manages a project", "uv": "manages a project", "pipx": "installs tools",
    "conda": "manages environments", "gem": "manages gems", "bundle": "manages gems", "mvn": "runs a build",
    "gradle": "runs a build", "./gradlew": "runs a build", "bazel": "runs a build", "ansible-playbook":
    "changes hosts", "helm": "changes a cluster", "aws": "calls a cloud API", "gcloud": "calls a cloud API",
    "az": "calls a cloud API", "apt-key": "changes keys", "update-alternatives": "changes alternatives",
    "ldconfig": "updates the linker cache", "dpkg": "manages packages", "rpm": "manages packages",
    "snap": "manages packages", "flatpak": "manages packages", "apk": "manages packages",
    "pacman": "manages packages", "zypper": "manages packages", "port": "manages packages",
    "rustup": "manages toolchains", "nvm": "manages node versions", "sdk": "manages SDKs",
    "git-lfs": "changes LFS objects", "setfacl": "changes ACLs", "chattr": "changes attributes",
    "sync": "flushes buffers", "renice": "changes priorities", "su": "runs as another user",
    "ssh-add": "changes the agent", "docker-compose": "manages containers", "podman": "manages containers",
    "ssh": "runs a remote command", "sftp": "transfers files", "ftp": "transfers files",
    "source": "runs a script", ".": "runs a script", "eval-noop": "",
}
del _WRITE_PROGRAMS["eval-noop"]


def _short_flags(args: list[str]) -> str:
    """All letters of single-dash option clusters (`-xzf` → `xzf`), to test for one flag."""
    return "".join(a[1:] for a in args if a.startswith("-") and not a.startswith("--"))


def _positionals(args: list[str]) -> list[str]:
    return [a for a in args if not a.startswith("-")]


def _git(args: list[str], ctx: _Ctx) -> Verdict:
    rest, config = _git_options(args)
    verdict = _git_subcommand(rest, ctx)
    risky = next((key for key in config if not _git_key_is_inert(key)), "")
    if risky:
        return worst([ctx.unknown(f"`{ctx.segment}` sets git config {risky}, which may run a command")], verdict)
    return verdict


def _git_options(args: list[str]) -> tuple[list[str], list[str]]:
    """The subcommand and its arguments, and the config keys set by -c/--config-env/--exec-path."""
    config: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"):
            value = args[i + 1] if i + 1 < len(args) else ""
            if arg in ("-c", "--config-env"):
                config.append(value.partition("=")[0])
            elif arg == "--exec-path":
                config.append(arg)
            i += 2
        elif arg.startswith("-") and arg not in ("--version", "--help", "-h", "--html-path", "--man-path"):
            if arg.startswith(("--config-env=", "--exec-path=")):
                config.append(arg)
            i += 1
        else:
            break
    return args[i:], config


# Keys that only change how git formats or names things; any other key given with -c may
# name a program (core.pager, core.sshCommand, core.fsmonitor, diff.*.textconv, alias.*, ...).
_GIT_INERT_KEYS = ("color.", "log.", "format.", "advice.", "user.", "i18n.", "grep.", "column.", "status.",
                   "blame.", "pretty.", "core.quotepath", "core.abbrev", "diff.renames", "diff.algorithm",
                   "diff.noprefix", "diff.mnemonicprefix", "diff.colormoved", "init.defaultbranch",
                   "safe.directory", "core.autocrlf", "core.safecrlf", "push.default", "pull.rebase")


def _git_key_is_inert(key: str) -> bool:
    key = key.lower()
    return key.startswith(_GIT_INERT_KEYS) and not key.endswith((".command", ".textconv", ".program"))


def _git_subcommand(rest: list[str], ctx: _Ctx) -> Verdict:
    if not rest or rest[0].startswith("-"):
        return ctx.read()  # `git`, `git --version`
    sub, sargs = rest[0], rest[1:]
    if sub == "push" or (sub == "subtree" and _positionals(sargs)[:1] == ["push"]):
        return _git_push(sargs if sub == "push" else [], ctx)
    judge = _GIT_SPECIAL.get(sub)
    if judge is not None:
        return ctx.read() if judge(sargs) else ctx.write(f"changes the repository (git {sub})")
    if sub in _GIT_READ:
        if any(a.startswith(("--output", "-o")) for a in sargs) and sub in ("diff", "log", "show", "archive"):
            return ctx.write(f"writes a file (git {sub} --output)")
        return ctx.read()
    if sub in _GIT_WRITE:
        return ctx.write(f"changes the repository (git {sub})")
    return ctx.unknown(f"`{ctx.segment}` runs git {sub}, which may be an alias")


_FORCE_LONG = ("--force", "--force-with-lease", "--force-if-includes", "--mirror", "--delete", "--prune")


def _git_push(args: list[str], ctx: _Ctx) -> Verdict:
    """Force, delete, mirror, prune and `+`/`:` refspecs all rewrite or remove remote history."""
    forced = any(a.startswith(_FORCE_LONG) for a in args)
    forced = forced or any(c in "fd" for c in _short_flags([a for a in args if a != "-o"]))
    refspecs = _positionals(args)
    forced = forced or any(r.startswith(("+", ":")) for r in refspecs)
    if forced:
        return Verdict(Kind.FORCE_PUSH, ctx.segment, f"`{ctx.segment}` force-pushes or deletes remote history")
    return Verdict(Kind.PUSH, ctx.segment, f"`{ctx.segment}` pushes to a remote")


_GIT_READ = {
    "log", "diff", "show", "status", "blame", "grep", "shortlog", "describe", "rev-parse", "rev-list",
    "ls-files", "ls-tree", "ls-remote", "cat-file", "show-ref", "show-branch", "whatchanged", "name-rev",
    "merge-base", "for-each-ref", "count-objects", "var", "help", "version", "check-ignore", "check-attr",
    "check-ref-format", "cherry", "range-diff", "diff-tree", "diff-files", "diff-index", "verify-commit",
    "verify-tag", "annotate", "archive", "fsck", "get-tar-commit-id", "instaweb-no",
}
_GIT_WRITE = {
    "add", "am", "apply", "bisect", "checkout", "cherry-pick", "clean", "clone", "commit", "fetch", "gc",
    "init", "merge", "mv", "pull", "rebase", "reset", "restore", "revert", "rm", "switch", "update-index",
    "update-ref", "format-patch", "filter-branch", "filter-repo", "prune", "repack", "replace", "sparse-checkout",
    "maintenance", "commit-tree", "hash-object", "mktree", "read-tree", "write-tree", "symbolic-ref", "lfs",
    "send-email", "request-pull", "restore", "rerere", "subtree", "citool", "gui", "mergetool", "difftool",
    "fast-import", "pack-refs", "enf",
}


def _git_branch(args: list[str]) -> bool:
    writes = {"-d", "-D", "-m", "-M", "-c", "-C", "--delete", "--move", "--copy", "-u", "--unset-upstream",
              "--edit-description", "-f", "--force", "--track", "-t", "--no-track"}
    if any(a in writes or a.startswith(("--set-upstream", "--track")) for a in args):
        return False
    listing = ("-l", "--list", "-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "--contains",
               "--no-contains", "--merged", "--no-merged", "--points-at", "--show-current", "--format",
               "--sort", "--column", "--no-column", "--color", "--no-color", "-q")
    return any(a.startswith(listing) for a in args) or not _positionals(args)


def _git_tag(args: list[str]) -> bool:
    writes = {"-d", "--delete", "-a", "--annotate", "-s", "--sign", "-m", "-F", "-f", "--force", "-u", "-e"}
    if any(a in writes or a.startswith(("--message", "--file", "--local-user")) for a in args):
        return False
    listing = ("-l", "--list", "-n", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at",
               "--sort", "--format", "--column", "-v", "--verify")
    return any(a.startswith(listing) for a in args) or not _positionals(args)


def _git_remote(args: list[str]) -> bool:
    pos = _positionals(args)
    return not pos or pos[0] in ("show", "get-url")


def _git_config(args: list[str]) -> bool:
    writes = ("--unset", "--add", "--replace-all", "--edit", "-e", "--rename-section", "--remove-section")
    if any(a.startswith(writes) for a in args):
        return False
    reads = ("--get", "--list", "-l", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color")
    if any(a.startswith(reads) for a in args):
        return True
    pos = [a for a in _positionals(args) if a not in ("--global", "--local", "--system")]
    if pos[:1] in (["get"], ["list"]):
        return True
    return len(pos) == 1 and pos[0] not in ("set", "unset", "edit")


def _git_stash(args: list[str]) -> bool:
    return bool(args) and args[0] in ("list", "show")


def _git_worktree(args: list[str]) -> bool:
    return args[:1] == ["list"]


def _git_notes(args: list[str]) -> bool:
    return not args or args[0] in ("list", "show")


def _git_reflog(args: list[str]) -> bool:
    return not args or args[0] in ("show", "exists") or args[0].startswith("-") or args[0] not in (
        "expire", "delete")


def _git_submodule(args: list[str]) -> bool:
    return not args or args[0] in ("status", "summary")


_GIT_SPECIAL = {
    "branch": _git_branch, "tag": _git_tag, "remote": _git_remote, "config": _git_config,
    "stash": _git_stash, "worktree": _git_worktree, "notes": _git_notes, "reflog": _git_reflog,
    "submodule": _git_submodule,
}


def _sed(args: list[str], ctx: _Ctx) -> Verdict:
    script: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg.startswith("--in-place") or (arg.startswith("-") and not arg.startswith("--")
                                            and "i" in arg[1:].split("e")[0].split("f")[0]):
            return ctx.write("edits files in place (sed -i)")
        if arg in ("-e", "--expression", "-f", "--file"):
            script.append(args[i + 1] if i + 1 < len(args) else "")
            if arg in ("-f", "--file"):
                return ctx.unknown(f"`{ctx.segment}` runs a sed script file")
            i += 1
        elif arg.startswith("--expression="):
            script.append(arg.split("=", 1)[1])
        elif not arg.startswith("-") and not script:
            script.append(arg)
        i += 1
    return ctx.write("writes a file (sed w)") if any(_sed_writes(s) for s in script) else ctx.read()


def _sed_writes(script: str) -> bool:
    """Does a sed script use w/W, s///w, or e (which runs a command)? Scanned by hand, as `re`
    would cost the hook more than this whole module; a script it cannot follow counts as writing."""
    i, n = 0, len(script)
    while i < n:
        i = _sed_address(script, i)
        if i >= n:
            return False
        c = script[i]
        if c in "wWe":
            return True
        if c in "sy":
            ends = _sed_delimited(script, i + 1, 2)
            if ends < 0:
                return True
            i = _sed_end(script, ends)
            if c == "s" and any(f in script[ends:i] for f in "we"):
                return True
        elif c in "aicrRbtT:":
            i = _sed_end(script, i + 1, "\n" if c in "aicrR:" else ";\n}")
        elif c in ";{}\n \t!":
            i += 1
        elif c in "=dDgGhHlLnNpPqQxzFv":
            i = _sed_end(script, i + 1)
        else:
            return True
    return False


def _sed_address(script: str, i: int) -> int:
    """Index just past the addresses in front of a sed command (lines, $, /re/, \\cREc, ~, +, !)."""
    n = len(script)
    while i < n:
        c = script[i]
        if c.isdigit() or c in "$,~+!;{} \t\n":
            i += 1
        elif c in "/\\":
            delim = script[i + 1:i + 2] if c == "\\" else "/"
            i = _sed_delimited(script, i + (2 if c == "\\" else 1), 1, delim)
            if i < 0:
                return n
            while i < n and script[i] in "IM":
                i += 1
        else:
            return i
    return i


def _sed_delimited(script: str, i: int, parts: int, delim: str = "") -> int:
    """Index past `parts` delimited fields starting at i (s/a/b/: delimiter at i, 2 parts); -1 if unterminated."""
    if not delim:
        if i >= len(script):
            return -1
        delim, i = script[i], i + 1
    for _ in range(parts):
        while i < len(script) and script[i] != delim:
            i += 2 if script[i] == "\\" else 1
        if i >= len(script):
            return -1
        i += 1
    return i


def _sed_end(script: str, i: int, stops: str = ";\n}") -> int:
    """Index of the end of the current sed command (its flags or argument run up to a stop)."""
    while i < len(script) and script[i] not in stops:
        i += 1
    return i


def _awk(args: list[str], ctx: _Ctx) -> Verdict:
    program = ""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-i", "--include") and i + 1 < len(args) and args[i + 1].startswith("inplace"):
            return ctx.write("edits files in place (awk -i inplace)")
        if arg.startswith(("--include=inplace", "-iinplace")):
            return ctx.write("edits files in place (awk -i inplace)")
        if arg in ("-f", "--file") or arg.startswith("--file="):
            return ctx.unknown(f"`{ctx.segment}` runs an awk program file")
        if arg in ("-F", "-v", "--assign", "--field-separator", "-i", "--include"):
            i += 2
            continue
        if not arg.startswith("-"):
            program = arg
            break
        i += 1
    if _awk_escapes(program):
        return ctx.unknown(f"`{ctx.segment}` runs commands or writes files from awk")
    return ctx.read()


def _awk_escapes(program: str) -> bool:
    """Can an awk program run a command or write a file: system(), `cmd | getline`, or a
    print/printf with > or |? String contents are blanked first (a "|" or ">" in a format is
    harmless) and whitespace dropped, so no regular expression is needed."""
    code = _blank_strings(program)
    dense = "".join(code.split())
    if "system(" in dense or "|getline" in dense or "|&getline" in dense:
        return True
    for line in code.splitlines():
        for part in line.split("print")[1:]:
            statement = part.split(";", 1)[0].split("}", 1)[0].replace("||", "")
            if ">" in statement or "|" in statement:
                return True
    return False


def _blank_strings(program: str) -> str:
    """The awk program with the contents of its double-quoted strings removed (quotes kept)."""
    out: list[str] = []
    inside = False
    i = 0
    while i < len(program):
        c = program[i]
        if inside and c == "\\":
            i += 2
            continue
        if c == '"':
            inside = not inside
            out.append(c)
        elif not inside:
            out.append(c)
        i += 1
    return "".join(out)


def _find(args: list[str], ctx: _Ctx) -> Verdict:
    """find reads, except -delete/-fprint*, and -exec runs a command that is classified itself."""
    parts: list[Verdict] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-delete", "-fprint", "-fprint0", "-fprintf", "-fls"):
            return ctx.write(f"deletes or writes files (find {arg})")
        if arg in ("-exec", "-execdir", "-ok", "-okdir"):
            end = i + 1
            while end < len(args) and args[end] not in (";", "+"):
                end += 1
            inner = args[i + 1:end]
            parts.append(_judge_words(inner, ctx) if inner else ctx.unknown("find -exec without a command"))
            i = end
        i += 1
    return worst(parts, ctx.read())


def _judge_words(words: list[str], ctx: _Ctx) -> Verdict:
    """Judge a command given as plain words (find -exec), through the wrappers too."""
    toks = [_Token("word", w, 0, 0) for w in words]
    return _program(toks, ctx.segment, ctx.depth, False)


def _sort(args: list[str], ctx: _Ctx) -> Verdict:
    if any(a.startswith("--output") for a in args) or "o" in _short_flags(args):
        return ctx.write("writes a file (sort -o)")
    return ctx.read()


def _tee(args: list[str], ctx: _Ctx) -> Verdict:
    targets = [a for a in _positionals(args) if a not in _HARMLESS_TARGETS]
    return ctx.write("writes files (tee)") if targets else ctx.read()


def _perl(args: list[str], ctx: _Ctx) -> Verdict:
    if "i" in _short_flags([a for a in args if not a.startswith("-e")]) or any(
            a.startswith("-") and "i" in a.split("e")[0] for a in args if a.startswith("-")):
        return ctx.write("edits files in place (perl -i)")
    if args in (["-v"], ["--version"], ["-V"]):
        return ctx.read()
    return ctx.unknown(f"`{ctx.segment}` runs perl code")


_SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "ash", "fish"}


def _shell(args: list[str], ctx: _Ctx) -> Verdict:
    """`sh -c "…"` runs its argument as a command line, which is classified; anything else runs a script."""
    for i, arg in enumerate(args):
        if arg.startswith("-") and not arg.startswith("--") and "c" in arg:
            if i + 1 < len(args):
                inner = _classify(args[i + 1], ctx.depth + 1)
                return inner if inner.kind else ctx.read()
            return ctx.unknown("shell -c without a command")
        if arg in ("--version", "--help"):
            return ctx.read()
        if not arg.startswith(("-", "+")):
            break
        if arg in ("-o", "+o"):
            continue
    return ctx.unknown(f"`{ctx.segment}` runs a shell script or stdin")


_INTERPRETERS = {"python", "python3", "python2", "node", "ruby", "php", "deno", "bun", "lua", "Rscript",
                 "pypy", "pypy3", "java", "julia", "tclsh", "osascript", "powershell", "pwsh"}
_READ_MODULES = {"json.tool", "pydoc", "site", "platform", "sysconfig", "tabnanny", "tokenize"}


def _interpreter(args: list[str], ctx: _Ctx) -> Verdict:
    if args in (["--version"], ["-V"], ["-v"], ["--help"], ["-h"], ["-VV"]):
        return ctx.read()
    for i, arg in enumerate(args):
        if arg == "-m" and i + 1 < len(args):
            module, rest = args[i + 1], args[i + 2:]
            if module in ("pip", "pip3"):
                return _judge("pip", rest, ctx)
            if module in _READ_MODULES:
                return ctx.read()
            return ctx.unknown(f"`{ctx.segment}` runs the module {module}")
        if not arg.startswith("-"):
            break
    return ctx.unknown(f"`{ctx.segment}` runs interpreted code")


_HANDLERS: dict[str, _Handler] = {
    "git": _git, "sed": _sed, "gsed": _sed, "awk": _awk, "gawk": _awk, "mawk": _awk, "nawk": _awk,
    "find": _find, "sort": _sort, "tee": _tee, "perl": _perl,
}
_HANDLERS.update({name: _shell for name in _SHELLS})
_HANDLERS.update({name: _interpreter for name in _INTERPRETERS})
# Programs whose rules live in shellprograms.py (its HANDLERS must name exactly these).
_MORE_PROGRAMS = frozenset({
    "curl", "wget", "tar", "unzip", "date", "hostname", "eval", "mktemp", "docker", "kubectl", "gh", "pip", "pip3",
    "npm", "pnpm", "yarn", "apt", "apt-get", "apt-cache", "dnf", "yum", "brew", "cargo", "go", "history", "trap",
    "ip", "watch", "systemctl", "service", "crontab", "openssl", "printf",
})
