"""Compression's ranking by month folder (compress_folders.py), on real repositories.

A run opens a month folder only when its walk reaches it or its tree changed since the
last run; the order is still the frontmatter date's, the current session is still found
in a folder left unopened, and what is compressed is what ranking every session gave.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from enf_git import memory
from enf_git.memory.lifecycle import compress, compress_folders
from enf_git.plumbing import store
from gitfixtures import Git
from test_compress import AS_OF, COLD, HOT, NOW, WARM, dated, full, put

OLD = ["2025-05-03-old-may", "2025-06-04-old-june", "2025-07-05-old-july"]


@pytest.fixture
def ctx(repo_dir: Path) -> memory.Context:
    c = memory.Context.open(repo_dir)
    memory.init(c, now=NOW - 86400 * 400)
    return c


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The month folders each run lists, in order."""
    seen: list[str] = []
    real = store.month_sessions

    def listed(repo: store.Repo, tree: store.Tree | None, folder: str) -> list[tuple[str, str, str]]:
        seen.append(folder)
        return real(repo, tree, folder)

    monkeypatch.setattr(store, "month_sessions", listed)
    return seen


def stems(done: compress.Compression) -> list[str]:
    return [s.stem for s in done.done]


def test_a_run_opens_only_the_folders_it_reaches_and_those_that_changed(
        ctx: memory.Context, git: Git, opened: list[str]) -> None:
    dated(ctx)
    put(ctx, {stem: full(stem) for stem in OLD})
    assert stems(compress.compress(ctx, AS_OF, tier="cold", now=NOW)) == [*OLD, *COLD]
    assert len(set(opened)) == 7  # the first run: every month
    compress.compress(ctx, AS_OF, tier="cold", now=NOW)  # the folders it compressed in changed: once more
    opened.clear()
    assert stems(compress.compress(ctx, AS_OF, tier="cold", now=NOW)) == []
    assert set(opened) <= {"2026/03", "2026/04"}  # the five all-cold months are not even listed
    opened.clear()
    put(ctx, {"2025-06-20-late-june": full("2025-06-20-late-june")})  # 2025/06's tree changes
    assert stems(compress.compress(ctx, AS_OF, tier="cold", limit=1, now=NOW)) == ["2025-06-20-late-june"]
    assert "2025/06" in opened and "2025/05" not in opened
    assert "tier: cold" in git("show", "claude-memory:sessions/2025/06/2025-06-20-late-june.md")


def test_a_folder_is_ranked_by_its_frontmatter_dates_when_it_is_not_opened(
        ctx: memory.Context, opened: list[str]) -> None:
    dated(ctx)
    older = full("2026-04-09-misnamed").replace("date: 2026-04-09", "date: 2025-12-01")  # the oldest, in April
    newer = full("2025-11-01-renamed").replace("date: 2025-11-01", "date: 2026-04-13")  # the newest, in 2025/11
    put(ctx, {"2026-04-09-misnamed": older, "2025-11-01-renamed": newer})
    assert compress.compress(ctx, AS_OF, dry_run=True).done  # every folder's bounds, remembered
    put(ctx, {"2026-02-21-unrelated": full("2026-02-21-unrelated")})  # one other folder changes
    opened.clear()
    assert stems(compress.compress(ctx, AS_OF, tier="cold", limit=1, now=NOW)) == ["2026-04-09-misnamed"]
    assert "2026/01" not in opened  # its oldest is younger than the misnamed one: not reached
    warm = stems(compress.compress(ctx, AS_OF, tier="warm", dry_run=True))
    assert "2025-11-01-renamed" not in warm  # hot by its date, in a folder of 2025
    assert HOT[0] in warm  # pushed out of the hot three by it


def test_the_order_is_the_same_as_ranking_every_session(ctx: memory.Context) -> None:
    dated(ctx)
    put(ctx, {stem: full(stem) for stem in OLD})
    put(ctx, {"2026-03-02-early": full("2026-03-02-early").replace("date: 2026-03-02", "date: 2025-06-01")})
    first = stems(compress.compress(ctx, AS_OF, dry_run=True))
    assert first == [OLD[0], "2026-03-02-early", OLD[1], OLD[2], *COLD, *WARM]  # cold first, oldest first, by date
    every = [*OLD, "2026-03-02-early", *COLD, *WARM, *HOT]
    assert stems(compress.compress(ctx, AS_OF, names=every, dry_run=True)) == first  # ranked all at once: the same
    assert stems(compress.compress(ctx, AS_OF, dry_run=True)) == first  # from the remembered bounds
    state = store.state_dir(ctx.repo)
    (state / compress_folders.SUMMARY_FILE).unlink()
    assert stems(compress.compress(ctx, AS_OF, dry_run=True)) == first  # a cache: the same without it
    assert stems(compress.compress(ctx, AS_OF, tier="warm", dry_run=True)) == WARM


