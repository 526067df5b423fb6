"""Compression's ranking facts from the records cache, and what must never fool it.

A fresh clone's first SessionStart has no tiers.json: the ranking takes each session's
tier, Interactions count and frontmatter from records.json's entries (which init's full
render leaves), without reading the blobs. Each test compares against the answer of a
ranking with no cache at all, on a real branch.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from enf_git import memory
from enf_git.memory.lifecycle import compress, compress_folders
from enf_git.memory import records
from enf_git.plumbing import store, store_write
from enf_git.pure import tiers
from gitfixtures import Git
from test_compress import AS_OF, COLD, HOT, NOW, WARM, dated, full, put


@pytest.fixture
def ctx(repo_dir: Path) -> memory.Context:
    c = memory.Context.open(repo_dir)
    memory.init(c, now=NOW - 86400 * 200)
    return c


@pytest.fixture
def via_records(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every miss of tiers.json goes to the records cache (as past DIRECT_PARSES at 10,000
    sessions); returns the paths whose blob `tiers.facts_of` had to read."""
    monkeypatch.setattr(compress, "DIRECT_PARSES", 0)
    read: list[str] = []
    real = tiers.facts_of

    def counted(data: bytes) -> tuple[str, int]:
        read.append(data.split(b"\n", 2)[1].decode())
        return real(data)

    monkeypatch.setattr(tiers, "facts_of", counted)
    return read


def fresh(ctx: memory.Context) -> memory.Context:
    """A new Context (no records cache in memory) without tiers.json, compress-idle.json or
    the month folders' facts (a fresh clone has none of them)."""
    state = store.state_dir(ctx.repo)
    for name in (compress.CACHE_FILE, compress.IDLE_FILE, compress_folders.SUMMARY_FILE):
        (state / name).unlink(missing_ok=True)
    shutil.rmtree(state / compress_folders.MONTHS_DIR, ignore_errors=True)
    return memory.Context.open(ctx.top)


def full_render(ctx: memory.Context) -> None:
    """What init's render leaves: records.json holding every record of the tip."""
    cache = memory.Context.open(ctx.top).cache()
    records.load(ctx.repo, memory.require_branch(ctx).tree, cache)
    cache.save()


def due(ctx: memory.Context) -> list[tuple[str, str]]:
    return [(s.tier, s.stem) for s in compress.compress(ctx, AS_OF, dry_run=True, now=NOW).done]


def no_cache_answer(ctx: memory.Context) -> list[tuple[str, str]]:
    """The ranking with neither tiers.json nor records.json: every blob read."""
    (store.state_dir(ctx.repo) / "records.json").unlink(missing_ok=True)
    return due(fresh(ctx))


def test_a_first_ranking_takes_the_facts_from_the_records_cache_reading_no_blob(
        ctx: memory.Context, via_records: list[str]) -> None:
    dated(ctx)
    truth = no_cache_answer(ctx)
    assert truth == [("cold", c) for c in COLD] + [("warm", w) for w in WARM]
    full_render(ctx)
    via_records.clear()
    assert due(fresh(ctx)) == truth
    assert via_records == []


def test_facts_from_another_facts_version_are_not_trusted(ctx: memory.Context, via_records: list[str]) -> None:
    dated(ctx)
    truth = no_cache_answer(ctx)
    full_render(ctx)
    path = store.state_dir(ctx.repo) / "records.json"
    raw = json.loads(path.read_text())
    for entry in raw["entries"].values():
        if records.TIER_FACTS in entry:  # claims every session is cold already, from another version
            entry[records.TIER_FACTS] = ["0", "cold", 0]
    path.write_text(json.dumps(raw))
    via_records.clear()
    assert due(fresh(ctx)) == truth
    assert len(via_records) == len(COLD + WARM + HOT)  # each blob read again


