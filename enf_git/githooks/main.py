"""Our part of the git hooks, started by the shims (install/githooks.render).

Everything here is fail-open: whatever happens, the process exits 0 and says what
went wrong on stderr, prefixed `enf-git:`; the shim keeps the user's hook's status.
Time is bounded by an alarm (ENF_GIT_HOOK_TIMEOUT seconds) that raises inside
Python, so a git child still running is killed with its process group (gitcli).

- pre-push REMOTE URL: the code goes to the elected remote (enf.remote): memory goes
  too, by default alongside (the shim starts us in the background and git sends the
  code meanwhile: two connections, so waiting for ours first would double the push;
  `enf.pushMemory first` waits, `false` leaves memory to sync). Usually it is ahead of what the remote had when we last saw it, and is pushed
  as a fast-forward of that with no repository opened (`fast_push`: no pygit2, which
  alone costs more than the push); otherwise a full sync (fetch, merge, push with
  --no-verify). Any other remote: nothing.
- post-merge, post-checkout, post-rewrite: merge the already-fetched
  refs/remotes/<remote>/claude-memory into claude-memory and refresh the working
  copy. No network, except in a partial clone for the blobs that fetch left out.
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False  # typing (and signal's enum, below) cost more than the push's own start
if TYPE_CHECKING:
    from types import FrameType

    from ..plumbing.gitresults import PushResult
    from ..memory.share.sync_merge import MergeResult
    from ..memory.workspace import Context

from .. import paths

PREFIX = "enf-git:"
PUSH_ENV = "ENF_GIT_HOOK_PUSH"  # set by the pre-push shim: "<remote> <ours> <theirs> <ssh 0|1>" (install/githooks)
MODE_ENV = "ENF_GIT_PUSH_MODE"  # the shim's reading of enf.pushMemory
PID_ENV = "ENF_GIT_PUSH_PID"  # set when we run alongside the push: the `git push` process
PUSH_MODES = ("alongside", "first", "false")  # enf.pushMemory; unset: alongside
OFF = ("false", "off", "no", "0")  # git's spellings of a false boolean (the shim knows the lower-case ones)
DEFAULT_TIMEOUT = 60
MERGE_HOOKS = ("post-merge", "post-checkout", "post-rewrite")


class OutOfTime(BaseException):
    """Raised by the alarm; a BaseException so no `except Exception` below swallows it."""


def say(message: str) -> None:
    try:
        print(f"{PREFIX} {message}", file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def said(news: str) -> None:
    """Good news. Alongside a push that already finished, on a terminal, it would land over
    the shell's next prompt, so it is not said there; a pipe or a file is read to its end
    (an editor, a script), so it is said there."""
    if _git_running(os.environ.get(PID_ENV, "")) or not _terminal():
        say(news)


def _terminal() -> bool:
    try:
        return os.isatty(sys.stderr.fileno())
    except (OSError, ValueError, AttributeError):
        return False


def _git_running(pid: str) -> bool:
    """Whether the `git push` we run alongside (pid) still runs; True when not alongside."""
    if not pid.isdigit():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists, owned by someone else: not ours to judge
        return True
    return True


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    limit = _limit()
    try:
        _arm(limit)
        if args:
            run(args[0], args[1:])
    except OutOfTime:
        if args[:1] == ["pre-push"]:
            say(f"gave up after {limit} s (ENF_GIT_HOOK_TIMEOUT): memory not pushed; {AGAIN}")
        else:
            say(f"gave up after {limit} s; memory stays committed here: git enf sync")
    except Exception as exc:  # fail-open: a hook never breaks the user's git
        from ..errors import EnfError

        hint = f" ({exc.hint})" if isinstance(exc, EnfError) and exc.hint else ""
        say(f"{exc}{hint}")
    finally:
        _disarm()
    sys.exit(0)


def run(hook: str, args: list[str]) -> None:
    if hook == "pre-push":
        pre_push(args[0] if args else "", args[1] if len(args) > 1 else "")
    elif hook in MERGE_HOOKS:
        merge_fetched()


def elected(configured: str | None, name: str, url: str) -> bool:
    """Whether a push to `name` (`url`) goes to the memory remote: never a fork or mirror."""
    return bool(configured) and configured in (name, url)


def pre_push(name: str, url: str) -> None:
    mode = (os.environ[MODE_ENV] if MODE_ENV in os.environ else _configured_mode()).strip().lower()
    if mode in OFF:
        return
    if mode and mode not in PUSH_MODES:
        say(f"enf.pushMemory is {mode!r}, not one of {', '.join(PUSH_MODES)}; pushing memory alongside "
            "(git config enf.pushMemory alongside)")
    if fast_push(name, os.environ.get(PUSH_ENV, ""), url):
        return
    _full_site()
    from ..memory.share.sync import sync
    from ..memory.workspace import Context

    ctx = Context.open(".")
    if not elected(ctx.settings.remote, name, url):
        return
    done = sync(ctx, in_hook=True, now=int(time.time()))
    for line in (line for m in done.merges for line in m.lines()):
        say(line)  # a conflict copy or an edit kept over a deletion: said even at a terminal
    if not done.ok:
        not_pushed(done.messages)
    elif done.pushed is not None:
        said(f"memory pushed to {done.remote}")
    elif done.waiting:
        say(done.waiting)


AGAIN = "your code push is not affected, and the next git push tries again (or now: git enf sync)"


def not_pushed(causes: list[str]) -> None:
    """A push that did not carry memory says so: once, with the cause and what to type.
    Nothing is remembered as "refused": every push to the remote makes one attempt."""
    lines = [c if c.startswith("memory was not pushed") else f"memory not pushed: {c}" for c in causes if c]
    for line in lines[:-1]:
        say(line)
    say(f"{lines[-1] if lines else 'memory not pushed'}; {AGAIN}")


def _configured_mode() -> str:
    """enf.pushMemory, for a shim from before it passed it on (`false` must hold there too)."""
    import subprocess

    from ..plumbing import gitenv, gitrun

    proc = subprocess.run(["git", "config", "--get", "enf.pushMemory"], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, env=gitenv.env_for_git(os.environ), timeout=gitrun.LOCAL_TIMEOUT)
    return proc.stdout if proc.returncode == 0 else ""


def fast_push(name: str, facts: str, url: str = "") -> bool:
    """The usual pre-push: memory is ahead of what the remote had when we last saw it.

    Pushed as a fast-forward, never a force (a plain push, `_spawned_push`; under an
    older shim, gitcli.push's lease on what we last saw) without opening the repository,
    so neither pygit2 nor the merge machinery is imported. False when the full sync must run instead: the shim gave no facts (a URL
    remote, or an older shim), memory never went there (the first push scans the history
    for secrets), or the remote moved or the histories diverged (a merge is needed).
    What is pushed is what is committed: the Claude Code hooks commit at Stop and PreCompact.
    `url`: where git pushes (the hook's $2), noted with what the remote now has (gitseen.note_seen).
    """
    parts = facts.split()
    if len(parts) not in (3, 4) or parts[0] != name:
        return False
    remote_name, ours, theirs = parts[:3]
    if not _scanned_before(remote_name):  # a remote's name is its label (no URL, so no user-info to hide)
        return False
    from . import spawn

    if len(parts) == 4 and url and spawn.available():
        pushed = _spawned_push(remote_name, ours, url, parts[3] == "1")
    else:  # a shim from before it passed the ssh setting; no posix_spawn
        from ..plumbing import gitcli

        remote = gitcli.Remote(remote_name, is_url=False)
        pushed = gitcli.push(".", remote, ours, expect=theirs, no_verify=True, url=url or None)
    from ..plumbing import gitcli

    remote = gitcli.Remote(remote_name, is_url=False)
    if pushed.outcome is gitcli.Outcome.NON_FAST_FORWARD:
        return False
    if pushed.outcome is gitcli.Outcome.UP_TO_DATE:
        pass  # it was there (our part ran only to note where "there" is now): nothing to say
    elif pushed.ok:
        said(f"memory pushed to {remote.label}")
    else:
        not_pushed([pushed.message])
    return True


def _spawned_push(remote: str, ours: str, url: str, own_ssh: bool) -> PushResult:
    """`ours` pushed to the remote's claude-memory as a plain push, started before anything
    heavy is imported (githooks.spawn). A plain push, not a lease on what the remote had:
    git itself refuses what is not a fast-forward of the ref the remote advertised ("non-
    fast-forward", or "fetch first" when that commit is not here), and receive-pack moves
    the ref only if it still holds that value; so it is the same compare-and-swap of a
    fast-forward as gitcli.push's lease, without a merge-base process before the push.
    `own_ssh`: core.sshCommand is set (read by the shim's git config), so it runs as is."""
    from .. import paths
    from ..plumbing import gitenv
    from . import spawn

    env = gitenv.env_for_git(os.environ, ssh_configured=own_ssh)
    started = spawn.Spawned(["push", "--porcelain", "--no-follow-tags", "--recurse-submodules=no", "--no-verify",
                             remote, f"{ours}:{paths.REF}"], {**env, gitenv.HOOK_GUARD: "1"})
    from ..plumbing import gitcli, gitrun  # imported while git transfers

    git_env = gitenv.GitEnv(".", env, (remote,), memory_remote=remote, push_urls={remote: url})
    code, out, err, timed_out = started.finish(gitrun.PUSH_TIMEOUT)
    return gitcli.push_answer(".", gitcli.Remote(remote, is_url=False), ours, gitrun._Run(code, out, err, timed_out),
                              git_env, url)


def _scanned_before(label: str) -> bool:
    """Whether memory already went to `label` once from here (memory.sync's scan marker)."""
    from ..pure.ids import stable_id

    marker = os.path.join(paths.SCANNED_DIR, stable_id("r", label))
    if os.path.isdir(".git") and os.path.exists(os.path.join(paths.state_dir(".git"), marker)):
        return True  # the usual layout (hooks run at the top of the work tree), found without git
    import subprocess

    from ..plumbing import gitenv, gitrun

    proc = subprocess.run(["git", "rev-parse", "--git-common-dir"], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, env=gitenv.env_for_git(os.environ), timeout=gitrun.LOCAL_TIMEOUT)
    common = proc.stdout.strip()
    return proc.returncode == 0 and bool(common) and os.path.exists(os.path.join(paths.state_dir(common), marker))


def merge_fetched() -> None:
    """Merge fetched memory, then refresh this worktree's working copy: from the merge, or
    from a commit another worktree made (the shim starts us only when one of them is new)."""
    _full_site()
    from ..memory.record.working_set import materialize
    from ..memory.workspace import Context
    from ..plumbing import store

    from ..memory.share import fetched

    ctx = Context.open(".")
    seen = fetched.seen_now(ctx)
    merged = _merge_remote(ctx)
    if store.tip(ctx.repo) is None:
        return
    with ctx.lock():
        materialize(ctx)
    fetched.note_seen(ctx, seen)  # only now: a hook timed out before this is finished by the next read
    if merged is None:
        return
    for line in fetched.merge_lines(*merged):
        say(line)


def _merge_remote(ctx: Context) -> tuple[str, MergeResult] | None:
    """The remote's already-fetched memory merged into the branch; None when nothing moved.

    After a pull, a partial clone lacks memory's blobs, which pygit2 cannot fetch on
    demand: they are fetched first (the one network call here, and only in such a clone).
    """
    from ..memory.share import fetched

    try:
        return fetched.merge_fetched(ctx, int(time.time()), fill_missing=True)
    except fetched.BlobsUnavailable as exc:
        say(exc.message)  # the working copy is still refreshed from what is here
        return None


def _full_site() -> None:
    """site.py, for the paths that open the repository: the shim starts us with `-S`
    (install/githooks._launch), which the fast push needs no more than the standard library."""
    if sys.flags.no_site:
        import site

        site.main()


def _limit() -> int:
    """ENF_GIT_HOOK_TIMEOUT as the shim reads it: 1 to 9999, no leading 0, else the default."""
    raw = os.environ.get("ENF_GIT_HOOK_TIMEOUT", "")
    ok = raw.isdigit() and not raw.startswith("0") and len(raw) <= 4
    return int(raw) if ok else DEFAULT_TIMEOUT


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    raise OutOfTime()


def _arm(seconds: int) -> None:
    # The C module: `signal` would import enum first (as hook._arm_timer). typeshed has no stub.
    import _signal  # type: ignore[import-not-found]

    if hasattr(_signal, "SIGALRM"):
        _signal.signal(_signal.SIGALRM, _on_alarm)
        _signal.alarm(seconds)
    # The shim's `timeout` backstop sends SIGTERM: end as at the alarm, so that the git
    # child still running is killed with us (gitcli, spawn), not left to push on unwatched.
    _signal.signal(_signal.SIGTERM, _on_alarm)


def _disarm() -> None:
    import _signal

    if hasattr(_signal, "SIGALRM"):
        _signal.alarm(0)
