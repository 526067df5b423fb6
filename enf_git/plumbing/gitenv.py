"""The environment every git process of ours gets, and what one `git config` tells first.

A call from inside a git hook inherits the repository-locating variables (GIT_DIR,
GIT_WORK_TREE, GIT_INDEX_FILE, ...): they are removed so the call targets the repository
we name; the user's transport settings (GIT_SSH_COMMAND, askpass, proxies, `git -c`)
are kept; ssh runs in batch mode when the ssh command is ours to choose. `prepare`
reads the ssh command, the remotes and their push URLs with one `git config`.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # the pre-push hook builds its push's environment here before git starts:
if TYPE_CHECKING:  # typing, collections, subprocess and gitrun are imported only when used
    from collections.abc import Mapping

    from .gitrun import _Run

_FALSE_WORDS = ("", "false", "no", "off", "0")  # git's false spellings

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


_LOCAL_ENV_VARS: list[tuple[str, ...]] = []  # local_env_vars' answer, once per process


def local_env_vars() -> tuple[str, ...]:
    """git's own list of the variables that locate a repository (cached per process)."""
    if _LOCAL_ENV_VARS:
        return _LOCAL_ENV_VARS[0]
    import subprocess

    from .gitrun import LOCAL_TIMEOUT

    try:
        proc = subprocess.run(["git", "rev-parse", "--local-env-vars"], capture_output=True,
                              stdin=subprocess.DEVNULL, timeout=LOCAL_TIMEOUT, cwd=os.path.sep)
        names = tuple(proc.stdout.decode("ascii", "replace").split())
    except (OSError, subprocess.SubprocessError):
        names = ()
    _LOCAL_ENV_VARS.append(tuple(sorted(set(names) | set(LOCAL_ENV_FALLBACK))))
    return _LOCAL_ENV_VARS[0]


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
    from .gitrun import LOCAL_TIMEOUT, _run

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

def run_local(repo_dir: str, args: list[str], env: Mapping[str, str], timeout: float) -> _Run:
    """`git args` in repo_dir for a read of the user's own repository (the handoff's status
    and log): `env` made safe by env_for_git, no prompt, killed with its children at `timeout`."""
    from .gitrun import _run

    return _run(repo_dir, args, env_for_git(env), timeout)

