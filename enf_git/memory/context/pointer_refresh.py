"""The background refresh of the brain-first pointers file (plumbing/pointers.py).

Started, detached, after SessionStart, after Stop, and by `git enf init` when it adopts
a branch that already holds memory (so that a clone's first prompt has pointers): a
full build costs seconds at 10,000 sessions, which no hook can wait for.
"""

from __future__ import annotations


from ... import paths
from ...errors import EnfError
from ...plumbing import detached, locks, store
from ..lifecycle import pins
from . import pointer_state
from ..workspace import Context

BRAIN_FIRST_KEY = "enf.brainFirst"
_FALSE = ("false", "no", "off", "0", "")


def brain_first_on(repo: store.Repo) -> bool:
    raw = store.config_value(repo, BRAIN_FIRST_KEY)
    return raw is None or raw.strip().lower() not in _FALSE


def start(ctx: Context) -> bool:
    """Start the refresh when the pointers file is stale (and brain-first on), records.json
    holds records index entries not checked yet, a start left compression's ranking to it,
    or this process was handed a partial authors table, unless one is running (it looks again
    when done); True if started."""
    from ..record import records_verify

    from ..lifecycle.compress_folders import ranking_deferred
    from ..record import authors

    wanted = brain_first_on(ctx.repo) and pointer_state.pointers_stale(ctx.repo)
    due = records_verify.pending(ctx.repo) or ranking_deferred(store.state_dir(ctx.repo)) or authors.provisional()
    if not (wanted or due) or _running(ctx):
        return False
    detached.start("background-index", str(ctx.top))
    return True


def _running(ctx: Context) -> bool:
    """Whether another process holds the refresh's lock (a new one would only queue behind it)."""
    with locks.file_lock(store.state_dir(ctx.repo) / paths.POINTERS_LOCK, wait=0) as free:
        return not free


def run(top: str) -> int | None:
    """The detached process: the records index's entries checked (record/records_verify.py),
    then the recall index and the pointers file brought to the tip."""
    from . import indexer  # sqlite and the index builder: the detached process only

    from ...plumbing import pointer_build, pointers

    ctx = Context.open(top)
    from ..record import records_verify

    _authors(ctx)  # first: a start hands out "author not known yet" until it is done
    _refresh_stats(ctx)
    # Then: the recall index and pointers below are built from these entries.
    cache = ctx.cache()
    if records_verify.verify(ctx.repo, cache) is None:
        return None  # the check goes on in the next refresh, before anything is built from them
    records_verify.check_digest(ctx.repo, cache)
    _warm_ranking(ctx)
    if not brain_first_on(ctx.repo):
        return None
    withheld = _withheld(ctx)
    path = str(pointer_state.pointers_path(ctx.repo))
    built = pointers.load(path)
    if built is not None and built.header.get("wh", 0) != pointer_build.withheld_digest(withheld):
        pointers.discard(path)  # enf.trust now withholds other records: the next refresh writes a full file
    return indexer.refresh_pointers(ctx.repo, cache, pins.pinned(ctx.repo, store.tip(ctx.repo)), _by(ctx),
                                    withheld)


def _authors(ctx: Context) -> None:
    """Who last changed each record, brought to the tip: a fresh clone's first walk of the
    whole history (~30 s at 100,000 commits) is done here, not in a hook."""
    from ..record import authors

    authors.bound_walks(None)  # this process has time: the whole history if need be
    try:
        authors.load(ctx)
    except (EnfError, OSError):
        pass


def _refresh_stats(ctx: Context) -> None:
    """The working copy's file stats, recorded for the files found unchanged (what
    `git update-index --refresh` does for git's index). Files written a moment before,
    as `git enf init` writes a clone's working set, are "racily clean": their stat is not
    trusted, so the next commit hashes every one of them (~0.25 s for 700 files, in a
    fresh clone's first SessionStart). Here, under the working copy's lock, they are
    hashed once and their stats kept; without the lock nothing is done."""
    from ..record.commits import pending

    try:
        with ctx.lock() as held:
            if held:
                pending(ctx)
    except (EnfError, OSError):
        pass


def _warm_ranking(ctx: Context) -> None:
    """Compression's ranking, when a start left it here (a fresh clone: seconds at
    100,000 sessions); a failure leaves it to the next start, which defers again."""
    from ..lifecycle import compress

    try:
        compress.warm(ctx)
    except (EnfError, OSError):
        pass


def _withheld(ctx: Context) -> frozenset[str] | None:
    """The records enf.trust keeps from the model (None under `all`): the pointers leave them out."""
    from ..record import trust

    gate = trust.shown_gate(ctx)
    if not gate.rules.gates:
        return None
    return frozenset(gate.withheld([path for path, _ in gate.table.all()]))


def _by(ctx: Context) -> dict[str, str]:
    """Whose each teammate's record is, for the pointers to name them; {} when unknown."""
    from ..record import authors

    try:
        table = authors.load(ctx)
    except (EnfError, OSError):
        return {}
    return {path: who for path, _ in table.all() if (who := table.by(path))}
