"""`git enf compress` and SessionStart's schedule, on real repositories.

Dated fixtures on a real claude-memory branch, checked with the real git binary: one
commit per session whose parent holds the full text, the schedule's order, what is
never compressed, determinism across two clones, `show --full`, recall of text only
the history holds, and the sharing rule through sync_merge.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from enf_git import memory
from enf_git.memory.lifecycle import compress
from enf_git.memory import records
from enf_git.memory.share import sync_merge
from enf_git.plumbing import store, store_write
from enf_git.pure import tiers
from gitfixtures import Git, run_git

AS_OF = dt.date(2026, 4, 13)
NOW = int(dt.datetime(2026, 4, 13, 9, 0, tzinfo=dt.timezone.utc).timestamp())
COLD = ["2026-01-10-old-cache", "2026-02-20-parser-fix"]
WARM = ["2026-03-20-search-api", "2026-04-01-billing-work"]
HOT = ["2026-04-10-auth-flow", "2026-04-11-docs-pass", "2026-04-12-ui-polish"]


def full(stem: str, extra: str = "") -> str:
    """A completed session with every section Elephants Never Forget describes."""
    date, n = stem[:10], sum(map(ord, stem)) % 10_000
    return f"""---
session_id: s{n:07d}
date: {date}
start_time: "14:30"
tags: [search, api]
status: completed
summary: "Worked on {stem[11:]}"
---
## Intent
Make {stem[11:]} faster.

## Interactions
### [14:00] User -> profile it
**Claude ->** read src/{stem[11:]}/core.py and found quadratic merging in the zanzibar{n} loop.

### [14:05] User -> fix the test
**Claude ->** fixed tests/test_{n}.py after ENOENT on the fixture folder.

## Decisions
- [14:10] Y: In the context of {stem[11:]}, facing slow merges, decided use a heap {n} over a sorted list, \
to achieve linear time, accepting more memory. Confidence: high

## Files Touched
- `src/{stem[11:]}/core.py` — role: modified, what: merging

## Errors & Fixes
- [14:15] Error: `TypeError: 'NoneType' object is not iterable`. Fix: guard the empty case

## Friction Events
- [14:12] User redirected approach: was tuning the cache, switched to the algorithm

