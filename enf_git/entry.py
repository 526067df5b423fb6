"""Console-script entry for `git-enf`.

Three commands have fast paths that skip click (~40 ms of imports): `git enf recall WORD`
is meant to be as quick as `git grep`, so when the recall index is already built for
the current branch tip it is answered with the standard library alone;
`git enf commit [-m MSG]`, which hooks and scripts run often, goes straight to the
core; and a plain `git enf sync [--json]` starts its fetch before importing anything
heavy, so that git transfers while this process loads. Anything else, or anything
unusual in the arguments, goes to the full CLI.

Ctrl-C at any moment is one line and exit 130 (128 + SIGINT, as git and the shell
report it), never a traceback nor death by the signal: from the import of this module
until main() runs, nothing is under way and the signal ends the process at once; from
then on it is a KeyboardInterrupt that unwinds whatever runs (locks, temporary files)
and main() says so, also when something on its way swallowed it (a callback) or turned
it into another error (an import's ImportError). The process then ends without Python's
teardown, where a Ctrl-C would kill it by the signal. Before this module, Python's own
start-up is not ours to change.
"""

from __future__ import annotations

import os
import sys
import time

# The C module, not `signal`, whose enums cost every fast path ~0.7 ms of imports.
import _signal  # type: ignore[import-not-found]

TYPE_CHECKING = False  # typing's costs every fast path its import
if TYPE_CHECKING:
    from typing import IO

    from .memory.share.sync_light import Synced

_pressed = False  # Ctrl-C came: what main() acts on, whatever became of the KeyboardInterrupt
_HOOK = sys.unraisablehook  # put back where main() returns into a process that goes on (a test)


def _interrupted_early(signum: int, frame: object) -> None:
    _say_interrupted(sys.argv[1:])


def _on_ctrl_c(signum: int, frame: object) -> None:
    global _pressed
    _pressed = True
    raise KeyboardInterrupt


_signal.signal(_signal.SIGINT, _interrupted_early)


def main() -> None:
    argv = sys.argv[1:]
    try:
        _signal.signal(_signal.SIGINT, _on_ctrl_c)
        sys.unraisablehook = _unraisable
        _main(argv)
    except KeyboardInterrupt:  # importing the CLI, a fast path, or past the CLI's own boundary
        _say_interrupted(argv)
    except SystemExit as exc:  # the CLI's end, and the fast paths'
        _finish(argv, exc.code)
    except BaseException:
        if _pressed:  # a KeyboardInterrupt that became another error on its way up
            _say_interrupted(argv)
        raise
    if _pressed:  # swallowed on its way (an import's cleanup callback), yet pressed
        _say_interrupted(argv)
    _signal.signal(_signal.SIGINT, _signal.SIG_IGN)  # done: the teardown must not die of a late one
    sys.unraisablehook = _HOOK


def _unraisable(unraisable: sys.UnraisableHookArgs) -> None:
    """A KeyboardInterrupt that Python could not raise (in a callback) is main()'s to say,
    as one line, not as "Exception ignored in …"."""
    if not issubclass(unraisable.exc_type, KeyboardInterrupt):
        sys.__unraisablehook__(unraisable)


def _finish(argv: list[str], code: object) -> None:
    """Exit with SystemExit's `code`, or 130 if Ctrl-C came on the way, at once."""
    _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
    if _pressed and code != 130:  # 130: whoever exited so has said it already (the CLI's boundary)
        _say_interrupted(argv)
    if code is not None and not isinstance(code, int):
        sys.stderr.write(f"{code}\n")  # as Python prints sys.exit("message")
        code = 1
    try:
        _exit_now(code or 0)
    finally:  # reached only where _exit_now does not end the process (a test's stand-in)
        _signal.signal(_signal.SIGINT, _signal.default_int_handler)
        sys.unraisablehook = _HOOK


