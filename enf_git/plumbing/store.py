"""pygit2 plumbing for the memory branch: open the repository and read it (trees, the
month folders sessions are stored in, deltas between trees, history, config). Writing
a commit is store_write.py's; merging two tips and lines is store_merge.py's. The three
are the only modules that import pygit2.

Nothing here touches HEAD, the index or any work tree.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import NamedTuple, TypeAlias, cast

import pygit2

from .. import paths
from ..errors import NotFound, RepoError

BRANCH = paths.BRANCH
REF = paths.REF
# The object types callers hold and annotate with: every other module names them
# through here, so this stays the one module that imports pygit2.
Repo: TypeAlias = pygit2.Repository
Commit: TypeAlias = pygit2.Commit
Tree: TypeAlias = pygit2.Tree
TREE_CACHE_LIMIT = 64 << 20  # bytes: a 100,000-session folder's tree is ~6 MB


def open_repo(start: str | os.PathLike[str] = ".") -> pygit2.Repository:
    """Open the repository containing `start` the way git would, or explain why not."""
    path = pygit2.discover_repository(str(start))
    if path is None:
        raise RepoError(
            f"not a git repository: {os.path.abspath(start)}",
            hint="cd into your project, or run: git init",
        )
    _refuse_sha256(Path(path))
    # libgit2 caches parsed trees only up to 4 KB by default, so every lookup by path
    # under sessions/ re-parsed the whole folder's tree (~6 ms at 10,000 sessions).
    pygit2.settings.cache_object_limit(pygit2.enums.ObjectType.TREE, TREE_CACHE_LIMIT)
    try:
        return pygit2.Repository(path)
    except pygit2.GitError as exc:
        text = str(exc)
        if "not owned by current user" in text or "owner" in text:
            top = Path(path).parent if Path(path).name == ".git" else Path(path)
            raise RepoError(
                f"git refuses to open {top}: it is owned by another user",
                hint=f"if you trust it: git config --global --add safe.directory {top}",
            ) from exc
        raise RepoError(f"cannot open the repository at {path}: {text}") from exc


def _refuse_sha256(git_dir: Path) -> None:
    # pygit2 wheels are built without SHA-256 support and fail with an obscure
    # error, so read the format from the config before libgit2 does.
    config = common_dir_of(git_dir) / "config"
    try:
        text = config.read_text(encoding="utf-8", errors="replace").lower()
    except OSError:
        return
    if "objectformat" in text and "sha256" in text.replace(" ", ""):
        raise RepoError(
            "this repository uses SHA-256 object names, which enf-git (pygit2) cannot read",
            hint="use enf-git in a SHA-1 repository (the git default)",
        )


def common_dir_of(git_dir: Path) -> Path:
    """The common dir of a (possibly linked-worktree) git dir: where refs live."""
    pointer = git_dir / "commondir"
    if pointer.is_file():
        target = pointer.read_text(encoding="utf-8").strip()
        return (git_dir / target).resolve()
    return git_dir.resolve()


def common_dir(repo: pygit2.Repository) -> Path:
    """`common_dir_of` the repository's git dir, worked out once per Repository: it resolves
    every component of the path (a dozen system calls), and a SessionStart asks ~20 times."""
    held = repo.__dict__.get("_enf_common_dir")
    if held is None:
        held = repo.__dict__["_enf_common_dir"] = common_dir_of(Path(repo.path))
    return cast(Path, held)


def state_dir(repo: pygit2.Repository) -> Path:
    """Per-machine state shared by all worktrees (`.git/enf`), created on demand."""
    path = common_dir(repo) / paths.STATE_DIR
    path.mkdir(parents=True, exist_ok=True)
    return path


def worktree_state_dir(repo: pygit2.Repository) -> Path:
    """Per-worktree state (the working copy's manifest) in this worktree's git dir."""
    path = Path(repo.path) / paths.STATE_DIR
    path.mkdir(parents=True, exist_ok=True)
    return path


def tip(repo: pygit2.Repository) -> pygit2.Commit | None:
    ref = repo.references.get(REF)
    if ref is None:
        return None
    obj = repo.get(ref.target)
    return obj if isinstance(obj, pygit2.Commit) else None


def resolve(repo: pygit2.Repository, rev: str) -> pygit2.Commit:
    """A revision expression (`claude-memory~3`, an OID, a tag) as a commit."""
    try:
        obj = repo.revparse_single(rev)
        commit = obj.peel(pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError) as exc:
        raise NotFound(f"no such revision: {rev}", hint=f"git log {BRANCH} --oneline") from exc
    return commit


def blob_data(repo: pygit2.Repository, oid: str | pygit2.Oid) -> bytes:
    """The content of the blob `oid`; KeyError if there is no such object, TypeError if it is no blob.

    Read from the object database rather than as an object: 40% less CPU (~30 us a
    blob instead of ~52), which a cold build of the recall index pays 100,000 times.
    """
    if isinstance(oid, str) and len(oid) != 40:  # an abbreviation: what repo[] makes of it
        obj = repo[oid]
        if not isinstance(obj, pygit2.Blob):
            raise TypeError(f"{oid} is a {obj.type_str}, not a blob")
        return obj.data
    kind, data = repo.odb.read(oid)  # NotFoundError, a KeyError, if there is none
    if kind != pygit2.enums.ObjectType.BLOB:
        raise TypeError(f"{oid} is a {pygit2.enums.ObjectType(kind).name.lower()}, not a blob")
    return bytes(data)


def _subtree(repo: pygit2.Repository, oid: pygit2.Oid) -> pygit2.Tree:
    """The tree `oid` (a tree entry whose type_str is "tree")."""
    obj = repo[oid]
    if not isinstance(obj, pygit2.Tree):
        raise TypeError(f"{oid} is a {obj.type_str}, not a tree")
    return obj


# --- sessions by month on the branch ----------------------------------------------------
#
# Above the store every path is the working copy's: a session is sessions/<stem>.md. On
# the branch a dated session lives in sessions/YYYY/MM/<stem>.md, so a commit rewrites a
# month's folder of a few hundred entries, not one of every session (600 KB at 10,000:
# written, diffed, fetched and pushed on every change). The store maps both ways; a
# branch written before (flat) is read as it is and moved by the next tree it writes.
# A flat copy next to a monthly one (an older enf-git's write after the move) wins.


def stored_path(path: str) -> str:
    """Where the working copy's `path` is kept on the branch."""
    if not path.startswith(_SESSIONS_PREFIX) or path.count("/") != 1 or not path.endswith(".md"):
        return path
    month = _month_folder(path[len(_SESSIONS_PREFIX):])
    return f"{_SESSIONS_PREFIX}{month}/{path[len(_SESSIONS_PREFIX):]}" if month else path


def logical_path(path: str) -> str:
    """The working copy's path for the branch's `path` (a session in its month folder)."""
    if path.startswith(_SESSIONS_PREFIX) and path.count("/") == 3:
        flat = _SESSIONS_PREFIX + path.rsplit("/", 1)[1]
        if stored_path(flat) == path:
            return flat
    return path


_SESSIONS_PREFIX = paths.SESSIONS_DIR + "/"
_DIGITS = frozenset("0123456789")


def _month_folder(name: str) -> str | None:
    """"YYYY/MM" for a file named YYYY-MM-DD-<slug>.md, else None (kept flat)."""
    if len(name) < 15 or name[4] != "-" or name[7] != "-" or name[10] != "-":
        return None
    if not set(name[:4] + name[5:7] + name[8:10]) <= _DIGITS:
        return None
    return f"{name[:4]}/{name[5:7]}"


def _dated_in(name: str, head: str) -> bool:
    """_month_folder(name) is the folder whose names start with `head` ("YYYY-MM-"), the
    check inlined: a month folder lists every session of the month, ~10,000 names a listing."""
    return (len(name) >= 15 and name.startswith(head) and name[10] == "-" and name[8] in _DIGITS
            and name[9] in _DIGITS and name.endswith(".md"))


def _list_stored(repo: pygit2.Repository, tree: pygit2.Tree | None, prefix: str = "") -> dict[str, str]:
    """Every blob under `tree` as the branch's path -> hex OID."""
    out: dict[str, str] = {}
    if tree is None:
        return out
    for entry in tree:
        path = f"{prefix}{entry.name}"
        if entry.type_str == "tree":
            out.update(_list_stored(repo, _subtree(repo, entry.id), f"{path}/"))
        elif entry.type_str == "blob":
            out[path] = str(entry.id)
    return out


def _logical(stored: Mapping[str, str | None]) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for path, oid in stored.items():
        flat = logical_path(path)
        if flat == path or flat not in stored:  # a flat copy of a monthly one wins
            out[flat] = oid
    return out


def list_files(repo: pygit2.Repository, tree: pygit2.Tree | None) -> dict[str, str]:
    """Every blob under `tree` as (working copy) path -> hex OID."""
    return {p: o for p, o in _logical(_list_stored(repo, tree)).items() if o is not None}


def files_but_dated_sessions(repo: pygit2.Repository, tree: pygit2.Tree | None) -> dict[str, str]:
    """`list_files` without the sessions of the month folders: every other file of the
    branch, and the flat entries of sessions/ (at 100,000 sessions, a tenth of a second
    to list instead of a second or more)."""
    out: dict[str, str] = {}
    for entry in tree if tree is not None else ():
        name = entry.name
        if name is None:
            continue
        if name == paths.SESSIONS_DIR and entry.type_str == "tree":
            out.update((f"{name}/{n}", oid) for n, oid, kind in flat_sessions(repo, tree) if kind == "blob")
        elif entry.type_str == "tree":
            out.update(_list_stored(repo, _subtree(repo, entry.id), f"{name}/"))
        elif entry.type_str == "blob":
            out[name] = str(entry.id)
    return out


def _entry(tree: pygit2.Tree, path: str) -> pygit2.Object:
    """The tree entry of the working copy's `path`: its flat place first, then its month's.
    A month folder's own path (sessions/YYYY/MM/<dated name>) names nothing here: that
    blob is the session sessions/<name>, and must never be read, kept or deleted as a
    second file."""
    if logical_path(path) != path:
        raise KeyError(path)
    try:
        return tree[path]
    except KeyError:
        stored = stored_path(path)
        if stored == path:
            raise
        return tree[stored]


def read_path(repo: pygit2.Repository, tree: pygit2.Tree | None, path: str) -> bytes | None:
    if tree is None:
        return None
    try:
        entry = _entry(tree, path)
    except KeyError:
        return None
    obj = repo[entry.id]
    return obj.data if isinstance(obj, pygit2.Blob) else None


def blob_oid(repo: pygit2.Repository, tree: pygit2.Tree | None, path: str) -> str | None:
    if tree is None:
        return None
    try:
        return str(_entry(tree, path).id)
    except KeyError:
        return None


def hash_bytes(data: bytes) -> str:
    """The blob OID git would give `data`, without writing it.

    hashlib's SHA-1, not libgit2's: the same ids (only SHA-1 repositories are opened), and
    libgit2's collision-detecting SHA-1 took ~6 ms a megabyte, which a fresh clone's first
    commit paid for every file of the working set (a 23 MB decision archive at 100,000
    sessions: ~0.13 s of it)."""
    import hashlib  # here: most store users never hash

    h = hashlib.sha1(b"blob %d\0" % len(data))  # noqa: S324 - git's object id, not security
    h.update(data)
    return h.hexdigest()

def commit_signature(repo: pygit2.Repository, oid: str) -> bytes | None:
    """The signature in a commit's gpgsig header (None: unsigned, or no such commit)."""
    try:
        found = repo.get(oid)
    except (ValueError, pygit2.GitError):
        return None
    if not isinstance(found, pygit2.Commit):
        return None
    signature, _signed = found.gpg_signature
    return bytes(signature) if signature else None


def checked_out_in(repo: pygit2.Repository) -> list[str]:
    """Git dirs whose HEAD is the memory branch (someone ran `git checkout claude-memory`)."""
    common = common_dir(repo)
    candidates = [common] + sorted((common / "worktrees").glob("*"))
    hits = []
    for git_dir in candidates:
        try:
            head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
        except OSError:
            continue
        if head == f"ref: {REF}":
            hits.append(str(git_dir))
    return hits

# --- reading helpers for the layers above (they never touch pygit2 themselves) -------

def is_git_error(exc: BaseException) -> bool:
    """An error libgit2 raised (for the edges' error boundaries, which do not import pygit2)."""
    return isinstance(exc, pygit2.GitError)


def commit_at(repo: pygit2.Repository, oid: str | None) -> pygit2.Commit | None:
    """The commit `oid` names, or None (no such object, or not a commit)."""
    if not oid:
        return None
    try:
        obj = repo.get(oid)
    except (ValueError, pygit2.GitError):
        return None
    return obj if isinstance(obj, pygit2.Commit) else None


def is_tracked(repo: pygit2.Repository, path: str) -> bool:
    """Whether `path` (relative to the work tree) is in the user's index: read, never written."""
    try:
        return path in repo.index
    except (pygit2.GitError, OSError, ValueError):
        return False


def root_entries(tree: pygit2.Tree | None) -> dict[str, str]:
    """name -> hex OID of each entry at the top of `tree` (a folder's OID says whether anything under it changed)."""
    return {e.name: str(e.id) for e in tree if e.name is not None} if tree is not None else {}


def folder_entries(repo: pygit2.Repository, tree: pygit2.Tree | None, folder: str,
                   links: bool = False) -> list[tuple[str, str, str]]:
    """(name, hex OID, type) of each entry directly under `folder` (empty if no such folder);
    with `links`, a symlink's type is "link" rather than "blob"."""
    if folder != paths.SESSIONS_DIR or tree is None:
        return _folder_stored(repo, tree, folder, links)
    key = (str(tree.id), links)
    if key not in _SESSIONS_LISTED:
        _SESSIONS_LISTED.clear()  # one tree at a time: a command lists the tip's, often several times
        _SESSIONS_LISTED[key] = _sessions_entries(repo, tree, links)
    return list(_SESSIONS_LISTED[key])


_SESSIONS_LISTED: dict[tuple[str, bool], list[tuple[str, str, str]]] = {}  # trees never change: keyed by id


def newest_sessions(repo: pygit2.Repository, tree: pygit2.Tree | None, count: int) -> tuple[list[tuple[str, str]], bool]:
    """(the last `count` session files of sessions/ by name, as (name, hex OID) in name
    order; whether sessions/ holds more). Reads the month folders newest first and stops
    once it has enough: the working set of 500 reads two or three months, not all."""
    entries = _folder_stored(repo, tree, paths.SESSIONS_DIR)
    flat = [(name, oid) for name, oid, kind in entries if kind == "blob" and name.endswith(".md")]
    if any(_month_folder(name) for name, _oid in flat):  # not moved yet: the whole listing
        listed = sorted((n, o) for n, o, k in folder_entries(repo, tree, paths.SESSIONS_DIR)
                        if k == "blob" and n.endswith(".md"))
        return listed[-count:] if count else [], len(listed) > count
    picked: list[tuple[str, str]] = []  # the month folders' sessions (every flat file is in the running)
    more = False
    for folder in sorted(_month_folders(repo, tree, entries), reverse=True):
        if len(picked) > count:
            more = True
            break
        picked += [(n, o) for n, o, k in _month_sessions(repo, tree, folder) if k == "blob"]
    # More than `count` read from the newest months: every unread one sorts below all of them.
    listed = sorted(picked + flat)
    return (listed[-count:] if count else []), more or len(listed) > count


def session_months(repo: pygit2.Repository, tree: pygit2.Tree | None) -> dict[str, str]:
    """"YYYY/MM" -> the tree OID of each month folder under sessions/: what a reader of a
    few months depends on (read from the year folders: no month folder is opened)."""
    out: dict[str, str] = {}
    for year, _oid, _kind in filter(_is_year, _folder_stored(repo, tree, paths.SESSIONS_DIR)):
        for month, oid, kind in _folder_stored(repo, tree, f"{paths.SESSIONS_DIR}/{year}"):
            if kind == "tree" and len(month) == 2:
                out[f"{year}/{month}"] = oid
    return out


def flat_sessions(repo: pygit2.Repository, tree: pygit2.Tree | None) -> list[tuple[str, str, str]]:
    """The entries directly under sessions/ besides the year folders: undated sessions
    (never moved), and a branch's not moved yet."""
    return [e for e in _folder_stored(repo, tree, paths.SESSIONS_DIR) if not _is_year(e)]


def sessions_from(repo: pygit2.Repository, tree: pygit2.Tree | None, first: str) -> list[tuple[str, str, str]]:
    """sessions/ as `folder_entries` lists it, less the month folders before `first`
    ("YYYY/MM"): every flat entry, then the sessions of each month from `first` on. A
    reader of the last weeks opens a month or two, not every session of the branch."""
    flat = flat_sessions(repo, tree)
    names = {e[0] for e in flat}
    for folder in sorted(m for m in session_months(repo, tree) if m >= first):
        flat += [e for e in _month_sessions(repo, tree, folder) if e[0] not in names]
    return flat


def _sessions_entries(repo: pygit2.Repository, tree: pygit2.Tree, links: bool) -> list[tuple[str, str, str]]:
    """sessions/ as the working copy sees it: its flat entries, then every month folder's
    sessions (the year folders themselves hidden)."""
    entries = _folder_stored(repo, tree, paths.SESSIONS_DIR, links)
    flat = [e for e in entries if not _is_year(e)]
    names = {e[0] for e in flat}
    for folder in _month_folders(repo, tree, entries):
        flat += [e for e in _month_sessions(repo, tree, folder, links) if e[0] not in names]
    return flat  # a flat copy of a name wins over its month folder's


def _is_year(entry: tuple[str, str, str]) -> bool:
    return entry[2] == "tree" and len(entry[0]) == 4 and set(entry[0]) <= _DIGITS


def _month_folders(repo: pygit2.Repository, tree: pygit2.Tree | None,
                   entries: list[tuple[str, str, str]]) -> list[str]:
    """"YYYY/MM" of each month folder under sessions/ (`entries`: sessions/ itself)."""
    return [f"{year}/{month}" for year, _oid, _kind in filter(_is_year, entries)
            for month, _moid, kind in _folder_stored(repo, tree, f"{paths.SESSIONS_DIR}/{year}")
            if kind == "tree" and len(month) == 2]


def month_sessions(repo: pygit2.Repository, tree: pygit2.Tree | None, folder: str) -> list[tuple[str, str, str]]:
    """(name, hex OID, type) of the sessions one month folder ("YYYY/MM") keeps: a reader
    that remembers what it learnt of each month opens only the months that changed."""
    return _month_sessions(repo, tree, folder)


def _month_sessions(repo: pygit2.Repository, tree: pygit2.Tree | None, folder: str,
                    links: bool = False) -> list[tuple[str, str, str]]:
    """The sessions a month folder ("YYYY/MM") keeps: the entries named for that month."""
    head = folder.replace("/", "-") + "-"
    return [e for e in _folder_stored(repo, tree, f"{paths.SESSIONS_DIR}/{folder}", links) if _dated_in(e[0], head)]


def _folder_stored(repo: pygit2.Repository, tree: pygit2.Tree | None, folder: str,
                   links: bool = False) -> list[tuple[str, str, str]]:
    if tree is None:
        return []
    try:
        sub = repo[tree[folder].id]
    except KeyError:
        return []
    if not isinstance(sub, pygit2.Tree):
        return []
    return [(e.name, str(e.id), "link" if links and e.filemode == pygit2.enums.FileMode.LINK else e.type_str)
            for e in sub if e.name is not None]


def changed_paths(old: pygit2.Tree, new: pygit2.Tree) -> dict[str, str | None]:
    """Path -> its blob OID in `new` (None: gone) for every path the diff touches.

    Taken from the tree walk of `deltas`, not by looking each path up: that costs a
    millisecond per lookup in a 10,000-entry tree (libgit2 re-reads the subtree every time).
    """
    out: dict[str, str | None] = {}
    for delta in tree_deltas(old, new):
        out.setdefault(delta.old_path, None)
        if delta.status != "D":
            out[delta.new_path] = delta.new_oid
    if not any(logical_path(p) != p or stored_path(p) != p for p in out):
        return out
    return _logical_changes(old, new, out)


def tree_deltas(old: pygit2.Tree, new: pygit2.Tree) -> list[Delta]:
    """What libgit2's `old.diff_to_tree(new)` lists (status A, D or M, in path order; a
    file that became a link, or the reverse, is one D and one A), found by walking both
    trees side by side into the folders that differ only. The diff reads every entry of
    both trees, equal folders too: ~7 ms at 10,000 sessions for a commit that changed
    log.md alone, which a SessionStart paid two or three times."""
    out: list[Delta] = []
    _walk_deltas(old, new, "", out)
    out.sort(key=lambda d: d.new_path)  # stable: a D stays before the A of the same path
    return out


_LINK_MODES = (pygit2.enums.FileMode.LINK, pygit2.enums.FileMode.COMMIT)


def _walk_deltas(old: pygit2.Tree | None, new: pygit2.Tree | None, prefix: str, out: list[Delta]) -> None:
    before = {e.name: e for e in old if e.name is not None} if old is not None else {}
    for entry in new if new is not None else ():
        name = entry.name
        if name is None:
            continue
        was = before.pop(name, None)
        if was is not None and was.id == entry.id and was.filemode == entry.filemode:
            continue
        path = prefix + name
        was_tree = was if isinstance(was, pygit2.Tree) else None
        linked = was is not None and (was.filemode in _LINK_MODES) != (entry.filemode in _LINK_MODES)
        if was is not None and was_tree is None and (isinstance(entry, pygit2.Tree) or linked):
            out.append(Delta("D", path, str(was.id), path, _NO_OID))  # a change of kind: gone, then added
            was = None
        if isinstance(entry, pygit2.Tree):
            _walk_deltas(was_tree, entry, path + "/", out)
            continue
        if was_tree is not None:
            _walk_deltas(was_tree, None, path + "/", out)
            was = None
        out.append(Delta("A", path, _NO_OID, path, str(entry.id)) if was is None
                   else Delta("M", path, str(was.id), path, str(entry.id)))
    for name, was in before.items():  # what only `old` holds
        if isinstance(was, pygit2.Tree):
            _walk_deltas(was, None, f"{prefix}{name}/", out)
        else:
            out.append(Delta("D", prefix + name, str(was.id), prefix + name, _NO_OID))


def _logical_changes(old: pygit2.Tree, new: pygit2.Tree, stored: dict[str, str | None]) -> dict[str, str | None]:
    """`stored` (changes between the branch's paths) as changes of working-copy paths: a
    session moved into its month folder unchanged is no change."""
    touched = {logical_path(p) for p in stored}
    out: dict[str, str | None] = {}
    for path in touched:
        if stored_path(path) == path:
            out[path] = stored.get(path)
            continue
        before, after = _oid_in(old, path), _oid_in(new, path)
        if before != after:
            out[path] = after
    return out


def _oid_in(tree: pygit2.Tree, path: str) -> str | None:
    try:
        return str(_entry(tree, path).id)
    except KeyError:
        return None


_NO_OID = "0" * 40  # libgit2's OID of the side a delta has no file on


class Delta(NamedTuple):
    status: str  # git's letter: A, D, M, R...
    old_path: str
    old_oid: str
    new_path: str
    new_oid: str


def deltas(old: pygit2.Tree | None, new: pygit2.Tree, raw: bool = False) -> list[Delta]:
    """The file changes from `old` (None: an empty tree) to `new`, under working-copy
    names; `raw`: under the branch's own (every blob a commit added, for the secret scan)."""
    if old is not None:
        found = tree_deltas(old, new)
    else:
        found = [Delta(d.status_char(), d.old_file.path, str(d.old_file.id), d.new_file.path, str(d.new_file.id))
                 for d in new.diff_to_tree(swap=True).deltas]
    return found if raw else _logical_deltas(old, new, found)


def _logical_deltas(old: pygit2.Tree | None, new: pygit2.Tree, found: list[Delta]) -> list[Delta]:
    """Deltas between the branch's paths as deltas of working-copy paths. A delta that
    touches no session's two places stands as it is; a session's path is looked up in both
    trees by the rule every read follows (a flat copy wins), once: moved into its month
    folder unchanged, it is no delta, and a hidden month copy's change is none."""
    out: list[Delta] = []
    seen: set[str] = set()  # a set: the move of 10,000 sessions is 20,000 deltas
    for d in found:
        path = logical_path(d.new_path if d.status != "D" else d.old_path)
        if stored_path(path) == path and logical_path(d.old_path) == d.old_path:
            out.append(d)
            continue
        if path in seen:
            continue
        seen.add(path)
        before = _oid_in(old, path) if old is not None else None
        after = _oid_in(new, path)
        if before != after:
            status = "A" if before is None else "D" if after is None else "M"
            out.append(Delta(status, path, before or _NO_OID, path, after or _NO_OID))
    return out


def walk(repo: pygit2.Repository, tip: pygit2.Commit, *, hide: pygit2.Commit | None = None,
         oldest_first: bool = False, by_time: bool = False) -> Iterator[pygit2.Commit]:
    """The commits reachable from `tip` (not from `hide`), children before parents
    unless `oldest_first`."""
    mode = pygit2.enums.SortMode.TOPOLOGICAL
    if oldest_first:
        mode |= pygit2.enums.SortMode.REVERSE
    if by_time:
        mode |= pygit2.enums.SortMode.TIME
    walker = repo.walk(tip.id, mode)
    if hide is not None:
        walker.hide(hide.id)
    yield from walker


def descends_from(repo: pygit2.Repository, commit: pygit2.Commit, ancestor: pygit2.Commit) -> bool:
    return commit.id == ancestor.id or bool(repo.descendant_of(commit.id, ancestor.id))


def config_value(repo: pygit2.Repository, key: str) -> str | None:
    """A git config value as text (None: not set, or unreadable); one given on git's
    command line (`git -c enf.remote=… enf sync`) first, as git would."""
    from . import fastconfig

    given = fastconfig.command_line(key)
    if given is not None:
        return given
    try:
        return str(_config(repo)[key])
    except (KeyError, ValueError, pygit2.GitError):
        return None


def _config(repo: pygit2.Repository) -> pygit2.Config:
    """The repository's config, one object per Repository. Getting one costs ~80 us, a
    lookup through it ~7 us, and each memory commit reads eight keys for its signatures
    (a compressing SessionStart makes 20 commits). libgit2 checks the config files on
    every lookup and re-reads a changed one, so a held object sees `git config` run
    meanwhile, by this process or another."""
    held = repo.__dict__.get("_enf_config")
    if held is None:
        held = repo.__dict__["_enf_config"] = repo.config
    return cast(pygit2.Config, held)


def config_values(repo: pygit2.Repository, key: str) -> list[str]:
    """Every value of a multi-valued git config key, in git's order (lowest precedence
    first), then the one given on git's command line (`git -c KEY=VALUE enf …`)."""
    from . import fastconfig

    try:
        out = [str(v) for v in _config(repo).get_multivar(key)]
    except (KeyError, ValueError, pygit2.GitError):
        out = []
    given = fastconfig.command_line(key)
    return [*out, given] if given is not None else out


def ahead_behind(repo: pygit2.Repository, local: str, upstream: str) -> tuple[int, int]:
    """(commits `local` has that `upstream` lacks, and the reverse)."""
    ahead, behind = repo.ahead_behind(local, upstream)
    return int(ahead), int(behind)


CONFIG_LOCK_WAIT = 5.0  # seconds: git holds config.lock for a write only, milliseconds


def set_config(repo: pygit2.Repository, key: str, value: str) -> None:
    """Set a key in this repository's own config (.git/config).

    Sessions start at once (several hooks, several terminals) and each may set the same
    key; libgit2 refuses to write while another process holds config.lock, as git does.
    So a refused write waits for the lock to go and tries again, and is done at once if
    the other writer already set the same value."""
    deadline = time.monotonic() + CONFIG_LOCK_WAIT
    delay = 0.005
    while True:
        try:
            repo.config[key] = value
            return
        except pygit2.GitError as exc:
            if "lock" not in str(exc) or time.monotonic() > deadline:
                raise
        if _config_value(repo, key) == value:
            return
        time.sleep(delay)
        delay = min(delay * 2, 0.1)


def _config_value(repo: pygit2.Repository, key: str) -> str | None:
    try:
        return str(pygit2.Repository(repo.path).config[key])
    except (KeyError, ValueError, pygit2.GitError):
        return None


def remote_names(repo: pygit2.Repository) -> list[str]:
    return sorted(r.name for r in repo.remotes if r.name)


def remote_url(repo: pygit2.Repository, name: str) -> str | None:
    try:
        return repo.remotes[name].url
    except (KeyError, ValueError):
        return None


def ref_target(repo: pygit2.Repository, name: str) -> str | None:
    ref = repo.references.get(name)
    return str(ref.target) if ref is not None else None