def test_the_current_session_is_found_in_a_folder_left_unopened(ctx: memory.Context, opened: list[str]) -> None:
    dated(ctx)
    put(ctx, {stem: full(stem) for stem in OLD})
    compress.compress(ctx, AS_OF, tier="cold", now=NOW)
    compress.compress(ctx, AS_OF, tier="cold", now=NOW)  # every folder's bounds as they are now
    resumed = full(WARM[0]).split("session_id: ")[1].split("\n")[0]  # an older session, resumed
    opened.clear()
    done = compress.compress(ctx, AS_OF, tier="warm", current=resumed, dry_run=True)
    assert done.current_named and WARM[0] not in stems(done)  # it is current: kept whole
    assert stems(done) == [WARM[1]]
    opened.clear()
    new = compress.compress(ctx, AS_OF, tier="warm", current="feedface", dry_run=True)
    assert not new.current_named and stems(new) == WARM  # a new session's id: on no file
    assert set(opened) <= {"2026/03", "2026/04"}  # and no all-cold folder opened to learn that
    old_id = full(OLD[0]).split("session_id: ")[1].split("\n")[0]
    assert compress.compress(ctx, AS_OF, current=old_id, dry_run=True).current_named  # in an unopened folder


def _forget_rankings(ctx: memory.Context) -> None:
    """As on a fresh clone: no month folder's bounds or facts known on this machine."""
    import shutil

    state = store.state_dir(ctx.repo)
    for name in (compress_folders.SUMMARY_FILE, compress.CACHE_FILE, compress.IDLE_FILE):
        (state / name).unlink(missing_ok=True)
    shutil.rmtree(state / compress_folders.MONTHS_DIR, ignore_errors=True)


def test_a_start_leaves_a_ranking_past_its_budget_to_the_background_refresh(
        ctx: memory.Context, git: Git, monkeypatch: pytest.MonkeyPatch, opened: list[str]) -> None:
    dated(ctx)
    put(ctx, {stem: full(stem) for stem in OLD})
    _forget_rankings(ctx)
    monkeypatch.setattr(compress, "START_BUDGET", 4)  # 10 sessions to work out: past it
    tip = git("rev-parse", "claude-memory")
    deferred = compress.scheduled(ctx, NOW)
    assert deferred.done == [] and deferred.error == "" and deferred.until is None
    assert git("rev-parse", "claude-memory") == tip  # nothing compressed, nothing committed
    state = store.state_dir(ctx.repo)
    assert compress_folders.ranking_deferred(state)
    assert not (state / compress_folders.SUMMARY_FILE).exists()  # nothing worked out: no folder opened
    assert not (state / compress.IDLE_FILE).exists()  # "nothing due" is not what it found
    from enf_git.memory.context import pointer_refresh

    pointer_refresh.run(str(ctx.top))  # the background refresh the start begins
    assert not compress_folders.ranking_deferred(state)
    assert (state / compress_folders.SUMMARY_FILE).exists()
    assert git("rev-parse", "claude-memory") == tip  # the refresh only ranks
    done = compress.scheduled(ctx, NOW)  # the next start: every folder's bounds known, within budget
    assert stems(done) == [*OLD, *COLD]
    assert "tier: cold" in git("show", f"claude-memory:sessions/2025/05/{OLD[0]}.md")


def test_a_start_within_its_budget_ranks_and_compresses_at_once(
        ctx: memory.Context, monkeypatch: pytest.MonkeyPatch) -> None:
    dated(ctx)
    put(ctx, {stem: full(stem) for stem in OLD})
    _forget_rankings(ctx)
    monkeypatch.setattr(compress, "START_BUDGET", 10)  # exactly the 10 sessions on the branch
    assert stems(compress.scheduled(ctx, NOW)) == [*OLD, *COLD]
    assert not compress_folders.ranking_deferred(store.state_dir(ctx.repo))


def test_a_deferred_ranking_starts_the_background_refresh(ctx: memory.Context, monkeypatch: pytest.MonkeyPatch) -> None:
    from enf_git.memory.context import pointer_refresh
    from enf_git.plumbing import detached

    started: list[str] = []
    monkeypatch.setattr(detached, "start", lambda job, top: started.append(job))
    monkeypatch.setattr(pointer_refresh, "brain_first_on", lambda repo: False)  # pointers are not why
    assert not pointer_refresh.start(ctx)
    (store.state_dir(ctx.repo) / compress_folders.DEFERRED_MARK).touch()
    assert pointer_refresh.start(ctx) and started == ["background-index"]
