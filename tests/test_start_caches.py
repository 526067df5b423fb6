"""SessionStart's per-machine caches of the facts and pins blocks (.git/enf/): a warm
start says byte for byte what a cold one says, parses nothing it need not, and still
prunes a lapsing fact or releases a pin on the right start."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from enf_git import memory
from enf_git.memory.lifecycle import facts, pins
from enf_git.plumbing import store, store_write
from enf_git.pure import facts as pf
from gitfixtures import Git, run_git, session_text

NOW = int(dt.datetime(2026, 4, 13, 12, 0, 0).timestamp())  # local noon
DAY = 86400


@pytest.fixture
def ctx(repo_dir: Path) -> memory.Context:
    c = memory.Context.open(repo_dir)
    memory.init(c)
    return c


@pytest.fixture
def places(tmp_path: Path) -> facts.Places:
    return facts.Places(tmp_path / "config" / "enf-git", "sess-1")


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The fact files parsed from here on."""
    seen: list[str] = []
    real = pf.parse_fact

    def counted(path: str, *args: object, **kwargs: object) -> pf.Fact:
        seen.append(path)
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pf, "parse_fact", counted)
    return seen


def block_file(ctx: memory.Context) -> Path:
    return store.state_dir(ctx.repo) / facts.BLOCK_FILE


def start(ctx: memory.Context, places: facts.Places, now: int = NOW) -> str:
    return facts.session_start_block(ctx, places.session_id, now, places.user_dir)[0]


def seed(ctx: memory.Context, places: facts.Places) -> None:
    facts.remember(ctx, places, "We chose Postgres for the ledger", now=NOW)
    facts.remember(ctx, places, "the build is slow this week", now=NOW)  # General: lapses after 14 days
    facts.remember(ctx, places, "I prefer tabs", scope="user", now=NOW)
    facts.remember(ctx, places, "gotcha: this session's branch is detached", scope="session", now=NOW)


def test_a_warm_start_parses_no_fact_and_says_what_a_cold_one_says(ctx: memory.Context, places: facts.Places,
                                                                   parses: list[str]) -> None:
    seed(ctx, places)
    cold = start(ctx, places)
    assert parses and block_file(ctx).is_file()
    parses.clear()
    warm = start(ctx, places)
    assert warm == cold and parses == []
    block_file(ctx).unlink()  # a pure accelerator: gone, the next start recomputes the same bytes
    assert start(ctx, places) == cold and parses


def test_a_fact_lapsing_is_pruned_on_its_day_with_the_cache_warm(ctx: memory.Context, places: facts.Places,
                                                                  git: Git, parses: list[str]) -> None:
    seed(ctx, places)
    assert "the build is slow" in start(ctx, places, NOW + 13 * DAY)
    parses.clear()
    assert "the build is slow" in start(ctx, places, NOW + 13 * DAY) and parses == []  # warm
    text, pruned = facts.session_start_block(ctx, places.session_id, NOW + 14 * DAY, places.user_dir)
    assert [f.text for f in pruned] == ["the build is slow this week"]
    assert "Pruned at session start (1 expired)" in text
    assert git("log", "-1", "--format=%s", "claude-memory").strip() == "enf: prune 1 fact"
    after = start(ctx, places, NOW + 14 * DAY)  # the prune is announced once
    assert "Pruned at" not in after and "the build is slow" not in after and "We chose Postgres" in after


@pytest.mark.parametrize("change", ["project", "teammate", "user", "session", "budget", "ttl"])
def test_any_change_to_what_the_block_shows_is_seen_by_the_next_start(
        ctx: memory.Context, places: facts.Places, git: Git, change: str) -> None:
    seed(ctx, places)
    warm = start(ctx, places)
    if change == "project":
        facts.remember(ctx, places, "Decided: deploys go through the queue", now=NOW)
    elif change == "teammate":  # a fact file committed elsewhere: only the branch's memories/ changed
        fact = pf.new_fact("Decided: a teammate's rule", scope="project", author="t", now=dt.datetime.now())
        store_write.commit(ctx.repo, lambda tip: {pf.fact_path(fact.id): pf.fact_bytes(fact)}, "teammate")
    elif change == "user":
        facts.remember(ctx, places, "I prefer short commit subjects", scope="user", now=NOW)
    elif change == "session":
        facts.remember(ctx, places, "gotcha: the staging DB is read-only today", scope="session", now=NOW)
    elif change == "budget":
        git("config", "enf.budget.project", "5")
    else:
        git("config", "enf.ttl.general", "1")  # the files keep their expiry: the block may stay the same
    seen = start(ctx, places)
    assert seen != warm or change == "ttl"
    block_file(ctx).unlink()
    assert start(ctx, places) == seen  # what a cold start says
    assert start(ctx, places) == seen  # and what it cached


