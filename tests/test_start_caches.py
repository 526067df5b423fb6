"""SessionStart's per-machine caches of the facts and pins blocks (.git/enf/): a warm
start says byte for byte what a cold one says, parses nothing it need not, and still
prunes a lapsing fact or releases a pin on the right start."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from enf_git import memory
from enf_git.memory import facts
from enf_git.plumbing import store
from enf_git.pure import facts as pf
from gitfixtures import Git

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
        store.commit(ctx.repo, lambda tip: {pf.fact_path(fact.id): pf.fact_bytes(fact)}, "teammate")
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
