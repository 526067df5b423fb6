"""Remembered facts: categories, TTLs with an injected clock, the record, memories.md,
budgets step by step, tier precedence, and the operations on real repositories (project
facts as commits checked with the real git binary, user facts in the config dir only,
session facts in the git dir)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from enf_git import memory
from enf_git.errors import EnfError, NotFound, RecordError, SchemaTooNew
from enf_git.memory.record import fact_stores
from enf_git.memory.lifecycle import facts, forget
from enf_git.pure import budget, facts as pf
from gitfixtures import Git, session_text, user_state

NOON = dt.datetime(2026, 4, 13, 12, 0, 0)
NOW = int(NOON.timestamp())  # local noon: the same local day as NOON
DAY = 86400


def fact(text: str, category: str = pf.GENERAL, date: str = "2026-04-13", scope: str = "project",
         ident: str | None = None, expires: str | None = "2099-01-01") -> pf.Fact:
    return pf.Fact(ident or pf.fact_id(text, date, "a"), text, category, date, "a", scope, expires)


# --- categories and TTLs ---------------------------------------------------------------------

@pytest.mark.parametrize(("text", "category"), [
    ("We decided to use Zustand over Redux", pf.DECISION),
    ("chose sqlite for the cache", pf.DECISION),
    ("I prefer tabs", pf.PREFERENCE),
    ("always run the linter first", pf.PREFERENCE),
    ("gotcha: the auth middleware wants X-Custom-Header", pf.GOTCHA),
    ("Bug in the date parser on leap days", pf.GOTCHA),
    ("Error handling pattern: Result<T, E>", pf.PATTERN),
    ("naming convention: snake_case modules", pf.PATTERN),
    ("TODO: drop the v1 endpoint", pf.ACTION),
    ("follow up with ops about the quota", pf.ACTION),
    ("follow-up: rotate the staging key", pf.ACTION),
    ("the staging db is read-only", pf.GENERAL),
    ("debugging takes long", pf.GENERAL),  # a keyword inside a word is no keyword
])
def test_category_is_detected_from_keywords_in_the_seeds_order(text: str, category: str) -> None:
    assert pf.detect_category(text) == category


def test_detection_takes_the_first_category_in_the_seeds_order() -> None:
    assert pf.detect_category("we decided to always fix a bug first") == pf.DECISION
    assert pf.detect_category("always note each bug") == pf.PREFERENCE


def test_a_typed_category_is_read_loosely_and_a_wrong_one_names_the_choices() -> None:
    assert pf.parse_category("action item") == pf.ACTION
    assert pf.parse_category("todo") == pf.ACTION
    assert pf.parse_category("Gotchas") == pf.GOTCHA
    with pytest.raises(ValueError, match="choose one of: Decision, Gotcha"):
        pf.parse_category("trivia")


@pytest.mark.parametrize(("category", "days"), [
    (pf.DECISION, 180), (pf.GOTCHA, 90), (pf.PATTERN, 120), (pf.ACTION, 30), (pf.GENERAL, 14)])
def test_each_category_expires_after_its_ttl(category: str, days: int) -> None:
    made = pf.new_fact("something", scope="project", author="a", now=NOON, category=category)
    last_day = (NOON.date() + dt.timedelta(days=days - 1)).isoformat()
    first_gone = (NOON.date() + dt.timedelta(days=days)).isoformat()
    assert made.expires == first_gone
    assert not made.expired(last_day)
    assert made.expired(first_gone)
    assert pf.expired([made], first_gone) == [made]


def test_preferences_never_expire() -> None:
    made = pf.new_fact("I prefer tabs", scope="user", author="a", now=NOON)
    assert made.category == pf.PREFERENCE and made.expires is None
    assert not made.expired("9999-12-31")


def test_config_overrides_a_ttl_and_can_make_one_never() -> None:
    ttls = {pf.GOTCHA: 7, pf.GENERAL: pf.parse_ttl("never"), pf.PREFERENCE: pf.parse_ttl("30")}
    assert pf.expiry(pf.GOTCHA, "2026-04-13", ttls) == "2026-04-20"
    assert pf.expiry(pf.GENERAL, "2026-04-13", ttls) is None
    assert pf.expiry(pf.PREFERENCE, "2026-04-13", ttls) == "2026-05-13"
    assert pf.expiry(pf.DECISION, "2026-04-13", ttls) == "2026-10-10"  # not overridden: the seed's 180
    with pytest.raises(ValueError, match="number of days or 'never'"):
        pf.parse_ttl("soon")


# --- the record ------------------------------------------------------------------------------

def test_a_fact_file_round_trips_byte_for_byte() -> None:
    made = pf.new_fact('use "tabs":  really', scope="project", author="Ann", now=NOON)
    data = pf.fact_bytes(made)
    assert data.startswith(b"---\nschema: 1\nid: f")
    again = pf.parse_fact(pf.fact_path(made.id), data, "project")
    assert again == made
    assert pf.fact_bytes(again) == data


def test_a_hand_written_fact_is_completed_from_its_name_text_and_ttl() -> None:
    got = pf.parse_fact("memories/my-note.md", b"---\ndate: 2026-04-13\n---\nWe chose Postgres\n", "project")
    assert (got.id, got.category, got.expires, got.text) == ("my-note", pf.DECISION, "2026-10-10", "We chose Postgres")


def test_a_malformed_fact_says_where_and_what_to_do() -> None:
    with pytest.raises(RecordError, match="memories/x.md: date 'soon' is not YYYY-MM-DD"):
        pf.parse_fact("memories/x.md", b"---\ndate: soon\n---\ntext\n", "project")
    with pytest.raises(RecordError, match="text is empty"):
        pf.parse_fact("memories/x.md", b"---\ndate: 2026-04-13\n---\n\n", "project")
    with pytest.raises(SchemaTooNew):
        pf.parse_fact("memories/x.md", b"---\nschema: 9\ndate: 2026-04-13\n---\nx\n", "project")


def test_memories_md_is_the_seeds_format_and_deterministic() -> None:
    found = [fact("Auth middleware requires X-Custom-Header in all requests", pf.GOTCHA, "2024-01-17"),
             fact("Use Zustand over Redux for state management", pf.DECISION, "2024-01-15"),
             fact("Error handling: use Result<T, E> pattern", pf.PATTERN, "2024-01-16")]
    out = pf.render_memories(found)
    assert out == pf.render_memories(list(reversed(found)))
    assert out.decode() == (
        f"# Session Memory\n\n{pf.MARKER}\n\n"
        "## Project Decisions\n- [2024-01-15] Use Zustand over Redux for state management\n\n"
        "## Gotchas\n- [2024-01-17] Auth middleware requires X-Custom-Header in all requests\n\n"
        "## Patterns\n- [2024-01-16] Error handling: use Result<T, E> pattern\n")


def test_an_export_as_of_a_day_leaves_expired_facts_out() -> None:
    found = [fact("old", expires="2026-04-01"), fact("new", expires="2026-05-01")]
    text = pf.render_memories(found, "2026-04-13", marker=False).decode()
    assert "new" in text and "old" not in text and pf.MARKER not in text


def test_of_duplicates_the_longest_lived_is_kept() -> None:
    short = fact("Use tabs", expires="2026-05-01", ident="f00000001")
    forever = fact("use   TABS", expires=None, ident="f00000002")
    other = fact("Use tabs", scope="user", ident="f00000003")  # another scope: not a duplicate
    assert pf.duplicates([short, forever, other]) == [(short, forever)]


def test_forget_matching_prefers_an_id_then_a_prefix_then_the_whole_text_then_whole_words() -> None:
    items = [("f00000001", "Use Redis for the cache"), ("f00000002", "Redis"), ("f00000003", "redis sentinel setup")]
    stop = frozenset({"the", "for"})
    assert pf.best_matches("f00000003", items, stop) == pf.Matched((2,), "id")
    assert pf.best_matches("F0000000", items, stop) == pf.Matched((0, 1, 2), "prefix")  # as show takes one
    assert pf.best_matches("f000", items, stop) == pf.Matched((0, 1, 2), "prefix")
    assert pf.best_matches("f00", items, stop) == pf.Matched((), "word")  # too short to be an id
    assert pf.best_matches("REDIS", items, stop) == pf.Matched((1,), "text")
    assert pf.best_matches("redis  Sentinel", items, stop) == pf.Matched((2,), "words")
    assert pf.best_matches("use redis", items, stop) == pf.Matched((0,), "words")
    # Whole words only, and a stopword never counts: "the cache" names one word of one fact.
    assert pf.best_matches("the cache", items, stop) == pf.Matched((0,), "word")
    assert pf.best_matches("the cache", items, stop).weak
    assert pf.best_matches("redis s", items, stop).indexes == ()
    assert pf.best_matches("edi", items, stop).indexes == ()
    assert pf.best_matches("the", items, stop) == pf.Matched((), "stopwords")
    assert pf.best_matches("for the", items, stop) == pf.Matched((), "stopwords")
    assert pf.best_matches("mongo", items, stop).indexes == ()
    assert pf.best_matches("  ", items, stop) == pf.Matched((), "none")


# --- budgets ---------------------------------------------------------------------------------

TODAY = "2026-04-13"


def test_budget_first_drops_expired_then_duplicates_and_nothing_more_when_that_fits() -> None:
    kept = fact("We chose Postgres", pf.DECISION)
    gone = fact("ephemeral", expires="2026-04-01")
    dup = fact("we chose postgres", pf.DECISION, date="2026-04-14")
    got = budget.fit([kept, gone, dup], 300, TODAY)
    assert got.kept == [kept]
    assert got.dropped == [(gone, "expired"), (dup, f"duplicate of {kept.id}")]
    assert not got.warning and not got.shortened


def test_budget_then_drops_general_before_action_items_oldest_first() -> None:
    decision = fact("We chose Postgres over MySQL for JSONB", pf.DECISION)
    action = fact("TODO: drop the v1 endpoint", pf.ACTION)
    old_general = fact("general note number one is here", date="2026-04-01")
    new_general = fact("general note number two is here", date="2026-04-10")
    room = budget.cost([decision, action, new_general])
    got = budget.fit([decision, action, old_general, new_general], room, TODAY)
    assert got.kept == [decision, action, new_general]
    assert [f for f, _ in got.dropped] == [old_general]
    assert "lowest priority" in got.dropped[0][1]
    got = budget.fit([decision, action, old_general, new_general], budget.cost([decision]), TODAY)
    assert [f for f, _ in got.dropped] == [old_general, new_general, action]  # every General before Action


def test_budget_never_drops_higher_categories_for_room_but_shortens_the_most_verbose() -> None:
    long = fact("We decided " + "to keep every long explanation in one place " * 5, pf.DECISION)
    gotcha = fact("the auth middleware wants X-Custom-Header", pf.GOTCHA)
    general = fact("a general note", pf.GENERAL)
    room = budget.cost([fact(budget.shorten(long.text), pf.DECISION), gotcha])
    got = budget.fit([long, gotcha, general], room, TODAY)
    assert [f.id for f in got.kept] == [long.id, gotcha.id]
    assert got.shortened == [long.id]
    assert got.kept[0].text.endswith("…") and len(got.kept[0].text) <= budget.SHORT_CHARS
    assert [f for f, _ in got.dropped] == [general]  # step 3 ran before step 4
    assert got.tokens <= room and not got.warning
    got = budget.fit([long, general], budget.cost([long]), TODAY)
    assert got.kept == [long] and got.shortened == []  # dropping General was enough: nothing cut short


def test_budget_warns_last_and_still_never_exceeds_it() -> None:
    many = [fact(f"gotcha number {i} about the deploy script", pf.GOTCHA, ident=f"f0000000{i}") for i in range(6)]
    got = budget.fit(many, 20, TODAY)
    assert got.tokens <= 20
    assert got.warning.startswith("project facts need ≈") and "git config enf.budget.project" in got.warning
    assert all("still over" in why for _, why in got.dropped)
    assert len(got.kept) + len(got.dropped) == 6


def test_tokens_are_characters_over_four_rounded_up() -> None:
    assert (budget.tokens(""), budget.tokens("abc"), budget.tokens("abcd"), budget.tokens("abcde")) == (0, 1, 1, 2)


def test_session_beats_project_beats_user_on_the_same_subject() -> None:
    user = fact("Indentation: tabs", scope="user")
    project = fact("Indentation: 4 spaces", scope="project")
    session = fact("indentation: 2 spaces for this spike", scope="session")
    same = fact("We chose Postgres", pf.DECISION, scope="user")
    team = fact("we chose postgres", pf.DECISION, scope="project")
    shown, overridden = budget.reconcile({"user": [user, same], "project": [project, team], "session": [session]})
    assert shown == {"session": [session], "project": [team], "user": []}
    assert overridden == [(project, session), (user, session), (same, team)]


def test_the_block_names_each_scopes_cost_and_what_was_pruned() -> None:
    tiers = [budget.fit([fact("We chose Postgres", pf.DECISION)], 300, TODAY, "project"),
             budget.fit([fact("I prefer tabs", pf.PREFERENCE, scope="user")], 150, TODAY, "user")]
    pruned = [fact("old note", expires="2026-04-01")]
    text = budget.block(tiers, pruned, history_hint="History keeps them.")
    assert text.startswith("## Remembered facts (≈")
    assert f"### Project (shared with the team on claude-memory) (≈{tiers[0].tokens} of 300 tokens)" in text
    assert f"(≈{tiers[1].tokens} of 150 tokens)\n- Preference: I prefer tabs" in text
    assert 'Pruned at session start (1 expired): project General "old note" (expired 2026-04-01). History' in text
    assert budget.block([budget.fit([], 50, TODAY, "session")]) == ""


# --- operations on a real repository ----------------------------------------------------------

@pytest.fixture
def ctx(repo_dir: Path) -> memory.Context:
    c = memory.Context.open(repo_dir)
    memory.init(c)
    return c


@pytest.fixture
def places(tmp_path: Path) -> facts.Places:
    return facts.Places(tmp_path / "config" / "enf-git", "sess-1")


def branch_files(git: Git) -> list[str]:
    return git("ls-tree", "-r", "--name-only", "claude-memory").split()


def test_a_project_fact_is_one_file_on_the_branch_and_in_memories_md(ctx: memory.Context, places: facts.Places,
                                                                     git: Git) -> None:
    before = user_state(ctx.top)
    done = facts.remember(ctx, places, "We decided to use Zustand over Redux", now=NOW)
    assert done.commit == git("rev-parse", "claude-memory").strip()
    path = f"memories/{done.fact.id}.md"
    assert path in branch_files(git)
    record = git("show", f"claude-memory:{path}")
    assert "category: Decision\ndate: 2026-04-13\nauthor: Test Author\nscope: project\nexpires: 2026-10-10\n" in record
    assert record.endswith("---\nWe decided to use Zustand over Redux\n")
    assert "## Project Decisions\n- [2026-04-13] We decided to use Zustand over Redux\n" in \
        git("show", "claude-memory:memories.md")
    assert git("log", "-1", "--format=%s", "claude-memory").strip() == f"enf: remember {done.fact.id} (Decision)"
    assert (ctx.root / path).is_file()  # the working copy follows the branch
    assert user_state(ctx.top) == before  # HEAD, index, status untouched
    git("fsck", "--no-dangling")


def test_remembering_the_same_statement_twice_keeps_one(ctx: memory.Context, places: facts.Places, git: Git) -> None:
    first = facts.remember(ctx, places, "We chose Postgres", now=NOW)
    tip = git("rev-parse", "claude-memory")
    again = facts.remember(ctx, places, "we  chose postgres", now=NOW + 60)
    assert again.existing and again.fact.id == first.fact.id and again.commit is None
    assert git("rev-parse", "claude-memory") == tip


def test_secrets_are_redacted_before_a_fact_reaches_the_branch(ctx: memory.Context, places: facts.Places,
                                                               git: Git) -> None:
    key = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    done = facts.remember(ctx, places, f"the CI token is {key}", now=NOW)
    assert done.redacted >= 1
    assert key not in git("show", f"claude-memory:memories/{done.fact.id}.md")
    assert key not in git("show", "claude-memory:memories.md")


def test_forget_is_a_commit_the_history_still_holds(ctx: memory.Context, places: facts.Places, git: Git) -> None:
    keep = facts.remember(ctx, places, "We chose Postgres", now=NOW)
    gone = facts.remember(ctx, places, "Gotcha: the staging db is read-only", now=NOW)
    before = git("rev-parse", "claude-memory").strip()
    done = forget.forget(ctx, places, "staging db")
    assert done.item.id == gone.fact.id and done.commit is not None
    assert git("rev-parse", "claude-memory~1").strip() == before
    path = f"memories/{gone.fact.id}.md"
    assert path not in branch_files(git) and f"memories/{keep.fact.id}.md" in branch_files(git)
    view = git("show", "claude-memory:memories.md")
    assert "staging" not in view and "We chose Postgres" in view
    assert "staging db is read-only" in git("show", f"claude-memory~1:{path}")  # history keeps it
    assert not (ctx.root / path).exists()
    text, _ = facts.session_start_block(ctx, places.session_id, NOW, places.user_dir)
    assert "staging" not in text and "We chose Postgres" in text


def test_forget_with_several_matches_refuses_lists_them_and_touches_nothing(
        ctx: memory.Context, places: facts.Places, git: Git) -> None:
    a = facts.remember(ctx, places, "Redis is the cache", now=NOW)
    b = facts.remember(ctx, places, "I prefer redis-cli over GUIs", scope="user", now=NOW)
    c = facts.remember(ctx, places, "redis is down on staging today", scope="session", now=NOW)
    tip, state = git("rev-parse", "claude-memory"), user_state(ctx.top)
    user_files = sorted(places.user_dir.rglob("*"))  # type: ignore[union-attr]
    session_bytes = fact_stores.session_path(ctx, "sess-1").read_bytes()
    with pytest.raises(forget.AmbiguousMatch) as caught:
        forget.forget(ctx, places, "redis")
    assert {m.id for m in caught.value.matches} == {a.fact.id, b.fact.id, c.fact.id}
    assert "3 things match 'redis'; nothing was forgotten" in caught.value.message
    assert all(m.id in caught.value.message for m in caught.value.matches)
    assert git("rev-parse", "claude-memory") == tip and user_state(ctx.top) == state
    assert sorted(places.user_dir.rglob("*")) == user_files  # type: ignore[union-attr]
    assert fact_stores.session_path(ctx, "sess-1").read_bytes() == session_bytes
    with pytest.raises(NotFound, match="nothing remembered matches 'mongo'"):
        forget.forget(ctx, places, "mongo")
    assert forget.forget(ctx, places, "redis", scopes=("user",), yes=True).item.id == b.fact.id


def test_user_facts_live_in_the_config_dir_and_never_in_the_repository(
        ctx: memory.Context, places: facts.Places, git: Git) -> None:
    tip, state = git("rev-parse", "claude-memory"), user_state(ctx.top)
    done = facts.remember(ctx, places, "I always use pytest -q", scope="user", now=NOW)
    assert done.fact.scope == "user" and done.commit is None
    assert places.user_dir is not None
    assert (places.user_dir / "memories" / f"{done.fact.id}.md").is_file()
    assert git("rev-parse", "claude-memory") == tip and user_state(ctx.top) == state
    assert "pytest" not in git("grep", "-I", "-c", "pytest", "claude-memory", check=False)
    assert not list(ctx.root.rglob(f"{done.fact.id}*"))
    assert [f.text for f in facts.list_facts(ctx, places, ("user",)).all()] == ["I always use pytest -q"]


def test_user_dir_follows_xdg_config_home() -> None:
    assert fact_stores.user_dir({"XDG_CONFIG_HOME": "/x/cfg", "HOME": "/h"}) == Path("/x/cfg/enf-git")
    assert fact_stores.user_dir({"XDG_CONFIG_HOME": "relative", "HOME": "/h"}) == Path("/h/.config/enf-git")
    assert fact_stores.user_dir({"HOME": "/h"}) == Path("/h/.config/enf-git")


def test_session_facts_live_in_the_git_dir_until_session_end(ctx: memory.Context, places: facts.Places,
                                                             git: Git) -> None:
    tip = git("rev-parse", "claude-memory")
    done = facts.remember(ctx, places, "staging is frozen today", scope="session", now=NOW)
    path = ctx.top / ".git" / "enf" / "session-facts" / "sess-1.json"
    assert path.is_file() and json.loads(path.read_text())["facts"][0]["id"] == done.fact.id
    assert git("rev-parse", "claude-memory") == tip
    other = facts.Places(places.user_dir, "sess-2")
    assert facts.list_facts(ctx, other, ("session",)).all() == []  # another session does not see it
    state = str(ctx.top / ".git" / "enf")  # what SessionEnd's Where.state holds
    assert facts.drop_session_facts(state, "sess-1") and not path.exists()
    assert not facts.drop_session_facts(state, "sess-1") and not facts.drop_session_facts(state, "")


def test_a_session_id_cannot_escape_the_session_facts_folder(ctx: memory.Context) -> None:
    path = fact_stores.session_file("/x/.git/enf", "../../etc/passwd")
    assert path.parent == Path("/x/.git/enf/session-facts") and ".." not in path.name
    uuid = "a1b2c3d4-0000-4000-8000-000000000000"
    assert fact_stores.session_file("/s", uuid) == fact_stores.session_file("/s", uuid[:8])  # as the context shows it


def test_session_start_prunes_expired_facts_as_a_commit_and_says_so(ctx: memory.Context, places: facts.Places,
                                                                    git: Git) -> None:
    old = facts.remember(ctx, places, "the build is slow this week", now=NOW)  # General: 14 days
    keep = facts.remember(ctx, places, "We chose Postgres", now=NOW)
    pref = facts.remember(ctx, places, "I prefer tabs", scope="user", now=NOW)
    text, pruned = facts.session_start_block(ctx, "sess-1", NOW + 13 * DAY, places.user_dir)
    assert pruned == [] and "the build is slow" in text
    text, pruned = facts.session_start_block(ctx, "sess-1", NOW + 14 * DAY, places.user_dir)
    assert [f.id for f in pruned] == [old.fact.id]
    assert f"memories/{old.fact.id}.md" not in branch_files(git)
    message = git("log", "-1", "--format=%B", "claude-memory")
    assert message.startswith("enf: prune 1 fact\n") and "the build is slow this week" in message
    assert "Pruned at session start (1 expired)" in text and "git log claude-memory -- memories/" in text
    assert "We chose Postgres" in text and "I prefer tabs" in text and keep.fact.id and pref.fact.id
    assert "the build is slow" not in text.split("Pruned at")[0]
    tip = git("rev-parse", "claude-memory")
    facts.session_start_block(ctx, "sess-1", NOW + 15 * DAY, places.user_dir)
    assert git("rev-parse", "claude-memory") == tip  # nothing more to prune: no commit


def test_session_start_block_stays_within_budgets(ctx: memory.Context, places: facts.Places) -> None:
    for i in range(40):
        facts.remember(ctx, places, f"Gotcha {i}: the deploy script needs the --region flag set", now=NOW)
    text, _ = facts.session_start_block(ctx, "sess-1", NOW, places.user_dir)
    assert "(≈" in text and "of 300 tokens)" in text
    project = text.split("### Project")[1].split("\n\n")[0]
    assert budget.tokens("\n".join(project.splitlines()[1:-1])) <= 300 + 40  # lines, newlines aside
    assert "over their 300-token budget" in text and len(text) < 2500


def test_config_sets_ttls_and_budgets_and_a_bad_value_warns(ctx: memory.Context, places: facts.Places,
                                                            git: Git) -> None:
    git("config", "enf.ttl.gotcha", "7")
    git("config", "enf.budget.project", "oops")
    settings = facts.FactSettings.read(ctx.repo)
    assert settings.ttls == {pf.GOTCHA: 7} and settings.budgets["project"] == 300
    assert settings.warnings == ["enf.budget.project: a number of tokens, not 'oops'; using 300"]
    done = facts.remember(ctx, places, "gotcha: flaky test on CI", now=NOW, settings=settings)
    assert done.fact.expires == "2026-04-20"


def test_prune_removes_expired_then_duplicates_in_one_commit_that_lists_them(
        ctx: memory.Context, places: facts.Places, git: Git) -> None:
    old = facts.remember(ctx, places, "the build is slow this week", now=NOW - 30 * DAY)
    a = facts.remember(ctx, places, "We chose Postgres", now=NOW)
    # A duplicate that came in by hand (a teammate's copy): same text, another file.
    (ctx.root / "memories" / "fdup00000.md").write_bytes(
        pf.fact_bytes(pf.Fact("fdup00000", "we chose  Postgres", pf.DECISION, "2026-04-13", "b", "project",
                              "2026-10-01")))
    memory.commit(ctx, "add a copy")
    done = facts.prune(ctx, places, now=NOW, scopes=("project",))
    assert [(f.id, why) for f, why in done.removed] == [(old.fact.id, "expired"),
                                                        ("fdup00000", f"duplicate of {a.fact.id}")]
    assert [p for p in branch_files(git) if p.startswith("memories/")] == [f"memories/{a.fact.id}.md"]
    body = git("log", "-1", "--format=%B", "claude-memory")
    assert body.startswith("enf: prune 2 facts") and "fdup00000" in body and old.fact.id in body


def test_records_and_doctor_leave_fact_files_out_of_the_sessions(ctx: memory.Context, places: facts.Places) -> None:
    from enf_git.memory import records
    from enf_git.memory.health import doctor

    facts.remember(ctx, places, "We chose Postgres", now=NOW)
    (ctx.root / "sessions" / "2026-04-13-a.md").write_text(session_text())
    (ctx.root / "memories" / "bad.md").write_text("---\ndate: soon\n---\ntext\n")
    memory.commit(ctx, "a session and a bad fact")
    tip = memory.require_branch(ctx)
    recs = records.load(ctx.repo, tip.tree, ctx.cache())
    assert list(recs.sessions) == ["sessions/2026-04-13-a.md"] and recs.problems == {}
    found = doctor.run(ctx, ctx.top.parent)
    facts_problems = [p for p in found.problems if "memories/" in p.what]
    assert [p.severity for p in facts_problems] == ["warning"]
    assert "memories/bad.md: date 'soon'" in facts_problems[0].what


def test_an_unreadable_session_facts_file_is_refused_not_overwritten(ctx: memory.Context,
                                                                     places: facts.Places) -> None:
    path = fact_stores.session_path(ctx, "sess-1")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{not json")
    with pytest.raises(EnfError, match="delete it to start afresh"):
        facts.remember(ctx, places, "x marks the spot", scope="session", now=NOW)
    assert path.read_text() == "{not json"


def test_memories_view_follows_a_fact_edited_in_the_overlay(ctx: memory.Context, places: facts.Places) -> None:
    kept = facts.remember(ctx, places, "We chose Postgres", now=NOW)
    tip = memory.require_branch(ctx)
    assert fact_stores.memories_view(ctx.repo, tip.tree, {"sessions/x.md": b"x"}) == {}
    assert fact_stores.memories_view(ctx.repo, tip.tree, {pf.fact_path(kept.fact.id): pf.fact_bytes(kept.fact)}) == {}
    added = pf.fact_bytes(fact("Gotcha: CI caches node_modules", pf.GOTCHA, ident="fhand0001"))
    view = fact_stores.memories_view(ctx.repo, tip.tree, {"memories/fhand0001.md": added})[pf.MEMORIES_VIEW].decode()
    assert "## Gotchas\n- [2026-04-13] Gotcha: CI caches node_modules\n" in view and "We chose Postgres" in view
    gone = fact_stores.memories_view(ctx.repo, tip.tree, {pf.fact_path(kept.fact.id): None})[pf.MEMORIES_VIEW].decode()
    assert "Postgres" not in gone and "(nothing remembered yet" in gone


def test_concurrent_remembers_all_land_and_memories_md_lists_them_all(repo_dir: Path, ctx: memory.Context,
                                                                      places: facts.Places, git: Git) -> None:
    import threading

    errors: list[BaseException] = []

    def one(i: int) -> None:
        try:
            facts.remember(memory.Context.open(repo_dir), places, f"decided thing number {i}", now=NOW)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len([p for p in branch_files(git) if p.startswith("memories/")]) == 8
    view = git("show", "claude-memory:memories.md")
    assert all(f"decided thing number {i}\n" in view for i in range(8))


def test_the_block_stays_bounded_whatever_the_facts_and_budgets() -> None:
    huge = [fact(f"{i} " + "word " * 390, pf.DECISION, scope=s, ident=f"f{i:08d}") for i in range(30)
            for s in ("project", "user")]
    tiers = [budget.fit([f for f in huge if f.scope == s], 100_000, TODAY, s) for s in ("project", "user")]
    shown, overridden = budget.reconcile({"project": huge[::2], "user": huge[1::2]})
    text = budget.block(tiers, huge, overridden)
    assert len(text) <= budget.MAX_BLOCK_CHARS and text.endswith("more than fits here: git enf memories list")
    small = budget.block([budget.fit(huge[:1], 300, TODAY)], huge[:1], [(huge[1], huge[0])])
    assert len(small) < 1000  # a long fact is shortened, pruned and overridden ones clipped


def test_session_start_sweeps_facts_of_sessions_that_never_ended(ctx: memory.Context, places: facts.Places) -> None:
    import os

    facts.remember(ctx, places, "mine", scope="session", now=NOW)
    facts.remember(ctx, facts.Places(None, "crashed"), "theirs", scope="session", now=NOW)
    facts.remember(ctx, facts.Places(None, "recent"), "theirs too", scope="session", now=NOW)
    mine, crashed, recent = (fact_stores.session_path(ctx, s) for s in ("sess-1", "crashed", "recent"))
    week = NOW - 8 * DAY
    for path in (mine, crashed):
        os.utime(path, (week, week))
    facts.session_start_block(ctx, "sess-1", NOW, None)
    assert mine.exists() and recent.exists() and not crashed.exists()


# memories.md among the views: render.VIEWS, views.py, sync_merge.py, view_edits.py.


def test_a_merge_of_two_sides_facts_keeps_both_and_renders_memories_md(ctx: memory.Context, places: facts.Places,
                                                                       git: Git) -> None:
    from enf_git.memory.share import sync_merge
    from enf_git.plumbing import store

    base = git("rev-parse", "claude-memory").strip()
    theirs = facts.remember(ctx, places, "We chose Postgres", now=NOW)
    their_tip = git("rev-parse", "claude-memory").strip()
    git("update-ref", "refs/heads/claude-memory", base)  # our side: diverged from the base
    ours = facts.remember(ctx, places, "Gotcha: CI caches node_modules", now=NOW)
    done = sync_merge.merge_tips(ctx.repo, store.tip(ctx.repo), store.commit_at(ctx.repo, their_tip), ctx.cache())
    assert done is not None and done.outcome == "merged"
    files = branch_files(git)
    assert {f"memories/{theirs.fact.id}.md", f"memories/{ours.fact.id}.md"} <= set(files)
    assert not [p for p in files if p.startswith("conflicts/")]
    view = git("show", "claude-memory:memories.md")
    assert "We chose Postgres" in view and "CI caches node_modules" in view


def test_a_fact_file_committed_from_the_working_copy_updates_memories_md(ctx: memory.Context, git: Git) -> None:
    (ctx.root / "memories").mkdir(exist_ok=True)
    (ctx.root / "memories" / "fhand0001.md").write_text("---\ndate: 2026-04-13\n---\nWe chose Postgres\n")
    memory.commit(ctx, "a fact by hand")
    assert "## Project Decisions\n- [2026-04-13] We chose Postgres\n" in git("show", "claude-memory:memories.md")


def test_a_hand_edit_of_memories_md_is_set_aside_with_what_to_do(ctx: memory.Context, places: facts.Places,
                                                                 git: Git) -> None:
    facts.remember(ctx, places, "We chose Postgres", now=NOW)
    view = git("show", "claude-memory:memories.md")
    (ctx.root / "memories.md").write_text(view + "- [2026-04-13] a line typed by hand\n")
    report = memory.commit(ctx, "edit the view")
    assert [why for _, _, why in report.rejected] == [
        "memories.md is generated from memories/*.md; use git enf remember TEXT or git enf forget ID"]
    assert git("show", "claude-memory:memories.md") == view


def test_a_fact_that_names_its_category_is_not_labelled_twice() -> None:
    def fact(text: str) -> pf.Fact:
        return pf.Fact("f1", text, "Gotcha", "2026-04-13", "ann", "project", None)

    assert budget.line(fact("Gotcha: the port is taken")) == "- Gotcha: the port is taken"
    assert budget.line(fact("the port is taken")) == "- Gotcha: the port is taken"
