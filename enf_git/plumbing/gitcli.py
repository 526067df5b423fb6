"""Fetch and push `claude-memory` with the `git` binary (stdlib only to import).

pygit2 ignores the user's ssh config, `GIT_SSH_COMMAND`, credential helpers and
proxies, so transport goes through `git`; merging and the compare-and-swap of the
local branch stay in pygit2 (docs/design.md §7). This module only moves objects and
one remote-tracking ref; it never writes the local branch, the remote's config, or
anything the user's own `git fetch` depends on.

Every call:
- runs `git` in `repo_dir` with the repository-locating variables a hook inherits
  (git's local_repo_env: GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE, ...) removed, so a
  call from inside a pre-push hook still targets `repo_dir`;
- keeps the user's transport settings (GIT_SSH_COMMAND, GIT_SSH, GIT_ASKPASS,
  SSH_ASKPASS, proxies, `git -c` config) and never prompts: stdin is /dev/null,
  GIT_TERMINAL_PROMPT=0, no controlling terminal (a new session, POSIX), and ssh
  in batch mode when the ssh command is ours to choose (see `env_for_git`);
- has a timeout, after which the whole process group is killed;
- sorts failures into `Outcome`s, each with a message saying what happened and what
  to type next. Messages are parsed in the C locale (LC_ALL=C).

Three answers to "does the remote have it": PRESENT (with its OID), ABSENT, UNKNOWN
(with the reason). Only ABSENT may lead to creating the branch there.

Only the transfers are git processes. What a sync needs to know first (the ssh
command, the remotes) comes from one `git config` (`prepare`); the tracking ref before
and after a fetch, and whether a push is a fast-forward, are read with pygit2 (store,
imported on first use), each a process start saved.
"""

from __future__ import annotations

import codecs
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from enum import Enum
from functools import lru_cache
from typing import IO, TYPE_CHECKING, NamedTuple

from enf_git import paths
from enf_git.errors import EnfError

if TYPE_CHECKING:  # imported when a fetch or push runs: env_for_git stays stdlib-only
    from . import store

LS_REMOTE_TIMEOUT = 30.0
FETCH_TIMEOUT = 600.0
PUSH_TIMEOUT = 600.0
LOCAL_TIMEOUT = 15.0
# ssh we start ourselves: never ask (password, passphrase, unknown host key), and give
# up on a dead host long before our own timeout would.
BATCH_SSH = "ssh -o BatchMode=yes -o ConnectTimeout=20"
# git's local_repo_env (environment.c), for a git too old or too broken to print it.
LOCAL_ENV_FALLBACK = (
    "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
    "GIT_OBJECT_DIRECTORY", "GIT_DIR", "GIT_WORK_TREE", "GIT_IMPLICIT_WORK_TREE", "GIT_GRAFT_FILE",
    "GIT_INDEX_FILE", "GIT_NO_REPLACE_OBJECTS", "GIT_REPLACE_REF_BASE", "GIT_PREFIX",
    "GIT_INTERNAL_SUPER_PREFIX", "GIT_SHALLOW_FILE", "GIT_COMMON_DIR",
)
# Not in local_repo_env but set around hooks and able to redirect what we read or write:
# a namespace would push into refs/namespaces/..., a quarantine path hides new objects.
EXTRA_SCRUB = ("GIT_NAMESPACE", "GIT_QUARANTINE_PATH", "GIT_PUSH_OPTION_COUNT", "GIT_REFLOG_ACTION")
# What `git -c key=value enf sync` passes down: the user's own config, kept (git keeps
# these too when it runs a command in another repository, run-command.c
# prepare_other_repo_env).
KEEP = ("GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT")
# The git hooks' recursion guard (install/githooks): set on our own push, so the pre-push
# hook a user's `git enf sync` triggers runs only the user's chained hook, not a second
# sync that would push memory first and make ours fail ("failed to update ref").
HOOK_GUARD = "ENF_GIT_HOOK_ACTIVE"
# GIT_ variables known not to locate a repository (transport, identity, config files,
# tracing, editors...). With only these and the lists above in the environment, git's
# own list cannot name anything more to remove, so it is not asked (a subprocess).
NOT_LOCAL = (
    "GIT_SSH", "GIT_SSH_COMMAND", "GIT_SSH_VARIANT", "GIT_ASKPASS", "GIT_TERMINAL_PROMPT", "GIT_EXEC_PATH",
    "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PAGER", "GIT_TEMPLATE_DIR",
    "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
    "GIT_COMMITTER_DATE", "GIT_PROXY_COMMAND", "GIT_ALLOW_PROTOCOL", "GIT_PROTOCOL_FROM_USER",
    "GIT_HTTP_USER_AGENT", "GIT_HTTP_LOW_SPEED_LIMIT", "GIT_HTTP_LOW_SPEED_TIME", "GIT_HTTP_MAX_REQUESTS",
    "GIT_CURL_VERBOSE", "GIT_OPTIONAL_LOCKS", "GIT_FLUSH", "GIT_DEFAULT_HASH", "GIT_MERGE_VERBOSITY",
)
NOT_LOCAL_PREFIXES = ("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_", "GIT_TRACE", "GIT_SSL_", "GIT_PUSH_OPTION_")
# The config a sync reads before it runs git: the ssh command (whether to choose ours)
# and the remotes' names (whether enf.remote is one). Asked of `git config` itself, so
# every source git reads counts (`git -c`, GIT_CONFIG_GLOBAL, includes), as it would for
# the fetch; section and key names come back lowercased.
# and url.<base>.insteadOf / pushInsteadOf, to know a remote's push URL as git does
_CONFIG_KEYS = (r"^(core\.sshcommand|remote\..+\.[^.]+|extensions\.partialclone|enf\.remote"
                r"|url\..+\.(insteadof|pushinsteadof))$")


class Outcome(str, Enum):
    OK = "ok"  # fetched / pushed
    UP_TO_DATE = "up-to-date"
    ABSENT = "absent"  # the remote has no claude-memory (fetch)
    NON_FAST_FORWARD = "non-fast-forward"
    NO_RIGHTS = "no-rights"  # 403, protected branch, a hook declined, credentials needed
    NOT_FOUND = "not-found"  # no repository at that URL/path (or not readable)
    OFFLINE = "offline"  # DNS, refused, unreachable, timed out
    UNKNOWN = "unknown"


class State(str, Enum):
    PRESENT = "present"
    ABSENT = "absent"
    UNKNOWN = "unknown"


# NamedTuples, not frozen dataclasses: six of those cost ~5 ms at import, on every sync and
# every pre-push hook (they compare and read the same; the values are never mutated).
class Remote(NamedTuple):
    """What to hand to git (`arg`: a remote name or a URL) and where its branch is tracked."""

    arg: str
    is_url: bool

    @property
    def label(self) -> str:
        return _redact_url(self.arg)

    @property
    def tracking_ref(self) -> str:
        return tracking_ref(paths.URL_REMOTE_NAME if self.is_url else self.arg)


class Presence(NamedTuple):
    state: State
    oid: str | None = None  # PRESENT: the remote's OID
    reason: Outcome | None = None  # UNKNOWN: why we could not tell
    message: str = ""
    names: tuple[str, ...] = ()  # remote_has_code_branches: the branches found

    @property
    def may_create(self) -> bool:
        """Only a definite "absent" allows creating the branch there; "could not tell" never."""
        return self.state is State.ABSENT


