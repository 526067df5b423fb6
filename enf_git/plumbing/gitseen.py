"""Which remote the tracking ref speaks for: the push URL each fetch and push of ours
talked to, noted in .git/enf/remotes/, so a changed URL is never read as "memory is
already there" (see the comment below)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import NamedTuple

from enf_git import paths

from .gitenv import env_for_git, prepare
from .gitresults import Remote
from .gitrun import LOCAL_TIMEOUT, _run

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
