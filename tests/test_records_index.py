"""The records index the branch carries (.derived/records/YYYY/MM/DD.jsonl).

Written by commits and merges (read back with the real `git` binary), never trusted
over the records: a tampered, stale or missing day file neither hides nor invents a
session, and a fresh clone takes its records from it instead of parsing every blob
(counted, never timed).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from enf_git import memory
from enf_git.memory import records
from enf_git.memory.record import records_index
from enf_git.memory.share import sync_merge
from enf_git.plumbing import record_index, store, store_write
from gitfixtures import run_git, session_text

NOW = 1_776_000_000
DAY = ".derived/records/2026/04/13.jsonl"


@pytest.fixture
def ctx(repo_dir: Path) -> memory.Context:
    c = memory.Context.open(repo_dir)
    memory.init(c, now=NOW)
    return c


def write(ctx: memory.Context, name: str, summary: str, date: str = "2026-04-13", sid: str = "a1b2c3d4") -> None:
    (ctx.root / "sessions" / f"{name}.md").write_text(session_text(sid, date, summary))


def day_lines(repo: Path, rev: str = "claude-memory", day: str = DAY) -> dict[str, tuple[str, dict[str, object]]]:
    """name -> (blob id, entry) of a day file, as the git binary reads it."""
    text = run_git(repo, "show", f"{rev}:{day}")
    head, *lines = text.splitlines()
    assert head.startswith("# enf-git records index ")
    return {n: (o, json.loads(e)) for n, o, e in (line.split(" ", 2) for line in lines)}


def blob_of(repo: Path, name: str, rev: str = "claude-memory") -> str:
    month = f"{name[:4]}/{name[5:7]}"
    return run_git(repo, "rev-parse", f"{rev}:sessions/{month}/{name}.md").strip()


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths records.parse_blob is asked to parse."""
    seen: list[str] = []
    real = records.parse_blob

    def counted(path: str, data: bytes) -> object:
        seen.append(path)
        return real(path, data)

    monkeypatch.setattr(records, "parse_blob", counted)
    return seen


def test_a_commit_writes_the_day_file_of_the_sessions_it_changes(ctx: memory.Context, repo_dir: Path) -> None:
    write(ctx, "2026-04-13-search", "Added search")
    write(ctx, "2026-04-13-auth", "Added auth", sid="b2c3d4e5")
    memory.commit(ctx, "two", now=NOW)
    lines = day_lines(repo_dir)
    assert sorted(lines) == ["2026-04-13-auth.md", "2026-04-13-search.md"]
    oid, entry = lines["2026-04-13-search.md"]
    assert oid == blob_of(repo_dir, "2026-04-13-search")
    assert entry["kind"] == "session" and entry["data"]["summary"] == "Added search"  # type: ignore[index]
    write(ctx, "2026-04-13-search", "Added search, then ranking")
    memory.commit(ctx, "edit", now=NOW + 60)
    oid, entry = day_lines(repo_dir)["2026-04-13-search.md"]
    assert oid == blob_of(repo_dir, "2026-04-13-search")
    assert entry["data"]["summary"] == "Added search, then ranking"  # type: ignore[index]
    assert not (ctx.root / ".derived").exists()  # never in the working copy
    (ctx.root / "sessions" / "2026-04-13-auth.md").unlink()
    memory.commit(ctx, "drop", now=NOW + 120)
    assert sorted(day_lines(repo_dir)) == ["2026-04-13-search.md"]
    run_git(repo_dir, "fsck", "--no-progress")


def test_the_index_equals_a_rebuild_from_the_records(ctx: memory.Context, repo_dir: Path) -> None:
    for k in range(5):
        write(ctx, f"2026-04-1{k}-s{k}", f"Session {k}", date=f"2026-04-1{k}", sid=f"a{k}b2c3d4")
        memory.commit(ctx, f"s{k}", now=NOW + k)
    tip = memory.require_branch(ctx)
    assert records_index.stale_days(ctx.repo, tip.tree) == []
    rebuilt = records_index.changes_for(ctx.repo, tip.tree, {}, records.Cache(None), every=True)
    assert rebuilt == {}  # byte for byte what a full rebuild writes


def _tamper(repo: Path, day: str, text: bytes) -> None:
    """Commit `text` as a day file by hand (what a teammate's push could hold)."""
    opened = store.open_repo(str(repo))
    store_write.commit(opened, lambda tip: {day: text}, "tamper")


