"""Install and remove the git hooks (pre-push, post-merge, post-checkout, post-rewrite).

Each installed hook is a small POSIX sh shim (`render`), marked with MARKER so that
uninstall removes only ours. It is written where git actually runs hooks (`git
rev-parse --git-path hooks`, which honours core.hooksPath; core.hooksPath itself is
never changed). A hook that was there before is kept as `<name>.enf-chained` and run
first by the shim, with the same arguments and the same stdin, and its exit status is
the hook's; uninstall puts it back. pre-push reads its stdin once, replays it to the
user's hook, and looks in it for a push that names claude-memory itself (then git
carries memory and our part stands aside); our Python part gets /dev/null.

A hooks folder that belongs to the repository (husky's `.husky/`, any tracked folder)
is never written into: a teammate's clone would get our absolute interpreter path.
There the shim goes to `.git/enf/githooks/` and init prints the one line to add to the
team's hook, which does nothing on a machine without enf-git.

The shim's text is also kept in the repository's top-level `git-hooks/` (with a plain
`python3`), where a test checks that it matches `render`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from .. import paths

HOOKS = ("pre-push", "post-merge", "post-checkout", "post-rewrite")
MARKER = "# enf-git hook v1"
CHAINED = ".enf-chained"  # the user's own hook, renamed at install, restored at uninstall
SIDE_DIR = "githooks"  # under .git/enf/: the shims a tracked hooks folder calls
PUSH_TIMEOUT = 60  # seconds our part of pre-push may take (the user's hook is not bounded by us)
MERGE_TIMEOUT = 20  # post-merge, post-checkout, post-rewrite: local only
LAUNCH = ("import sys; sys.path[:] = [p for p in sys.path if p]; "
          "from enf_git.githooks.main import main; main()")
GIT_TIMEOUT = 15.0
PUSH_MODE_KEY = "enf.pushMemory"  # alongside (default) | first | false: githooks.main.PUSH_MODES

_TEMPLATE = r"""#!/bin/sh
{marker}: {hook}
# Installed by `git enf init`, removed by `git enf uninstall` (which restores your own hook).
# Your hook, if there was one, is {hook}{chained} next to this file: it runs first, with the
# same arguments and stdin, and its exit status is this hook's; our part never changes it.
hook={hook}
py={python}
limit={limit}
case $0 in */*) chained="${{0%/*}}/$hook{chained}" ;; *) chained="./$hook{chained}" ;; esac
status=0; known=
if [ $hook = pre-push ]; then
  # Read once and replayed to your hook as it came (`git lfs pre-push` still sees the refs);
  # ours reads it for one thing: whether this push names memory itself.
  input=  # the shell's own `read`: no process started on this path
  while IFS= read -r line || [ -n "$line" ]; do input="$input$line
"; done
  if [ -x "$chained" ]; then printf '%s' "$input" | "$chained" "$@"; status=$?; fi
elif [ -x "$chained" ]; then "$chained" "$@"; status=$?; fi
# ---- our part: fail-open, bounded, silent unless it has something to say ----
[ -n "$ENF_GIT_HOOK_ACTIVE" ] && exit $status
case ${{CI:-}} in ''|false|0) ;; *) [ "$(git config --bool enf.ci 2>/dev/null)" = true ] || exit $status ;; esac
nl='
'
if [ $hook = pre-push ]; then
  [ $status -eq 0 ] || exit $status  # the push is not happening
  # $2 without its user-info (user:token@), as .git/{state}/{seen}/ records it: no credentials kept.
  url=$2
  case $url in *://*@*)
    rest=${{url#*://}}; auth=${{rest%%/*}}
    case $auth in *@*) url="${{url%%://*}}://${{auth##*@}}${{rest#"$auth"}}" ;; esac ;;
  esac
  # `git push --all`, `--mirror`, or naming the branch: git sends memory itself, and a push
  # of ours first would move the remote's ref under it ("failed to update ref").
  case $input in *" {ref} "*) exit $status ;; esac
  # The usual push, to a named remote $1 (a URL is checked below): memory is where it was when
  # it last went to (or came from) there, and "there" is still this URL ($2; the remote's
  # URL changes with `git remote set-url`: .git/{state}/{seen}/$1 names the one we last saw).
  # Loose refs and that file settle it without starting a process; else one git call.
  # (Both loose refs read: they are the refs, a packed copy never overrides a loose one.)
  if [ "$1" != "$2" ]; then
    common=.git; ours=; theirs=
    [ -z "${{GIT_DIR:-}}" ] && [ -d .git ] &&
      {{ read -r ours <.git/{ref} && read -r theirs <".git/refs/remotes/$1/{branch}"; }} 2>/dev/null
    if [ -z "$ours" ] || [ -z "$theirs" ]; then  # packed refs, a worktree, GIT_DIR, a first push
      refs=$(git rev-parse --git-common-dir {ref} "refs/remotes/$1/{branch}" 2>/dev/null) &&
        common=${{refs%%"$nl"*}} && refs=${{refs#*"$nl"}} && ours=${{refs%%"$nl"*}} && theirs=${{refs#*"$nl"}}
    fi
    was=; {{ read -r at tracked was <"$common/{state}/{seen}/$1"; }} 2>/dev/null
    [ -n "$ours" ] && [ "$ours" = "$theirs" ] && [ "$was" = "$url" ] && exit $status
    [ -n "$ours" ] && known=$1  # memory's refs as they stand for remote $1: not read again below
  fi
fi
# One git call for the settings: the memory remote, whether it is a remote's name, how
# pre-push sends memory, and whether ssh is the user's own (for our part's ssh options).
# Keys are printed lower-case (a remote's name as written); the last value wins, as --get.
remote=; mode=; named=; ssh=0
config=$(git config --get-regexp '^(enf\.(remote|pushmemory)|remote\..*\.url|core\.sshcommand)$' 2>/dev/null)
while read -r key value; do
  case $key in enf.remote) remote=$value ;; {mode_lower}) mode=$value ;; core.sshcommand) ssh=1 ;; esac
done <<EOT
$config
EOT
[ -n "$remote" ] || [ "$hook" != pre-push ] || exit $status  # not shared: nothing to push
case "$nl$config$nl" in *"${{nl}}remote.$remote.url "*|*"${{nl}}remote.$remote.url${{nl}}"*) named=1 ;; esac
if [ -n "$named" ]; then
  tracking="refs/remotes/$remote/{branch}"; seen_as=$remote
else
  tracking="refs/remotes/{url_remote}/{branch}"; seen_as={url_remote}
fi
if [ -z "$named" ] || [ "${{known:-}}" != "$remote" ]; then
  ours=$(git rev-parse --git-common-dir -q --verify {ref} 2>/dev/null) || exit $status
  common=${{ours%%"$nl"*}}; ours=${{ours#*"$nl"}}
  theirs=$(git rev-parse -q --verify "$tracking" 2>/dev/null)
fi
case $hook in
pre-push)
  # only the elected remote gets memory, never a fork or a mirror
  if [ -n "$named" ]; then [ "$1" = "$remote" ] || exit $status
  else [ "$1" = "$remote" ] || [ "$2" = "$remote" ] || exit $status; fi
  was=; {{ read -r at tracked was <"$common/{state}/{seen}/$seen_as"; }} 2>/dev/null
  [ "$ours" = "$theirs" ] && [ "$was" = "$url" ] && exit $status  # nothing to push: Python is not started
  case $mode in  # git's spellings, in any case
    [Ff][Aa][Ll][Ss][Ee]|[Oo][Ff][Ff]|[Nn][Oo]|0)  # memory goes with `git enf sync` only: say so, every push
      echo "enf-git: memory not pushed: {mode_key} is $mode, so only git enf sync shares it (git enf sync now; git config --unset {mode_key}: it goes with every push)" >&2
      exit $status ;;
    [Ff][Ii][Rr][Ss][Tt]) mode=first ;;
  esac
  ENF_GIT_PUSH_MODE=$mode; export ENF_GIT_PUSH_MODE
  # The `git push` running us: the first git among our parents (a team's tracked hook, husky's,
  # sits between). Its arguments: git runs pre-push for --dry-run too, which must push nothing.
  # Its pid: when it has finished. Without `ps` (a slim container): $PPID, and no dry-run check.
  # Linux names each parent and its parent in /proc, read by the shell itself: one `tr` for
  # git's arguments instead of a `ps` per parent (ps costs as much as a small push's start).
  gitpid=$PPID; pid=$PPID; n=0; set -f
  if [ -r "/proc/$PPID/stat" ]; then
    while [ $n -lt 4 ] && {{ read -r stat <"/proc/$pid/stat" && read -r exe <"/proc/$pid/comm"; }} 2>/dev/null; do
      case $exe in git)
        gitpid=$pid
        for w in $(tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null); do
          case $w in --) break ;; --dry*) exit $status ;; --*) ;; -*n*) exit $status ;; esac
        done
        break ;;
      esac
      up=${{stat##*) }}; up=${{up#* }}; pid=${{up%% *}}; n=$((n + 1))  # "pid (name) state ppid ..."
    done
  else
    while [ $n -lt 4 ] && line=$(ps -ww -o ppid= -o args= -p "$pid" 2>/dev/null); do
      read -r up exe words <<EOT
$line
EOT
      case ${{exe##*/}} in git|git.exe)
        gitpid=$pid
        for w in $words; do case $w in --) break ;; --dry*) exit $status ;; --*) ;; -*n*) exit $status ;; esac; done
        break ;;
      esac
      pid=$up; n=$((n + 1))
    done
  fi
  set +f
  # what Python needs to push without opening the repository (githooks.main.fast_push)
  [ -n "$named" ] && ENF_GIT_HOOK_PUSH="$remote $ours $theirs $ssh" && export ENF_GIT_HOOK_PUSH ;;
