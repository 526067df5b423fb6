"""Rendering for `git enf`: the JSON envelope, colour, the pager, date arguments.

No click here, and nothing heavy at import: the warm `git enf recall` path (entry.py)
builds its JSON with `envelope` without loading the CLI.
"""

from __future__ import annotations

import os
import sys

JSON_SCHEMA = 1  # bump when a --json field changes meaning or goes; adding fields keeps it


def envelope(command: str, **payload: object) -> str:
    """Every `--json` answer: `{"schema": 1, "command": …, …payload}`, stable key order."""
    import json

    return json.dumps({"schema": JSON_SCHEMA, "command": command, **payload}, indent=2, ensure_ascii=False)


def recall_json(rows: list[dict[str, object]], query: str, weak: bool = False,
                strength: dict[str, object] | None = None) -> str:
    """`git enf recall --json`, shared by the CLI and the warm fast path in entry.py.

    `weak`: even the best result is not a strong match. `strength`: the counts it was
    judged by (query terms after stopwords; of them in the best result; in no record).
    """
    return envelope("recall", query=query, weak=weak, strength=strength or {}, results=rows)


def color_wanted(config_ui: str | None, stream_is_tty: bool) -> bool:
    """Colour as git decides it from `color.ui`: `never` (or false) off, `always` on, and
    `auto` (the default; `true` means auto too, as in git) only on a terminal or into the
    pager git started for us (`git -p enf log`: git colours what it pages too).

    NO_COLOR (set and not empty) turns `auto` off. It is a default, so an explicit
    `always` (`git -c color.ui=always enf log`, or the config) still wins: no-color.org
    has configuration and command-line arguments override it."""
    setting = (config_ui or "auto").strip().lower()
    if setting in ("never", "false", "no", "off", "0"):
        return False
    if setting == "always":
        return True
    if os.environ.get("NO_COLOR"):
        return False
    return stream_is_tty or bool(os.environ.get("GIT_PAGER_IN_USE"))


def command_line_config(key: str) -> str | None:
    """A value given as `git -c KEY=VALUE enf …` (plumbing/fastconfig)."""
    from ..plumbing import fastconfig

    return fastconfig.command_line(key)


def pager_command(git_pager: str | None) -> str | None:
    """The pager to run (git's choice: GIT_PAGER, core.pager, PAGER, less), or None."""
    if os.environ.get("GIT_PAGER_IN_USE"):
        return None  # git already pages our output
    pager = (git_pager or "").strip()
    return None if not pager or pager == "cat" else pager


def page(text: str, pager: str) -> None:
    """Show `text` through `pager` the way git does (LESS=FRX: quit if one screen)."""
    import signal
    import subprocess

    env = dict(os.environ)
    env.setdefault("LESS", "FRX")
    env.setdefault("LV", "-c")
    env["GIT_PAGER_IN_USE"] = "true"
    try:
        proc = subprocess.Popen(pager, shell=True, stdin=subprocess.PIPE, env=env)  # noqa: S602 - git runs it the same way
    except OSError:
        sys.stdout.write(text)
        return
    assert proc.stdin is not None
    # Ctrl-C reaches the pager and us alike: like git, wait for the pager (less takes it
    # as "stop reading") instead of dying under it and leaving the terminal to it.
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        proc.stdin.write(text.encode("utf-8", "replace"))
        proc.stdin.close()
    except BrokenPipeError:
        pass  # the user quit the pager early
    finally:
        proc.wait()
        signal.signal(signal.SIGINT, previous)


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"