## Open Items
- [ ] Benchmark on the 10k fixture
- [x] Write the test
{extra}"""


@pytest.fixture
def ctx(repo_dir: Path) -> memory.Context:
    c = memory.Context.open(repo_dir)
    memory.init(c, now=NOW - 86400 * 200)
    return c


def put(ctx: memory.Context, texts: dict[str, str]) -> None:
    for stem, text in texts.items():
        (ctx.root / "sessions" / f"{stem}.md").write_text(text)
    assert memory.commit(ctx, "sessions", now=NOW - 3600).commit is not None


def dated(ctx: memory.Context) -> dict[str, str]:
    texts = {stem: full(stem) for stem in [*COLD, *WARM, *HOT]}
    put(ctx, texts)
    return texts


def show(git: Git, stem: str, rev: str = "claude-memory") -> str:
    return git("show", f"{rev}:sessions/{stem}.md")


def subjects(git: Git) -> list[str]:
    return git("log", "--format=%s", "claude-memory").splitlines()


def test_each_session_is_one_commit_whose_parent_holds_the_full_text(ctx: memory.Context, git: Git) -> None:
    texts = dated(ctx)
    done = compress.compress(ctx, AS_OF, now=NOW)
    assert [(s.tier, s.stem) for s in done.steps] == [("cold", c) for c in COLD] + [("warm", w) for w in WARM]
    assert subjects(git)[:4] == [f"compress(warm): {WARM[1]}", f"compress(warm): {WARM[0]}",
                                 f"compress(cold): {COLD[1]}", f"compress(cold): {COLD[0]}"]
    for k, step in enumerate(reversed(done.steps)):
        rev = f"claude-memory~{k}"
        # views did not change (the records index of its day did: on the branch only)
        assert [p for p in git("diff", "--name-only", f"{rev}^", rev).split()
                if not p.startswith(".derived/")] == [step.path]
        assert show(git, step.stem, f"{rev}^") == texts[step.stem]
        body = git("log", "-1", "--format=%B", rev)
        assert f"As-of: 2026-04-13\nCompressor: {tiers.VERSION}\n" in body
        assert f"Compressed-from: {store.hash_bytes(texts[step.stem].encode())}" in body
    for stem in HOT:
        assert show(git, stem) == texts[stem]
    assert "tier: cold" in show(git, COLD[0]) and "tier: warm" in show(git, WARM[0])
    assert git("rev-list", "--count", "claude-memory").strip() == "6"  # init, sessions, four compressions
    git("fsck", "--strict", "--no-dangling")


def test_the_working_copy_gets_the_compressed_text(ctx: memory.Context) -> None:
    dated(ctx)
    compress.compress(ctx, AS_OF, now=NOW)
    text = (ctx.root / "sessions" / f"{WARM[0]}.md").read_text()
    assert "tier: warm" in text and "## Interactions" not in text
    assert memory.pending(ctx).empty  # nothing to commit afterwards


def test_views_do_not_change_and_decisions_stay_records(ctx: memory.Context, git: Git) -> None:
    dated(ctx)
    views = {v: git("show", f"claude-memory:{v}") for v in ("index.md", "topics.md", "decisions.md")}
    compress.compress(ctx, AS_OF, now=NOW)
    assert {v: git("show", f"claude-memory:{v}") for v in views} == views
    assert "use a heap" in views["decisions.md"]


def test_the_schedule_runs_one_tier_per_session_start_cold_first(ctx: memory.Context, git: Git) -> None:
    dated(ctx)
    first = compress.scheduled(ctx, NOW)
    assert [(s.tier, s.stem) for s in first.steps] == [("cold", COLD[0]), ("cold", COLD[1])]  # oldest first
    second = compress.scheduled(ctx, NOW + 60)
    assert [(s.tier, s.stem) for s in second.steps] == [("warm", WARM[0]), ("warm", WARM[1])]
    tip = git("rev-parse", "claude-memory")
    third = compress.scheduled(ctx, NOW + 120)
    assert third.steps == [] and git("rev-parse", "claude-memory") == tip  # running it again changes nothing


def test_a_session_start_compresses_its_batch_in_one_commit_whose_parent_holds_each_full_text(
        ctx: memory.Context, git: Git) -> None:
    texts = dated(ctx)
    views = {v: git("show", f"claude-memory:{v}") for v in ("index.md", "topics.md", "decisions.md")}
    before = git("rev-parse", "claude-memory").strip()
    done = compress.scheduled(ctx, NOW)
    assert [s.stem for s in done.done] == COLD
    assert git("rev-list", "--count", f"{before}..claude-memory").strip() == "1"
    assert {s.commit for s in done.done} == {git("rev-parse", "claude-memory").strip()}
    assert sorted(p for p in git("diff", "--name-only", before, "claude-memory").split() if not p.startswith(".derived/")) == \
        sorted(f"sessions/{stem}.md" for stem in COLD)  # the views did not change
    body = git("log", "-1", "--format=%B", "claude-memory")
    assert body.startswith(f"compress(cold): 2 sessions, {COLD[0]} to {COLD[1]}\n")
    for stem in COLD:
        assert show(git, stem, before) == texts[stem] and "tier: cold" in show(git, stem)
        source = store.hash_bytes(texts[stem].encode())
        assert f"- {stem}: " in body and f"the full text is blob {source[:12]}" in body
        assert f"Compressed-from: {source}\n" in body
    assert f"As-of: 2026-04-13\nCompressor: {tiers.VERSION}\n" in body
    assert {v: git("show", f"claude-memory:{v}") for v in views} == views
    git("fsck", "--strict", "--no-dangling")


def test_a_batch_compresses_what_a_concurrent_writer_left_and_loses_no_edit(
        ctx: memory.Context, git: Git, monkeypatch: pytest.MonkeyPatch) -> None:
    """A teammate's edit lands between the ranking and the batch's commit: the commit is
    built on it, so the edit stays in the parent and the compression is of the edited text."""
    texts = dated(ctx)
    edited = texts[COLD[1]].replace("## Intent\n", "## Intent\nEDITED-MEANWHILE: a late note.\n")
    real = store_write.commit
    raced: list[str] = []

    def racing(repo: store.Repo, build: store_write.ChangeBuilder, message: object, **kw: object) -> object:
        if not raced:
            raced.append("once")
            real(repo, lambda tip: {f"sessions/{COLD[1]}.md": edited.encode()}, "teammate's edit")
        return real(repo, build, message, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(store_write, "commit", racing)
    done = compress.scheduled(ctx, NOW)
    assert [s.stem for s in done.done] == COLD
    assert show(git, COLD[1], "claude-memory^") == edited  # the edit, whole, in the parent
    body = git("log", "-1", "--format=%B", "claude-memory")
    assert f"Compressed-from: {store.hash_bytes(edited.encode())}\n" in body
    assert git("log", "-1", "--format=%s", "claude-memory^").strip() == "teammate's edit"


def test_a_start_that_found_nothing_due_ranks_again_on_the_day_a_session_turns_cold(
        ctx: memory.Context, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing due is remembered from day to day (ranking 100,000 sessions costs seconds),
    until the first day a warm session is old enough for cold."""
    dated(ctx)
    compress.scheduled(ctx, NOW)  # the cold ones
    compress.scheduled(ctx, NOW + 60)  # the warm ones
    ranked: list[int] = []
    real = compress._Run._rows

    def counted(self: compress._Run) -> list[tuple[str, str, str, str, list[object]]]:
        ranked.append(1)
        return real(self)  # type: ignore[return-value]

    monkeypatch.setattr(compress._Run, "_rows", counted)
    day = 86400
    assert compress.scheduled(ctx, NOW + 120).steps == [] and len(ranked) == 1
    for k in range(1, 7):  # 2026-04-14 to 2026-04-19: 2026-03-20 is at most 30 days old
        assert compress.scheduled(ctx, NOW + k * day).steps == []
    assert len(ranked) == 1
    done = compress.scheduled(ctx, NOW + 7 * day)  # 2026-04-20: 31 days
    assert [(s.tier, s.stem) for s in done.done] == [("cold", WARM[0])] and len(ranked) == 2
    assert compress.scheduled(ctx, NOW + 7 * day + 60).steps == [] and len(ranked) == 3
    assert compress.scheduled(ctx, NOW + 8 * day).steps == [] and len(ranked) == 3
    assert compress.scheduled(ctx, NOW + 6 * day).steps == [] and len(ranked) == 4  # a clock set back: ranked again