class FetchResult(NamedTuple):
    outcome: Outcome
    ref: str  # the remote-tracking ref written
    before: str | None  # its OID before the fetch
    after: str | None  # and after
    message: str
    stderr: str = ""

    @property
    def ok(self) -> bool:
        return self.outcome in (Outcome.OK, Outcome.UP_TO_DATE, Outcome.ABSENT)


class PushResult(NamedTuple):
    outcome: Outcome
    message: str
    summary: str = ""  # git's per-ref status line ("[new branch]", "[rejected] (fetch first)", ...)
    stderr: str = ""

    @property
    def ok(self) -> bool:
        return self.outcome in (Outcome.OK, Outcome.UP_TO_DATE)


class Plan(NamedTuple):
    """What a sync would move, read without writing anything (`--dry-run`)."""

    remote: Presence  # the remote's claude-memory
    local: str | None  # refs/heads/claude-memory
    tracking: str | None  # refs/remotes/<remote>/claude-memory
    fetch: str  # "nothing", "new", "update", "unknown"
    push: str  # "nothing", "create", "fast-forward", "merge first", "fetch first", "unknown"
    ahead: int | None  # local commits the remote lacks (when known)
    behind: int | None  # remote commits we lack (when known)


class _Run(NamedTuple):
    code: int
    out: str
    err: str
    timed_out: bool = False


def terminal_progress() -> IO[str] | None:
    """Where a long transfer shows git's progress: stderr when it is a terminal, else nowhere
    (a hook's or a pipe's stderr would fill with carriage returns). For the CLI edge to pass in."""
    return sys.stderr if sys.stderr.isatty() else None


def tracking_ref(remote_name: str, branch: str = paths.BRANCH) -> str:
    return f"refs/remotes/{remote_name}/{branch}"


# --- environment ---------------------------------------------------------------------

def env_for_git(base_env: Mapping[str, str], ssh_configured: bool = False) -> dict[str, str]:
    """`base_env` made safe for a git subprocess that must target an explicit repository.

    Removed: every variable in git's local_repo_env (LOCAL_ENV_FALLBACK, and `git rev-parse
    --local-env-vars` when `base_env` holds a GIT_ variable neither that list nor NOT_LOCAL
    names) except the `git -c` ones, plus EXTRA_SCRUB.
    Kept: everything else, notably GIT_SSH_COMMAND, GIT_SSH, GIT_ASKPASS, SSH_ASKPASS,
    *_proxy, GIT_CONFIG_GLOBAL/NOSYSTEM, GIT_TRACE*.
    Set: GIT_TERMINAL_PROMPT=0, LC_ALL=C (messages are classified by their text),
    GCM_INTERACTIVE=never unless the user chose otherwise, and GIT_SSH_COMMAND=BATCH_SSH
    only when the user set no ssh command at all (no GIT_SSH_COMMAND, no GIT_SSH, and
    `ssh_configured` False, i.e. no core.sshCommand): appending options to a user's
    command is not safe (it may be plink or a wrapper script), so theirs runs as is;
    it still cannot prompt, because it gets no terminal and no stdin.
    """
    drop = _scrubbed(base_env)
    env = {k: v for k, v in base_env.items() if k not in drop}
    env["GIT_TERMINAL_PROMPT"] = "0"
    env["LC_ALL"] = "C"
    env.setdefault("GCM_INTERACTIVE", "never")
    if not (env.get("GIT_SSH_COMMAND") or env.get("GIT_SSH") or ssh_configured):
        env["GIT_SSH_COMMAND"] = BATCH_SSH
    return env


@lru_cache(maxsize=1)
def local_env_vars() -> tuple[str, ...]:
    """git's own list of the variables that locate a repository (cached per process)."""
    try:
        proc = subprocess.run(["git", "rev-parse", "--local-env-vars"], capture_output=True,
                              stdin=subprocess.DEVNULL, timeout=LOCAL_TIMEOUT, cwd=os.path.sep)
        names = tuple(proc.stdout.decode("ascii", "replace").split())
    except (OSError, subprocess.SubprocessError):
        names = ()
    return tuple(sorted(set(names) | set(LOCAL_ENV_FALLBACK)))


def _scrubbed(base_env: Mapping[str, str]) -> set[str]:
    """The names env_for_git removes from `base_env`."""
    known = (*LOCAL_ENV_FALLBACK, *EXTRA_SCRUB, *NOT_LOCAL)
    unknown = any(k.startswith("GIT_") and k not in known and not k.startswith(NOT_LOCAL_PREFIXES)
                  for k in base_env)
    local = local_env_vars() if unknown else LOCAL_ENV_FALLBACK  # a newer git may list more
    return (set(local) - set(KEEP)) | set(EXTRA_SCRUB)


class GitEnv(dict[str, str]):
    """The environment for git in one repository (env_for_git, with that repository's
    core.sshCommand looked at), and the remotes git knows there: what `prepare` read once.

    Pass it as `env` to every call of one sync (resolve_remote, fetch, push): none of
    them runs `git config` again.
    """

    def __init__(self, repo_dir: str, env: Mapping[str, str], remotes: tuple[str, ...],
                 partial: bool = False, memory_remote: str | None = None,
                 push_urls: Mapping[str, str] | None = None) -> None:
        super().__init__(env)
        self.repo_dir = repo_dir
        self.remotes = remotes
        self.partial = partial  # a promisor remote or extensions.partialClone: a `--filter` clone
        self.memory_remote = memory_remote  # enf.remote, as git reads it
        self.push_urls = dict(push_urls or {})  # remote name -> where git pushes (the pre-push hook's $2)


def prepare(repo_dir: str, env: Mapping[str, str] | None = None) -> GitEnv:
    """One `git config` for what every later call needs; `env` (default os.environ) is the base."""
    if isinstance(env, GitEnv):
        if env.repo_dir != repo_dir:
            raise ValueError(f"a GitEnv prepared for {env.repo_dir} used for {repo_dir}")
        return env
    base = os.environ if env is None else env
    plain = env_for_git(base, ssh_configured=True)  # without our ssh default, to read the user's config
    run = _run(repo_dir, ["config", "--null", "--get-regexp", _CONFIG_KEYS], plain, LOCAL_TIMEOUT)
    items = [item.split("\n", 1) for item in run.out.split("\0") if item] if run.code == 0 else []
    keys = [item[0] for item in items]
    remotes = tuple(dict.fromkeys(k[len("remote."):k.rindex(".")] for k in keys if k.startswith("remote.")))
    partial = any(_is_partial_key(item[0], item[1] if len(item) > 1 else "") for item in items)
    memory = [item[1] if len(item) > 1 else "" for item in items if item[0] == "enf.remote"]
    pairs = [(item[0], item[1] if len(item) > 1 else "") for item in items]
    return GitEnv(repo_dir, env_for_git(base, ssh_configured="core.sshcommand" in keys), remotes, partial,
                  memory[-1] if memory else None, _push_urls(remotes, pairs))