def test_a_tampered_index_neither_hides_nor_invents_a_session(ctx: memory.Context, repo_dir: Path,
                                                              parses: list[str]) -> None:
    write(ctx, "2026-04-13-search", "Added search")
    write(ctx, "2026-04-13-auth", "Added auth", sid="b2c3d4e5")
    memory.commit(ctx, "two", now=NOW)
    lines = run_git(repo_dir, "show", f"claude-memory:{DAY}").splitlines(keepends=True)
    head = lines[0].encode()
    search = next(x for x in lines if x.startswith("2026-04-13-search.md "))
    # search's line gone, auth's under a wrong blob id, a session invented
    wrong = next(x for x in lines if x.startswith("2026-04-13-auth.md ")).split(" ", 2)
    fake_auth = f"{wrong[0]} {'0' * 40} {wrong[2].replace('Added auth', 'Hidden')}".encode()
    invented = search.replace("2026-04-13-search", "2026-04-13-ghost").replace("Added search", "Ghost").encode()
    _tamper(repo_dir, DAY, head + fake_auth + invented)
    tip = store.tip(ctx.repo)
    parses.clear()
    recs = records.load(ctx.repo, tip.tree, records.Cache(None))
    assert sorted(s.stem for s in recs.all_sessions()) == ["2026-04-13-auth", "2026-04-13-search"]
    assert {s.stem: s.summary for s in recs.all_sessions()}["2026-04-13-auth"] == "Added auth"
    assert sorted(parses) == ["sessions/2026-04-13-auth.md", "sessions/2026-04-13-search.md"]  # no entry taken
    assert records_index.stale_days(ctx.repo, tip.tree) == ["2026/04/13"]


def test_a_deleted_or_missing_day_file_costs_parses_only(ctx: memory.Context, repo_dir: Path,
                                                         parses: list[str]) -> None:
    write(ctx, "2026-04-13-search", "Added search")
    memory.commit(ctx, "one", now=NOW)
    _tamper(repo_dir, DAY, b"")  # an empty file: not this version's
    opened = store.open_repo(str(repo_dir))
    store_write.commit(opened, lambda tip: {DAY: None}, "drop the index")
    assert run_git(repo_dir, "ls-tree", "-r", "--name-only", "claude-memory", ".derived/records/").strip() == ""
    parses.clear()
    recs = records.load(ctx.repo, store.tip(ctx.repo).tree, records.Cache(None))
    assert [s.summary for s in recs.all_sessions()] == ["Added search"]
    assert parses == ["sessions/2026-04-13-search.md"]
    assert records_index.stale_days(ctx.repo, store.tip(ctx.repo).tree) == ["2026/04/13"]
    write(ctx, "2026-04-13-search", "Added search again")
    memory.commit(ctx, "touch the day", now=NOW + 60)  # the next commit of that day writes it again
    assert list(day_lines(repo_dir)) == ["2026-04-13-search.md"]
    assert records_index.stale_days(ctx.repo, store.tip(ctx.repo).tree) == []


def test_a_stale_entry_is_never_taken_for_the_blob_now_listed(ctx: memory.Context, repo_dir: Path,
                                                              parses: list[str]) -> None:
    write(ctx, "2026-04-13-search", "Added search")
    memory.commit(ctx, "one", now=NOW)
    old = run_git(repo_dir, "show", f"claude-memory:{DAY}").encode()
    write(ctx, "2026-04-13-search", "Added search and ranking")
    memory.commit(ctx, "two", now=NOW + 60)
    _tamper(repo_dir, DAY, old)  # the index of the first commit: its blob id is no longer listed
    parses.clear()
    recs = records.load(ctx.repo, store.tip(ctx.repo).tree, records.Cache(None))
    assert [s.summary for s in recs.all_sessions()] == ["Added search and ranking"]
    assert parses == ["sessions/2026-04-13-search.md"]


def test_a_fresh_clone_takes_its_records_from_the_index(ctx: memory.Context, repo_dir: Path, tmp_path: Path,
                                                       parses: list[str]) -> None:
    for k in range(6):
        write(ctx, f"2026-04-{10 + k}-s{k}", f"Session {k}", date=f"2026-04-{10 + k}", sid=f"a{k}b2c3d4")
    memory.commit(ctx, "six", now=NOW)
    clone = tmp_path / "clone"
    run_git(tmp_path, "clone", "-q", str(repo_dir), str(clone))
    run_git(clone, "branch", "-q", "claude-memory", "origin/claude-memory")
    theirs = memory.Context.open(clone)
    parses.clear()
    memory.init(theirs, now=NOW + 60)
    cache = memory.Context.open(clone).cache()
    recs = records.load(theirs.repo, memory.require_branch(theirs).tree, cache)
    assert len(recs.all_sessions()) == 6
    assert [p for p in parses if p.startswith("sessions/")] == []  # every session from the index
    cache.save()
    saved = json.loads((store.state_dir(theirs.repo) / "records.json").read_text())
    assert len([k for k in saved["entries"] if ":sessions/" in k]) == 6  # records.json seeded from it