def test_the_schedule_can_be_limited_and_turned_off(ctx: memory.Context, git: Git) -> None:
    dated(ctx)
    git("config", "enf.compressPerStart", "1")
    assert [s.stem for s in compress.scheduled(ctx, NOW).done] == [COLD[0]]
    git("config", "enf.compress", "false")
    assert compress.scheduled(ctx, NOW).steps == []


def test_hot_sessions_is_a_setting(ctx: memory.Context, git: Git) -> None:
    dated(ctx)
    git("config", "enf.hotSessions", "1")
    done = compress.compress(ctx, AS_OF, tier="warm", dry_run=True)
    assert [s.stem for s in done.done] == [*WARM, *HOT[:2]]


def test_two_clones_compressing_the_same_session_write_identical_bytes(tmp_path: Path) -> None:
    blobs = []
    for name in ("alice", "bob"):
        repo = tmp_path / name
        repo.mkdir()
        run_git(repo, "init", "-q", "-b", "main")
        run_git(repo, "config", "user.name", name)
        run_git(repo, "config", "user.email", f"{name}@example.com")
        c = memory.Context.open(repo)
        memory.init(c, now=NOW - 86400 * 200 if name == "alice" else NOW - 5)
        put(c, {stem: full(stem) for stem in [*COLD, *HOT]})
        compress.compress(c, AS_OF if name == "alice" else AS_OF + dt.timedelta(days=9), now=NOW)
        blobs.append(run_git(repo, "rev-parse", f"claude-memory:sessions/{COLD[0]}.md"))
    assert blobs[0] == blobs[1]