def _push_urls(remotes: tuple[str, ...], items: list[tuple[str, str]]) -> dict[str, str]:
    """Each remote's push URL as git computes it (remote.c): its first pushurl rewritten by
    insteadOf, else its first url rewritten by pushInsteadOf, else by insteadOf; the
    longest matching prefix wins."""
    fetch_alias: dict[str, str] = {}
    push_alias: dict[str, str] = {}
    for key, value in items:
        if key.startswith("url.") and key.endswith((".insteadof", ".pushinsteadof")):
            base, _, kind = key[len("url."):].rpartition(".")
            (push_alias if kind == "pushinsteadof" else fetch_alias)[value] = base
    out: dict[str, str] = {}
    for name in remotes:
        pushurl = next((v for k, v in items if k == f"remote.{name}.pushurl"), None)
        url = next((v for k, v in items if k == f"remote.{name}.url"), None)
        if pushurl is not None:
            out[name] = _alias(pushurl, fetch_alias) or pushurl
        elif url is not None:
            out[name] = _alias(url, push_alias) or _alias(url, fetch_alias) or url
    return out


def _alias(url: str, aliases: Mapping[str, str]) -> str | None:
    """`url` rewritten by its longest matching prefix in `aliases`; None when none matches."""
    prefix = max((p for p in aliases if url.startswith(p)), key=len, default=None)
    return None if prefix is None else aliases[prefix] + url[len(prefix):]


def _is_partial_key(key: str, value: str) -> bool:
    promisor = key.startswith("remote.") and key.endswith(".promisor")
    return (promisor or key == "extensions.partialclone") and value.strip().lower() not in _FALSE_WORDS


def _env(repo_dir: str, env: Mapping[str, str] | None) -> GitEnv:
    return prepare(repo_dir, env)


# --- running git -----------------------------------------------------------------------

def _run(repo_dir: str, args: list[str], env: Mapping[str, str], timeout: float,
         progress: IO[str] | None = None) -> _Run:
    """`git args` in repo_dir: no stdin, no terminal, killed (with its children) at `timeout`.

    stderr is copied to `progress` as it arrives (for a terminal) and kept for classifying.
    """
    return _Started(repo_dir, args, env, progress).finish(timeout)


class _Started:
    """A git process running (`_run` split in two, so a fetch can start before the caller
    has imported what it needs afterwards)."""

    def __init__(self, repo_dir: str, args: list[str], env: Mapping[str, str], progress: IO[str] | None) -> None:
        self.posix = os.name == "posix"
        self.started = time.monotonic()
        self.proc = subprocess.Popen(["git", *args], cwd=repo_dir, env=dict(env), stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=self.posix)
        self.out: list[bytes] = []
        self.err: list[bytes] = []
        self.readers = [threading.Thread(target=_drain, args=(self.proc.stdout, self.out, None), daemon=True),
                        threading.Thread(target=_drain, args=(self.proc.stderr, self.err, progress), daemon=True)]
        # `proc.wait(timeout)` would poll (sleeps doubling up to 50 ms: a git that takes 35 ms
        # was seen at 63), so a thread blocks in waitpid and we wait on it, which sleeps on a
        # lock until the very moment git exits, or until the timeout.
        self.waiter = threading.Thread(target=self.proc.wait, daemon=True)
        for thread in (*self.readers, self.waiter):
            thread.start()

    def finish(self, timeout: float) -> _Run:
        """Wait for git, `timeout` seconds from its start at most (then kill it)."""
        timed_out = False
        try:
            self.waiter.join(max(0.0, timeout - (time.monotonic() - self.started)))
            if self.waiter.is_alive():
                timed_out = True
                self.kill()
                self.waiter.join()
        except BaseException:  # Ctrl-C: the child is in its own session and did not get it
            self.kill()
            raise
        for reader in self.readers:  # an ssh master that outlives git may hold a pipe open
            reader.join(timeout=2.0)
        code = self.proc.wait()  # already reaped by the waiter: returns at once
        return _Run(code, b"".join(self.out).decode("utf-8", "replace"),
                    b"".join(self.err).decode("utf-8", "replace"), timed_out)

    def kill(self) -> None:
        _kill(self.proc, self.posix)


def run_local(repo_dir: str, args: list[str], env: Mapping[str, str], timeout: float) -> _Run:
    """`git args` in repo_dir for a read of the user's own repository (the handoff's status
    and log): `env` made safe by env_for_git, no prompt, killed with its children at `timeout`."""
    return _run(repo_dir, args, env_for_git(env), timeout)


def _drain(pipe: IO[bytes] | None, sink: list[bytes], echo: IO[str] | None) -> None:
    if pipe is None:
        return
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    while chunk := pipe.read1(8192) if hasattr(pipe, "read1") else pipe.read(8192):
        sink.append(chunk)
        if echo is not None:
            try:
                echo.write(decoder.decode(chunk))
                echo.flush()
            except (OSError, ValueError):
                echo = None  # the terminal went away: keep collecting
    pipe.close()


def _kill(proc: subprocess.Popen[bytes], posix: bool) -> None:
    try:
        if posix:
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    except OSError:
        pass


@lru_cache(maxsize=1)
def git_version() -> tuple[int, ...]:
    proc = subprocess.run(["git", "version"], capture_output=True, stdin=subprocess.DEVNULL,
                          timeout=LOCAL_TIMEOUT, cwd=os.path.sep)
    words = proc.stdout.decode("ascii", "replace").split()
    digits = words[2].split(".") if len(words) > 2 else []
    return tuple(int(d) for d in digits[:3] if d.isdigit())


def _open(repo_dir: str) -> store.Repo:
    """The repository, for reading refs and ancestry in-process (a `git rev-parse` or
    `git merge-base` costs a process start each; these reads cost microseconds)."""
    from . import store

    return store.open_repo(repo_dir)


def _ref_commit(repo: store.Repo, ref: str) -> str | None:
    """What `git rev-parse --verify --quiet REF^{commit}` prints, read in-process: the
    ref's OID when it names a commit."""
    from . import store

    commit = store.commit_at(repo, store.ref_target(repo, ref))
    return str(commit.id) if commit is not None else None


def _descends(repo_dir: str, tip: str, base: str, env: Mapping[str, str] | None = None) -> bool | None:
    """`git merge-base --is-ancestor BASE TIP` in-process; None when either is not here.

    In-process only when pygit2 is already loaded (a sync): the pre-push hook's fast path
    never loads it (its import alone costs more than the push), so there one git call
    answers instead.
    """
    if "pygit2" not in sys.modules and env is not None:
        run = _run(repo_dir, ["merge-base", "--is-ancestor", base, tip], env, LOCAL_TIMEOUT)
        return True if run.code == 0 else False if run.code == 1 else None
    from . import store

    repo = _open(repo_dir)
    try:
        new = store.resolve(repo, tip)
    except EnfError:
        return None
    old = store.commit_at(repo, base)
    if old is None:
        return None
    try:
        return store.descends_from(repo, new, old)
    except Exception as exc:  # a history libgit2 cannot walk (a missing parent): cannot tell
        if store.is_git_error(exc) or isinstance(exc, (KeyError, ValueError)):
            return None
        raise


def is_ancestor(repo_dir: str, base: str, tip: str, env: Mapping[str, str]) -> bool | None:
    """Whether `tip` descends from `base` (or is it); None when either is not here. One
    `git merge-base --is-ancestor` unless pygit2 is loaded already."""
    return True if base == tip else _descends(repo_dir, tip, base, env)


