"""The files an `apply_patch` envelope touches (Codex's patch format).

Codex edits files with `apply_patch`, either as its own tool (the PreToolUse payload's
`tool_input.command` is the patch) or as a shell command feeding the patch through a
here-doc (`apply_patch <<'EOF' … EOF`), which Codex intercepts and applies itself. The
envelope names each file on a header line:

    *** Begin Patch
    *** Add File: PATH        (the lines that follow, each with a leading +)
    *** Update File: PATH     (hunks; optionally *** Move to: NEWPATH)
    *** Delete File: PATH
    *** End Patch

Paths are relative to the call's working directory. Standard library only.
"""

ACTIONS = (("*** Add File: ", "add"), ("*** Update File: ", "update"), ("*** Delete File: ", "delete"),
           ("*** Move to: ", "move"))


def files(patch: str) -> "list[tuple[str, str]]":
    """(action, path) for every file header in the patch, in order."""
    found: list[tuple[str, str]] = []
    for line in patch.split("\n"):
        for prefix, action in ACTIONS:
            if line.startswith(prefix):
                found.append((action, line[len(prefix):].strip()))
    return found


def from_shell(command: str) -> "str | None":
    """The patch of `apply_patch <<'DELIM' … DELIM` (the whole command, nothing before or
    after it), else None: any other shell command stays a shell command."""
    first, sep, rest = command.strip().partition("\n")
    words = first.split()
    if not sep or len(words) != 2 or words[0] != "apply_patch" or not words[1].startswith("<<"):
        return None
    delim = words[1][2:].lstrip("-").strip("'\"")
    if not delim or not delim.replace("_", "").isalnum():
        return None
    body, sep, tail = ("\n" + rest).partition("\n" + delim + "\n")
    if not sep:
        if not ("\n" + rest).endswith("\n" + delim):
            return None
        body, tail = ("\n" + rest)[:-len(delim) - 1], ""
    return body[1:] if not tail.strip() else None
