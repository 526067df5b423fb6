"""Which paths each commit of a history changed, newest first, from `git log --raw -c`.

Who last changed a record (memory/record/authors.py) is the first commit, newest first,
that changed it. Working that out in process meant loading both sides of every
commit's changed folders: a month folder of a busy year holds ~8,000 sessions, and
libgit2 takes ~7 ms to load one from a pack, so a clone of 100,000 commits took over
ten minutes. git itself lists the same changes at ~0.3 ms a commit (~30 s), streamed,
so a reader that needs only the newest few hundred commits stops it early.

"Changed" is git's combined diff's sense (`-c`): a merge changed a path when its blob
differs from that path's blob in every parent (a merge that only brought one side's
version in changed nothing), exactly as the in-process walk defines it.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Generator, Iterator
from typing import NamedTuple

from . import gitenv, store

NO_OID = "0" * 40
_FORMAT = "%x01%H%x00%P%x00%an%x00%ae%x00%at%x00%ct%x00%s%x00"
_READ = 1 << 16
# What a user's config could change in the listing: signatures, quoting, --follow on one
# path, paths relative to the cwd.
_SETTLED = ("-c", "log.showSignature=false", "-c", "core.quotePath=false", "-c", "log.follow=false",
            "-c", "diff.relative=false")


class Commit(NamedTuple):
    """One commit of the walk and the paths it changed: (branch path, the first parent's
    blob or None: added, the commit's blob or None: deleted)."""

    id: str
    parents: list[str]
    name: str
    email: str
    time: int  # the author's date
    commit_time: int
    subject: str
    paths: list[tuple[str, str | None, str | None]]


def changes(git_dir: str, tip: str, hide: str | None = None, env: dict[str, str] | None = None,
            each_parent: bool = False, only: tuple[str, ...] = (), topo: bool = True) -> Generator[Commit, None, None]:
    """The commits reachable from `tip` (not from `hide`), children before parents, each
    with the paths it changed; `each_parent`: a merge's changes against each of its
    parents in turn (`-m`: every blob it brings relative to either side), not only what
    differs from all of them; `only`: the commits that touch these paths, every one
    (`--full-history`: a merge is listed, with no change, when one side had the path
    as it left it). Closing the iterator early stops git. `topo` False: git's default
    order, newest commit date first, which streams at once where `--topo-order` first
    reads every commit (~0.5 s at 100,000): for a reader that stops early."""
    args = ["git", "--git-dir", git_dir, *_SETTLED,
            "log", "--raw", "-m" if each_parent else "-c", "-z", "--no-renames", "--no-abbrev", "--root", "--no-color",
            "--no-ext-diff", "--no-textconv", "--no-mailmap", f"--format={_FORMAT}", tip]
    if hide:
        args.append(f"^{hide}")
    if topo:
        args.insert(args.index("--raw"), "--topo-order")
    if only:
        args.insert(args.index("--raw"), "--full-history")
    proc = subprocess.Popen([*args, "--", *only], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=_env(env))
    assert proc.stdout is not None
    try:
        yield from _records(_chunks(proc.stdout))
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdout.close()
        code = proc.wait()
    if code not in (0, -9):
        raise OSError(f"git log of {tip} failed (exit {code})")


def _env(env: dict[str, str] | None) -> dict[str, str]:
    """A local read: made safe as every git child is, and never fetching what a partial
    clone lacks (GIT_NO_LAZY_FETCH, git 2.44 on; older gits ignore it) behind a reader's back."""
    return {**gitenv.env_for_git(env if env is not None else os.environ), "GIT_NO_LAZY_FETCH": "1"}


# A record begins at \x01 followed by a commit id and a NUL: a \x01 inside a name or a
# subject (a teammate's commit may hold one) is no boundary, as none of them holds a NUL.
_BOUNDARY = re.compile(rb"\x01(?=[0-9a-f]{40}\x00)")


def _chunks(stream: object) -> Iterator[bytes]:
    """Each commit's record of the stream (the bytes after one boundary, up to the next).
    Each read is scanned once, from just before its start (a boundary may straddle two
    reads): a commit of 100,000 changes is megabytes, read 64 KB at a time."""
    read = getattr(stream, "read1", None) or getattr(stream, "read")
    buf = bytearray()
    while True:
        data = read(_READ)
        if not data:
            break
        scan = max(len(buf) - 41, 0)
        buf += data
        start = 0
        for found in _BOUNDARY.finditer(buf, scan):
            if found.start() > start:
                yield bytes(buf[start:found.start()])
            start = found.end()
        del buf[:start]
    if buf:
        yield bytes(buf)


def _records(chunks: Iterator[bytes]) -> Iterator[Commit]:
    """Commits as git lists them. Under `-m` a merge comes once for each parent its tree
    differs from (git leaves an empty diff out, so which parent a block compares with is
    not known from the blocks alone: `paths`' new blobs are what such readers use)."""
    for chunk in chunks:
        fields = chunk.split(b"\x00")
        # header: id, name, email, dates, subject, then ("\n" + the first entry's meta), path, meta, path, ...
        if len(fields) < 7:
            continue  # not a commit's record: left out
        oid, parents, name, email, when, committed, subject = (f.decode("utf-8", "replace") for f in fields[:7])
        entries = fields[7:]
        paths: list[tuple[str, str | None, str | None]] = []
        i = 0
        while i < len(entries) - 1:
            meta = entries[i].strip()
            if not meta.startswith(b":"):  # the separators git puts between commits
                i += 1
                continue
            sides = len(meta) - len(meta.lstrip(b":"))  # one colon per parent compared with
            ids = meta.split()[sides + 1:-1]  # modes, then the parents' blobs and the result's, then the status
            old, new = ids[0].decode("ascii"), ids[-1].decode("ascii")
            paths.append((entries[i + 1].decode("utf-8", "surrogateescape"),
                          None if old == NO_OID else old, None if new == NO_OID else new))
            i += 2
        yield Commit(oid, parents.split(), name, email, _int(when), _int(committed), subject, paths)


def _int(text: str) -> int:
    return int(text) if text.strip().isdigit() else 0


def working_copy(changed: list[tuple[str, str | None, str | None]]) -> Iterator[tuple[str, str | None]]:
    """One commit's changes under working-copy names (store.logical_path): a session moved
    into its month folder unchanged (deleted with blob B in one place, added with B in
    the other) is no change."""
    gone: dict[str, str | None] = {}
    added: dict[str, str | None] = {}
    for path, old, new in changed:
        (gone if new is None else added)[store.logical_path(path)] = old if new is None else new
    for path, new in added.items():
        if gone.pop(path, "") != new:
            yield path, new
    for path in gone:
        yield path, None


def messages(git_dir: str, tip: str, grep: str, env: dict[str, str] | None = None) -> list[tuple[str, int, str]]:
    """(id, commit time, whole message) of the commits reachable from `tip` whose message
    matches `grep` (git's basic regular expression), oldest first: git reads the messages,
    no tree is loaded."""
    args = ["git", "--git-dir", git_dir, *_SETTLED, "log", "--reverse", "--topo-order", "--no-color", f"--grep={grep}",
            "--format=%x01%H%x00%ct%x00%B", tip, "--"]
    proc = subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True, check=False,
                          env=_env(env))
    if proc.returncode != 0:
        raise OSError(f"git log of {tip} failed (exit {proc.returncode})")
    out = []
    for record in proc.stdout.split(b"\x01"):
        fields = record.split(b"\x00", 2)
        if len(fields) == 3 and fields[1].strip().isdigit():  # a message that held \x01 itself is skipped
            out.append((fields[0].decode("ascii", "replace"), int(fields[1]), fields[2].decode("utf-8", "replace")))
    return out