def _rev(repo_dir: str, ref: str, env: Mapping[str, str]) -> str | None:
    run = _run(repo_dir, ["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], env, LOCAL_TIMEOUT)
    return (run.out.strip() or None) if run.code == 0 else None


# --- remotes ---------------------------------------------------------------------------

def remote_names(repo_dir: str, env: Mapping[str, str] | None = None) -> list[str]:
    run = _run(repo_dir, ["remote"], env_for_git(os.environ if env is None else env), LOCAL_TIMEOUT)
    if run.code != 0:
        raise EnfError(f"could not list the remotes of {repo_dir}: {run.err.strip()}",
                       hint="git remote -v")
    return run.out.split()


def remote_exists(repo_dir: str, name: str, env: Mapping[str, str] | None = None) -> bool:
    """Whether `name` is a remote, as `git remote` says. A remote in the config is found in
    what `prepare` read; only another name asks `git remote` (which also knows the legacy
    .git/remotes files)."""
    if name in prepare(repo_dir, env).remotes:
        return True
    return name in remote_names(repo_dir, env)


def looks_like_url(text: str) -> bool:
    """A URL or path git would accept in place of a remote name (`scheme://`, scp-like
    `host:path`, an absolute or ./ ../ ~ path)."""
    if "://" in text or text.startswith(("/", "./", "../", "~")):
        return True
    if len(text) > 2 and text[0].isalpha() and text[1:3] in (":\\", ":/"):  # C:\path
        return True
    colon, slash = text.find(":"), text.find("/")
    return colon > 0 and (slash < 0 or colon < slash)


def resolve_remote(repo_dir: str, configured: str, env: Mapping[str, str] | None = None) -> Remote:
    """The memory remote from a setting (enf.remote) that may be a remote name or a URL.

    A configured remote name wins, as in git. A name that is not a remote fails closed:
    git would take it for a path and we would push memory somewhere nobody meant.
    """
    if not configured.strip():
        raise EnfError("the memory remote setting is empty", hint="git config enf.remote origin")
    if remote_exists(repo_dir, configured, env):
        return Remote(configured, is_url=False)
    if looks_like_url(configured):
        return Remote(configured, is_url=True)
    raise EnfError(f"'{configured}' is not a remote of this repository, so memory was not synced",
                   hint="git remote -v  (then: git config enf.remote <name or URL>)")


# --- presence --------------------------------------------------------------------------

def remote_branch(repo_dir: str, remote: Remote, ref: str = paths.REF, env: Mapping[str, str] | None = None,
                  timeout: float = LS_REMOTE_TIMEOUT) -> Presence:
    """Whether `remote` has `ref`: PRESENT (with its OID), ABSENT, or UNKNOWN (with why)."""
    run = _run(repo_dir, ["ls-remote", "--exit-code", remote.arg, ref], _env(repo_dir, env), timeout)
    if run.code == 2 and not run.timed_out:
        return Presence(State.ABSENT, message=f"{remote.label} has no {_short(ref)} yet")
    if run.code != 0:
        outcome = _classify(run)
        return Presence(State.UNKNOWN, reason=outcome, message=_message(outcome, remote, "read", run))
    for line in run.out.splitlines():  # ls-remote matches patterns by their tail: keep the exact ref
        oid, _, name = line.partition("\t")
        if name == ref:
            return Presence(State.PRESENT, oid=oid)
    return Presence(State.ABSENT, message=f"{remote.label} has no {_short(ref)} yet")


def remote_has_code_branches(repo_dir: str, remote: Remote, env: Mapping[str, str] | None = None,
                             timeout: float = LS_REMOTE_TIMEOUT) -> Presence:
    """Whether the remote has any branch besides claude-memory (PRESENT, with their names).

    ABSENT means an empty repository (or one holding only memory): a first push of
    claude-memory there would become its default branch, so the caller must not create it.
    """
    run = _run(repo_dir, ["ls-remote", "--heads", remote.arg], _env(repo_dir, env), timeout)
    if run.code != 0:
        outcome = _classify(run)
        return Presence(State.UNKNOWN, reason=outcome, message=_message(outcome, remote, "read", run))
    names = tuple(n for line in run.out.splitlines() if (n := line.partition("\t")[2]) and n != paths.REF)
    if names:
        return Presence(State.PRESENT, names=names)
    return Presence(State.ABSENT, message=f"{remote.label} has none of the code's branches yet: "
                    "push your code first, then run git enf sync")


# --- fetch -----------------------------------------------------------------------------

def fetch(repo_dir: str, remote: Remote, branch: str = paths.BRANCH, env: Mapping[str, str] | None = None,
          progress: IO[str] | None = None, timeout: float = FETCH_TIMEOUT) -> FetchResult:
    """The remote's branch into its remote-tracking ref, never into the local branch.

    The refspec is given on the command line only (a configured one for a branch the
    remote lacks would break the user's every `git fetch`); `--refmap=` stops git from
    also updating the configured tracking refs, so exactly one ref moves. No tags, no
    pruning, no submodules, no FETCH_HEAD (a user's pending `git merge FETCH_HEAD` stays
    theirs), no auto-gc (a gc during our pygit2 writes is unsafe, design §7). In a
    partial clone, what the branch still lacks is fetched by id (fetch_missing).
    `progress`: a stream to copy git's progress to (pass sys.stderr when it is a tty).
    """
    return Fetching(repo_dir, remote, branch, env, progress, timeout).result()


class Fetching:
    """A fetch (see `fetch`) started at construction and waited for by `result()`.

    Starting it needs only the standard library (the tracking ref is read from the ref
    files), so `git enf sync` starts git before it imports pygit2 and the rest, and the
    ~100 ms of imports run while git transfers (`start_early`).
    """

    def __init__(self, repo_dir: str, remote: Remote, branch: str = paths.BRANCH,
                 env: Mapping[str, str] | None = None, progress: IO[str] | None = None,
                 timeout: float = FETCH_TIMEOUT) -> None:
        self.repo_dir, self.remote, self.branch, self.progress, self.timeout = repo_dir, remote, branch, progress, timeout
        self.env = _env(repo_dir, env)
        self.ref = tracking_ref(paths.URL_REMOTE_NAME if remote.is_url else remote.arg, branch)
        self.before = _ref_now(repo_dir, self.ref)
        # _version_flags has --no-filter: in a partial clone memory comes whole (see fetch_missing)
        self.args = ["fetch", "--no-tags", "--no-prune", "--no-recurse-submodules", "--refmap=", *_version_flags(),
                     "--progress" if progress is not None else "--quiet", remote.arg, f"+refs/heads/{branch}:{self.ref}"]
        self.started = _Started(repo_dir, self.args, self.env, progress)
        self.done: FetchResult | None = None

    def kill(self) -> None:
        self.started.kill()

    def result(self) -> FetchResult:
        """What the fetch did (waited for once; the same answer to every later call: the
        light sync may look at it before handing the sync to the full path)."""
        if self.done is None:
            self.done = self._result()
        return self.done

    def _result(self) -> FetchResult:
        run = self.started.finish(self.timeout)
        repo_dir, remote, ref, before = self.repo_dir, self.remote, self.ref, self.before
        if run.code != 0 and _clear_dead_lock(run.err, ref):  # a fetch killed mid-update left it: once more
            run = _run(repo_dir, self.args, self.env, self.timeout, self.progress)
        # Read from the ref files until pygit2 is loaded anyway (the light sync never loads it)
        after = _ref_commit(_open(repo_dir), ref) if "pygit2" in sys.modules else _ref_now(repo_dir, ref)
        if run.code == 0:
            filled = fetch_missing(repo_dir, remote, [ref, f"refs/heads/{self.branch}"], self.env, self.progress,
                                   self.timeout)
            if not filled.ok:
                return FetchResult(filled.outcome, ref, before, after, filled.message, filled.stderr)
            note_seen(repo_dir, remote, after, after, env=self.env)
            outcome = Outcome.UP_TO_DATE if after == before else Outcome.OK
            text = (f"{remote.label}: {self.branch} is unchanged" if outcome is Outcome.UP_TO_DATE
                    else f"fetched {self.branch} from {remote.label} into {ref}")
            return FetchResult(outcome, ref, before, after, text, run.err)
        if "couldn't find remote ref" in run.err and not run.timed_out:
            note_seen(repo_dir, remote, None, after, env=self.env)
            return FetchResult(Outcome.ABSENT, ref, before, after, f"{remote.label} has no {self.branch} yet", run.err)
        lock = _lock_named(run.err, ref)
        if lock is not None:
            return FetchResult(Outcome.UNKNOWN, ref, before, after, f"{lock} exists: another git command is updating "
                               f"{ref}, or one was killed; memory stays committed locally; if no git command is "
                               f"running, rm {lock}, then git enf sync", run.err)
        outcome = _classify(run)
        return FetchResult(outcome, ref, before, after, _message(outcome, remote, "fetch", run), _redact_url(run.err))


def _ref_now(repo_dir: str, ref: str) -> str | None:
    """A ref's OID read from the ref files (stdlib); pygit2 where the layout is unusual."""
    from . import gitdirs

    dirs = gitdirs.find(repo_dir)
    if dirs is None or os.path.realpath(dirs[0]) != os.path.realpath(repo_dir):
        return _ref_commit(_open(repo_dir), ref)
    return gitdirs.read_ref(dirs[2], ref)


# --- a fetch started before the imports (git enf sync) ------------------------------------

_early: list[tuple[str, str, Fetching]] = []  # (work tree, configured remote, the fetch): at most one


def start_early(repo_dir: str, progress: IO[str] | None) -> None:
    """Start the fetch a plain `git enf sync` in `repo_dir` will make, if that is certain
    from git's config alone (enf.remote set, claude-memory here); else start nothing.
    `claim_early` hands it to the sync; anything else ends it (`abandon_early`)."""
    from . import gitdirs

    dirs = gitdirs.find(repo_dir)
    if dirs is None or gitdirs.read_ref(dirs[2], paths.REF) is None:
        return
    env = prepare(dirs[0])
    configured = (env.memory_remote or "").strip()
    if not configured:
        return
    try:
        remote = resolve_remote(dirs[0], configured, env)
    except EnfError:
        return  # the sync says so, with its own message
    _early.append((dirs[0], configured, Fetching(dirs[0], remote, env=env, progress=progress)))


def peek_early(repo_dir: str) -> Fetching | None:
    """The early fetch of a sync of `repo_dir`, left in place for `claim_early`."""
    if not _early or os.path.realpath(_early[-1][0]) != os.path.realpath(repo_dir):
        return None
    return _early[-1][2]


def claim_early(repo_dir: str, configured: str) -> Fetching | None:
    """The early fetch, when it is the one a sync of `repo_dir` with `configured` makes."""
    if not _early:
        return None
    top, wanted, started = _early.pop()
    if os.path.realpath(top) == os.path.realpath(repo_dir) and wanted == configured.strip():
        return started
    started.kill()
    return None


def abandon_early() -> None:
    """End an early fetch nobody claimed (the command failed before it got there)."""
    while _early:
        _early.pop()[2].kill()


STALE_LOCK = 10.0  # seconds: git holds a ref's lock for milliseconds; older means its holder died


def _lock_named(err: str, ref: str) -> str | None:
    """The lock file of `ref` that git's error says exists, if it says so."""
    head = "Unable to create '"
    start = err.find(head)
    end = err.find("': File exists", start)
    if start < 0 or end < 0:
        return None
    lock = err[start + len(head):end]
    return lock if lock.replace(os.sep, "/").endswith(f"/{ref}.lock") else None


def _clear_dead_lock(err: str, ref: str) -> bool:
    """Remove `ref`'s lock file when git's error names it and it is older than STALE_LOCK
    (only that ref's: the tracking ref is ours to write); whether it was removed."""
    lock = _lock_named(err, ref)
    if lock is None:
        return False
    try:
        if time.time() - os.stat(lock).st_mtime < STALE_LOCK:
            return False
        os.unlink(lock)
    except OSError:
        return False
    return True


def _version_flags() -> list[str]:
    version = git_version()
    flags = ["--no-filter"] if version >= (2, 19) else []  # partial clones came with 2.19
    flags += ["--no-write-fetch-head"] if version >= (2, 29) else []
    return flags + (["--no-auto-maintenance"] if version >= (2, 29) else ["--no-auto-gc"])


# --- clones that hold less: partial (--filter), single-branch, shallow ------------------
#
# A partial clone leaves blobs on the server and git fetches each on demand; pygit2
# cannot, so a merge or a materialize would meet a missing blob. Memory is fetched
# without the filter (--no-filter) and what is still missing (what the user's own
# filtered `git fetch` brought) is asked for by id. A single-branch or shallow clone
# fetches only its branch: `fetch` names claude-memory explicitly, and `track` adds a
# refspec so that the user's `git fetch` and `git pull` bring memory too.

WANTS_PER_FETCH = 1000  # object ids per `git fetch` command line (~41 KB, far below ARG_MAX)
MISSING_ROUNDS = 3  # a missing tree hides what lies under it until it arrives (--filter=tree:0)
_FALSE_WORDS = ("", "false", "no", "off", "0")


def is_partial_clone(repo_dir: str, env: Mapping[str, str] | None = None) -> bool:
    """Whether some remote of this repository is a promisor (a `--filter` clone or fetch)."""
    if isinstance(env, GitEnv):
        return env.partial  # read by `prepare` with the rest: no second `git config`
    keys = r"^(remote\..*\.promisor|extensions\.partialclone)$"
    run = _run(repo_dir, ["config", "--get-regexp", keys], env_for_git(os.environ if env is None else env),
               LOCAL_TIMEOUT)
    return any(line.partition(" ")[2].strip().lower() not in _FALSE_WORDS for line in run.out.splitlines())


def missing_objects(repo_dir: str, refs: list[str], env: Mapping[str, str] | None = None) -> list[str] | None:
    """Ids of objects reachable from `refs` (those that exist) that this repository lacks;
    None when git could not tell."""
    full_env = env_for_git(os.environ if env is None else env)
    present = [ref for ref in refs if _rev(repo_dir, ref, full_env) is not None]
    if not present:
        return []
    run = _run(repo_dir, ["rev-list", "--objects", "--missing=print", *present], full_env, FETCH_TIMEOUT)
    if run.code != 0:
        return None
    return [line[1:].strip() for line in run.out.splitlines() if line.startswith("?")]


def fetch_missing(repo_dir: str, remote: Remote, refs: list[str], env: Mapping[str, str] | None = None,
                  progress: IO[str] | None = None, timeout: float = FETCH_TIMEOUT) -> FetchResult:
    """Every object reachable from `refs` onto this disk, fetched by id and unfiltered.

    Only a partial clone can lack them; elsewhere this costs one `git config`. OK when
    something was fetched, UP_TO_DATE when nothing was missing, else why it failed.
    """
    ref = refs[0] if refs else remote.tracking_ref
    if not is_partial_clone(repo_dir, env):
        return FetchResult(Outcome.UP_TO_DATE, ref, None, None, "nothing of memory is missing here")
    full_env = _env(repo_dir, env)
    fetched = False
    for _ in range(MISSING_ROUNDS):
        wanted = missing_objects(repo_dir, refs, full_env)
        if wanted is None:
            return FetchResult(Outcome.UNKNOWN, ref, None, None, f"could not list what {paths.BRANCH} lacks "
                               "in this partial clone; run git fsck, then git enf sync again")
        if not wanted:
            outcome = Outcome.OK if fetched else Outcome.UP_TO_DATE
            return FetchResult(outcome, ref, None, None, f"{paths.BRANCH} is complete in this partial clone")
        for start in range(0, len(wanted), WANTS_PER_FETCH):
            run = _fetch_ids(repo_dir, remote, wanted[start:start + WANTS_PER_FETCH], full_env, progress, timeout)
            if run.code != 0:
                outcome = _classify(run)
                return FetchResult(outcome, ref, None, None, _message(outcome, remote, "fetch", run),
                                   _redact_url(run.err))
        fetched = True
    left = missing_objects(repo_dir, refs, full_env)
    return FetchResult(Outcome.UNKNOWN, ref, None, None,
                       f"{len(left or [])} objects of {paths.BRANCH} are still missing after fetching them from "
                       f"{remote.label}; memory stays committed locally; run git enf doctor")


def _fetch_ids(repo_dir: str, remote: Remote, oids: list[str], env: Mapping[str, str],
               progress: IO[str] | None, timeout: float) -> _Run:
    """What git's own lazy fetch does (promisor-remote.c), without its filter: no
    negotiation (the server must not skip what it believes we have), no refs written."""
    args = ["-c", "fetch.negotiationAlgorithm=noop", "fetch", "--no-tags", "--no-recurse-submodules", "--refmap=",
            *_version_flags()]
    args += ["--progress"] if progress is not None else ["--quiet"]
    return _run(repo_dir, [*args, remote.arg, *oids], env, timeout, progress)


def memory_refspec(remote_name: str, branch: str = paths.BRANCH) -> str:
    """A glob, not the exact name: a configured exact refspec the remote lacks breaks every
    `git fetch` ("couldn't find remote ref"); a glob that matches nothing is fine."""
    return f"+refs/heads/{branch}*:{tracking_ref(remote_name, branch)}*"


def tracks(repo_dir: str, remote_name: str, branch: str = paths.BRANCH,
           env: Mapping[str, str] | None = None) -> bool:
    """Whether a plain `git fetch remote_name` updates the branch's remote-tracking ref."""
    key = f"remote.{remote_name}.fetch"
    run = _run(repo_dir, ["config", "--get-all", key], env_for_git(os.environ if env is None else env), LOCAL_TIMEOUT)
    return any(_refspec_covers(spec, f"refs/heads/{branch}") for spec in run.out.splitlines())


def _refspec_covers(spec: str, ref: str) -> bool:
    source = spec.strip().removeprefix("+").partition(":")[0]
    if source.startswith("^") or not source:
        return False  # a negative refspec excludes; it never fetches
    head, star, tail = source.partition("*")
    if not star:
        return ref == source
    return ref.startswith(head) and ref.endswith(tail) and len(ref) >= len(head) + len(tail)


def track(repo_dir: str, remote_name: str, branch: str = paths.BRANCH, env: Mapping[str, str] | None = None) -> str:
    """Add `memory_refspec` to the remote's fetch refspecs; returns the refspec added."""
    spec = memory_refspec(remote_name, branch)
    run = _run(repo_dir, ["config", "--add", f"remote.{remote_name}.fetch", spec],
               env_for_git(os.environ if env is None else env), LOCAL_TIMEOUT)
    if run.code != 0:
        raise EnfError(f"could not add {spec} to remote.{remote_name}.fetch: {run.err.strip()}",
                       hint=f"git config --add remote.{remote_name}.fetch '{spec}'")
    return spec


def untrack(repo_dir: str, remote_name: str, branch: str = paths.BRANCH,
            env: Mapping[str, str] | None = None) -> bool:
    """Remove what `track` added (and only that); whether there was something to remove."""
    spec = memory_refspec(remote_name, branch)
    pattern = "^" + "".join("\\" + c if c in ".*+?[]^$(){}|\\" else c for c in spec) + "$"
    run = _run(repo_dir, ["config", "--unset-all", f"remote.{remote_name}.fetch", pattern],
               env_for_git(os.environ if env is None else env), LOCAL_TIMEOUT)
    return run.code == 0


def unset_local(repo_dir: str, key: str, value: str, env: Mapping[str, str] | None = None) -> bool:
    """Unset `key` in the repository's own config if it still holds exactly `value`."""
    pattern = "^" + "".join("\\" + c if c in ".*+?[]^$(){}|\\" else c for c in value) + "$"
    plain = env_for_git(os.environ if env is None else env)
    run = _run(repo_dir, ["config", "--local", "--unset", key, pattern], plain, LOCAL_TIMEOUT)
    if run.code != 0:
        return False
    # git leaves the emptied `[section]` header behind: take it too once nothing is in it.
    section = key.rpartition(".")[0]
    left = _run(repo_dir, ["config", "--local", "--get-regexp", "^" + section.replace(".", "\\.") + "\\."],
                plain, LOCAL_TIMEOUT)
    if left.code == 1 and not left.out.strip():
        _run(repo_dir, ["config", "--local", "--remove-section", section], plain, LOCAL_TIMEOUT)
    return True


# --- which remote the tracking ref speaks for --------------------------------------------
#
# refs/remotes/<name>/claude-memory says what the remote had when we last looked, but not
# where "the remote" was then: after `git remote set-url`, or a new enf.remote URL, it still
# holds the old server's state, and "memory is already there" would be read from it. So
# every fetch and push of ours notes, in .git/enf/remotes/<tracking name>, the push URL it
# talked to (what git hands the pre-push hook as $2, `git remote get-url --push`), what
# the remote had there, and where the tracking ref pointed. The pre-push shim takes its
# "nothing to push" exit only when that URL is the one being pushed to; status reports
# ahead/behind only when it is the remote's URL now.

class Seen(NamedTuple):
    remote: str | None  # what the remote had (None: no claude-memory there)
    tracking: str | None  # the tracking ref then
    url: str  # the push URL we talked to


def push_url(repo_dir: str, remote: Remote, env: Mapping[str, str] | None = None) -> str:
    """Where a push to `remote` goes: the URL itself, or what `git remote get-url --push`
    prints (pushurl, insteadOf and pushInsteadOf applied, as git does for the pre-push hook)."""
    if remote.is_url:
        return remote.arg
    return prepare(repo_dir, env).push_urls.get(remote.arg, "")  # read with the rest: no process of its own


def _seen_file(repo_dir: str, remote: Remote, env: Mapping[str, str] | None) -> str | None:
    from . import gitdirs

    dirs = gitdirs.find(repo_dir)
    if dirs is not None:
        common = dirs[2]
    else:
        run = _run(repo_dir, ["rev-parse", "--git-common-dir"], env_for_git(os.environ if env is None else env),
                   LOCAL_TIMEOUT)
        if run.code != 0 or not run.out.strip():
            return None
        common = os.path.join(repo_dir, run.out.strip())
    name = paths.URL_REMOTE_NAME if remote.is_url else remote.arg
    return os.path.join(paths.state_dir(common), paths.SEEN_DIR, name)


def without_credentials(url: str) -> str:
    """`url` without its user-info (`https://user:token@host/…` → `https://host/…`): what the
    record keeps, since a token in .git/enf would outlive its use. The pre-push shim strips
    `$2` the same way (shell parameter expansion) before it compares the two."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url  # scp-like `user@host:path` carries no password
    authority, slash, path = rest.partition("/")
    if "@" not in authority:
        return url
    return f"{scheme}://{authority.rpartition('@')[2]}{slash}{path}"


def note_seen(repo_dir: str, remote: Remote, there: str | None, tracking: str | None, url: str | None = None,
              env: Mapping[str, str] | None = None) -> None:
    """Record what we just saw at `remote` (see above), the URL without credentials. Best
    effort: without the record the next push only takes the longer way (our part runs,
    and writes it)."""
    where = without_credentials(url if url is not None else push_url(repo_dir, remote, env))
    path = _seen_file(repo_dir, remote, env)
    if not where or "\n" in where or path is None:
        return
    line = f"{there or 'absent'} {tracking or '-'} {where}\n"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(line)
        os.replace(tmp, path)
    except OSError:
        pass


def seen(repo_dir: str, remote: Remote, env: Mapping[str, str] | None = None) -> Seen | None:
    """What note_seen recorded for `remote` (None: nothing yet, from an older enf-git or only
    git's own fetches)."""
    path = _seen_file(repo_dir, remote, env)
    try:
        with open(path or "", encoding="utf-8") as f:
            there, tracking, url = f.readline().rstrip("\n").split(" ", 2)
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return Seen(None if there == "absent" else there, None if tracking == "-" else tracking, url)


# --- push ------------------------------------------------------------------------------

def push(repo_dir: str, remote: Remote, oid_or_ref: str, expect: str | None = None, no_verify: bool = False,
         env: Mapping[str, str] | None = None, progress: IO[str] | None = None,
         timeout: float = PUSH_TIMEOUT, url: str | None = None,
         meanwhile: Callable[[], object] | None = None) -> PushResult:
    """Push `oid_or_ref` to the remote's claude-memory, never forced.

    `expect`: what we last saw there. "" = absent: the push only creates the branch and
    is refused if it appeared meanwhile. An OID: the push goes only if the remote still
    has it, and only if ours descends from it (checked here first), so the lease is a
    compare-and-swap of a fast-forward, never an overwrite. None: a plain push, which
    the remote refuses unless it is a fast-forward.
    `no_verify`: skip the user's pre-push hook (set when called from inside it).
    `url`: the remote's push URL when the caller knows it (the pre-push hook's $2).
    The user's hook runs otherwise; our own part of it never does (HOOK_GUARD): it
    would sync underneath this push and move the remote's ref before this one lands.
    `meanwhile`: called once git is running (the sync's working-copy refresh), so that
    this process works while git transfers; called also when no push starts.
    """
    git_env = _env(repo_dir, env)
    full_env = {**git_env, HOOK_GUARD: "1"}
    if expect:
        ancestor = _descends(repo_dir, oid_or_ref, expect, full_env)
        if ancestor is not True and meanwhile is not None:
            meanwhile()
        if ancestor is False:
            return PushResult(Outcome.NON_FAST_FORWARD,
                              _message(Outcome.NON_FAST_FORWARD, remote, "push", _Run(1, "", "")))
        if ancestor is None:
            return PushResult(Outcome.UNKNOWN, f"could not compare {oid_or_ref} with {expect}: one of them is "
                              "not in this repository; run git enf sync again")
    args = ["push", "--porcelain", "--no-follow-tags", "--recurse-submodules=no"]
    args += ["--no-verify"] if no_verify else []
    args += [f"--force-with-lease={paths.REF}:{expect}"] if expect is not None else []
    args += ["--progress"] if progress is not None else []
    started = _Started(repo_dir, [*args, remote.arg, f"{oid_or_ref}:{paths.REF}"], full_env, progress)
    if meanwhile is not None:
        try:
            meanwhile()
        except BaseException:
            started.kill()  # a job that fails stops the push too: nothing goes on unseen
            raise
    result = _push_result(started.finish(timeout), remote)
    if result.outcome in (Outcome.OK, Outcome.UP_TO_DATE):
        _note_pushed(repo_dir, remote, oid_or_ref, full_env)
        note_seen(repo_dir, remote, oid_or_ref, oid_or_ref, url, git_env)
    return result


def _note_pushed(repo_dir: str, remote: Remote, pushed: str, env: Mapping[str, str]) -> None:
    """Set the remote-tracking ref to what the remote now has. git does so itself only for
    a named remote whose fetch refspec covers the branch (read back here, no process),
    never for a URL; status, the hook's "nothing to push" check and the next lease read it."""
    from . import gitdirs

    dirs = gitdirs.find(repo_dir)
    if dirs is not None and gitdirs.read_ref(dirs[2], remote.tracking_ref) == pushed:
        return
    _run(repo_dir, ["update-ref", "-m", "enf: pushed", remote.tracking_ref, pushed], env, LOCAL_TIMEOUT)


def _push_result(run: _Run, remote: Remote) -> PushResult:
    status = next((line for line in run.out.splitlines() if line.count("\t") >= 2), "")
    flag, summary = (status[:1], status.split("\t", 2)[2]) if status else ("", "")
    err = _redact_url(run.err)
    if run.code == 0 and flag == "=":
        return PushResult(Outcome.UP_TO_DATE, f"{remote.label} already has this memory", summary, err)
    if run.code == 0 and flag in (" ", "*", "+"):
        return PushResult(Outcome.OK, f"pushed {paths.BRANCH} to {remote.label}", summary, err)
    if flag == "!":
        outcome = _classify_rejection(summary)
    else:
        outcome = _classify(run)
    return PushResult(outcome, _message(outcome, remote, "push", run, summary), summary, err)


_LOST_RACE_WORDS = ("failed to update ref", "failed to lock", "cannot lock ref", "incorrect old value")


def _classify_rejection(summary: str) -> Outcome:
    text = summary.lower()
    behind = ("non-fast-forward", "fetch first", "stale info", "already exists")
    if "[rejected]" in text and any(w in text for w in behind):
        return Outcome.NON_FAST_FORWARD
    # receive-pack lost the ref's lock, or found it moved, after the pack went over: a
    # teammate's push landed in between (measured with three clones through git daemon).
    # Another round fetches their memory; a server that always says so ends after MAX_ROUNDS.
    if "[remote rejected]" in text and any(w in text for w in _LOST_RACE_WORDS):
        return Outcome.NON_FAST_FORWARD
    if "[remote rejected]" in text and any(w in text for w in _RIGHTS_WORDS + ("hook declined", "denied")):
        return Outcome.NO_RIGHTS
    return Outcome.UNKNOWN


# --- dry run ---------------------------------------------------------------------------

def plan(repo_dir: str, remote: Remote, env: Mapping[str, str] | None = None,
         timeout: float = LS_REMOTE_TIMEOUT) -> Plan:
    """What fetch and push would move, from ls-remote and local refs; writes nothing."""
    full_env = _env(repo_dir, env)
    there = remote_branch(repo_dir, remote, env=env, timeout=timeout)
    local, tracking = _rev(repo_dir, paths.REF, full_env), _rev(repo_dir, remote.tracking_ref, full_env)
    if there.state is State.UNKNOWN:
        return Plan(there, local, tracking, "unknown", "unknown", None, None)
    if there.state is State.ABSENT:
        ahead = _count(repo_dir, None, local, full_env)
        return Plan(there, local, tracking, "nothing", "create" if local else "nothing", ahead, 0)
    assert there.oid is not None
    fetch_move = "nothing" if there.oid == tracking else ("new" if tracking is None else "update")
    known = _rev(repo_dir, there.oid, full_env) is not None  # do we have the remote's commit?
    if local is None:
        behind = _count(repo_dir, None, there.oid, full_env) if known else None
        return Plan(there, local, tracking, fetch_move, "nothing", 0, behind)
    if not known:
        return Plan(there, local, tracking, fetch_move, "fetch first", None, None)
    ahead, behind = _count(repo_dir, there.oid, local, full_env), _count(repo_dir, local, there.oid, full_env)
    push_move = "nothing" if not ahead else ("fast-forward" if not behind else "merge first")
    return Plan(there, local, tracking, fetch_move, push_move, ahead, behind)


def _count(repo_dir: str, base: str | None, tip: str | None, env: Mapping[str, str]) -> int | None:
    if tip is None:
        return 0
    run = _run(repo_dir, ["rev-list", "--count", tip, *([f"^{base}"] if base else [])], env, LOCAL_TIMEOUT)
    return int(run.out.strip()) if run.code == 0 and run.out.strip().isdigit() else None


# --- classifying failures --------------------------------------------------------------

_RIGHTS_WORDS = ("returned error: 403", "returned error: 401", "permission denied", "protected branch",
                 "authentication failed", "could not read username", "could not read password",
                 "terminal prompts disabled", "host key verification failed", "not authorized",
                 "access denied", "pre-receive hook declined", "you are not allowed", "forbidden")
_NOT_FOUND_WORDS = ("does not appear to be a git repository", "repository not found", "returned error: 404",
                    "could not be found", "no such repository", "not exported")
_OFFLINE_WORDS = ("could not resolve host", "could not resolve hostname", "connection refused",
                  "connection timed out", "network is unreachable", "no route to host", "unable to connect",
                  "failed to connect", "operation timed out", "connection reset", "unable to look up",
                  "temporary failure in name resolution", "name or service not known",
                  "the remote end hung up unexpectedly",
                  "couldn't connect", "from proxy", "ssl_connect", "gnutls_handshake")


def _classify(run: _Run) -> Outcome:
    if run.timed_out:
        return Outcome.OFFLINE
    text = run.err.lower()
    # An access refusal is often worded as "repository not found" (GitHub, git daemon), so
    # credentials are looked at first, then absence, then the network.
    for outcome, words in ((Outcome.NO_RIGHTS, _RIGHTS_WORDS), (Outcome.NOT_FOUND, _NOT_FOUND_WORDS),
                           (Outcome.OFFLINE, _OFFLINE_WORDS)):
        if any(w in text for w in words):
            return outcome
    return Outcome.UNKNOWN


def _message(outcome: Outcome, remote: Remote, verb: str, run: _Run, summary: str = "") -> str:
    name, branch = remote.label, paths.BRANCH
    kept = "memory stays committed locally; "
    if outcome is Outcome.NON_FAST_FORWARD:
        return (f"{name} has memory you do not have yet ({summary or 'not a fast-forward'}): "
                f"{kept}run git enf sync again")
    if outcome is Outcome.NO_RIGHTS:
        if "terminal prompts disabled" in run.err or "could not read username" in run.err.lower():
            return (f"{name} asked for credentials and enf-git never prompts: {kept}set up a credential "
                    f"helper or an ssh key (try git fetch {remote.arg} by hand once), then run git enf sync")
        if "host key verification failed" in run.err.lower():
            return (f"ssh does not know {name}'s host key yet: {kept}connect once by hand "
                    f"(git fetch {remote.arg}) to accept it, then run git enf sync")
        what = "push to" if verb == "push" else "read"
        said = _server_said(run.err)
        why = _first_line(summary or run.err) + (f"; the server said: {said}" if said else "")
        return (f"you may not {what} {branch} on {name} ({why}): {kept}"
                "ask for access, or set enf.remote to a remote you can push to")
    if outcome is Outcome.NOT_FOUND:
        return (f"{name} was not found, or you may not read it ({_first_line(run.err)}): {kept}"
                "check the URL with git remote -v, or set enf.remote")
    if outcome is Outcome.OFFLINE:
        why = "timed out" if run.timed_out else f"could not be reached (offline?): {_first_line(run.err)}"
        return f"{name} {why}; {kept}it goes with the next sync"
    return f"git {verb} {name} failed: {_first_line(summary or run.err) or 'no message'}; {kept}run git enf doctor"


def _server_said(text: str, most: int = 2) -> str:
    """What the server's own hook or policy printed (git's `remote: ` lines): why it said no."""
    said = [line.strip()[len("remote:"):].strip() for line in text.splitlines() if line.strip().startswith("remote:")]
    said = [line[:200] for line in said if line]
    return _redact_url(" / ".join(said[:most]))


def _first_line(text: str) -> str:
    """The most telling line of git's stderr: the first fatal/error one, else the first."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in lines:
        if line.startswith(("fatal:", "error:", "remote: error", "! ")):
            return _redact_url(line)
    return _redact_url(lines[0]) if lines else ""


def _short(ref: str) -> str:
    return ref.removeprefix("refs/heads/")


def masked(text: str) -> str:
    """`text` with every URL's user-info (user:token@) masked, for messages."""
    return _redact_url(text)


def _redact_url(text: str) -> str:
    """Drop the user-info (user:token@) from every URL in `text`: messages must not leak it."""
    out, start = [], 0
    while (i := text.find("://", start)) >= 0:
        end = i + 3
        stop = end
        while stop < len(text) and text[stop] not in " \t\n'\"/":
            stop += 1
        at = text.rfind("@", end, stop)
        out.append(text[start:end])
        start = at + 1 if at >= 0 else end
        if at >= 0:
            out.append("***@")
    out.append(text[start:])
    return "".join(out)
