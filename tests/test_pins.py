"""Pins (seed 001): the record, the release rule with an injected clock, the hot slot,
compression leaving pinned sessions whole, forget, the SessionStart block, and the
commands, on real repositories checked with the real git binary."""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from enf_git import memory
from enf_git.errors import NotFound, RecordError
from enf_git.memory.lifecycle import compress, facts, forget, pins
from enf_git.pure import model, pins as pp, tiers
from gitfixtures import Git, session_text, user_state

NOON = dt.datetime(2026, 4, 13, 12, 0)  # local: pin stamps are local, as session files are
NOW = int(NOON.timestamp())
DAY = 86400
PINNED = "2026-03-01-auth-flow"
NOTES = "## Open Items\n- [ ] rotate the signing key\n"


def worth(stem: str, n: int, summary: str = "", extra: str = "") -> str:
    """A session worth pinning (an open item), dated by its name, with session id s<n>."""
    return session_text(session_id=f"s{n:07d}", date=stem[:10], summary=summary or f"Worked on {stem[11:]}",
                        body=NOTES + extra)


@pytest.fixture
def ctx(repo_dir: Path) -> memory.Context:
    c = memory.Context.open(repo_dir)
    memory.init(c, now=NOW - 200 * DAY)
    return c


def put(ctx: memory.Context, texts: dict[str, str], now: int = NOW - DAY) -> None:
    for stem, text in texts.items():
        (ctx.root / "sessions" / f"{stem}.md").write_text(text)
    assert memory.commit(ctx, "sessions", now=now).commit is not None


def later(days: int, start: int = 14, mention: str = "") -> dict[str, str]:
    """`days` sessions, one a day from 2026-04-14; the one on day `start` + k... names `mention` if given."""
    out = {}
    for k in range(days):
        stem = (dt.date(2026, 4, 14) + dt.timedelta(days=k)).isoformat() + f"-later-{k}"
        out[stem] = worth(stem, 100 + k, extra=mention if k == start else "")
    return out


def subjects(git: Git) -> list[str]:
    return git("log", "--format=%s", "claude-memory").splitlines()


# --- the record -------------------------------------------------------------------------------

def test_a_pin_file_reads_back_as_the_pin_it_was_written_from() -> None:
    made = pp.new_pin(PINNED, pp.TEMPORARY, "Alice", "2026-04-13 12:00").asked("2026-04-14 09:05")
    data = pp.pin_bytes(made)
    assert data.startswith(b"---\nschema: 1\nsession: 2026-03-01-auth-flow\nkind: temporary\nauthor: Alice\n")
    assert pp.parse_pin(made.path, data) == made
    assert made.asked("2026-01-01 00:00") == made  # an ask never moves it back in time


@pytest.mark.parametrize(("text", "why"), [
    ("---\nkind: forever\ndate: 2026-04-13 12:00\n---\n", "kind must be permanent or temporary"),
    ("---\nsession: other\ndate: 2026-04-13 12:00\n---\n", "names session 'other'"),
    ("---\nkind: permanent\ndate: yesterday\n---\n", "is not YYYY-MM-DD HH:MM"),
])
def test_a_malformed_pin_file_says_what_is_wrong(text: str, why: str) -> None:
    with pytest.raises(RecordError, match=why):
        pp.parse_pin(f"pins/{PINNED}.md", text.encode())


def test_a_one_off_session_is_trivial_and_one_with_an_open_item_or_decision_is_not() -> None:
    one_off = model.parse_session("sessions/2026-04-13-status.md", session_text().encode())
    assert "looks like a one-off" in pp.trivial(one_off)
    assert pp.trivial(model.parse_session("sessions/2026-04-13-a.md", worth("2026-04-13-a", 1).encode())) == ""
    long = session_text(body="## Interactions\n" + "did a careful thing. " * 30)
    assert pp.trivial(model.parse_session("sessions/2026-04-13-b.md", long.encode())) == ""


def _later(stamps_and_mentions: list[tuple[str, bool]]) -> list[pp.Later]:
    return [pp.Later(f"s{k}", stamp, lambda m=m: m) for k, (stamp, m) in enumerate(stamps_and_mentions)]


