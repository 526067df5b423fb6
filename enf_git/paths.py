"""Every name and location enf-git uses, in one place.

Three kinds of place:
- the branch (`claude-memory`): what is shared with the team, paths inside its tree;
- the working copy (`.claude-sessions/` at the top of each work tree): what the
  assistant reads and writes, materialized from the branch;
- per-machine state in the git dir (`.git/enf/`, shared by linked worktrees, and
  `<worktree git dir>/enf/` for what is per worktree): never pushed.

Plain strings and os.path only: the per-call hooks import this module, and
pathlib alone costs more than their whole check.
"""

import os

# --- the branch ----------------------------------------------------------------------
BRANCH = "claude-memory"
REF = f"refs/heads/{BRANCH}"
SESSIONS_DIR = "sessions"
DECISIONS_DIR = "decisions"
META = "meta.json"
LOG = "log.md"  # append-only: merged by union
CONFLICTS = "conflicts/"  # our side of a path changed on both sides
APPEND_ONLY = (LOG,)
INSTINCTS_DIR = "instincts"  # one learned rule per file (pure/instincts.py)

# --- the working copy ----------------------------------------------------------------
WC_DIR = ".claude-sessions"
EXCLUDE_LINE = f"/{WC_DIR}/"
RAW_DIR = "raw"  # redacted hook events, one .jsonl per session
OPT_OUT_DIR = ".opt-out"
REJECTED_DIR = ".rejected"  # hand edits of views that could not be imported
# In the working copy and each of its top-level folders once it held all it should: a
# folder that lacks it was deleted and made again, so the files it lacks vanished with it.
FOLDER_MARK = ".enf-folder"
# The default scratchpad (enf.scratchpad): one person's notes in one work tree. Shared, it
# showed Alice's notes in Bob's handoff and left conflict copies when both wrote it.
SCRATCHPAD_FILE = "scratchpad.md"
# Machine-local: event logs, session markers, refused view edits, the scratchpad. Never
# committed, never written from the branch. An entry ending in "/" is a folder and all
# under it; any other entry is one file, matched whole (workcopy.is_local_only).
LOCAL_ONLY = (f"{RAW_DIR}/", ".active/", f"{OPT_OUT_DIR}/", f"{REJECTED_DIR}/", ".enf/", SCRATCHPAD_FILE)
WC_FOLDERS = (SESSIONS_DIR, RAW_DIR, OPT_OUT_DIR)  # created by init, restored at SessionStart

# --- per-machine state ---------------------------------------------------------------
STATE_DIR = "enf"  # under the common git dir (all worktrees) or a worktree's git dir
MANIFEST = "manifest.bin"  # per worktree: what the working copy was last synced to
# per worktree: the commit the working copy shows, as text for the git hooks' shell to compare
MATERIALIZED = "materialized"
WORKTREE_LOCK = "manifest.lock"  # per worktree: one commit or materialize at a time
WRITE_LOCK = "write.lock"  # per repository: writers of the branch queue here
RECORDS_CACHE = "records.json"  # parsed records by blob OID
FLAGS_LOG = "flags.log"  # which record blobs read as instructions to the assistant (memory/flags.py)
SEARCH_DB = "search.db"  # the recall index
FETCHED_SEEN = "fetched.seen"  # "<tracking ref> <oid>" as the last read's merge of fetched memory left it
SEARCH_LOCK = "search.lock"  # one update of it at a time
POINTERS = "pointers.bin"  # the recall index laid out for the per-prompt hook (plumbing/pointers.py)
POINTERS_LOCK = "pointers.lock"  # one background refresh of it at a time
SKILLS_INDEX = "skills.bin"  # per worktree: the installed skills' index for suggestions (plumbing/skill_index.py)
HOOK_ERRORS = "hook-errors.log"  # where hooks write what they could not say to the model
SCANNED_DIR = "pushed"  # <id> per remote: memory went there once, its history scanned first
SEEN_DIR = "remotes"  # <remote's tracking name>: "<its oid|absent> <tracking oid|-> <push URL>" at our last look
SPOOL_DIR = "spool"  # how far each raw event log was flushed into log.md
HOOK_STATE_DIR = "sessions"  # per-session gate and heartbeat state
HANDOFF = "handoff.json"  # per worktree: what the last Stop saw, shown by the next SessionStart
SCRATCHPAD = f"{WC_DIR}/{SCRATCHPAD_FILE}"  # enf.scratchpad's default, relative to the work tree
USER_FALLBACK_STATE = os.path.join("~", ".cache", "enf-git")  # hook errors outside any repository

