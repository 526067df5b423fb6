"""slug: session file names by Elephants Never Forget's rules ([a-z0-9-], 2-5 words, <= 40 chars)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from enf_git.pure import model
from enf_git.pure.slug import MAX_SLUG, name_problem, session_filename, slugify, suggested_name
from gitfixtures import session_text


@pytest.mark.parametrize(
    ("text", "slug"),
    [
        ("API refactor", "api-refactor"),
        ("Refactor the API", "refactor-api"),
        ("Please can you fix the login bug in the payments flow today", "fix-login-bug-payments-flow"),
        ("one two three four five six seven", "one-two-three-four-five"),
        ("v2 migration 2026", "v2-migration-2026"),
        ("fix_bug: \"quotes\" & <tags> / path/to/file.py", "fix-bug-quotes-tags-path"),
        ("re-index   search\t\nresults!!", "re-index-search-results"),
        ("../../etc/passwd", "etc-passwd"),
        ("the a", "the-a"),  # only stop words: keep them rather than invent
    ],
)
def test_slug_words(text: str, slug: str) -> None:
    assert slugify(text) == slug


@pytest.mark.parametrize(
    ("text", "slug"),
    [
        ("Café résumé naïve", "cafe-resume-naive"),
        ("Ünïcödé ONLY", "unicode-only"),
        ("Ｆｕｌｌｗｉｄｔｈ text", "fullwidth-text"),
        ("Straße Øresund", "strasse-oresund"),
        ("日本語のテスト setup", "setup-session"),
        ("日本語のテスト", "session-notes"),
        ("🚀 launch", "launch-session"),
    ],
)
def test_non_ascii_is_folded_or_dropped(text: str, slug: str) -> None:
    assert slugify(text) == slug


@pytest.mark.parametrize(
    ("text", "slug"),
    [("", "session-notes"), ("session", "session-notes"), ("a", "a-session"), ("Deploy", "deploy-session"),
     ("!!!", "session-notes")],
)
def test_a_lone_word_is_padded_to_two(text: str, slug: str) -> None:
    assert slugify(text) == slug


@pytest.mark.parametrize(
    ("text", "slug"),
    [
        ("x" * 38 + " y", "x" * 38 + "-y"),
        ("x" * 60, "x" * 32 + "-session"),
        ("supercalifragilisticexpialidocious antidisestablishmentarianism",
         "supercalifragilistic-antidisestablishmen"),
        ("fix " + "y" * 50, "fix-" + "y" * 36),
        ("alpha beta gamma delta epsilonepsilonepsilonepsilon", "alpha-beta-gamma-delta"),
    ],
)
def test_long_input_keeps_two_words_within_40_chars(text: str, slug: str) -> None:
    assert slugify(text) == slug
    assert len(slug) <= MAX_SLUG


def test_any_text_gives_a_valid_slug() -> None:
    r = random.Random(7)
    alphabet = "abcxyz019 -_./:!?ÄéßøЖ日🚀\t\n" + "thequickbrownfox"
    for _ in range(2000):
        text = "".join(r.choice(alphabet) for _ in range(r.randint(0, 90)))
        slug = slugify(text)
        assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+){1,4}", slug), (text, slug)
        assert len(slug) <= MAX_SLUG, (text, slug)
        assert model.check_stem(f"2026-04-13-{slug}") is None
        assert model.check_stem(f"2026-04-13-{slug}-a1b2") is None  # with a collision suffix too


def test_filename_and_same_day_collision_suffix() -> None:
    assert session_filename("2026-04-13", "API refactor", "a1b2c3d4", set()) == "2026-04-13-api-refactor.md"
    taken = {"2026-04-13-api-refactor.md"}
    assert session_filename("2026-04-13", "API refactor", "A1B2C3D4", taken) == "2026-04-13-api-refactor-a1b2.md"
    # Another day is no collision.
    assert session_filename("2026-04-14", "API refactor", "a1b2c3d4", taken) == "2026-04-14-api-refactor.md"


def test_collision_suffix_uses_only_safe_id_characters() -> None:
    taken = {"2026-04-13-api-refactor.md"}
    assert session_filename("2026-04-13", "API refactor", "../A_b-9z", taken) == "2026-04-13-api-refactor-ab9z.md"
    assert session_filename("2026-04-13", "API refactor", "../!!", taken) == "2026-04-13-api-refactor-x.md"


@pytest.mark.parametrize("date", ["../2026-04-13", "2026-4-13", "", "2026-04-13/x", "2026-04-13\n", "２０２６-04-13"])
def test_date_must_be_a_date(date: str) -> None:
    with pytest.raises(ValueError):
        session_filename(date, "API refactor", "a1b2c3d4", set())


@pytest.mark.parametrize(("stem", "problem"), [
    ("2026-04-13-search-api", None),
    ("2026-04-13-search-api-a1b2", None),
    ("2026-04-13-Bad_Name", "name must be YYYY-MM-DD-<slug> with [a-z0-9-] only"),
    ("notes", "name must be YYYY-MM-DD-<slug> with [a-z0-9-] only"),
    ("2026-04-13-" + "x" * 46, "slug is 46 chars; keep it to 40"),
])
def test_name_problem_applies_the_seed_rules(stem: str, problem: str | None) -> None:
    assert name_problem(stem) == problem


def test_suggested_name_follows_the_rules() -> None:
    assert suggested_name("2026-04-13-Bad_Name", "2026-01-01") == "2026-04-13-bad-name"
    assert suggested_name("My Notes about Ünïcode", "2026-01-01") == "2026-01-01-my-notes-about-unicode"
    for stem in ("2026-04-13-Bad_Name", "weird   name!!", "x" * 80):
        assert name_problem(suggested_name(stem, "2026-01-01")) is None


def test_a_badly_named_new_session_is_committed_with_a_rename_hint(repo_dir: Path) -> None:
    from enf_git import memory

    ctx = memory.Context.open(repo_dir)
    memory.init(ctx)
    (ctx.root / "sessions" / "2026-04-13-Bad_Name.md").write_text(session_text())
    report = memory.commit(ctx, "bad name")
    assert report.commit is not None and "sessions/2026-04-13-Bad_Name.md" in report.commit.paths
    assert report.warnings == [
        "sessions/2026-04-13-Bad_Name.md: name must be YYYY-MM-DD-<slug> with [a-z0-9-] only; rename it "
        "(mv .claude-sessions/sessions/2026-04-13-Bad_Name.md .claude-sessions/sessions/2026-04-13-bad-name.md), "
        "then git enf commit"]


def test_a_suggested_rename_never_takes_a_name_in_use() -> None:
    taken = {"2026-04-13-bad-name.md"}
    assert suggested_name("2026-04-13-Bad_Name", "2026-01-01", "a1b2c3d4", taken) == "2026-04-13-bad-name-a1b2"


def test_doctor_names_the_file_to_rename_to(repo_dir: Path) -> None:
    from enf_git import memory
    from enf_git.memory.health import doctor

    ctx = memory.Context.open(repo_dir)
    memory.init(ctx)
    (ctx.root / "sessions" / "2026-04-13-Bad_Name.md").write_text(session_text())
    memory.commit(ctx, "bad name")
    found = [p for p in doctor.run(ctx, repo_dir.parent).problems if "Bad_Name" in p.what]
    assert [(p.severity, p.fix) for p in found] == [
        ("warning", "rename it to sessions/2026-04-13-bad-name.md in .claude-sessions/, then git enf commit")]


@pytest.mark.parametrize(("name", "header_date", "expected"), [
    ("p-a1.md", "2026-04-13", "2026-04-13-p-a1"),  # undated name: the date in the header
    ("notes.md", "", "2026-05-28-notes-session"),  # no date anywhere: the day of the commit
])
def test_an_undated_session_file_gets_a_rename_hint_not_a_crash(repo_dir: Path, name: str, header_date: str,
                                                                  expected: str) -> None:
    from enf_git import memory
    from enf_git.memory.health import doctor

    ctx = memory.Context.open(repo_dir)
    memory.init(ctx)
    text = session_text(date=header_date) if header_date else session_text().replace("date: 2026-04-13\n", "")
    (ctx.root / "sessions" / name).write_text(text)
    now = 1_780_000_000  # 2026-05-28 UTC
    report = memory.commit(ctx, "undated", now=now)
    better = expected
    assert report.commit is not None and f"sessions/{name}" in report.commit.paths
    assert [w.split("; ", 1)[1] for w in report.warnings] == [
        f"rename it (mv .claude-sessions/sessions/{name} .claude-sessions/sessions/{better}.md), then git enf commit"]
    found = [p.fix for p in doctor.run(ctx, repo_dir.parent).problems if name in p.what and "rename" in p.fix]
    assert found == [f"rename it to sessions/{better}.md in .claude-sessions/, then git enf commit"]