def test_active_conflicted_and_uncommitted_sessions_are_left_alone(ctx: memory.Context, git: Git) -> None:
    texts = dated(ctx)
    active = "2026-01-05-left-open"
    put(ctx, {active: full(active).replace("status: completed", "status: active")})
    conflict = f"conflicts/sessions/{COLD[1]}.md.0123abcd-4567ef01"
    store_write.commit(ctx.repo, lambda _tip: {conflict: b"the other version\n"}, "a conflict copy")
    memory.materialize(ctx)
    (ctx.root / "sessions" / f"{WARM[0]}.md").write_text(texts[WARM[0]] + "\nmore notes\n")
    done = compress.compress(ctx, AS_OF, now=NOW)
    assert [s.stem for s in done.done] == [COLD[0], WARM[1]]
    skipped = {s.stem: s.skipped for s in done.steps if s.skipped}
    assert skipped == {WARM[0]: "it has uncommitted edits in the working copy; git enf commit first"}
    assert "status: active" in show(git, active) and "## Interactions" in show(git, active)
    assert show(git, COLD[1]) == texts[COLD[1]]
    named = compress.compress(ctx, AS_OF, names=[active, COLD[1]], tier="cold")
    assert [s.skipped for s in named.steps] == ["never compressed: active (status: active)",
                                                "never compressed: it has an unresolved conflict copy under conflicts/"]


def test_a_new_session_with_no_file_yet_leaves_old_sessions_in_progress_whole(ctx: memory.Context, git: Git) -> None:
    texts = dated(ctx)
    by_status, by_marker = "2026-01-05-left-open", "2026-01-06-marked"
    put(ctx, {by_status: full(by_status).replace("status: completed", "status: active"), by_marker: full(by_marker)})
    marker = full(by_marker).split("session_id: ", 1)[1][:8]
    (ctx.root / compress.ACTIVE_DIR).mkdir()
    (ctx.root / compress.ACTIVE_DIR / marker).write_text("")
    done = compress.scheduled(ctx, NOW, current="feedface")  # names no session on the branch
    assert [s.stem for s in done.done] == COLD and not done.current_named
    for stem in (by_status, by_marker):
        assert "## Interactions" in show(git, stem)
    assert show(git, HOT[0]) == texts[HOT[0]]


def test_a_session_that_would_not_get_smaller_is_skipped(ctx: memory.Context, git: Git) -> None:
    tiny = "2026-01-01-tiny"
    put(ctx, {tiny: "---\nsession_id: t1\ndate: 2026-01-01\nstatus: completed\nsummary: x\n---\n## Intent\nx\n",
              **{h: full(h) for h in HOT}})
    tip = git("rev-parse", "claude-memory")
    done = compress.compress(ctx, AS_OF, now=NOW)
    assert [s.skipped.split(" (")[0] for s in done.steps] == ["not smaller"]
    assert git("rev-parse", "claude-memory") == tip


def test_show_full_prints_the_exact_earlier_bytes(ctx: memory.Context, run_cli: Callable[..., str]) -> None:
    texts = dated(ctx)
    compress.compress(ctx, AS_OF, now=NOW)
    compressed = run_cli("show", COLD[0])
    assert "tier: cold" in compressed
    assert run_cli("show", COLD[0], "--full") == texts[COLD[0]].rstrip("\n") + "\n"
    got = json.loads(run_cli("show", WARM[1], "--full", "--json"))
    assert got["text"] == texts[WARM[1]] and got["schema"] == 1 and got["command"] == "show"
    assert run_cli("show", HOT[0], "--full") == texts[HOT[0]].rstrip("\n") + "\n"  # not compressed: as it is


def test_show_full_of_a_cold_session_compressed_from_warm_reaches_the_full_text(
        ctx: memory.Context, run_cli: Callable[..., str]) -> None:
    texts = dated(ctx)
    compress.compress(ctx, AS_OF, names=[WARM[0]], tier="warm")
    compress.compress(ctx, AS_OF + dt.timedelta(days=60), names=[WARM[0]])
    assert "tier: cold" in run_cli("show", WARM[0])
    assert run_cli("show", WARM[0], "--full") == texts[WARM[0]].rstrip("\n") + "\n"


def test_recall_still_finds_text_only_the_history_holds(ctx: memory.Context, run_cli: Callable[..., str]) -> None:
    dated(ctx)
    n = sum(map(ord, COLD[0])) % 10_000
    compress.compress(ctx, AS_OF, now=NOW)
    assert f"zanzibar{n}" not in run_cli("show", COLD[0])
    rows = json.loads(run_cli("recall", f"zanzibar{n}", "--json"))["results"]
    assert [(r["kind"], r["path"]) for r in rows] == [("history", f"sessions/{COLD[0]}.md")]


