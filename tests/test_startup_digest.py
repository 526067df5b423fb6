"""SessionStart's digest (.git/enf/startup.json): after routine changes it is updated from
the sessions that changed, never rebuilt from every record, and the context it gives is
byte-for-byte the one a full rebuild gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from enf_git import memory
from enf_git.memory.record import digests
from enf_git.memory.context import startup
from enf_git.plumbing import store
from enf_git.pure import briefing
from gitfixtures import session_text

SITUATION = briefing.Situation(project="", session_id="feedbeef", today="2026-05-01", yesterday="2026-04-30",
                               source="startup", own_file=None, opted_out=False)


def write(ctx: memory.Context, day: int, summary: str = "", extra: str = "", status: str = "completed",
          hh: int = 10) -> Path:
    date = day_of(day)
    body = (f"## Decisions\n- [{hh:02d}:00] Y: In the context of area {day % 7}, facing slow builds number {day}, "
            f"decided option number {day} with a long enough explanation over option {day + 1}, to achieve speed, "
            f"accepting cost. Confidence: high\n{extra}")
    path = ctx.root / "sessions" / f"{date}-work-{day:03d}.md"
    path.write_text(session_text(session_id=f"{day:08x}", date=date, summary=summary or f"Work {day}",
                                 status=status, body=body))
    return path


def day_of(day: int) -> str:
    return f"2026-{1 + day // 28:02d}-{1 + day % 28:02d}"


def path_of(ctx: memory.Context, day: int) -> Path:
    return ctx.root / "sessions" / f"{day_of(day)}-work-{day:03d}.md"


def full_context(ctx: memory.Context) -> str:
    (store.state_dir(ctx.repo) / digests.FILE).unlink(missing_ok=True)
    return startup.context_text(ctx, SITUATION)


def incremental_context(ctx: memory.Context, monkeypatch: pytest.MonkeyPatch) -> str:
    def refuse(*_: object) -> None:
        raise AssertionError("the digest was rebuilt from every record")

    with monkeypatch.context() as m:
        m.setattr(digests, "build", refuse)
        return startup.context_text(ctx, SITUATION)


@pytest.fixture
def ctx(repo_dir: Path) -> memory.Context:
    ctx = memory.Context.open(str(repo_dir))
    memory.init(ctx)
    for day in range(120):  # enough decision lines that the digest keeps only the first ones
        write(ctx, day)
    path_of(ctx, 40).write_text(session_text(session_id="00000028", date=day_of(40), status="active", summary=""))
    memory.commit(ctx, "seed")
    assert startup.context_text(ctx, SITUATION) == full_context(ctx)
    return ctx


def test_routine_changes_update_the_digest_to_what_a_rebuild_gives(ctx: memory.Context,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    steps = [
        lambda: write(ctx, 119, summary="Edited newest",
                      extra="- [11:00] Y: In the context of area 9, facing churn, decided a second option over none, "
                            "to achieve calm, accepting work. Confidence: low\n## Open Items\n- [ ] finish it\n"),
        lambda: write(ctx, 125, hh=9),  # a new newest session
        lambda: path_of(ctx, 101).unlink(),  # among the kept lines
        lambda: path_of(ctx, 2).unlink(),  # past the cut
        lambda: write(ctx, 5, summary="An old one, summarized again"),
    ]
    for k, step in enumerate(steps):
        step()
        memory.commit(ctx, f"step {k}")
        got = incremental_context(ctx, monkeypatch)
        assert got == full_context(ctx), f"step {k}"
    assert "Edited newest" in got and "finish it" in got and "decided a second option" in got
    assert "decided option number 101 " not in got and "(119 sessions)" in got
    assert f"{day_of(40)}-work-040.md" in got  # the interrupted session still asks to be finished


def test_a_reversal_rebuilds_the_digest(ctx: memory.Context) -> None:
    startup.context_text(ctx, SITUATION)
    write(ctx, 126, extra="## Reversals\n- [10:05] REVERSED option number 118: Changed from option number 118 "
                          "to a newer option because it was slow\n")
    memory.commit(ctx, "reversal")
    got = startup.context_text(ctx, SITUATION)
    assert got == full_context(ctx)
    assert "[reversed 1x]" in got


def test_a_broken_digest_file_is_rebuilt(ctx: memory.Context) -> None:
    (store.state_dir(ctx.repo) / digests.FILE).write_text("{not json")
    assert startup.context_text(ctx, SITUATION) == full_context(ctx)


def old_session(ctx: memory.Context, day: int) -> None:
    body = "## Interactions\n" + "".join(f"- step {i}: read the logs and tried again\n" for i in range(30))
    (ctx.root / "sessions" / f"2025-01-{day:02d}-old-{day}.md").write_text(
        session_text(session_id=f"{day:08d}", date=f"2025-01-{day:02d}", summary=f"Old {day}", body=body))


def test_a_start_that_found_nothing_to_compress_does_not_rank_again(ctx: memory.Context,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from enf_git.memory.lifecycle import compress

    now = 1_780_000_000  # 2026-05-28: every seeded session is older than the hot three
    old_session(ctx, 1)
    old_session(ctx, 2)
    memory.commit(ctx, "two old sessions")
    first = compress.scheduled(ctx, now, current="feedbeef")
    while compress.scheduled(ctx, now, current="feedbeef").done:
        pass  # one tier per start: run until nothing is due
    assert first.done

    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("ranked the sessions again")

    with monkeypatch.context() as m:
        m.setattr(compress, "compress", refuse)
        assert not compress.scheduled(ctx, now, current="0badcafe").done  # another session: same answer
    old_session(ctx, 3)
    memory.commit(ctx, "an old session arrives")
    assert [s.stem for s in compress.scheduled(ctx, now, current="feedbeef").done] == ["2025-01-03-old-3"]


def test_many_full_blocks_never_push_the_context_past_its_hard_limit() -> None:
    from enf_git.pure import ledger

    digest = briefing.digest_of([], ledger.build([], []))
    blocks = [f"## Block {i}\n" + "\n".join(f"- line {j} of block {i} " + "x" * 60 for j in range(80))
              for i in range(6)]
    text = briefing.build_from(SITUATION, digest, blocks=blocks)
    assert len(text) <= briefing.HARD_LIMIT
    assert "## Block 0" in text and "## Block 1" in text  # earlier blocks first
    assert "## Block 5" not in text  # what did not fit is left out whole, not as a bare title