# How settings and the background commit run the hook module as a program. `python
# -c` and `-m` put the current folder (the user's project) first on sys.path, so a
# project file named json.py or subprocess.py would be imported in place of the
# standard module and silently break the hook: drop that entry before importing.
LAUNCH = "import sys; sys.path[:] = [p for p in sys.path if p]; from enf_git.hook import main; main()"


def launch_bare(dirs: "list[str]", module: str = "enf_git.hook") -> str:
    """LAUNCH for `python -S`: the per-call hooks skip site.py (~0.6 ms of CPU on every
    tool call and prompt: .pth files, the site folders, sitecustomize), which they do
    not need. The folders of enf_git and of the libraries a per-call path may load
    (YAML, to compile a toolsets.yaml) go where site.py would put them, after PYTHONPATH
    and the standard library; the cwd entry `-c` adds is dropped, as LAUNCH does. Should
    enf_git have left the first folder (a reinstall elsewhere), site.py runs as
    usual; the lifecycle hooks run it too (hook.main), as a normal start would.
    `module`: whose main() runs (the git hooks' is enf_git.githooks.main)."""
    import json  # at install time only; double quotes keep the shell-quoted command readable

    return (f"import sys, os; sys.path[:] = [p for p in sys.path if p] + {json.dumps(dirs)}; "
            f"os.path.isdir({json.dumps(dirs[0] + '/enf_git')}) or __import__(\"site\").main(); "
            f"from {module} import main; main()")


def is_instinct_path(path: str) -> bool:
    """An instinct record on the branch: instincts/<id>.md."""
    return path.startswith(f"{INSTINCTS_DIR}/") and path.endswith(".md") and path.count("/") == 1


def state_dir(common_git_dir: str) -> str:
    """`.git/enf` for a common git dir (not created here)."""
    return os.path.join(common_git_dir, STATE_DIR)


# --- sharing (sync) --------------------------------------------------------------------
# The remote-tracking name for a memory remote given as a URL (enf.remote = URL), which
# has no remote name of its own: its branch is tracked at refs/remotes/enf-memory/claude-memory.
URL_REMOTE_NAME = "enf-memory"


# --- toolset profiles (plumbing/toolset_files.py reads and writes them) ----------------
TOOLSETS_FILE = "toolsets.yaml"  # the team's at the top of the work tree; the user's in their config dir
ACTIVE_TOOLSET = os.path.join(".claude", "active-toolset")  # the project's default profile
TOOLSET_CHOICES = "toolsets"  # <state dir>/toolsets/<session id8>: one session's choice


# --- per user ------------------------------------------------------------------------
USER_DIR_NAME = "enf-git"


def user_config_dir(environ: "dict[str, str] | os._Environ[str]") -> str:
    """The user's enf-git config folder: $XDG_CONFIG_HOME/enf-git, else ~/.config/enf-git
    (the XDG spec: a relative value is ignored). The edges pass their environment."""
    base = environ.get("XDG_CONFIG_HOME", "").strip()
    if not base or not os.path.isabs(base):
        base = os.path.join(environ.get("HOME") or os.path.expanduser("~"), ".config")
    return os.path.join(base, USER_DIR_NAME)