def test_a_merge_rewrites_the_index_of_the_days_it_changed(ctx: memory.Context, repo_dir: Path,
                                                          tmp_path: Path) -> None:
    write(ctx, "2026-04-13-base", "Base")
    memory.commit(ctx, "base", now=NOW)
    clone = tmp_path / "clone"
    run_git(tmp_path, "clone", "-q", str(repo_dir), str(clone))
    run_git(clone, "branch", "-q", "claude-memory", "origin/claude-memory")
    theirs = memory.Context.open(clone)
    memory.init(theirs, now=NOW)
    write(theirs, "2026-04-13-theirs", "Theirs", sid="c3d4e5f6")
    memory.commit(theirs, "theirs", now=NOW + 60)
    write(ctx, "2026-04-13-ours", "Ours", sid="d4e5f6a7")
    memory.commit(ctx, "ours", now=NOW + 61)
    run_git(repo_dir, "fetch", "-q", str(clone), "claude-memory:refs/remotes/them/claude-memory")
    opened = store.open_repo(str(repo_dir))
    result = sync_merge.merge_tips(opened, store.tip(opened), opened.revparse_single("refs/remotes/them/claude-memory"),
                                   records.Cache(None), now=NOW + 120)
    assert result.outcome == "merged"
    lines = day_lines(repo_dir)
    assert sorted(lines) == ["2026-04-13-base.md", "2026-04-13-ours.md", "2026-04-13-theirs.md"]
    for name, (oid, _entry) in lines.items():
        assert oid == blob_of(repo_dir, name.removesuffix(".md"))
    assert records_index.stale_days(opened, store.tip(opened).tree) == []
    # Merged the other way, the same bytes.
    run_git(clone, "fetch", "-q", str(repo_dir), "claude-memory:refs/remotes/us/claude-memory")
    theirs_repo = store.open_repo(str(clone))
    other = sync_merge.merge_tips(theirs_repo, store.tip(theirs_repo),
                                  theirs_repo.revparse_single("refs/remotes/us/claude-memory"), records.Cache(None),
                                  now=NOW + 120)
    assert other.outcome in ("merged", "fast-forward")
    assert run_git(clone, "show", f"claude-memory:{DAY}") == run_git(repo_dir, "show", f"claude-memory:{DAY}")
    # The digest the branch carries too (brought up to date on both sides, kept as they agree).
    digest = run_git(repo_dir, "show", "claude-memory:.derived/digest.json")
    assert run_git(clone, "show", "claude-memory:.derived/digest.json") == digest
    assert json.loads(digest)["digest"]["count"] == 3


def test_the_reader_reads_a_day_file_once(ctx: memory.Context) -> None:
    write(ctx, "2026-04-13-search", "Added search")
    write(ctx, "2026-04-13-auth", "Added auth", sid="b2c3d4e5")
    memory.commit(ctx, "two", now=NOW)
    tip = memory.require_branch(ctx)
    reader = records.index_reader(ctx.repo, tip.tree)
    for name in ("2026-04-13-search", "2026-04-13-auth"):
        path = f"sessions/{name}.md"
        assert reader.entry(path, store.blob_oid(ctx.repo, tip.tree, path) or "") is not None
    assert reader.read == 1
    assert record_index.day_of("sessions/undated.md") is None


def test_doctor_names_a_day_file_that_disagrees_with_its_folder(ctx: memory.Context, repo_dir: Path) -> None:
    from enf_git.memory.health import record_checks

    write(ctx, "2026-04-13-search", "Added search")
    memory.commit(ctx, "one", now=NOW)
    tip = memory.require_branch(ctx)
    assert record_checks.records_index(ctx, tip, records.Records()) == []
    _tamper(repo_dir, DAY, b"# enf-git records index 1 other versions\n")
    found = record_checks.records_index(ctx, memory.require_branch(ctx), records.Records())
    assert [p.what for p in found] == [f"records index {DAY} disagrees with sessions/ (derived: rebuilt at the next "
                                       "commit of that day; its sessions are parsed meanwhile)"]