def _say_interrupted(argv: list[str]) -> None:
    """One line, then exit 130 without tearing down: what ran has unwound, and each
    write lands whole or not at all (a commit, the manifest, a push)."""
    _signal.signal(_signal.SIGINT, _signal.SIG_IGN)  # a second Ctrl-C must not interrupt the exit itself
    from .errors import interrupted_line

    sys.stderr.write(interrupted_line(next((a for a in argv if not a.startswith("-")), "")) + "\n")
    _exit_now(130)


def _main(argv: list[str]) -> None:
    if argv[:1] == ["recall"] and _fast_recall(argv[1:]):
        return
    if argv[:1] == ["commit"]:
        simple, message = _commit_message(argv[1:])
        if simple:
            # A one-shot process that builds no reference cycles worth collecting: the
            # cyclic GC would only rescan the ~100,000 objects that importing pygit2
            # allocates (~7 ms of a commit that hooks run at every Stop).
            import gc

            gc.disable()
            raise SystemExit(_fast_commit(message))
    if argv in (["sync"], ["sync", "--json"]):
        _start_fetch(argv == ["sync"])
        try:
            code = _fast_sync(as_json=argv == ["sync", "--json"])
        except KeyboardInterrupt:  # Ctrl-C: the locks and git's children are already let go
            _abandon_fetch()
            sys.stderr.write(INTERRUPTED)
            _exit_now(130)
        except BaseException:  # a bug: git must not go on alone
            _abandon_fetch()
            raise
        raise SystemExit(code)
    from .cli.app import main as cli_main

    cli_main(prog_name="git enf")  # as users type it; git runs us as git-enf


INTERRUPTED = ("git enf sync: interrupted; what was committed stays committed here (a commit or a push lands "
               "whole or not at all): run git enf sync again\n")


def _abandon_fetch() -> None:
    from .plumbing import gitcli

    gitcli.abandon_early()


def _fast_sync(as_json: bool) -> int:
    """A plain `git enf sync` without click (~35 ms of imports): the command's output, its
    error boundary (cli/app.py) and its exit codes."""
    from .cli.sync_text import lines, payload
    from .cli.text import envelope
    from .memory.share import sync_light
    from .plumbing import gitcli

    progress = sys.stderr if sys.stderr.isatty() and not as_json else None
    try:
        # Without pygit2 when only this side moved, or neither (memory/share/sync_light.py)
        done = sync_light.sync(os.getcwd(), progress) or _full_sync(progress)
    except Exception as exc:
        return _explained(exc)
    finally:
        gitcli.abandon_early()
    out = [envelope("sync", **payload(done))] if as_json else lines(done)
    sys.stdout.write("".join(f"{line}\n" for line in out))
    return 0 if done.ok else 1


def _full_sync(progress: IO[str] | None) -> Synced:
    """The sync in process (pygit2): a commit, a merge or a fast-forward to make."""
    from . import memory
    from .memory.share import sync as sync_mod

    return sync_mod.sync(memory.Context.open(os.getcwd()), None, now=int(time.time()), progress=progress)


def _explained(exc: Exception) -> int:
    """The fast paths' error boundary, as cli/app.py's: a core error, a write the file
    system refused, or libgit2's refusal is `error:`/`hint:` and exit 1; anything else
    is a bug of ours, re-raised, since the traceback is what a report needs."""
    from .errors import EnfError, git_failure, refused_write
    from .plumbing import store

    if isinstance(exc, EnfError):
        return _error(exc.message, exc.hint)
    refused = refused_write(exc) if isinstance(exc, OSError) else None
    if refused is not None:
        return _error(refused.message, refused.hint)
    if store.is_git_error(exc):
        return _error(*git_failure(exc))
    raise exc


def _error(message: str, hint: str | None) -> int:
    sys.stderr.write(f"error: {message}\n" + (f"hint: {hint}\n" if hint else ""))
    return 1