*)
  [ "$hook" = post-checkout ] && [ "$3" != 1 ] && exit $status  # a file checkout
  [ "$hook" = post-rewrite ] && [ "$1" != rebase ] && exit $status  # an amend fetched nothing
  # Another worktree committed since this one's working copy was refreshed: refresh it.
  # Else only fetched memory can be new.
  if [ "$(cat "$(git rev-parse --git-path {state}/{materialized})" 2>/dev/null)" = "$ours" ]; then
    [ -n "$theirs" ] || exit $status
    [ "$ours" = "$theirs" ] && exit $status
    git merge-base --is-ancestor "$theirs" "$ours" 2>/dev/null && exit $status
  fi ;;
esac
ENF_GIT_HOOK_ACTIVE=1; export ENF_GIT_HOOK_ACTIVE
# 1 to 9999 seconds, in plain decimal: sh reads a leading 0 as octal (08 is an error that
# would fail the push) and wraps huge numbers; anything else is the default
case ${{ENF_GIT_HOOK_TIMEOUT:-}} in ''|*[!0-9]*|0*|?????*) ENF_GIT_HOOK_TIMEOUT=$limit ;; esac
export ENF_GIT_HOOK_TIMEOUT
bound=  # Python stops itself at the limit; `timeout` is the backstop if it cannot
command -v timeout >/dev/null 2>&1 && bound="timeout -k 5 $((ENF_GIT_HOOK_TIMEOUT + 10))"
if [ $hook = pre-push ] && [ "$mode" != first ]; then
  # Alongside (the default): git sends the code now while memory goes over a connection of
  # its own, so the push waits for neither. A failure is still said here; on a terminal a
  # success only while git is still running, never over the shell's next prompt.
  ENF_GIT_PUSH_PID=$gitpid; export ENF_GIT_PUSH_PID
  {{ $bound "$py" {launch} "$hook" "$@" </dev/null >&2 ||
    echo "enf-git: the $hook step for memory failed (exit $?, $py); your git command is not affected" >&2; }} &
  exit $status
