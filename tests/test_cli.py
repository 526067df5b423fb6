"""`git enf` through click's runner: exact output, exit codes 0/1/2, -h everywhere."""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from enf_git.cli.app import main
from gitfixtures import Git, session_text, user_state

COMMANDS = ["init", "status", "commit", "log", "show", "recall", "doctor", "uninstall"]
DECISION = ("\n## Decisions\n- [14:10] Y: In the context of search engine, facing scale, decided Elasticsearch "
            "over Algolia, to achieve self-hosted control, accepting ops overhead. Confidence: high\n")
REVERSAL = ("\n## Decisions\n- [09:30] Y: In the context of search engine, facing cost, decided Postgres FTS "
            "over Elasticsearch, to achieve fewer parts, accepting weaker ranking. Confidence: medium\n"
            "\n## Reversals\n- [09:31] REVERSED Elasticsearch: Changed from Elasticsearch to Postgres FTS "
            "because the cluster cost too much\n")


@pytest.fixture
def cli(run_cli):  # type: ignore[no-untyped-def]
    return run_cli


@pytest.fixture
def populated(cli, repo_dir: Path):  # type: ignore[no-untyped-def]
    cli("init", "--no-hooks")
    sessions = repo_dir / ".claude-sessions" / "sessions"
    (sessions / "2026-04-13-search-api.md").write_text(session_text(body=DECISION))
    (sessions / "2026-04-20-postgres-fts.md").write_text(
        session_text(session_id="b2c3d4e5", date="2026-04-20", summary="Moved search to Postgres", tags="[search]", body=REVERSAL))
    cli("commit", "-m", "two sessions")
    return cli


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_help_works_on_every_command(cli, command: str, flag: str) -> None:  # type: ignore[no-untyped-def]
    assert cli(command, flag).startswith("Usage: ")


def test_usage_error_exits_2(cli) -> None:  # type: ignore[no-untyped-def]
    cli("log", "--no-such-flag", code=2)
    cli("recall", code=2)


def test_init_then_commit_exact_output(cli, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    out = cli("init", "--no-hooks")
    assert out == ("added /.claude-sessions/ to .git/info/exclude\n"
                   f"claude-memory created; working copy in {repo_dir / '.claude-sessions'}\n")
    assert cli("init", "--no-hooks") == f"claude-memory ready; working copy in {repo_dir / '.claude-sessions'}\n"
    assert cli("commit") == "nothing to commit\n"


def test_error_without_init_exits_1_with_a_hint(cli) -> None:  # type: ignore[no-untyped-def]
    out = cli("log", code=1)
    assert out == "error: no claude-memory branch in this repository yet\nhint: git enf init\n"


def test_not_a_repo_exits_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["status"])
    assert result.exit_code == 1
    assert result.output == f"error: not a git repository: {tmp_path}\nhint: cd into your project, or run: git init\n"


def test_log_oneline_and_filters(populated) -> None:  # type: ignore[no-untyped-def]
    assert populated("log", "--oneline") == (
        "2026-04-20-postgres-fts  completed  Moved search to Postgres  [search]\n"
        "2026-04-13-search-api  completed  Added search  [search, api]\n")
    assert populated("log", "--oneline", "--tag", "api").startswith("2026-04-13-search-api")
    assert populated("log", "--oneline", "--since", "2026-04-14").count("\n") == 1
    assert populated("log", "--oneline", "--until", "2026-04-14").startswith("2026-04-13")
    assert populated("log", "--oneline", "--status", "active") == "no sessions match\n"
    assert populated("log", "--oneline", "--author", "Test Author").count("\n") == 2
    assert populated("log", "--oneline", "--author", "nobody") == "no sessions match\n"


def test_log_json_is_machine_readable(populated) -> None:  # type: ignore[no-untyped-def]
    rows = json.loads(populated("log", "--json"))["sessions"]
    assert [r["session"] for r in rows] == ["2026-04-20-postgres-fts", "2026-04-13-search-api"]
    assert set(rows[0]) == {"session", "path", "session_id", "date", "start_time", "status", "tags", "summary",
                            "author", "decisions"}
    assert rows[1]["author"] == "Test Author <author@example.com>"


def test_log_decisions_shows_the_reversal_chain(populated) -> None:  # type: ignore[no-untyped-def]
    out = populated("log", "--decisions")
    lines = out.splitlines()
    assert len(lines) == 2
    assert "[Search engine]  decided Postgres FTS over Elasticsearch (medium)" in lines[0]
    standing = lines[0].split()[0]
    assert (f"decided Elasticsearch~~ SUPERSEDED by {standing} (2026-04-20) because the cluster cost too much"
            in lines[1])
    chain = json.loads(populated("log", "--decisions", "--json"))["decisions"]
    assert chain[0]["supersedes"][0]["decided"] == "Elasticsearch"
    assert chain[0]["supersedes"][0]["status"] == "superseded"
    assert chain[0]["supersedes"][0]["superseded_by"] == chain[0]["id"] == standing


