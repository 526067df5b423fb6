"""`git enf remember`, `forget`, `memories`: exact output, exit codes, pinned JSON envelopes."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from enf_git.cli.app import main
from gitfixtures import Git, user_state

Run = Callable[..., tuple[int, str]]
FACT_ROW = {"id", "text", "category", "date", "author", "scope", "expires"}
MATCH_ROW = {"kind", "scope", "id", "category", "text"}


@pytest.fixture
def run(repo_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Run:
    monkeypatch.chdir(repo_dir)
    monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", "sess-cli")

    def _run(*args: str) -> tuple[int, str]:
        result = CliRunner().invoke(main, list(args), catch_exceptions=False)
        return result.exit_code, result.output

    code, out = _run("init")
    assert code == 0, out
    return _run


def ok(run: Run, *args: str) -> str:
    code, out = run(*args)
    assert code == 0, out
    return out


def as_json(run: Run, *args: str) -> dict[str, object]:
    out = ok(run, *args, "--json")
    doc = json.loads(out)
    assert isinstance(doc, dict)
    return doc


def test_remember_detects_the_category_and_says_what_it_kept(run: Run, git: Git) -> None:
    out = ok(run, "remember", "we", "decided", "to", "use", "Zustand")
    fid = out.split()[1]
    assert out.startswith(f"remembered {fid} (project decision, until ")
    assert out.rstrip().endswith("): we decided to use Zustand")
    assert f"memories/{fid}.md" in git("ls-tree", "-r", "--name-only", "claude-memory")
    assert ok(run, "remember", "We decided to use Zustand").startswith(f"already remembered {fid} ")


def test_fact_text_may_hold_words_that_look_like_options(run: Run) -> None:
    out = ok(run, "remember", "--scope", "user", "always", "run", "pytest", "-q")
    assert out.rstrip().endswith("(user preference, with no expiry): always run pytest -q")


def test_remember_json_envelope_is_pinned(run: Run) -> None:
    doc = as_json(run, "remember", "--category", "todo", "drop", "the", "v1", "endpoint")
    assert set(doc) == {"schema", "command", "fact", "existing", "commit", "redacted"}
    assert doc["schema"] == 1 and doc["command"] == "remember" and doc["existing"] is False
    fact = doc["fact"]
    assert isinstance(fact, dict) and set(fact) == FACT_ROW and fact["category"] == "Action Item"


def test_a_wrong_category_is_a_usage_error_that_names_the_choices(run: Run) -> None:
    code, out = run("remember", "--category", "trivia", "x")
    assert code == 2 and "choose one of: Decision, Gotcha, Pattern, Preference, Action Item, General" in out


def test_session_scope_needs_a_session(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLAUDE_CODE_SESSION_ID")
    code, out = run("remember", "--scope", "session", "x")
    assert code == 1 and "need the session's id" in out and "--session ID" in out
    assert ok(run, "remember", "--scope", "session", "--session", "s2", "x").startswith("remembered ")


def test_listing_session_facts_outside_a_session_says_what_that_scope_is(run: Run,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLAUDE_CODE_SESSION_ID")
    for verb in ("list", "export", "prune"):
        code, out = run("memories", verb, "--scope", "session")
        assert code == 1 and "remember this" not in out, out
        assert "session facts belong to one Claude Code session" in out and "$CLAUDE_CODE_SESSION_ID" in out
        assert "hint: give --session ID, or leave --scope out" in out
    ok(run, "remember", "--scope", "session", "--session", "s2", "redis is down today")
    assert "redis is down today" in ok(run, "memories", "list", "--scope", "session", "--session", "s2")


def test_forget_with_several_matches_exits_1_lists_them_and_touches_nothing(run: Run, git: Git,
                                                                            repo_dir: Path) -> None:
    ok(run, "remember", "Redis is the cache")
    ok(run, "remember", "--scope", "user", "I prefer redis-cli")
    ok(run, "remember", "--scope", "session", "redis is down today")
    tip, state = git("rev-parse", "claude-memory"), user_state(repo_dir)
    code, out = run("forget", "redis")
    assert code == 1
    assert "error: 3 things match 'redis'; nothing was forgotten:" in out
    assert "(project general) Redis is the cache" in out and "(user preference) I prefer redis-cli" in out
    assert "(session general) redis is down today" in out and "hint: name one by its id: git enf forget ID" in out
    code, out = run("forget", "redis", "--json")
    doc = json.loads(out)
    assert code == 1 and doc["command"] == "forget" and doc["forgotten"] is None
    assert [set(m) for m in doc["matches"]] == [MATCH_ROW] * 3
    assert git("rev-parse", "claude-memory") == tip and user_state(repo_dir) == state
    assert len(as_json(run, "memories")["facts"]) == 3  # type: ignore[arg-type]


def test_forget_by_id_is_a_commit_and_says_history_keeps_it(run: Run, git: Git) -> None:
    fid = ok(run, "remember", "Gotcha: staging is read-only").split()[1]
    out = ok(run, "forget", fid)
    assert out.startswith(f"forgot {fid} (project gotcha) Gotcha: staging is read-only\n  as commit ")
    assert "history still holds it" in out
    assert git("log", "-1", "--format=%s", "claude-memory").strip() == f"enf: forget {fid} (Gotcha)"
    code, out = run("forget", fid)
    assert code == 1 and f"nothing remembered matches '{fid}'" in out


def test_memories_lists_exports_and_prunes(run: Run, git: Git) -> None:
    ok(run, "remember", "We chose Postgres")
    ok(run, "remember", "--scope", "user", "I prefer tabs")
    listing = ok(run, "memories")
    assert "project (1 fact)\n" in listing and "Decision    " in listing and "We chose Postgres  [until " in listing
    assert "user (1 fact)\n" in listing and "[no expiry]" in listing
    md = ok(run, "memories", "export", "--scope", "project")
    assert md.startswith("# Session Memory\n\n## Project Decisions\n- [") and "] We chose Postgres\n" in md
    doc = as_json(run, "memories", "export", "--format", "json")
    assert doc["command"] == "memories-export" and [set(f) for f in doc["facts"]] == [FACT_ROW] * 2  # type: ignore
    assert ok(run, "memories", "prune") == "nothing to prune: no expired or duplicate facts\n"
    pruned = as_json(run, "memories", "prune")
    assert set(pruned) == {"schema", "command", "removed", "commit"} and pruned["removed"] == []


def test_memories_list_json_envelope_is_pinned(run: Run) -> None:
    ok(run, "remember", "We chose Postgres")
    doc = as_json(run, "memories", "list")
    assert set(doc) == {"schema", "command", "facts", "problems"} and doc["command"] == "memories-list"


def test_user_scope_follows_xdg_config_home(run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            git: Git) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    fid = ok(run, "remember", "--scope", "user", "I prefer tabs").split()[1]
    assert (tmp_path / "xdg" / "enf-git" / "memories" / f"{fid}.md").is_file()
    assert fid not in git("log", "--all", "--format=%B") and not os.path.exists(Path(".claude-sessions") / fid)


def test_forget_the_matches_no_fact_that_merely_holds_those_letters(run: Run, git: Git) -> None:
    """A stopword alone names nothing, and text matches whole words only: "the" once deleted
    "we keep the other branch" as a part of its text."""
    ok(run, "remember", "we keep the other branch")
    ok(run, "remember", "--scope", "user", "I prefer them tabs")
    tip = git("rev-parse", "claude-memory")
    code, out = run("forget", "the")
    assert code == 1 and "error: 'the' is only words too common to name anything; nothing was forgotten" in out
    code, out = run("forget", "--yes", "the")
    assert code == 1 and "nothing was forgotten" in out
    code, out = run("forget", "oth")
    assert code == 1 and "nothing remembered matches 'oth'" in out
    assert git("rev-parse", "claude-memory") == tip
    assert len(as_json(run, "memories")["facts"]) == 2  # type: ignore[arg-type]


def test_forget_takes_an_id_prefix_as_show_does(run: Run, git: Git) -> None:
    fid = ok(run, "remember", "Gotcha: staging is read-only").split()[1]
    other = ok(run, "remember", "We chose Postgres").split()[1]
    assert fid[:5] != other[:5]
    out = ok(run, "forget", fid[:5].upper())
    assert out.startswith(f"forgot {fid} (project gotcha) Gotcha: staging is read-only\n  as commit ")
    assert [f["id"] for f in as_json(run, "memories")["facts"]] == [other]  # type: ignore[index, union-attr]
    code, out = run("forget", fid[:3])  # shorter than an id is ever abbreviated: a word, matching nothing
    assert code == 1 and f"nothing remembered matches '{fid[:3]}'" in out


def test_forget_asks_before_a_weak_match_or_several_and_yes_forgets_them(run: Run, git: Git) -> None:
    cache = ok(run, "remember", "Redis is the cache").split()[1]
    ok(run, "remember", "--scope", "user", "I prefer redis-cli")
    tip = git("rev-parse", "claude-memory")
    code, out = run("forget", "cache")
    assert code == 1 and f"error: 'cache' names only one word of {cache} (project general) Redis is the cache; " \
        "nothing was forgotten" in out
    assert f"hint: forget it by its id: git enf forget {cache} (or: git enf forget --yes cache)" in out
    code, out = run("forget", "--json", "cache")
    doc = json.loads(out)
    assert code == 1 and doc["forgotten"] is None and [m["id"] for m in doc["matches"]] == [cache]
    assert git("rev-parse", "claude-memory") == tip
    assert ok(run, "forget", "the", "cache", "--yes").startswith(f"forgot {cache} (project general) Redis is the cache\n")
    ok(run, "remember", "Redis is the cache")
    code, out = run("forget", "redis")
    assert code == 1 and "2 things match 'redis'" in out and "or forget all 2: git enf forget --yes redis" in out
    doc = as_json(run, "forget", "-y", "redis")
    assert doc["forgotten"] is None and len(doc["forgotten_all"]) == 2  # type: ignore[arg-type]
    assert as_json(run, "memories")["facts"] == []
    # Two meaningful words that only one fact holds, in order, are precise enough.
    ok(run, "remember", "Redis is the cache")
    ok(run, "remember", "the cache is warm")
    assert ok(run, "forget", "cache", "is", "warm").split("\n")[0].endswith(") the cache is warm")
    assert [f["text"] for f in as_json(run, "memories")["facts"]] == ["Redis is the cache"]  # type: ignore[index, union-attr]
