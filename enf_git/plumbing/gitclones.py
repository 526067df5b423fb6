"""Clones that hold less than all of memory: partial (`--filter`), single-branch, shallow:
memory fetched without the filter and missing objects asked for by id, and the fetch
refspec that makes a single-branch clone's own `git fetch` bring memory (see below)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import IO

from enf_git import paths
from enf_git.errors import EnfError

from .gitenv import _FALSE_WORDS, GitEnv, _env, env_for_git
from .gitresults import FetchResult, Outcome, Remote, _classify, _message, _redact_url, tracking_ref
from .gitrun import FETCH_TIMEOUT, LOCAL_TIMEOUT, _rev, _Run, _run, _version_flags

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