def test_cli_dry_run_lists_tiers_and_bytes_and_changes_nothing(ctx: memory.Context, git: Git,
                                                               run_cli: Callable[..., str]) -> None:
    dated(ctx)
    tip = git("rev-parse", "claude-memory")
    out = run_cli("compress", "--dry-run", "--as-of", "2026-04-13")
    lines = out.splitlines()
    assert lines[0].startswith(f"would compress (cold) {COLD[0]}: ") and lines[0].endswith(" bytes")
    assert len(lines) == 5 and git("rev-parse", "claude-memory") == tip
    got = json.loads(run_cli("compress", "--dry-run", "--tier", "warm", "--as-of", "2026-04-13", "--json"))
    assert got["schema"] == 1 and got["command"] == "compress" and got["dry_run"] is True
    assert [(s["session"], s["tier"], s["commit"]) for s in got["sessions"]] == [(w, "warm", None) for w in WARM]
    assert all(s["bytes_after"] < s["bytes_before"] for s in got["sessions"])


def test_cli_compresses_named_sessions_and_says_what_it_did(ctx: memory.Context, git: Git,
                                                            run_cli: Callable[..., str]) -> None:
    dated(ctx)
    out = run_cli("compress", WARM[0], "--as-of", "2026-04-13")
    assert out.startswith(f"compressed (warm) {WARM[0]}: ") and "git enf show NAME --full" in out
    assert subjects(git)[0] == f"compress(warm): {WARM[0]}"
    again = run_cli("compress", WARM[0], "--as-of", "2026-04-13", code=1)
    assert again == f"skipped {WARM[0]}: already warm\n"
    hot = run_cli("compress", HOT[0], "--as-of", "2026-04-13", code=1)
    assert "hot: among the newest sessions" in hot
    run_cli("compress", HOT[0], "--tier", "warm", "--as-of", "2026-04-13")
    assert "tier: warm" in show(git, HOT[0])
    assert "no such" not in run_cli("compress", "--as-of", "2026-04-13")
    assert "cannot read the date 'soon'" in run_cli("compress", "--as-of", "soon", code=2)
    assert "not a real date" in run_cli("compress", "--as-of", "2026-02-30", code=2)


def test_as_of_reads_days_as_log_since_does(ctx: memory.Context, run_cli: Callable[..., str]) -> None:
    import datetime as dt

    dated(ctx)
    today = dt.datetime.now(dt.timezone.utc).date()  # compress judges ages on the UTC day
    for text, back in (("yesterday", 1), ("3d", 3), ("2 weeks ago", 14), ("today", 0)):
        got = json.loads(run_cli("compress", "--dry-run", "--as-of", text, "--json"))
        assert got["as_of"] == (today - dt.timedelta(days=back)).isoformat(), text
        run_cli("log", "--since", text)  # the same words, the same parser


def test_long_hot_sessions_fold_older_interactions(ctx: memory.Context, git: Git) -> None:
    entries = "".join(f"### [09:{i:02d}] User -> step {i}\n**Claude ->** did step {i}\n\n" for i in range(24))
    texts = {h: full(h) for h in HOT}
    texts[HOT[0]] = texts[HOT[0]].replace("## Interactions\n", "## Interactions\n" + entries, 1)
    put(ctx, texts)
    done = compress.scheduled(ctx, NOW)
    assert [(s.tier, s.stem) for s in done.done] == [("fold", HOT[0])]
    assert "## Summary of Earlier Work\n- [09:00] User -> step 0\n" in show(git, HOT[0])


# --- sharing ---------------------------------------------------------------------------

S = f"sessions/{WARM[0]}.md"


@pytest.fixture
def with_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """sync_merge.RULES with the line the lead adds: (compress.is_session, compress.keep_edit)."""
    monkeypatch.setattr(sync_merge, "RULES", (*sync_merge.RULES, (compress.is_session, compress.keep_edit)))


def fork(ctx: memory.Context, git: Git, a: bytes, b: bytes) -> tuple[store.Commit, store.Commit, store.Commit]:
    """(base, a, b): the session at base, then two tips, one with `a` there and one with `b`."""
    base = store.tip(ctx.repo)
    assert base is not None
    tips = []
    for data in (a, b):
        git("update-ref", "refs/heads/claude-memory", str(base.id))
        store_write.commit(ctx.repo, lambda _tip, d=data: {S: d}, "side")  # type: ignore[misc]
        tip = store.tip(ctx.repo)
        assert tip is not None
        tips.append(tip)
    return base, tips[0], tips[1]