def test_show_session_decision_and_history(populated, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    assert populated("show", "2026-04-13-search-api") == session_text(body=DECISION)
    assert populated("show", "2026-04-13") == session_text(body=DECISION)  # unique prefix
    decisions = json.loads(populated("log", "--decisions", "--json"))["decisions"]
    old_id = decisions[0]["supersedes"][0]["id"]
    out = populated("show", old_id)
    assert out.startswith(f"decision {old_id}  (from sessions/2026-04-13-search-api.md)")
    assert "SUPERSEDED" in out
    populated("show", "no-such-thing", code=1)


def test_show_at_reaches_text_from_before_a_rewrite(populated, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    path = repo_dir / ".claude-sessions" / "sessions" / "2026-04-13-search-api.md"
    path.write_text(session_text(summary="compressed"))
    populated("commit", "-m", "compress")
    history = populated("show", "sessions/2026-04-13-search-api.md", "--history")
    assert history.count("git enf show sessions/2026-04-13-search-api.md --at ") == 2
    older = history.splitlines()[3].split("--at ")[1]
    assert populated("show", "2026-04-13-search-api", "--at", older) == session_text(body=DECISION)
    assert populated("show", "2026-04-13-search-api", "--at", "claude-memory~1") == session_text(body=DECISION)


def test_show_at_says_what_is_missing_where(populated, git: Git) -> None:  # type: ignore[no-untyped-def]
    """`--at HEAD` names the user's code, not memory; a memory revision that did not hold
    the file yet says so, and how to find the revisions that do."""
    head = git("rev-parse", "HEAD").strip()[:12]
    out = populated("show", "decisions.md", "--at", "HEAD", code=1)
    assert out == (f"error: HEAD is {head}, a commit of your code, not a revision of claude-memory: no memory is "
                   "there, so no 'decisions.md' either\n"
                   "hint: git enf show decisions.md --at claude-memory~N (git log --oneline claude-memory lists "
                   "memory's revisions)\n")
    assert "a commit of your code" in populated("show", "2026-04-13-search-api", "--at", "main", code=1)
    first = git("rev-list", "--max-parents=0", "claude-memory").strip()
    stamp = int(git("log", "-1", "--format=%ct", first))
    when = dt.datetime.fromtimestamp(stamp, dt.timezone.utc).strftime("%Y-%m-%d %H:%M")
    out = populated("show", "2026-04-13-search-api", "--at", first, code=1)
    assert out == (f"error: sessions/2026-04-13-search-api.md is not in claude-memory at {first} ({first[:12]}, "
                   f"{when}): it came later, or was gone then\n"
                   "hint: git enf show sessions/2026-04-13-search-api.md --history lists the revisions that hold it\n")
    out = populated("show", "no-such-thing", "--at", "claude-memory~1", code=1)
    assert "'no-such-thing' is not in claude-memory at claude-memory~1 (" in out and "nor at its tip" in out
    assert populated("show", "decisions.md", "--at", "claude-memory").startswith("# Standing Decisions")


def test_recall_ranks_one_list_marks_reversals_and_finds_history(populated, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    out = populated("recall", "algolia")
    heads = [line for line in out.splitlines() if not line.startswith(" ")]
    # The one session that says "algolia" holds a reversed decision: marked, then its replacement.
    assert heads[0].startswith("decision 2026-04-13  sessions/2026-04-13-search-api.md  SUPERSEDED by d")
    assert heads[1].startswith("decision 2026-04-20  sessions/2026-04-20-postgres-fts.md")
    assert len(heads) == 2
    path = repo_dir / ".claude-sessions" / "sessions" / "2026-04-13-search-api.md"
    path.write_text(session_text(summary="compressed"))
    populated("commit", "-m", "compress")
    hits = json.loads(populated("recall", "algolia", "--json"))["results"]
    history = [h for h in hits if h["kind"] == "history"]
    assert history and history[0]["command"].startswith("git enf show sessions/2026-04-13-search-api.md --at ")
    assert populated("recall", "zzzunknownword").startswith("nothing in memory matches 'zzzunknownword'")


def test_recall_fast_path_matches_the_full_path(populated, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    full = populated("recall", "elasticsearch", "--json")  # builds the index
    script = repo_dir.parent / "git-enf"
    proc = subprocess.run([sys.executable, "-c", "from enf_git.entry import main; main()", "recall", "elasticsearch", "--json"],
                          cwd=repo_dir, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == full
    assert not script.exists()


def test_status_lists_pending_changes(populated, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    (repo_dir / ".claude-sessions" / "sessions" / "2026-04-21-new-thing.md").write_text(session_text(date="2026-04-21"))
    out = populated("status")
    assert "  new: sessions/2026-04-21-new-thing.md\n" in out
    (repo_dir / ".claude-sessions" / "sessions" / "2026-04-22-image.md").write_bytes(b"\x89PNG\r\n\x00")
    out = populated("status")
    assert "  not committable: sessions/2026-04-22-image.md: it is a binary file (a NUL byte" in out
    assert "new: sessions/2026-04-22-image.md" not in out  # listed once, as what it is
    state = json.loads(populated("status", "--json"))
    assert "sessions/2026-04-22-image.md" not in [c["path"] for c in state["changes"]]
    assert [r["path"] for r in state["refused"]] == ["sessions/2026-04-22-image.md"]
    doctor = populated("doctor", code=1)
    assert "sessions/2026-04-22-image.md cannot be committed: it is a binary file" in doctor
    assert "save it as UTF-8 text" in doctor


def test_a_conflict_copy_deleted_in_the_working_copy_is_no_longer_reported(  # type: ignore[no-untyped-def]
        populated, repo_dir: Path) -> None:
    copy = repo_dir / ".claude-sessions" / "conflicts" / "sessions" / "2026-04-13-search-api.md.1a2b3c4d"
    copy.parent.mkdir(parents=True)
    copy.write_text(session_text(date="2026-04-13", summary="Their version"))
    populated("commit")
    assert "  conflict copy: conflicts/sessions/2026-04-13-search-api.md.1a2b3c4d" in populated("status")
    assert "warning: conflict copy conflicts/" in populated("doctor")
    copy.unlink()  # merged by hand, then deleted, as the message says
    out = populated("status")
    assert "  deleted: conflicts/sessions/2026-04-13-search-api.md.1a2b3c4d\n" in out and "conflict copy" not in out
    assert json.loads(populated("status", "--json"))["conflicts"] == []
    doctor = populated("doctor")
    assert "conflict copy" not in doctor and "lacks" not in doctor and doctor.endswith("\nall good\n")
    populated("commit")
    assert "conflict" not in populated("status")


def test_doctor_names_problems_and_fixes(populated, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    assert populated("doctor").endswith("\nall good\n")
    (repo_dir / ".claude-sessions" / "sessions" / "2026-04-22-Bad_Name.md").write_text("---\nsession_id: [x\n---\n")
    populated("commit", code=0)
    out = populated("doctor", code=1)
    assert "error: sessions/2026-04-22-Bad_Name.md:2: invalid YAML frontmatter" in out
    assert "fix: edit .claude-sessions/sessions/2026-04-22-Bad_Name.md and run git enf commit" in out


def test_commands_never_touch_the_users_repo(populated, repo_dir: Path, git: Git) -> None:  # type: ignore[no-untyped-def]
    (repo_dir / "staged.txt").write_text("x")
    git("add", "staged.txt")
    before = user_state(repo_dir)
    for args in (["status"], ["commit"], ["log"], ["log", "--decisions"], ["recall", "search"], ["doctor"],
                 ["show", "index.md"], ["init"]):
        populated(*args)
        assert user_state(repo_dir) == before, args


def test_commit_fast_path_matches_the_click_path(populated, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    """`git-enf commit -m X` skips click; its output and exit codes must not differ."""
    script = str(Path(sys.executable).with_name("git-enf"))
    sessions = repo_dir / ".claude-sessions" / "sessions"
    for n, args in enumerate((["commit", "-m", "fast"], ["commit", "--message=fast"], ["commit", "-mfast"])):
        (sessions / f"2026-05-0{n + 1}-fast-path.md").write_text(session_text(date=f"2026-05-0{n + 1}"))
        proc = subprocess.run([script, *args], cwd=repo_dir, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        # the session, index.md, topics.md, the day's records index file and the digest
        assert re.fullmatch(r"\[claude-memory [0-9a-f]{12}\] fast \(5 paths\)\n", proc.stdout), proc.stdout
    proc = subprocess.run([script, "commit"], cwd=repo_dir, capture_output=True, text=True)
    assert (proc.returncode, proc.stdout) == (0, "nothing to commit\n")
    assert populated("commit") == "nothing to commit\n"
    proc = subprocess.run([script, "commit"], cwd=repo_dir.parent, capture_output=True, text=True)
    assert proc.returncode == 1 and proc.stderr.startswith("error: not a git repository: ")
    proc = subprocess.run([script, "commit", "--bogus"], cwd=repo_dir, capture_output=True, text=True)
    assert proc.returncode == 2  # unusual arguments go to click, which rejects them
