"""Whether a shell command line does nothing but write one file, and which.

Clients without a file-writing tool (Codex writes files with `cat > PATH <<'EOF'` or
`printf … > PATH`) reach the session gate with a shell command where Claude Code would
send a Write. The gate lets such a command through only when writing that one file is
*all* it does, so this is deliberately narrow: one simple command (no `&&`, `;`, pipe or
background), a program from a short list whose only effect is its output, no command
substitution anywhere (not even in an unquoted here-doc's body), no expansion in the
program's words or the target, and exactly one output redirection (or `tee`/`touch` of
one path). Anything else answers None, and the gate treats the call as the shell
command it is.

The lexer and the split into simple commands are the toolset classifier's
(shellclass.py): one grammar for both decisions. Standard library only: the per-call
hook imports this.
"""

from . import shellclass

# Programs whose only effect is what they print (or, for touch, creating the named file).
PRINTERS = ("cat", "printf", "echo", ":", "true")
NAMERS = ("tee", "touch")
WRITES = (">", ">>", ">|")
QUIET = ("/dev/null",)  # `2>/dev/null` writes nothing


def sole_write(command: str) -> "str | None":
    """The one file `command` writes, as written in it (relative or absolute), or None
    when the command does anything else or cannot be read."""
    try:
        tokens = shellclass._Lexer(command).tokens()
    except shellclass._LexError:
        return None
    commands = shellclass._split(tokens)
    if len(commands) != 1:
        return None
    cmd = commands[0]
    if cmd.subs or cmd.terminator not in ("", "\n", ";") or not cmd.words:
        return None
    if any(w.expands or w.subs for w in cmd.words):
        return None
    outputs = [(op, target) for op, target in cmd.redirs if _writes(op, target)]
    program, args = cmd.words[0].text, [w.text for w in cmd.words[1:]]
    if program in PRINTERS:
        return _redirected(program, args, outputs)
    if program in NAMERS and not outputs and len(args) == 1 and not args[0].startswith("-"):
        return args[0]
    return None


def _writes(op: "shellclass._Token", target: "shellclass._Token | None") -> bool:
    """An output redirection other than to /dev/null (inputs and here-docs only read)."""
    if op.heredoc or op.text in ("<", "<<<", "<&"):
        return False
    return not (target is not None and target.text in QUIET and op.fd == "2")


def _redirected(program: str, args: "list[str]", outputs: "list[tuple[shellclass._Token, shellclass._Token | None]]") -> "str | None":
    if program in ("cat", ":", "true") and args:
        return None  # cat FILE reads another file: not a plain write of what the command holds
    if len(outputs) != 1:
        return None
    op, target = outputs[0]
    if op.text not in WRITES or op.fd not in ("", "1") or target is None or target.expands or target.subs:
        return None
    return target.text or None