def test_an_entry_written_before_the_cache_kept_tier_facts_reads_the_blob(
        ctx: memory.Context, via_records: list[str]) -> None:
    dated(ctx)
    truth = no_cache_answer(ctx)
    full_render(ctx)
    path = store.state_dir(ctx.repo) / "records.json"
    raw = json.loads(path.read_text())
    for entry in raw["entries"].values():
        entry.pop(records.TIER_FACTS, None)
    path.write_text(json.dumps(raw))
    via_records.clear()
    assert due(fresh(ctx)) == truth
    assert len(via_records) == len(COLD + WARM + HOT)


def test_a_session_a_teammate_compressed_is_not_due_again(ctx: memory.Context, git: Git,
                                                         via_records: list[str]) -> None:
    texts = dated(ctx)
    full_render(ctx)
    assert due(fresh(ctx))[0] == ("cold", COLD[0])  # tiers.json and records.json know the full text
    path = f"sessions/{COLD[0]}.md"
    store_write.commit(ctx.repo, lambda _tip: {path: tiers.compress(path, texts[COLD[0]].encode(), "cold")},
                 "compress(cold): a teammate's, merged")
    again = compress.compress(memory.Context.open(ctx.top), AS_OF, dry_run=True, now=NOW)
    assert [(s.tier, s.stem) for s in again.done] == [("cold", COLD[1])] + [("warm", w) for w in WARM]
    assert git("show", f"claude-memory:{path}").count("tier: cold") == 1


def test_a_session_put_back_uncompressed_is_due_again(ctx: memory.Context, via_records: list[str]) -> None:
    texts = dated(ctx)
    compress.compress(ctx, AS_OF, tier="cold", now=NOW)  # both cold ones, each its commit
    full_render(ctx)
    assert due(fresh(ctx)) == [("warm", w) for w in WARM]
    path = f"sessions/{COLD[0]}.md"
    store_write.commit(ctx.repo, lambda _tip: {path: texts[COLD[0]].encode()}, "a teammate restores the full text")
    assert due(memory.Context.open(ctx.top)) == [("cold", COLD[0])] + [("warm", w) for w in WARM]


def test_a_long_hot_session_still_folds_by_the_count_the_records_cache_keeps(
        ctx: memory.Context, via_records: list[str]) -> None:
    entries = "".join(f"### [09:{i:02d}] User -> step {i}\n**Claude ->** did step {i}\n\n" for i in range(24))
    texts = {h: full(h) for h in HOT}
    texts[HOT[0]] = texts[HOT[0]].replace("## Interactions\n", "## Interactions\n" + entries, 1)
    put(ctx, texts)
    full_render(ctx)
    via_records.clear()
    assert due(fresh(ctx)) == [("fold", HOT[0])]
    assert via_records == []


def test_a_tiers_json_from_an_older_version_is_not_trusted(ctx: memory.Context) -> None:
    dated(ctx)
    truth = no_cache_answer(ctx)
    tip = memory.require_branch(ctx)
    oids = [oid for _name, oid, _kind in store.folder_entries(ctx.repo, tip.tree, "sessions")]
    old = {"version": f"{tiers.VERSION}.{records.CACHE_VERSION}",  # the format before the facts version
           "entries": {oid: ["cold", 0, "2020-01-01", "", "completed", "x"] for oid in oids}, "skips": {}}
    assert old["version"] != compress._cache_version()
    (store.state_dir(ctx.repo) / compress.CACHE_FILE).write_text(json.dumps(old))
    assert due(memory.Context.open(ctx.top)) == truth


def test_facts_of_counts_interactions_of_full_text_only() -> None:
    text = full(COLD[0]).encode()
    assert tiers.facts_of(text) == ("", 2)
    cold = tiers.compress(f"sessions/{COLD[0]}.md", text, "cold")
    assert tiers.facts_of(cold) == ("cold", 0)  # never read: only a full-text hot session folds
    assert tiers.due_tier(tiers.Verdict("hot"), "cold", 99) == ""


def test_the_scheduled_start_gives_the_same_answer_with_or_without_the_caches(ctx: memory.Context) -> None:
    dated(ctx)
    truth = no_cache_answer(ctx)
    full_render(ctx)
    done = compress.scheduled(fresh(ctx), NOW)
    assert [(s.tier, s.stem) for s in done.done] == [t for t in truth if t[0] == "cold"]
