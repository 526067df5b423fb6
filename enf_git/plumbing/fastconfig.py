"""`enf.*` switches read from git's config files with the standard library alone.

The per-prompt hook (UserPromptSubmit) must honour `git config enf.brainFirst false`
at once, yet pygit2 (~80 ms) and a `git config` subprocess (~3 ms plus the fork) are
both too slow for it. This reads the files git reads, in git's order (system, global,
XDG, the repository, the worktree), the last one naming a key winning, and returns
None for any key it is unsure of, so the caller keeps its default.

Not followed: `include` and `includeIf` (a switch set only in an included file is not
seen here; docs/context.md and docs/configuration.md say so), `git -c` (Claude Code's hooks do not run under git; git's
own hooks do, and `command_line` reads what it passes on).

`command_line(key)` is the other half: what `git -c KEY=VALUE enf …` (or
`--config-env`) passed on in the environment, which libgit2 does not read either.
"""

import os

_TRUE = frozenset(("true", "yes", "on", "1"))
_FALSE = frozenset(("false", "no", "off", "0", ""))


def files(git_dir: str, common_dir: str, environ: dict[str, str] | os._Environ[str] | None = None) -> list[str]:
    """The config files git would read, lowest precedence first."""
    env = os.environ if environ is None else environ
    home = env.get("HOME", "")
    xdg = env.get("XDG_CONFIG_HOME") or (os.path.join(home, ".config") if home else "")
    out = [] if env.get("GIT_CONFIG_NOSYSTEM") else [env.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig"]
    if env.get("GIT_CONFIG_GLOBAL"):
        out.append(env["GIT_CONFIG_GLOBAL"])
    else:
        if xdg:
            out.append(os.path.join(xdg, "git", "config"))
        if home:
            out.append(os.path.join(home, ".gitconfig"))
    out.append(os.path.join(common_dir, "config"))
    if git_dir != common_dir:
        out.append(os.path.join(git_dir, "config.worktree"))
    return out


def enf_values(paths: list[str]) -> dict[str, str]:
    """Every `enf.<key>` in `paths` (keys lower-cased, as git compares them); later files win."""
    out: dict[str, str] = {}
    for path in paths:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError:
            continue
        out.update(_section(text, "enf"))
    return out


def flag(values: dict[str, str], key: str, default: bool) -> bool:
    """A boolean switch as git reads it; a value git would reject keeps the default."""
    return truth(values.get(key.lower()), default)


def truth(raw: str | None, default: bool) -> bool:
    """A config value as git reads a boolean; unset, or one git would reject, is `default`."""
    if raw is None:
        return default
    raw = raw.strip().lower()
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    return default


def switch(git_dir: str, common_dir: str, key: str, default: bool) -> bool:
    """`enf.<key>` as a boolean: from git's command line (`git -c`) first, then the files."""
    given = command_line(f"enf.{key}")
    if given is not None:
        return truth(given, default)
    return flag(enf_values(files(git_dir, common_dir)), key, default)


def _section(text: str, name: str) -> dict[str, str]:
    """The `key = value` pairs of `[name]` sections (not `[name "sub"]`) in one file."""
    out: dict[str, str] = {}
    inside = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line[0] == "[":
            head, _, rest = line[1:].partition("]")
            inside = head.strip().lower() == name
            line = rest.strip()  # `[enf] brainFirst = false` on one line is valid git config
            if not line or not inside:
                continue
        elif not inside:
            continue
        key, eq, value = line.partition("=")
        key = key.strip().lower()
        if not key or not key.replace("-", "").isalnum():
            continue
        out[key] = _value(value) if eq else "true"  # a bare key is true in git
    return out


def _value(raw: str) -> str:
    """A value without its comment and quotes (the common forms; escapes are kept as written)."""
    out, quoted = [], False
    for ch in raw.strip():
        if ch == '"':
            quoted = not quoted
        elif ch in "#;" and not quoted:
            break
        else:
            out.append(ch)
    return "".join(out).strip()


def command_line(key: str, environ: dict[str, str] | os._Environ[str] | None = None) -> str | None:
    """A value given on git's command line (`git -c KEY=VALUE enf …`, `--config-env`):
    git passes them on in GIT_CONFIG_PARAMETERS and GIT_CONFIG_COUNT/KEY_n/VALUE_n. The
    last one given wins, as in git; a bare `-c key` means true."""
    env = os.environ if environ is None else environ
    found = None
    # git applies GIT_CONFIG_COUNT's pairs first and `-c` after them, so `-c` wins.
    count = env.get("GIT_CONFIG_COUNT", "")
    for n in range(int(count) if count.isdigit() else 0):
        if env.get(f"GIT_CONFIG_KEY_{n}", "").lower() == key.lower():
            found = env.get(f"GIT_CONFIG_VALUE_{n}", "")
    given = env.get("GIT_CONFIG_PARAMETERS", "")
    if not given:  # the common case: every config lookup asks, so not even shlex is loaded
        return found
    import shlex

    try:  # `'color.ui'='never'` (git >= 2.31) or `'color.ui=never'`: one word each
        items = shlex.split(given)
    except ValueError:
        items = []
    for item in items:
        name, sep, value = item.partition("=")
        if name.lower() == key.lower():
            found = value if sep else "true"
    return found
