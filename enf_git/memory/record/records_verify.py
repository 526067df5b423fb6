"""Checking what the branch's derived files say against real parses: the background
refresh's job, never a hook's.

A reader takes a records index line (plumbing/record_index.py) whenever its blob id is
the one the month folder lists, without parsing the blob: that is what makes a fresh
clone's records.json cheap. The line could still be wrong (a teammate's hand-made
commit, a bug in another version of enf-git): its blob id matches Alice's session, its
entry holds decisions Alice never wrote. Without signed memory that adds no capability
(anyone who can push can write a commit touching Alice's file under Alice's name), but
such a line must not stay in force. So every entry taken from the index is marked in
records.json (`Cache.unverified`) until the refresh that `git enf init` (and every
start and Stop) sets off parses its blob: an entry that disagrees is replaced by the
true parse, the startup digest built from it is dropped, and the disagreement is kept
in `.git/enf/records-index-check.json` for `git enf doctor`, naming the day file, the
session and the commit that last wrote the day file.

Under `enf.trust signed` nothing is taken from the index (records.index_reader), so
there is nothing to check.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from ... import paths
from ...plumbing import atomic, record_index, store, store_merge
from ...pure import briefing
from .. import records

FILE = "records-index-check.json"  # in .git/enf/


class Disagreement(NamedTuple):
    day_file: str  # its branch path
    day_blob: str  # the day file's blob id when it was found wrong (still wrong while the tip has it)
    session: str  # the session's path in the working copy
    commit: str  # the commit that last wrote the day file ("" beyond the walk's limit)
    author: str  # that commit's author


def pending(repo: store.Repo) -> bool:
    """Whether records.json or startup.json holds what the branch's derived files gave,
    not checked yet (two stats: hooks ask it)."""
    from . import digests

    state = store.state_dir(repo)
    return (state / records.UNVERIFIED_MARK).exists() or (state / digests.UNCHECKED_MARK).exists()


def check_digest(repo: store.Repo, cache: records.Cache) -> Disagreement | None:
    """When this machine's startup digest came from the branch's (carried_digest.py), fold
    the true one from every record (checked entries); if it would show anything else, keep
    the true one and name the commit that wrote the branch's. Seconds at 100,000 sessions:
    the refresh's, and only after a start took the branch's digest."""
    from . import carried_digest, digests

    mark = store.state_dir(repo) / digests.UNCHECKED_MARK
    tip = store.tip(repo)
    if not mark.exists() or tip is None:
        return None
    records.load(repo, tip.tree, cache)  # entries a fresh clone takes from the index...
    if verify(repo, cache) is None:
        return None  # ...checked before the fold, over as many refreshes as it takes
    key = digests.key_of_tree(repo, tip.tree)
    used = digests.saved_for(repo, key)
    true = digests.build(repo, tip, cache)
    digests.save(repo, tip, true)  # checked: what this machine's starts use from now on
    found = None
    if used is not None and shown(used) != shown(true):
        writer = store_merge.last_change(repo, tip, carried_digest.PATH)
        found = Disagreement(carried_digest.PATH, store.blob_oid(repo, tip.tree, carried_digest.PATH) or "", "",
                             str(writer.id) if writer is not None else "",
                             str(writer.author.name) if writer is not None else "")
        save(repo, [found] + [d for d in in_force(repo) if d.day_file != found.day_file])
    mark.unlink(missing_ok=True)
    return found


def shown(d: briefing.Digest) -> tuple[Any, ...]:
    """What of a digest can reach the context: two digests that agree on this give the
    same start (one brought up to date commit by commit keeps more past its cut)."""
    need = min(briefing.NEED, d.count)
    lines, size = [], 0
    for line in d.lines:
        if size > briefing.HARD_LIMIT:
            break
        lines.append((line.date, line.time, line.id, line.text, line.source))
        size += len(line.text) + 1
    return (d.count, d.standing, d.disagreements, [records.session_to_json(s) for s in d.newest[:need]],
            [records.session_to_json(s) for s in d.interrupted], lines)


def verify(repo: store.Repo, cache: records.Cache, budget: float = 60.0) -> list[Disagreement] | None:
    """Parse the entries taken from the index unchecked, replacing those that disagree;
    the disagreements found (also saved for doctor, with those still in force), or None
    when `budget` seconds ran out first: what was checked is saved, the next refresh goes
    on (a refresh lives 120 s; 100,000 parses take minutes on a loaded machine)."""
    import time

    _ = cache.entries  # loading records.json reads its marks too
    todo = sorted(cache.unverified)
    if not todo:
        return []
    wrong, done, until = [], True, time.monotonic() + budget
    for key in todo:
        if time.monotonic() > until:
            done = False
            break
        cache.unverified.discard(key)
        oid, path = key.split(":", 1)
        try:
            true = records.parsed_entry(path, store.blob_data(repo, oid))
        except KeyError:  # the blob is gone (a pruned clone): nothing to check it against
            cache.entries.pop(key, None)
            continue
        if _canonical(true) != _canonical(cache.entries.get(key)):
            cache.entries[key] = true
            wrong.append(path)
    cache.dirty = True
    cache.save()
    found = _named(repo, wrong)
    if wrong:
        _drop_derived(repo)
    if found:
        save(repo, found + [d for d in in_force(repo) if d not in found])
    return found if done else None


def _canonical(entry: Any) -> str:
    return json.dumps(entry, sort_keys=True, ensure_ascii=False)


def _named(repo: store.Repo, wrong: list[str]) -> list[Disagreement]:
    """Each wrong session with the tip's day file that holds its line and who wrote it."""
    tip = store.tip(repo)
    if tip is None:
        return []
    out = []
    for path in wrong:
        day = record_index.day_of(path)
        if day is None:
            continue
        day_file = record_index.file_of(day)
        blob = store.blob_oid(repo, tip.tree, day_file) or ""
        writer = store_merge.last_change(repo, tip, day_file) if blob else None
        out.append(Disagreement(day_file, blob, path, str(writer.id) if writer is not None else "",
                                str(writer.author.name) if writer is not None else ""))
    return out


def _drop_derived(repo: store.Repo) -> None:
    """The startup digest was folded from the wrong entries: the next start builds it again."""
    from . import digests

    (store.state_dir(repo) / digests.FILE).unlink(missing_ok=True)


def save(repo: store.Repo, found: list[Disagreement]) -> None:
    data = json.dumps({"version": 1, "disagreements": [list(d) for d in found]}).encode("utf-8")
    atomic.write(store.state_dir(repo) / FILE, data)


def in_force(repo: store.Repo) -> list[Disagreement]:
    """The recorded disagreements whose day file the tip still holds as it was found."""
    try:
        raw = json.loads((store.state_dir(repo) / FILE).read_text(encoding="utf-8"))
        found = [Disagreement(*map(str, row)) for row in raw["disagreements"]]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    tip = store.tip(repo)
    if tip is None:
        return []
    return [d for d in found if store.blob_oid(repo, tip.tree, d.day_file) == d.day_blob]


def doctor_line(d: Disagreement) -> str:
    """One disagreement as doctor names it."""
    who = f"commit {d.commit[:12]} by {d.author}" if d.commit else "a commit too far back to name"
    if not d.session:
        return f"{d.day_file} would show another start than its records give ({who})"
    return f"records index {d.day_file} holds a line for {paths.WC_DIR}/{d.session} that is not its parse ({who})"
