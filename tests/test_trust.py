"""enf.trust decides whose memory reaches the model; withheld memory is data all the same.
Real repository and hook processes; a teammate's commits made through git's identity
variables (as a teammate's clone would have made them)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from enf_git import paths
from enf_git.mcp import tools
from enf_git.memory.context import pointer_refresh
from enf_git.plumbing import locks
from gitfixtures import run_git
from test_trust_review import BOBS, MINE, team  # noqa: F401 (team: a fixture)
from test_untrusted_memory import OWN, POISON, SID, enf, hook

BOB = {"GIT_AUTHOR_NAME": "Bob Mallory", "GIT_AUTHOR_EMAIL": "bob@example.com"}
WITHHELD = "1 record(s) from unverified authors withheld (enf.trust): git enf trust review"


@pytest.fixture
def project(repo_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    enf(repo_dir, "init", "--no-hooks")
    sessions = repo_dir / ".claude-sessions" / "sessions"
    (sessions / "2026-04-12-own-cache.md").write_text(OWN)
    enf(repo_dir, "commit", "-m", "mine")
    (sessions / "2026-04-13-zephyr-cache.md").write_text(POISON)
    enf(repo_dir, "commit", "-m", "bob's notes", env=BOB)
    enf(repo_dir, "remember", "Deploys need the zephyr flag", env=BOB)
    enf(repo_dir, "remember", "We tag releases by hand")
    return repo_dir


def context(project: Path) -> str:
    text: str = json.loads(hook(project, "SessionStart", source="startup"))["hookSpecificOutput"]["additionalContext"]
    return text


def test_by_default_everyone_s_memory_reaches_the_model(project: Path) -> None:
    text = context(project)
    assert "zephyr-cache" in text and "Deploys need the zephyr flag" in text and "withheld" not in text


def test_authors_mode_withholds_a_teammate_not_listed_and_says_so(project: Path) -> None:
    run_git(project, "config", "enf.trust", "authors")
    text = context(project)
    assert "zephyr-cache" not in text and "SYSTEM OVERRIDE" not in text and "Deploys need" not in text
    assert WITHHELD in text
    assert "1 fact from unverified authors withheld (enf.trust): git enf trust review" in text
    assert "own-cache" in text and "We tag releases by hand" in text  # one's own memory still reaches it


def test_a_listed_teammate_is_trusted(project: Path) -> None:
    run_git(project, "config", "enf.trust", "authors")
    run_git(project, "config", "--add", "enf.trustedAuthors", "carol@example.com, BOB@example.com")
    text = context(project)
    assert "zephyr-cache" in text and "Deploys need the zephyr flag" in text and "withheld" not in text


def test_mcp_tools_leave_withheld_records_out_and_count_them(project: Path) -> None:
    run_git(project, "config", "enf.trust", "authors")
    where = tools.Where(project, None, "", time.time)
    recall = json.loads(tools.call("recall", {"query": "zephyr cache"}, where).text)
    assert all("zephyr-cache" not in r["target"] for r in recall["results"]) and recall["withheld"] == 1
    log = json.loads(tools.call("log", {}, where).text)
    assert [s["path"] for s in log["sessions"]] == ["sessions/2026-04-12-own-cache.md"] and log["withheld"] == 1
    shown = tools.call("show", {"target": "2026-04-13-zephyr-cache"}, where)
    assert shown.is_error and "withheld from the model by enf.trust" in shown.text


def _background_refresh_done(project: Path) -> None:
    """Until the refresh SessionStart began in the background has run: the pointers are
    current and its lock is free. The lock alone is free before a slow machine starts it,
    and it would then hold the lock while the test's own refresh wants it."""
    from enf_git.memory import workspace
    from enf_git.memory.context import pointer_state

    repo = workspace.Context.open(project).repo
    deadline = time.monotonic() + 60
    while pointer_state.pointers_stale(repo) and time.monotonic() < deadline:
        time.sleep(0.05)
    with locks.file_lock(project / ".git" / "enf" / paths.POINTERS_LOCK, wait=60):
        pass


def test_pointers_leave_withheld_records_out(project: Path) -> None:
    hook(project, "SessionStart", source="startup")
    _background_refresh_done(project)
    run_git(project, "config", "enf.trust", "authors")
    pointer_refresh.run(str(project))  # what the next start would begin in the background
    (project / ".claude-sessions" / "sessions" / "2026-12-02-mine.md").write_text(
        OWN.replace("a11ce000\ndate: 2026-04-12", f"{SID[:8]}\ndate: 2026-12-02"))
    first = out = hook(project, "UserPromptSubmit", prompt="how did we tune the zephyr cache notes?")
    assert "2026-04-13-zephyr-cache" not in out
    run_git(project, "config", "--unset", "enf.trust")
    pointer_refresh.run(str(project))  # the setting changed: the file is written again, Bob's record in it
    out = hook(project, "UserPromptSubmit", prompt="how did we tune the zephyr cache notes?")
    assert "zephyr-cache" in out, (first, out)


def test_the_person_still_reads_everything(project: Path) -> None:
    run_git(project, "config", "enf.trust", "authors")
    assert "Cache notes" in enf(project, "log", "--oneline")
    assert "SYSTEM OVERRIDE" in enf(project, "show", "2026-04-13-zephyr-cache")
    assert run_git(project, "show", "claude-memory:sessions/2026-04-13-zephyr-cache.md") == POISON


def test_signed_mode_shows_only_what_a_trusted_key_signed(team: Path) -> None:
    """My sessions signed by my allowed ssh key reach the model; Bob's unsigned one does
    not, and the context says so; the setting's unknown spelling withholds the same."""
    run_git(team, "config", "enf.trust", "signed")
    text = context(team)
    mine, bobs = Path(MINE).stem, Path(BOBS).stem
    assert mine in text and bobs not in text and WITHHELD in text
    run_git(team, "config", "enf.trust", "sigend")  # a typo: fail closed, never `all`
    assert bobs not in context(team)
    run_git(team, "config", "enf.trust", "all")
    assert bobs in context(team)


def test_log_and_show_mark_what_the_model_does_not_see(project: Path) -> None:
    run_git(project, "config", "enf.trust", "authors")
    line = [ln for ln in enf(project, "log", "--oneline").splitlines() if "zephyr-cache" in ln]
    assert line and line[0].endswith("[withheld from the model: author bob@example.com is not in enf.trustedAuthors]")
    import subprocess
    import sys

    proc = subprocess.run([str(Path(sys.executable).with_name("git-enf")), "show", "2026-04-13-zephyr-cache"],
                          cwd=project, capture_output=True, text=True)
    assert "SYSTEM OVERRIDE" in proc.stdout and "note: withheld from the model by enf.trust" in proc.stderr
    run_git(project, "config", "--unset", "enf.trust")
    assert "withheld" not in enf(project, "log", "--oneline")