# --- pins -------------------------------------------------------------------------------------

PINNED = "2026-03-01-auth-flow"


def worth(stem: str, n: int, summary: str = "") -> str:
    """A session worth pinning (an open item), dated by its name, with session id s<n>."""
    return session_text(session_id=f"s{n:07d}", date=stem[:10], summary=summary or f"Worked on {stem[11:]}",
                        body="## Open Items\n- [ ] rotate the signing key\n")


def put(ctx: memory.Context, stems: list[str], now: int) -> None:
    for k, stem in enumerate(stems):
        (ctx.root / "sessions" / f"{stem}.md").write_text(worth(stem, 100 + k))
    assert memory.commit(ctx, "sessions", now=now).commit is not None


def later(n: int) -> list[str]:
    return [(dt.date(2026, 4, 14) + dt.timedelta(days=k)).isoformat() + f"-later-{k}" for k in range(n)]


@pytest.fixture
def refreshes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The starts that read the branch for the pins (a cache miss)."""
    seen: list[int] = []
    real = pins.refresh

    def counted(ctx: memory.Context, now: int) -> pins.Refreshed:
        seen.append(now)
        return real(ctx, now)

    monkeypatch.setattr(pins, "refresh", counted)
    return seen


def pinned_ctx(ctx: memory.Context) -> memory.Context:
    (ctx.root / "sessions" / f"{PINNED}.md").write_text(worth(PINNED, 1, "Chose JWT"))
    (ctx.root / "sessions" / "2026-03-02-other.md").write_text(worth("2026-03-02-other", 2, "Other"))
    memory.commit(ctx, "sessions", now=NOW - DAY)
    pins.pin(ctx, PINNED, temporary=True, now=NOW)
    pins.pin(ctx, "2026-03-02-other", now=NOW)
    return ctx


def test_a_warm_pins_block_reads_nothing_and_says_what_a_cold_one_says(ctx: memory.Context,
                                                                       refreshes: list[int]) -> None:
    pinned_ctx(ctx)
    cold = pins.session_start_block(ctx, NOW)
    assert "Chose JWT" in cold and "Other" in cold and len(refreshes) == 1
    assert pins.session_start_block(ctx, NOW) == cold and len(refreshes) == 1  # warm
    (ctx.root / "sessions" / f"{PINNED}.md").unlink()  # the pointer is the working copy's, checked live
    assert f"`git enf show {PINNED}`" in pins.session_start_block(ctx, NOW) and len(refreshes) == 1
    (ctx.root / "sessions" / f"{PINNED}.md").write_text(worth(PINNED, 1, "Chose JWT"))  # back
    (store.state_dir(ctx.repo) / pins.LISTING_FILE).unlink()
    assert pins.session_start_block(ctx, NOW) == cold and len(refreshes) == 2


def test_the_pins_listing_stands_while_the_sessions_it_reads_stand(ctx: memory.Context,
                                                                   refreshes: list[int]) -> None:
    """Keyed on what it reads, not on sessions/: an older session changing (a compression,
    a Stop commit of another month) keeps it; a pinned session or one since the last ask does not."""
    pinned_ctx(ctx)
    cold = pins.session_start_block(ctx, NOW)
    put(ctx, ["2026-02-10-older-work"], NOW)  # sessions/ changed, but in a month before the ask
    assert pins.session_start_block(ctx, NOW) == cold and len(refreshes) == 1
    put(ctx, ["2026-03-05-same-month"], NOW)  # the pinned sessions' month folder, not their files
    assert pins.session_start_block(ctx, NOW) == cold and len(refreshes) == 1
    assert pins.session_start_block(ctx, NOW) == cold and len(refreshes) == 1
    (ctx.root / "sessions" / "2026-03-02-other.md").write_text(worth("2026-03-02-other", 2, "Other, renamed"))
    memory.commit(ctx, "a pinned session's summary", now=NOW)
    assert "Other, renamed" in pins.session_start_block(ctx, NOW) and len(refreshes) == 2
    put(ctx, later(1), NOW + DAY)  # a session after the last ask: one more toward the release
    block = pins.session_start_block(ctx, NOW + DAY)
    assert len(refreshes) == 3 and "Other, renamed" in block
    assert pins.session_start_block(ctx, NOW + DAY) == block and len(refreshes) == 3
    (store.state_dir(ctx.repo) / pins.LISTING_FILE).unlink()
    assert pins.session_start_block(ctx, NOW + DAY) == block and len(refreshes) == 4  # rebuilt: the same


def test_a_cached_pins_block_keeps_the_signature_of_a_teammates_edit(ctx: memory.Context,
                                                                      refreshes: list[int]) -> None:
    pinned_ctx(ctx)
    assert "Tea Mate" not in pins.session_start_block(ctx, NOW)
    teammate = {"GIT_AUTHOR_NAME": "Tea Mate", "GIT_AUTHOR_EMAIL": "teammate@example.invalid"}
    text = worth("2026-03-02-other", 2, "Other, by a teammate").encode()
    store_write.commit(ctx.repo, lambda tip: {"sessions/2026-03-02-other.md": text}, "teammate's edit", env=teammate)
    block = pins.session_start_block(ctx, NOW)
    assert "Other, by a teammate — Tea Mate, " in block and len(refreshes) == 2
    assert pins.session_start_block(ctx, NOW) == block and len(refreshes) == 2  # cached, signed


def test_a_pins_listing_that_says_other_reads_is_not_trusted(ctx: memory.Context, refreshes: list[int]) -> None:
    """A listing whose recorded reads no longer match the branch (an older enf-git's file,
    a hand edit) is recomputed, never shown."""
    import json

    pinned_ctx(ctx)
    cold = pins.session_start_block(ctx, NOW)
    path = store.state_dir(ctx.repo) / pins.LISTING_FILE
    raw = json.loads(path.read_text())
    raw["statuses"][0]["summary"] = "a summary no record holds"
    raw["reads"]["pinned"][f"sessions/{PINNED}.md"] = ["0" * 40, "0" * 40]  # another month folder, another blob
    path.write_text(json.dumps(raw))
    assert pins.session_start_block(ctx, NOW) == cold and len(refreshes) == 2


def test_a_pin_due_for_release_is_released_on_its_start_with_the_cache_warm(ctx: memory.Context, git: Git,
                                                                            refreshes: list[int]) -> None:
    pinned_ctx(ctx)
    stems = later(10)
    put(ctx, stems[:9], NOW + 9 * DAY)
    first = pins.session_start_block(ctx, NOW + 10 * DAY)
    assert "temporary priority" in first and "Released" not in first
    assert pins.session_start_block(ctx, NOW + 10 * DAY) == first and len(refreshes) == 1  # warm: nine, kept
    put(ctx, stems[9:], NOW + 10 * DAY)
    block = pins.session_start_block(ctx, NOW + 11 * DAY)
    assert f"back to their normal tier): {PINNED}" in block
    assert git("log", "-1", "--format=%s", "claude-memory").strip() == f"unpin(released): {PINNED}"
    again = pins.session_start_block(ctx, NOW + 12 * DAY)  # said once
    assert "Released" not in again and PINNED not in again and "Other" in again


def test_an_ask_noted_on_this_machine_is_folded_in_with_the_cache_warm(ctx: memory.Context, git: Git,
                                                                        refreshes: list[int]) -> None:
    pinned_ctx(ctx)
    pins.session_start_block(ctx, NOW)
    assert pins.note_asked(ctx, [f"sessions/{PINNED}.md"], now=NOW + DAY) == [PINNED]
    block = pins.session_start_block(ctx, NOW + DAY)
    assert len(refreshes) == 2 and f"last asked {pins.stamp_of(NOW + DAY)}" in block
    assert git("log", "-1", "--format=%s", "claude-memory").strip() == f"pin(asked): {PINNED}"
    assert pins.session_start_block(ctx, NOW + DAY) == block and len(refreshes) == 3  # then cached again
    assert pins.session_start_block(ctx, NOW + DAY) == block and len(refreshes) == 3


# --- the whole context, through the hook ---------------------------------------------------------

def test_a_warm_hook_start_injects_the_bytes_a_cold_one_does(repo_dir: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from test_session_start_lifecycle import context, enf

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))  # user facts: never the real home
    monkeypatch.delenv("CLAUDE_CODE_SESSION_ID", raising=False)
    enf(repo_dir, "init", "--no-hooks")
    folder = repo_dir / ".claude-sessions" / "sessions"
    for k, stem in enumerate(["2026-03-01-auth-flow", "2026-03-02-billing"]):
        (folder / f"{stem}.md").write_text(worth(stem, k + 1, f"Summary {k}"))
    enf(repo_dir, "commit")
    enf(repo_dir, "pin", "2026-03-01-auth-flow")
    enf(repo_dir, "pin", "--temporary", "2026-03-02-billing")
    enf(repo_dir, "remember", "We always run the linter before pushing")
    enf(repo_dir, "remember", "--scope", "user", "I prefer short commit subjects")
    first = context(repo_dir)
    assert "linter" in first and "short commit subjects" in first and "Summary 1" in first
    warm = context(repo_dir)
    state = Path(run_git(repo_dir, "rev-parse", "--git-common-dir").strip())
    state = (state if state.is_absolute() else repo_dir / state) / "enf"
    assert (state / facts.BLOCK_FILE).is_file() and (state / pins.LISTING_FILE).is_file()
    (state / facts.BLOCK_FILE).unlink()
    (state / pins.LISTING_FILE).unlink()
    assert context(repo_dir) == warm == first


def test_the_background_refresh_keeps_the_stats_of_files_just_written(
        repo_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A clone's working set, written by init, is racily clean: the first commit would
    hash every file. The refresh hashes them once, under the lock, and keeps their stats."""
    import time

    from enf_git.memory.context import pointer_refresh
    from enf_git.plumbing import workcopy

    ctx = memory.Context.open(repo_dir)
    memory.init(ctx)
    for i in range(5):
        (ctx.root / "sessions" / f"2026-04-1{i}-s{i}.md").write_text(session_text(session_id=f"{i}" * 8))
    memory.commit(ctx, "five")
    for f in (ctx.root / "sessions").iterdir():  # written anew, the same bytes, as a clone's init writes them
        f.write_bytes(f.read_bytes())
    manifest = ctx.manifest()
    manifest.record(ctx.root, "sessions/2026-04-10-s0.md", manifest.files["sessions/2026-04-10-s0.md"])
    manifest.save(ctx.manifest_path)
    assert "sessions/2026-04-10-s0.md" not in ctx.manifest().stats  # just written: not trusted
    time.sleep(workcopy.RACY_NS / 1e9 + 0.05)  # out of the racy window, as a refresh runs seconds later
    pointer_refresh._refresh_stats(ctx)
    assert "sessions/2026-04-10-s0.md" in ctx.manifest().stats
    hashed: list[int] = []
    real = store.hash_bytes
    monkeypatch.setattr(store, "hash_bytes", lambda data: hashed.append(len(data)) or real(data))
    assert memory.commit(ctx, "nothing new").commit is None
    assert hashed == []  # the next commit reads no file again


def test_the_refresh_leaves_the_stats_alone_while_a_commit_holds_the_lock(repo_dir: Path) -> None:
    from enf_git.memory.context import pointer_refresh
    from enf_git.memory import workspace
    from enf_git.plumbing import locks

    ctx = memory.Context.open(repo_dir)
    memory.init(ctx)
    (ctx.root / "sessions" / "2026-04-10-s0.md").write_text(session_text(session_id="0" * 8))
    memory.commit(ctx, "one")
    import time

    from enf_git.plumbing import workcopy

    time.sleep(workcopy.RACY_NS / 1e9 + 0.05)  # a refresh that ran would record the new file's stat now
    before = ctx.manifest_path.read_bytes()
    lock = ctx.manifest_path.with_name(workspace.paths.WORKTREE_LOCK)
    with locks.file_lock(lock, wait=0) as held:
        assert held
        mp = pytest.MonkeyPatch()
        mp.setattr(workspace, "WORKTREE_LOCK_WAIT", 0.0)
        try:
            pointer_refresh._refresh_stats(ctx)
        finally:
            mp.undo()
    assert ctx.manifest_path.read_bytes() == before