def plan_both_ways(ctx: memory.Context, base: store.Commit, a: store.Commit,
                   b: store.Commit) -> tuple[sync_merge.Plan, sync_merge.Plan]:
    return (sync_merge.plan_merge(ctx.repo, base.tree, a.tree, b.tree),
            sync_merge.plan_merge(ctx.repo, base.tree, b.tree, a.tree))


def test_compressed_on_one_side_and_edited_on_the_other_keeps_the_edit(ctx: memory.Context, git: Git,
                                                                       with_rule: None) -> None:
    texts = dated(ctx)
    edited = (texts[WARM[0]] + "\n## Notes\nA late thought.\n").encode()
    warm = tiers.compress(S, texts[WARM[0]].encode(), "warm")
    base, a, b = fork(ctx, git, warm, edited)
    into_a, into_b = plan_both_ways(ctx, base, a, b)
    assert into_a.changes == {S: edited} and into_b.changes == {}  # either way the tree holds the edit
    assert into_a.conflicts == into_b.conflicts == []


def test_two_compressions_of_the_same_text_keep_the_later_tier_without_a_conflict(
        ctx: memory.Context, git: Git, with_rule: None) -> None:
    texts = dated(ctx)
    warm, cold = (tiers.compress(S, texts[WARM[0]].encode(), t) for t in ("warm", "cold"))
    base, a, b = fork(ctx, git, warm, cold)
    into_a, into_b = plan_both_ways(ctx, base, a, b)
    assert into_a.changes == {S: cold} and into_b.changes == {}
    assert into_a.conflicts == into_b.conflicts == []


def test_two_real_edits_are_still_a_conflict_with_both_kept(ctx: memory.Context, git: Git, with_rule: None) -> None:
    texts = dated(ctx)
    a_text, b_text = (f"{texts[WARM[0]]}\n## Notes\n{who}\n".encode() for who in ("alice", "bob"))
    base, a, b = fork(ctx, git, a_text, b_text)
    into_a, _ = plan_both_ways(ctx, base, a, b)
    assert [p for p, _ in into_a.conflicts] == [S]


def test_merge_tips_of_compressed_and_edited_clones_gives_one_tree_either_way(
        ctx: memory.Context, git: Git, with_rule: None) -> None:
    texts = dated(ctx)
    edited = (texts[WARM[0]] + "\n## Notes\nA late thought.\n").encode()
    base = store.tip(ctx.repo)
    assert base is not None
    compress.compress(ctx, AS_OF, names=[WARM[0]])
    a = store.tip(ctx.repo)
    git("update-ref", "refs/heads/claude-memory", str(base.id))
    store_write.commit(ctx.repo, lambda _tip: {S: edited}, "edit")
    b = store.tip(ctx.repo)
    assert a is not None and b is not None
    trees = []
    for ours, theirs in ((a, b), (b, a)):
        git("update-ref", "refs/heads/claude-memory", str(ours.id))
        done = sync_merge.merge_tips(ctx.repo, ours, theirs, records.Cache(None), now=NOW)
        assert done.outcome == "merged" and done.conflicts == []
        trees.append(git("rev-parse", "claude-memory^{tree}"))
        assert git("show", f"claude-memory:{S}").encode() == edited
    assert trees[0] == trees[1]
    assert "conflicts/" not in git("ls-tree", "-r", "--name-only", "claude-memory")


def test_a_compression_that_would_lose_a_decision_is_refused_not_committed(
        ctx: memory.Context, git: Git, monkeypatch: pytest.MonkeyPatch) -> None:
    dated(ctx)
    tip = git("rev-parse", "claude-memory")
    real = tiers._anchored

    def lossy(body: str, s: object, cold: bool) -> str:
        return real(body, s, cold).replace("- [14:10] Y:", "- [14:10] noted:")  # type: ignore[arg-type]

    monkeypatch.setattr(tiers, "_anchored", lossy)
    done = compress.compress(ctx, AS_OF, now=NOW)
    assert done.done == [] and len(done.steps) == 4
    assert all("would lose decision d" in s.skipped for s in done.steps)
    assert git("rev-parse", "claude-memory") == tip


