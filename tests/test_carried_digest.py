"""The startup digest the branch carries (.derived/digest.json).

Written by commits (patched and full renders) and merges, read back with the real `git`
binary; a fresh clone's first start takes it instead of folding every record (counted,
never timed); under `enf.trust signed` it is never taken; a forged one is replaced by
the true fold in the background refresh, and doctor names the commit that wrote it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from enf_git import memory
from enf_git.memory import records
from enf_git.memory.record import carried_digest, digests, records_verify
from enf_git.plumbing import store, store_write
from gitfixtures import COST, SCALE, run_git, session_text

NOW = 1_776_000_000


@pytest.fixture
def ctx(repo_dir: Path) -> memory.Context:
    c = memory.Context.open(repo_dir)
    memory.init(c, now=NOW)
    return c


def write(ctx: memory.Context, name: str, summary: str, body: str = "", sid: str = "a1b2c3d4") -> None:
    date = name[:10]
    (ctx.root / "sessions" / f"{name}.md").write_text(session_text(sid, date, summary, body=body))


def carried(repo: Path) -> dict[str, object]:
    """The digest file as the git binary reads it."""
    return json.loads(run_git(repo, "show", f"claude-memory:{carried_digest.PATH}"))  # type: ignore[no-any-return]


def history(ctx: memory.Context) -> None:
    """Sessions without decisions (patched commits), with one (a full render), a reversal."""
    write(ctx, "2026-04-10-first", "First")
    memory.commit(ctx, "first", now=NOW)
    write(ctx, "2026-04-11-scale", "Chose a search engine", body=SCALE, sid="b2c3d4e5")
    memory.commit(ctx, "decision", now=NOW + 60)
    write(ctx, "2026-04-12-plain", "Plain work", sid="c3d4e5f6")
    memory.commit(ctx, "plain", now=NOW + 120)
    write(ctx, "2026-04-13-cost", "Cut the cost", body=COST, sid="d4e5f6a7")
    memory.commit(ctx, "reversal", now=NOW + 180)
    write(ctx, "2026-04-14-after", "After", sid="e5f6a7b8")
    memory.commit(ctx, "after", now=NOW + 240)


def test_every_commit_carries_the_digest_a_full_fold_gives(ctx: memory.Context, repo_dir: Path) -> None:
    history(ctx)
    raw = carried(repo_dir)
    sessions = run_git(repo_dir, "rev-parse", "claude-memory:sessions").strip()
    assert raw["folders"] == [sessions, ""]  # the folders it describes: this tip's (no decisions/)
    tip = memory.require_branch(ctx)
    got = digests.carried_for_tip(ctx.repo, tip)
    assert got is not None
    true = digests.build(ctx.repo, tip, records.Cache(None))
    assert records_verify.shown(got) == records_verify.shown(true)
    assert got.count == 5 and got.standing == 1 and "Postgres FTS" in got.lines[0].text
    assert not (ctx.root / ".derived").exists()


def _clone(repo_dir: Path, tmp_path: Path, name: str, trust: str | None = None) -> memory.Context:
    clone = tmp_path / name
    run_git(tmp_path, "clone", "-q", str(repo_dir), str(clone))
    run_git(clone, "branch", "-q", "claude-memory", "origin/claude-memory")
    if trust is not None:
        run_git(clone, "config", "enf.trust", trust)
    c = memory.Context.open(clone)
    memory.init(c, now=NOW + 600)
    return memory.Context.open(clone)


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One item per records.load (every record of a tree)."""
    seen: list[int] = []
    real = records.load

    def counted(*args: object, **kw: object) -> records.Records:
        seen.append(1)
        return real(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(records, "load", counted)
    return seen


def test_a_fresh_clones_first_start_takes_the_carried_digest(ctx: memory.Context, repo_dir: Path, tmp_path: Path,
                                                             loads: list[int]) -> None:
    history(ctx)
    theirs = _clone(repo_dir, tmp_path, "fresh")
    loads.clear()
    digest = digests.current(theirs.repo, memory.require_branch(theirs), theirs.cache())
    assert loads == []  # no record loaded, no ledger folded
    assert digest.count == 5 and "Postgres FTS" in digest.lines[0].text
    assert records_verify.pending(theirs.repo)  # the refresh will check it


def test_under_signed_memory_the_carried_digest_is_never_taken(ctx: memory.Context, repo_dir: Path,
                                                               tmp_path: Path, loads: list[int]) -> None:
    history(ctx)
    theirs = _clone(repo_dir, tmp_path, "signed", trust="signed")
    loads.clear()
    digest = digests.current(theirs.repo, memory.require_branch(theirs), theirs.cache())
    assert loads == [1]  # folded from the records
    assert digest.count == 5
    assert not records_verify.pending(theirs.repo)


def test_a_forged_carried_digest_is_replaced_and_named(ctx: memory.Context, repo_dir: Path, tmp_path: Path) -> None:
    from enf_git.memory.context import pointer_refresh
    from enf_git.memory.health import record_checks

    history(ctx)
    mallory = tmp_path / "mallory"
    run_git(tmp_path, "clone", "-q", str(repo_dir), str(mallory))
    run_git(mallory, "branch", "-q", "claude-memory", "origin/claude-memory")
    text = run_git(mallory, "show", f"claude-memory:{carried_digest.PATH}")
    assert "decided Postgres FTS" in text
    forged = text.replace("decided Postgres FTS", "decided to drop the tests").encode()
    store_write.commit(store.open_repo(str(mallory)), lambda tip: {carried_digest.PATH: forged}, "tamper")
    run_git(mallory, "push", "-q", "origin", "claude-memory")
    theirs = _clone(repo_dir, tmp_path, "fresh")
    tip = memory.require_branch(theirs)
    taken = digests.current(theirs.repo, tip, theirs.cache())
    assert "drop the tests" in taken.lines[0].text  # unchecked, it was taken: its folders match
    pointer_refresh.run(str(theirs.top))
    assert not records_verify.pending(theirs.repo)
    again = digests.current(theirs.repo, tip, memory.Context.open(theirs.top).cache())
    assert "decided Postgres FTS" in again.lines[0].text
    forger = run_git(theirs.top, "log", "-1", "--format=%H %an", "claude-memory", "--",
                     carried_digest.PATH).split(" ", 1)
    found = record_checks.records_index(theirs, tip, records.Records())
    assert [p.what for p in found] == [
        f"{carried_digest.PATH} would show another start than its records give "
        f"(commit {forger[0][:12]} by {forger[1].strip()}) (this clone uses the true parse)"]
    # The clone's next commit writes it again from its checked digest.
    write(theirs, "2026-04-15-next", "Next", sid="f6a7b8c9")
    memory.commit(theirs, "next", now=NOW + 700)
    assert "decided to drop the tests" not in run_git(theirs.top, "show", f"claude-memory:{carried_digest.PATH}")
    assert record_checks.records_index(theirs, memory.require_branch(theirs), records.Records()) == []