fi
$bound "$py" {launch} "$hook" "$@" </dev/null >&2 ||
  echo "enf-git: the $hook step for memory failed (exit $?, $py); your git command is not affected" >&2
exit $status
"""


def render(hook: str, python: str) -> str:
    """The shim for `hook`, calling `python` (an absolute path when installed)."""
    return _TEMPLATE.format(marker=MARKER, hook=hook, python=_quote(python), chained=CHAINED,
                            launch=_launch(python),
                            limit=PUSH_TIMEOUT if hook == "pre-push" else MERGE_TIMEOUT,
                            branch=paths.BRANCH, ref=paths.REF, url_remote=paths.URL_REMOTE_NAME,
                            state=paths.STATE_DIR, materialized=paths.MATERIALIZED, seen=paths.SEEN_DIR,
                            mode_key=PUSH_MODE_KEY, mode_lower=PUSH_MODE_KEY.lower())


def _launch(python: str) -> str:
    """How the shim starts our part. With this interpreter (what init installs): `-S`,
    enf_git's folder named (paths.launch_bare), because site.py and the .pth files it runs
    cost more than the whole memory push's start (~50 ms in a development install, whose
    editable finder imports pathlib and re); githooks.main loads site only for the paths
    that need the libraries (a sync, a merge). Another interpreter (the shipped copy's
    `python3`): a plain start, its enf_git found wherever it is installed. The same
    folder is the same installation (a venv's python and python3), as doctor sees it."""
    if os.path.dirname(python) != os.path.dirname(sys.executable):
        return f"-c {_quote(LAUNCH)}"
    from .claude import launch_dirs

    return f"-S -c {_quote(paths.launch_bare(launch_dirs(), 'enf_git.githooks.main'))}"


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def is_ours(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return MARKER.encode() in f.read(4096)
    except OSError:
        return False


class Installed:  # a plain class: see memory.workspace.Settings
    """What install or uninstall did, one line each, for the edge to print."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.hooks: list[str] = []  # the hooks written (install) or removed (uninstall)
        self.done: list[str] = []  # other things done: a user's hook kept or restored
        self.kept: list[str] = []  # left alone, and why
        self.add_lines: list[str] = []  # a tracked hooks folder: what to add there by hand

    def lines(self, verb: str) -> list[str]:
        """One summary line for the hooks, then the rest."""
        head = [f"git hooks {verb} {self.folder}: {', '.join(self.hooks)}"] if self.hooks else []
        return head + self.done + self.kept + self.add_lines


def _git(top: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=top, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          timeout=GIT_TIMEOUT, env=_env())
    return proc.stdout.strip() if proc.returncode == 0 else ""


def _env() -> dict[str, str]:
    from ..plumbing import gitenv

    return gitenv.env_for_git(os.environ)


def hooks_dir(top: Path) -> Path:
    """Where git runs this repository's hooks (core.hooksPath honoured)."""
    found = _git(top, "rev-parse", "--git-path", "hooks")
    return (top / (found or ".git/hooks")).resolve()


def in_repository(top: Path, folder: Path) -> bool:
    """Whether `folder` is part of the repository's content (tracked), not per-machine state.

    husky's core.hooksPath is `.husky/_`, itself ignored, inside the tracked `.husky/`:
    so a folder below the top whose parent holds tracked files counts too.
    """
    top = top.resolve()
    if folder == top or top not in folder.parents:
        return False
    git_dir = Path(_git(top, "rev-parse", "--absolute-git-dir") or top / ".git").resolve()
    if folder == git_dir or git_dir in folder.parents:
        return False
    candidates = [folder] + ([folder.parent] if folder.parent != top else [])
    return any(_git(top, "ls-files", "--", str(c.relative_to(top))) for c in candidates)


def side_dir(common_git_dir: Path) -> Path:
    return Path(paths.state_dir(str(common_git_dir))) / SIDE_DIR


def add_line(hook: str) -> str:
    """The line for a team's tracked hook: runs this machine's shim when there is one."""
    return (f'd="$(git rev-parse --git-common-dir)/{paths.STATE_DIR}/{SIDE_DIR}"; '
            f'[ -x "$d/{hook}" ] && "$d/{hook}" "$@" </dev/null; true')


def install(top: Path, common_git_dir: Path, python: str | None = None) -> Installed:
    """Write our shims where git runs hooks (or beside, for a tracked folder). Idempotent."""
    python = python or sys.executable
    folder = hooks_dir(top)
    if in_repository(top, folder):
        side = side_dir(common_git_dir)
        out = Installed(side)
        for hook in HOOKS:
            _write(side / hook, render(hook, python))
            out.add_lines.append(f"{hook}: {add_line(hook)}")
        out.kept.append(f"{folder} is part of the repository, so nothing was written there; add to each "
                        "of its hooks (create them if needed) the line below")
        return out
    out = Installed(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for hook in HOOKS:
        _install_one(folder / hook, render(hook, python), out)
    return out


def _install_one(path: Path, text: str, out: Installed) -> None:
    chained = path.with_name(path.name + CHAINED)
    if path.is_symlink() or path.exists():
        if not is_ours(path):
            if chained.exists() or chained.is_symlink():
                out.kept.append(f"kept {path}: {chained.name} is already there, so ours was not installed")
                return
            os.rename(path, chained)  # the user's hook, run first by ours
            out.done.append(f"kept your {path.name} hook as {chained.name}; ours runs it first")
        elif path.read_text(errors="replace") == text:
            return
        else:
            out.done.append(f"updated {path.name}: it was not this version's (an older enf-git, or edited by hand; "
                            "commands of your own belong in a hook of your own, which ours runs first)")
    _write(path, text)
    out.hooks.append(path.name)


def _write(path: Path, text: str) -> None:
    from ..plumbing import atomic

    path.parent.mkdir(parents=True, exist_ok=True)
    atomic.write(path, text.encode())
    os.chmod(path, 0o755)


def uninstall(top: Path, common_git_dir: Path) -> Installed:
    """Remove only our shims, and put back the hooks they chained."""
    folder = hooks_dir(top)
    out = Installed(folder)
    for hook in HOOKS:
        path, chained = folder / hook, folder / (hook + CHAINED)
        if is_ours(path):
            path.unlink()
            out.hooks.append(hook)
            if chained.exists() or chained.is_symlink():
                os.rename(chained, path)
                out.done.append(f"restored your {hook} hook")
    side = side_dir(common_git_dir)
    if side.is_dir():
        for hook in HOOKS:
            if is_ours(side / hook):
                (side / hook).unlink()
        try:
            side.rmdir()
            out.done.append(f"removed the git hooks in {side}")
        except OSError:
            pass
        if in_repository(top, folder):
            out.kept.append(f"remove the enf-git line from the hooks in {folder}")
    return out