def test_a_one_session_run_judges_only_the_sessions_up_to_the_one_it_compresses(
        ctx: memory.Context, monkeypatch: pytest.MonkeyPatch) -> None:
    dated(ctx)
    put(ctx, {f"2026-02-{d:02d}-later-{d}": full(f"2026-02-{d:02d}-later-{d}") for d in range(21, 28)})
    judged: list[str] = []
    real = tiers.verdict

    def counted(s: tiers.Dated, *args: object, **kwargs: object) -> tiers.Verdict:
        judged.append(s.stem)
        return real(s, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(tiers, "verdict", counted)
    done = compress.compress(ctx, AS_OF, tier="cold", limit=1, now=NOW)
    assert [s.stem for s in done.done] == [COLD[0]]
    assert judged == [COLD[0]]  # not the 15 others: ranking 10,000 to compress one made it 2.1x a commit


def test_a_run_orders_by_the_frontmatter_date_not_the_file_name(ctx: memory.Context) -> None:
    dated(ctx)
    older = full("2026-04-09-misnamed").replace("date: 2026-04-09", "date: 2025-12-01")  # the oldest, named late
    newer = full("2025-11-01-renamed").replace("date: 2025-11-01", "date: 2026-04-13")  # the newest, named early
    put(ctx, {"2026-04-09-misnamed": older, "2025-11-01-renamed": newer})
    done = compress.compress(ctx, AS_OF, tier="cold", limit=1, now=NOW)
    assert [s.stem for s in done.done] == ["2026-04-09-misnamed"]
    warm = compress.compress(ctx, AS_OF, tier="warm", dry_run=True)
    assert "2025-11-01-renamed" not in [s.stem for s in warm.done]  # hot by its date: among the newest three
    assert HOT[0] in [s.stem for s in warm.done]  # pushed out of the hot three by it


def test_new_tier_facts_go_to_a_small_file_until_there_are_many(ctx: memory.Context,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    dated(ctx)
    put(ctx, {stem: full(stem) for stem in ("2026-01-20-more-a", "2026-01-21-more-b")})
    state = store.state_dir(ctx.repo)
    main, new = state / compress.CACHE_FILE, state / compress.NEW_FILE
    assert compress.scheduled(ctx, NOW).done  # the first save: tiers.json, whole
    saved = main.read_bytes()
    assert not new.exists()
    monkeypatch.setattr(compress, "SAVE_AFTER", 1)
    assert compress.scheduled(ctx, NOW + 60).done  # the warm batch: its blobs go to the small file
    assert main.read_bytes() == saved and len(json.loads(new.read_bytes())["entries"]) == 2
    seen = compress._TierCache(main)
    assert set(json.loads(new.read_bytes())["entries"]) <= set(seen.entries)  # read together
    monkeypatch.setattr(compress, "DELTA_MAX", 0)
    assert compress.scheduled(ctx, NOW + 30 * 86400).done  # past DELTA_MAX: tiers.json whole again
    assert not new.exists() and set(seen.entries) <= set(json.loads(main.read_bytes())["entries"])
    main.unlink()
    (new).write_text(json.dumps({"version": compress._cache_version(), "skips": {},
                                 "entries": {oid: ["cold", 0, "2020-01-01", "", "completed", "x"]
                                             for oid in seen.entries}}))
    assert compress._TierCache(main).entries == {}  # the small file alone is not trusted


def test_tiers_json_is_rewritten_for_a_refusal_or_several_new_facts_not_for_each(ctx: memory.Context) -> None:
    dated(ctx)
    put(ctx, {stem: full(stem) for stem in ("2026-01-20-more-a", "2026-01-21-more-b")})  # 9 sessions to learn
    cache = store.state_dir(ctx.repo) / compress.CACHE_FILE
    assert [s.stem for s in compress.compress(ctx, AS_OF, tier="cold", limit=1, now=NOW).done] == [COLD[0]]
    saved = cache.read_bytes()
    assert len(json.loads(saved)["entries"]) == 10  # and the blob it wrote
    # The next run learns one blob (the one it wrote): ~1 ms to parse again, ~40 ms at
    # 10,000 sessions to write the file, so it is not written.
    assert [s.stem for s in compress.compress(ctx, AS_OF, tier="cold", limit=1, now=NOW).done] == ["2026-01-20-more-a"]
    assert cache.read_bytes() == saved
    done = compress.compress(ctx, AS_OF, tier="cold", now=NOW)  # and is still judged by its tier: not again
    assert [s.stem for s in done.done] == ["2026-01-21-more-b", COLD[1]]
