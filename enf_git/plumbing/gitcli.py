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

import os
import sys
import time
from collections.abc import Callable, Mapping
from typing import IO, TYPE_CHECKING

from enf_git import paths
from enf_git.errors import EnfError

from . import gitrun
from .gitclones import fetch_missing
from .gitenv import HOOK_GUARD, _env, env_for_git, prepare
from .gitresults import FetchResult as FetchResult  # the transfer API: these are named gitcli.X
from .gitresults import Outcome as Outcome
from .gitresults import Plan as Plan
from .gitresults import Presence as Presence
from .gitresults import PushResult as PushResult
from .gitresults import Remote as Remote
from .gitresults import State as State
from .gitresults import _classify, _classify_rejection, _message, _redact_url
from .gitresults import masked as masked
from .gitresults import tracking_ref as tracking_ref
from .gitrun import FETCH_TIMEOUT, LOCAL_TIMEOUT, LS_REMOTE_TIMEOUT, PUSH_TIMEOUT, _rev, _Run, _run, _version_flags
from .gitseen import note_seen

if TYPE_CHECKING:  # imported when a fetch or push runs: env_for_git stays stdlib-only
    from . import store


def terminal_progress() -> IO[str] | None:
    """Where a long transfer shows git's progress: stderr when it is a terminal, else nowhere
    (a hook's or a pipe's stderr would fill with carriage returns). For the CLI edge to pass in."""
    return sys.stderr if sys.stderr.isatty() else None



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
        self.started = gitrun._Started(repo_dir, self.args, self.env, progress)
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
    started = gitrun._Started(repo_dir, [*args, remote.arg, f"{oid_or_ref}:{paths.REF}"], full_env, progress)
    if meanwhile is not None:
        try:
            meanwhile()
        except BaseException:
            started.kill()  # a job that fails stops the push too: nothing goes on unseen
            raise
    return push_answer(repo_dir, remote, oid_or_ref, started.finish(timeout), git_env, url)


def push_answer(repo_dir: str, remote: Remote, pushed: str, run: _Run, env: Mapping[str, str],
                url: str | None = None) -> PushResult:
    """What a push of `pushed` to the remote's claude-memory answered (`run`: `push`'s,
    or the one the pre-push hook started itself, githooks.spawn); once the remote has it,
    the remote-tracking ref and the note of what the remote has (gitseen) are set."""
    result = _push_result(run, remote)
    if result.outcome in (Outcome.OK, Outcome.UP_TO_DATE):
        _note_pushed(repo_dir, remote, pushed, {**env, HOOK_GUARD: "1"})
        note_seen(repo_dir, remote, pushed, pushed, url, env)
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


def _short(ref: str) -> str:
    return ref.removeprefix("refs/heads/")