def _start_fetch(plain: bool) -> None:
    """Start the fetch of `git enf sync` now: git transfers while this process imports
    pygit2, click and the sync (~100 ms), and the sync waits for it instead of starting it.
    Never fatal: on any surprise the sync makes its own fetch."""
    try:
        from .plumbing import gitcli

        gitcli.start_early(os.getcwd(), sys.stderr if plain and sys.stderr.isatty() else None)
    except Exception:  # noqa: BLE001 - the sync proper reports whatever this met
        pass


def _exit_now(code: int) -> None:
    """Exit without tearing the interpreter down.

    Everything is written and closed by now (commits, manifest, caches; the writer
    lock is released), and an orderly shutdown would only free what the process
    built: pygit2's modules and libgit2's caches, ~25 ms that every Stop hook's
    commit would wait for. Only our own output still needs flushing.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except OSError:  # a closed pipe: nothing more can be said there, the commit stands
            code = code or 1
    os._exit(code)


def _fast_recall(args: list[str]) -> bool:
    """Answer from a warm index; False (nothing printed) means: use the full CLI."""
    limit, as_json, words = 10, False, []
    it = iter(args)
    for arg in it:
        if arg == "--json":
            as_json = True
        elif arg in ("-n", "--limit"):
            value = next(it, "")
            if not value.isdigit() or not 1 <= int(value) <= 1000:
                return False
            limit = int(value)
        elif arg.startswith("-"):
            return False
        else:
            words.append(arg)
    if not words:
        return False
    try:
        from . import paths
        from .cli.text import recall_json
        from .plumbing import fastconfig, gitdirs, search

        dirs = gitdirs.find(os.getcwd())
        if dirs is None:
            return False
        db_file = os.path.join(paths.state_dir(dirs[2]), paths.SEARCH_DB)
        tip = gitdirs.read_ref(dirs[2], paths.REF)
        if tip is None or not os.path.isfile(db_file) or _fetched_since(dirs[2]):
            return False
        db = search.connect(db_file)
        if search.indexed_tip(db) != tip:
            return False
        text = " ".join(words)
        if not search.terms(text):
            return False  # the full CLI says why that is a usage error
        check = fastconfig.switch(dirs[1], dirs[2], search.ANSWER_CHECK_KEY, False)
        answer = search.query(db, text, limit, answer_check=check)
        out = recall_json(search.as_rows(answer.hits), text, answer.weak, answer.strength()) if as_json else search.format_hits(answer, text)
    except Exception:  # noqa: BLE001 - any doubt: the full path rebuilds and reports properly
        return False
    sys.stdout.write(out + "\n")
    return True


def _fetched_since(common: str) -> bool:
    """Whether the memory remote's tracking ref moved since the last read caught up (or no
    read noted it yet): then the full path merges it first (memory.fetched.catch_up)."""
    from . import paths
    from .plumbing import gitdirs

    try:
        with open(os.path.join(paths.state_dir(common), paths.FETCHED_SEEN), encoding="utf-8") as f:
            ref, _, oid = f.read().strip().partition(" ")
    except (OSError, UnicodeDecodeError):
        return True
    if ref == "-":
        return False  # not shared when last read (a new enf.remote: the next full command notes it)
    return (gitdirs.read_ref(common, ref) or "-") != oid


def _commit_message(args: list[str]) -> tuple[bool, str | None]:
    """(arguments simple enough to skip click?, the -m/--message value or None)."""
    if not args:
        return True, None
    if len(args) == 2 and args[0] in ("-m", "--message"):
        return True, args[1]
    if len(args) == 1 and args[0].startswith("--message="):
        return True, args[0][len("--message="):]
    if len(args) == 1 and args[0].startswith("-m") and len(args[0]) > 2:
        return True, args[0][2:]
    return False, None


def _fast_commit(message: str | None) -> int:
    """`git enf commit` without click: same output, same exit codes as the CLI."""
    from . import memory

    try:
        report = memory.commit(memory.Context.open(os.getcwd()), message, now=int(time.time()))
    except Exception as exc:
        return _explained(exc)
    for is_err, line in memory.report_lines(report):
        (sys.stderr if is_err else sys.stdout).write(line + "\n")
    return 1 if report.failed else 0