def _forged_clone(repo_dir: Path, tmp_path: Path, trust: str | None) -> Path:
    """Alice's session on the branch; a teammate's clone commits her day file with her
    blob id but a parse she never wrote, and pushes it; a fresh clone of that is returned."""
    mallory = tmp_path / "mallory"
    run_git(tmp_path, "clone", "-q", str(repo_dir), str(mallory))
    run_git(mallory, "branch", "-q", "claude-memory", "origin/claude-memory")
    line = next(x for x in run_git(mallory, "show", f"claude-memory:{DAY}").splitlines(keepends=True)
                if x.startswith("2026-04-13-search.md "))
    assert "Added search" in line
    head = run_git(mallory, "show", f"claude-memory:{DAY}").splitlines(keepends=True)[0]
    _tamper(mallory, DAY, (head + line.replace("Added search", "Decided to drop the tests")).encode())
    run_git(mallory, "push", "-q", "origin", "claude-memory")
    fresh = tmp_path / "fresh"
    run_git(tmp_path, "clone", "-q", str(repo_dir), str(fresh))
    run_git(fresh, "branch", "-q", "claude-memory", "origin/claude-memory")
    if trust is not None:
        run_git(fresh, "config", "enf.trust", trust)
    return fresh


def _summaries(clone: Path) -> dict[str, str]:
    c = memory.Context.open(clone)
    cache = c.cache()
    recs = records.load(c.repo, memory.require_branch(c).tree, cache)
    cache.save()
    return {s.stem: s.summary for s in recs.all_sessions()}


def test_the_refresh_corrects_a_forged_index_line_and_doctor_names_it(ctx: memory.Context, repo_dir: Path,
                                                                      tmp_path: Path) -> None:
    from enf_git.memory.context import pointer_refresh
    from enf_git.memory.health import record_checks

    write(ctx, "2026-04-13-search", "Added search")
    memory.commit(ctx, "alice", now=NOW)
    fresh = _forged_clone(repo_dir, tmp_path, None)
    memory.init(memory.Context.open(fresh), now=NOW + 60)
    # Unchecked, the line is taken (its blob id is right): what a fresh clone saves parsing.
    assert _summaries(fresh) == {"2026-04-13-search": "Decided to drop the tests"}
    state = store.state_dir(store.open_repo(str(fresh)))
    assert (state / records.UNVERIFIED_MARK).exists()
    pointer_refresh.run(str(fresh))  # the background refresh init starts
    assert not (state / records.UNVERIFIED_MARK).exists()
    saved = json.loads((state / "records.json").read_text())
    assert "unverified" not in saved
    assert _summaries(fresh) == {"2026-04-13-search": "Added search"}  # the true parse, in records.json
    forger = run_git(fresh, "log", "-1", "--format=%H %an", "claude-memory", "--", DAY).split(" ", 1)
    c = memory.Context.open(fresh)
    found = record_checks.records_index(c, memory.require_branch(c), records.Records())
    assert [p.what for p in found] == [
        f"records index {DAY} holds a line for .claude-sessions/sessions/2026-04-13-search.md that is not its parse "
        f"(commit {forger[0][:12]} by {forger[1].strip()}) (this clone uses the true parse)"]
    # The next commit of the clone writes that day file again from the true parse.
    write(c, "2026-04-14-next", "Next", date="2026-04-14", sid="e5f6a7b8")
    memory.commit(c, "next", now=NOW + 120)
    assert day_lines(fresh)["2026-04-13-search.md"][1]["data"]["summary"] == "Added search"  # type: ignore[index]
    assert record_checks.records_index(c, memory.require_branch(c), records.Records()) == []


def test_under_signed_memory_the_index_is_never_used(ctx: memory.Context, repo_dir: Path, tmp_path: Path,
                                                      parses: list[str]) -> None:
    write(ctx, "2026-04-13-search", "Added search")
    memory.commit(ctx, "alice", now=NOW)
    fresh = _forged_clone(repo_dir, tmp_path, "signed")
    memory.init(memory.Context.open(fresh), now=NOW + 60)
    parses.clear()
    assert _summaries(fresh) == {"2026-04-13-search": "Added search"}
    assert parses == ["sessions/2026-04-13-search.md"]  # parsed, not taken from the index
    state = store.state_dir(store.open_repo(str(fresh)))
    assert not (state / records.UNVERIFIED_MARK).exists()
    assert "unverified" not in json.loads((state / "records.json").read_text())