def test_the_release_rule_counts_newer_sessions_that_do_not_name_it() -> None:
    pin = pp.new_pin(PINNED, pp.TEMPORARY, "a", "2026-04-13 12:00")
    ten = [(f"2026-04-{24 - k} 14:30", False) for k in range(10)]
    assert pp.released(pin, _later(ten))
    assert not pp.released(pin, _later(ten[:9]))  # nine: not yet
    named = ten[:4] + [(ten[4][0], True)] + ten[5:]
    assert pp.since_asked(pin, _later(named)) == 4 and not pp.released(pin, _later(named))
    older = ten[:9] + [("2026-04-13 11:00", False)]  # before the pin: not "in the last 10 since"
    assert not pp.released(pin, _later(older))
    assert not pp.released(pp.new_pin(PINNED, pp.PERMANENT, "a", "2026-04-13 12:00"), _later(ten))


# --- pin, unpin, pins -------------------------------------------------------------------------

def test_pin_commits_one_record_on_the_branch_and_leaves_the_users_repo_alone(
        ctx: memory.Context, git: Git, repo_dir: Path) -> None:
    put(ctx, {PINNED: worth(PINNED, 1, "Chose JWT")})
    before = user_state(repo_dir)
    done = pins.pin(ctx, "2026-03-01-auth", now=NOW)  # a unique prefix, as git enf show takes it
    assert done.action == "pinned" and done.commit == git("rev-parse", "claude-memory").strip()
    assert subjects(git)[0] == f"pin: {PINNED}"
    assert git("diff", "--name-only", "claude-memory^", "claude-memory").split() == [f"pins/{PINNED}.md"]
    record = git("show", f"claude-memory:pins/{PINNED}.md")
    assert "kind: permanent\nauthor: Test Author\ndate: 2026-04-13 12:00\n" in record
    assert (ctx.root / "pins" / f"{PINNED}.md").read_text() == record  # the working copy follows
    assert user_state(repo_dir) == before
    assert memory.pending(ctx).empty
    git("fsck", "--strict", "--no-dangling")


def test_pin_takes_a_file_name_or_a_session_id_too(ctx: memory.Context, git: Git) -> None:
    put(ctx, {PINNED: worth(PINNED, 1), "2026-03-02-other": worth("2026-03-02-other", 2)})
    assert pins.pin(ctx, f"sessions/{PINNED}.md", now=NOW).pin.session == PINNED
    assert pins.pin(ctx, "s0000002", temporary=True, now=NOW).pin.session == "2026-03-02-other"
    with pytest.raises(NotFound, match="matches 2 sessions"):
        pins.pin(ctx, "2026-03", now=NOW)


def test_an_exact_name_is_read_alone_without_the_table_of_every_record(ctx: memory.Context, git: Git,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """At 100,000 sessions the table of every record costs seconds; a whole file name or
    stem (of a session no longer in the working copy, too) needs one blob."""
    put(ctx, {PINNED: worth(PINNED, 1, summary="Auth flow")})
    (ctx.root / "sessions" / f"{PINNED}.md").unlink()  # only on the branch now

    def no_table(*args: object, **kwargs: object) -> object:
        raise AssertionError("the records table was loaded")

    monkeypatch.setattr(pins.records, "load", no_table)
    assert pins.pin(ctx, f"{PINNED}.md", now=NOW).action == "pinned"
    assert subjects(git)[0] == f"pin: {PINNED}"
    with pytest.raises(AssertionError, match="records table"):
        pins.pin(ctx, PINNED[:12], now=NOW)  # a prefix still needs the table


def test_a_trivial_session_is_refused_with_why_and_force_pins_it(ctx: memory.Context, git: Git) -> None:
    put(ctx, {"2026-04-12-status": session_text(date="2026-04-12")})
    with pytest.raises(pins.TrivialSession, match="no decisions, no open items") as exc:
        pins.pin(ctx, "2026-04-12-status", now=NOW)
    assert exc.value.hint == "pin it anyway with: git enf pin --force 2026-04-12-status"
    assert git("ls-tree", "claude-memory", "pins/").strip() == ""
    assert pins.pin(ctx, "2026-04-12-status", force=True, now=NOW).action == "pinned"


def test_pinning_again_asks_upgrades_or_changes_nothing(ctx: memory.Context, git: Git) -> None:
    put(ctx, {PINNED: worth(PINNED, 1)})
    pins.pin(ctx, PINNED, temporary=True, now=NOW)
    again = pins.pin(ctx, PINNED, temporary=True, now=NOW + DAY)
    assert again.action == "asked" and again.pin.last_asked == "2026-04-14 12:00"
    assert subjects(git)[:2] == [f"pin(asked): {PINNED}", f"pin(temporary): {PINNED}"]
    up = pins.pin(ctx, PINNED, now=NOW + 2 * DAY)
    assert up.action == "upgraded" and up.pin.kind == "permanent" and up.pin.date == "2026-04-13 12:00"
    tip = git("rev-parse", "claude-memory")
    assert pins.pin(ctx, PINNED, temporary=True, now=NOW + 3 * DAY).action == "already"
    assert git("rev-parse", "claude-memory") == tip


def test_a_session_only_in_the_working_copy_can_be_pinned(ctx: memory.Context, git: Git) -> None:
    (ctx.root / "sessions" / "2026-04-13-now.md").write_text(worth("2026-04-13-now", 9))
    assert pins.pin(ctx, "2026-04-13-now", now=NOW).action == "pinned"
    assert "kind: permanent" in git("show", "claude-memory:pins/2026-04-13-now.md")


def test_unpin_removes_the_record_and_the_history_keeps_it(ctx: memory.Context, git: Git) -> None:
    put(ctx, {PINNED: worth(PINNED, 1)})
    pins.pin(ctx, PINNED, now=NOW)
    done = pins.unpin(ctx, "2026-03-01", now=NOW + 60)
    assert done.pin.session == PINNED and subjects(git)[0] == f"unpin: {PINNED}"
    assert git("ls-tree", "claude-memory", "pins/").strip() == ""
    assert "kind: permanent" in git("show", f"claude-memory^:pins/{PINNED}.md")
    assert not (ctx.root / "pins" / f"{PINNED}.md").exists()


def test_the_commands_pin_list_and_unpin_with_json_envelopes(ctx: memory.Context, git: Git,
                                                            run_cli: Callable[..., str]) -> None:
    put(ctx, {PINNED: worth(PINNED, 1, "Chose JWT"), "2026-03-05-cache": worth("2026-03-05-cache", 2, "Cache")})
    out = json.loads(run_cli("pin", PINNED, "--json"))
    assert out["schema"] == 1 and out["command"] == "pin" and out["action"] == "pinned"
    assert out["pin"]["kind"] == "permanent" and out["commit"] == git("rev-parse", "claude-memory").strip()
    assert "pinned (temporary): 2026-03-05-cache" in run_cli("pin", "--temporary", "2026-03-05-cache")
    listed = json.loads(run_cli("pins", "--json"))
    assert listed["command"] == "pins" and listed["release_after"] == 10
    assert [(p["session"], p["kind"], p["summary"]) for p in listed["pins"]] == [
        (PINNED, "permanent", "Chose JWT"), ("2026-03-05-cache", "temporary", "Cache")]
    assert listed["pins"][1]["sessions_since_asked"] == 0
    text = run_cli("pins")
    assert f"permanent  {PINNED}  Chose JWT" in text and "0 sessions since (released at 10)" in text
    gone = json.loads(run_cli("unpin", "2026-03-05-cache", "--json"))
    assert gone["command"] == "unpin" and gone["pin"]["kind"] == "temporary"


def test_unpin_of_something_not_pinned_is_an_error_with_a_hint_as_pin_nosuch(
        ctx: memory.Context, git: Git, run_cli: Callable[..., str]) -> None:
    put(ctx, {PINNED: worth(PINNED, 1)})
    out = run_cli("unpin", PINNED, code=1)
    assert out == f"error: {PINNED} is not pinned, so there is nothing to unpin\nhint: git enf pins lists the pins\n"
    out = run_cli("unpin", "nosuch", code=1)
    assert "error: nothing pinned is named 'nosuch', and no session is\nhint: " in out and "Usage:" not in out
    pinned = run_cli("pin", "nosuch", code=1)  # the same shape as pin's
    assert pinned.startswith("error: ") and "\nhint: " in pinned and "Usage:" not in pinned
    assert "not pinned: 2026-04-12-x looks like a one-off" in run_cli_pin_trivial(ctx, run_cli)


def run_cli_pin_trivial(ctx: memory.Context, run_cli: Callable[..., str]) -> str:
    put(ctx, {"2026-04-12-x": session_text(date="2026-04-12", session_id="e5f6a7b8")}, now=NOW)
    return run_cli("pin", "2026-04-12-x", code=1)


# --- release after 10 sessions ---------------------------------------------------------------

def test_a_temporary_pin_is_released_after_ten_sessions_without_it(ctx: memory.Context, git: Git) -> None:
    put(ctx, {PINNED: worth(PINNED, 1, "Chose JWT")})
    pins.pin(ctx, PINNED, temporary=True, now=NOW)
    sessions = later(10)
    put(ctx, dict(list(sessions.items())[:9]), now=NOW + 9 * DAY)
    block = pins.session_start_block(ctx, NOW + 10 * DAY)
    assert "temporary priority" in block and "Released" not in block  # nine: still pinned
    put(ctx, dict(list(sessions.items())[9:]), now=NOW + 10 * DAY)
    block = pins.session_start_block(ctx, NOW + 11 * DAY)
    assert f"Released this start (not asked about in the last 10 sessions, back to their normal tier): {PINNED}" \
        in block
    assert subjects(git)[0] == f"unpin(released): {PINNED}"
    assert git("ls-tree", "claude-memory", "pins/").strip() == ""
    assert pins.session_start_block(ctx, NOW + 12 * DAY) == ""  # said once


def test_a_newer_session_naming_it_is_an_ask(ctx: memory.Context, git: Git) -> None:
    put(ctx, {PINNED: worth(PINNED, 1)})
    pins.pin(ctx, PINNED, temporary=True, now=NOW)
    put(ctx, later(14, start=4, mention=f"Looked again at {PINNED} for the key rotation.\n"), now=NOW + 15 * DAY)
    assert pins.refresh(ctx, NOW + 15 * DAY).released == []  # 9 sessions since the one that named it
    put(ctx, {"2026-05-01-more": worth("2026-05-01-more", 300)}, now=NOW + 18 * DAY)
    assert pins.refresh(ctx, NOW + 18 * DAY).released == [PINNED]


def test_its_session_id_named_is_an_ask_too(ctx: memory.Context) -> None:
    put(ctx, {PINNED: worth(PINNED, 1)})
    pins.pin(ctx, PINNED, temporary=True, now=NOW)
    put(ctx, later(10, start=9, mention="as in session s0000001\n"), now=NOW + 11 * DAY)
    assert pins.refresh(ctx, NOW + 11 * DAY).released == []


def test_enf_pin_release_sets_how_many_sessions(ctx: memory.Context, git: Git) -> None:
    git("config", "enf.pinRelease", "3")
    put(ctx, {PINNED: worth(PINNED, 1)})
    pins.pin(ctx, PINNED, temporary=True, now=NOW)
    put(ctx, later(3), now=NOW + 4 * DAY)
    assert pins.refresh(ctx, NOW + 4 * DAY).released == [PINNED]


def test_recall_and_show_are_asks_folded_in_at_session_start(ctx: memory.Context, git: Git,
                                                              run_cli: Callable[..., str]) -> None:
    put(ctx, {PINNED: worth(PINNED, 1, "Chose zanzibar tokens")})
    pins.pin(ctx, PINNED, temporary=True, now=NOW)
    put(ctx, later(6), now=NOW + 7 * DAY)
    started = pins.stamp_of(time.time())
    run_cli("recall", "zanzibar")
    notes = pins.read_notes(ctx)
    assert list(notes) == [PINNED] and notes[PINNED] >= started  # the CLI's clock: now
    asked_at = pins.stamp_of(NOW + 7 * DAY)
    (Path(ctx.repo.path) / "enf" / pins.NOTES_FILE).write_text(json.dumps({PINNED: asked_at}))
    done = pins.refresh(ctx, NOW + 8 * DAY)
    assert done.asked == [PINNED] and done.released == []
    assert subjects(git)[0] == f"pin(asked): {PINNED}"
    assert f"last_asked: {asked_at}" in git("show", f"claude-memory:pins/{PINNED}.md")
    assert pins.read_notes(ctx) == {}
    after_ask = list(later(16).items())[6:]
    put(ctx, dict(after_ask[:9]), now=NOW + 16 * DAY)
    assert pins.refresh(ctx, NOW + 16 * DAY).released == []  # nine since the ask (fifteen since the pin)
    run_cli("show", "2026-03-01")
    assert list(pins.read_notes(ctx)) == [PINNED]
    (Path(ctx.repo.path) / "enf" / pins.NOTES_FILE).unlink()
    put(ctx, dict(after_ask[9:]), now=NOW + 17 * DAY)
    assert pins.refresh(ctx, NOW + 17 * DAY).released == [PINNED]


def test_a_permanent_pin_is_never_released(ctx: memory.Context) -> None:
    put(ctx, {PINNED: worth(PINNED, 1)})
    pins.pin(ctx, PINNED, now=NOW)
    put(ctx, later(12), now=NOW + 13 * DAY)
    assert pins.refresh(ctx, NOW + 13 * DAY).released == []
    assert "(permanent)" in pins.session_start_block(ctx, NOW + 13 * DAY)


# --- compression and the hot slot -------------------------------------------------------------

class _S:
    def __init__(self, stem: str) -> None:
        self.path, self.stem, self.session_id = f"sessions/{stem}.md", stem, stem[-4:]
        self.date, self.start_time, self.status = stem[:10], "14:30", "completed"


def test_a_pin_releases_its_hot_slot() -> None:
    stems = [f"2026-04-{d:02d}-s{d}" for d in range(1, 7)]
    policy = tiers.Policy(hot=3)
    plain = tiers.assign([_S(s) for s in stems], dt.date(2026, 4, 13), policy)
    assert [s for s in stems if plain[f"sessions/{s}.md"].tier == "hot"] == stems[3:]
    pinned = tiers.assign([_S(s) for s in stems], dt.date(2026, 4, 13), policy, pins=frozenset({stems[5]}))
    hot = [s for s in stems if pinned[f"sessions/{s}.md"].tier == "hot"]
    assert hot == stems[2:]  # three besides the pinned one: the hot tier stays at N, not N - 1
    assert pinned[f"sessions/{stems[5]}.md"].never == "pinned"


def test_compression_never_touches_a_pinned_session(ctx: memory.Context, git: Git) -> None:
    old = ["2025-12-01-old-a", "2025-12-02-old-b"]
    body = "## Interactions\n" + "".join(f"### [10:{k:02d}] User -> step {k}\n**Claude ->** did step {k} at length, "
                                       f"with care and many words about it.\n\n" for k in range(8))
    put(ctx, {s: worth(s, k, extra=body) for k, s in enumerate(old)})
    put(ctx, {s: worth(s, 50 + k) for k, s in enumerate([f"2026-04-1{d}-new" for d in range(3)])})
    pins.pin(ctx, old[0], now=NOW)
    before = git("show", f"claude-memory:sessions/{old[0]}.md")
    done = compress.compress(ctx, NOON.date(), now=NOW)
    assert [s.stem for s in done.done] == [old[1]], [s.as_dict() for s in done.steps]
    assert git("show", f"claude-memory:sessions/{old[0]}.md") == before
    by_hand = compress.compress(ctx, NOON.date(), tier="cold", names=[old[0]], now=NOW)
    assert [s.skipped for s in by_hand.steps] == ["never compressed: pinned"]
    assert compress.scheduled(ctx, NOW + 60).done == []


# --- forget and SessionStart ------------------------------------------------------------------

def test_forget_removes_exactly_the_pin_it_names(ctx: memory.Context, git: Git, tmp_path: Path) -> None:
    put(ctx, {PINNED: worth(PINNED, 1, "Chose JWT"), "2026-03-05-cache": worth("2026-03-05-cache", 2, "Cache")})
    pins.pin(ctx, PINNED, now=NOW)
    pins.pin(ctx, "2026-03-05-cache", temporary=True, now=NOW)
    places = facts.Places(tmp_path / "config", "")
    facts.remember(ctx, places, "JWT lifetime is one hour", now=NOW)
    with pytest.raises(forget.AmbiguousMatch):
        forget.forget(ctx, places, "JWT")  # the fact and the pin's summary: both named, neither removed
    done = forget.forget(ctx, places, PINNED)
    assert done.item.kind == "pin" and done.item.label == "Permanent pin"
    assert subjects(git)[0] == f"unpin: {PINNED}"
    assert git("ls-tree", "--name-only", "claude-memory", "pins/").split() == ["pins/2026-03-05-cache.md"]
    assert [f.text for f in facts.list_facts(ctx, places, ["project"]).all()] == ["JWT lifetime is one hour"]


def test_the_session_start_block_points_at_each_pin_within_its_budget(ctx: memory.Context, git: Git) -> None:
    stems = [f"2026-03-{d:02d}-topic-{d}" for d in range(1, 13)]
    put(ctx, {s: worth(s, k, f"Summary of topic {k}") for k, s in enumerate(stems)})
    for s in stems[:10]:
        pins.pin(ctx, s, now=NOW)
    pins.pin(ctx, stems[10], temporary=True, now=NOW)
    block = pins.session_start_block(ctx, NOW)
    assert block.startswith("## Pinned sessions (10 permanent, 1 temporary)\n")
    assert f"- .claude-sessions/sessions/{stems[0]}.md: Summary of topic 0 (permanent)" in block
    assert f"- .claude-sessions/sessions/{stems[10]}.md: Summary of topic 10 (temporary priority, last asked " \
           "2026-04-13 12:00; released after 10 sessions without it)" in block
    assert len(block) <= pins.BUDGET_DEFAULT * 4
    git("config", "enf.budget.pins", "100")
    small = pins.session_start_block(ctx, NOW)
    assert len(small) <= 400 and "more: git enf pins" in small


def test_a_pinned_session_outside_the_working_copy_points_at_git_enf_show(ctx: memory.Context) -> None:
    put(ctx, {PINNED: worth(PINNED, 1, "Chose JWT")})
    pins.pin(ctx, PINNED, now=NOW)
    (ctx.root / "sessions" / f"{PINNED}.md").unlink()
    assert f"- `git enf show {PINNED}`: Chose JWT (permanent)" in pins.session_start_block(ctx, NOW)


def test_a_broken_pin_file_is_reported_and_keeps_its_session_whole(ctx: memory.Context, git: Git,
                                                                   run_cli: Callable[..., str]) -> None:
    put(ctx, {PINNED: worth(PINNED, 1)})
    (ctx.root / "pins").mkdir()
    (ctx.root / "pins" / f"{PINNED}.md").write_text("---\nkind: forever\ndate: 2026-04-13 12:00\n---\n")
    memory.commit(ctx, "hand-written pin", now=NOW)
    assert pins.pinned(ctx.repo, memory.require_branch(ctx)) == frozenset({PINNED})
    assert pins.list_pins(ctx).problems == [f"pins/{PINNED}.md: kind must be permanent or temporary, not 'forever'"]
    assert pins.session_start_block(ctx, NOW) == ""


def test_doctor_names_a_broken_pin_and_a_pin_of_a_session_that_is_gone(tmp_path: Path) -> None:
    """Pins written by hand (or by a teammate's older version) that doctor must name."""
    import subprocess
    import sys

    repo = tmp_path / "p"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    for key, value in (("user.name", "t"), ("user.email", "t@e.x")):
        subprocess.run(["git", "config", key, value], cwd=repo, check=True)
    (repo / "x").write_text("x\n")
    subprocess.run(["git", "add", "x"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "x"], cwd=repo, check=True)
    git_enf = str(Path(sys.executable).with_name("git-enf"))
    subprocess.run([git_enf, "init", "--no-hooks"], cwd=repo, check=True, capture_output=True)
    pins_dir = repo / ".claude-sessions" / "pins"
    pins_dir.mkdir(exist_ok=True)
    (pins_dir / "2026-01-01-gone-away.md").write_text(
        "---\nschema: 1\nsession: 2026-01-01-gone-away\nkind: permanent\nauthor: t\ndate: 2026-01-01 10:00\n"
        "last_asked: 2026-01-01 10:00\n---\nPinned by hand.\n")
    (pins_dir / "2026-01-02-broken.md").write_text("---\nkind: [unclosed\n---\n")
    subprocess.run([git_enf, "commit"], cwd=repo, check=True, capture_output=True)
    done = subprocess.run([git_enf, "doctor", "--json"], cwd=repo, capture_output=True, text=True)
    import json

    problems = [(p["what"], p["fix"]) for p in json.loads(done.stdout)["problems"]]
    assert any("pins/2026-01-01-gone-away.md" in what and fix == "git enf unpin 2026-01-01-gone-away"
               for what, fix in problems), problems
    assert any("pins/2026-01-02-broken.md" in what for what, _ in problems), problems
