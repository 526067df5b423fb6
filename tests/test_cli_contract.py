"""The `git enf` contract: JSON envelopes, usage errors, colour, the pager, help, show by
decision-id prefix, hand-edited decisions, and the commit line.

The key sets below are pinned on purpose. Changing one (a key renamed, dropped or
added) fails these tests: then bump `cli.text.JSON_SCHEMA` if a field changed meaning
or went away, and update the pin in the same commit.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from enf_git.cli import text
from enf_git.cli.app import main
from enf_git.memory.record import queries
from enf_git.pure import model
from gitfixtures import Git, run_git, session_text

SCRIPT = str(Path(sys.executable).with_name("git-enf"))
Run = Callable[..., str]

# --- the pinned envelope -------------------------------------------------------------
SCHEMA = 1
ENVELOPE = {"schema", "command"}
STATUS_KEYS = ENVELOPE | {"branch", "tip", "working_set_floor", "behind", "changes", "edited_views", "missing", "remote",
                          "disagreements", "refused", "signing_failed",
                          "conflicts", "flagged", "unjudged"}
CHANGE_KEYS = {"path", "state"}
LOG_KEYS = ENVELOPE | {"sessions", "malformed"}
SESSION_ROW = {"session", "path", "session_id", "date", "start_time", "status", "tags", "summary", "author",
               "decisions"}
DECISIONS_KEYS = ENVELOPE | {"decisions", "unresolved", "disagreements"}
DECISION_ROW = {"id", "topic", "date", "time", "decided", "over", "confidence", "source", "text", "author"}
STANDING_ROW = DECISION_ROW | {"status", "supersedes"}
SUPERSEDED_ROW = DECISION_ROW | {"status", "superseded_by", "reversed_on", "reversed_because"}
UNRESOLVED_ROW = {"source", "ref", "date"}
SHOW_FILE_KEYS = ENVELOPE | {"kind", "path", "revision", "text"}
SHOW_DECISION_KEYS = ENVELOPE | {"kind", "path", "decision"}
HISTORY_KEYS = ENVELOPE | {"path", "versions"}
VERSION_ROW = {"commit", "date", "author", "subject", "blob"}
DOCTOR_KEYS = ENVELOPE | {"ok", "checks", "problems"}
PROBLEM_ROW = {"severity", "what", "fix"}
RESTORE_KEYS = ENVELOPE | {"restored", "kept"}

# --- the memory the tests read -------------------------------------------------------
SEARCH = ("\n## Decisions\n- [14:10] Y: In the context of search engine, facing scale, decided Elasticsearch "
          "over Algolia, to achieve self-hosted control, accepting ops overhead. Confidence: high\n")
REVERSAL = ("\n## Decisions\n- [09:30] Y: In the context of search engine, facing cost, decided Postgres FTS "
            "over Elasticsearch, to achieve fewer parts, accepting weaker ranking. Confidence: medium\n"
            "\n## Reversals\n- [09:31] REVERSED Elasticsearch: Changed from Elasticsearch to Postgres FTS "
            "because the cluster cost too much\n")
AUTH = ("\n## Decisions\n- [10:00] Y: In the context of auth, facing expiry, decided short-lived JWTs over "
        "server sessions, to achieve stateless APIs, accepting revocation lag. Confidence: low\n"
        "\n## Reversals\n- [10:05] REVERSED Memcached: Changed from Memcached to nothing because unused\n")
QUEUE = ("- [2026-05-10] Y: In the context of job queue, facing load, decided Redis over RabbitMQ, "
         "to achieve simplicity. Confidence: medium")


@pytest.fixture
def cli(repo_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Run:
    monkeypatch.chdir(repo_dir)
    runner = CliRunner()

    def run(*args: str, code: int = 0) -> str:
        result = runner.invoke(main, list(args), catch_exceptions=False, prog_name="git-enf")
        assert result.exit_code == code, result.output
        return result.output

    return run


def write_session(repo_dir: Path, stem: str, **fields: str) -> None:
    (repo_dir / ".claude-sessions" / "sessions" / f"{stem}.md").write_text(session_text(**fields))


@pytest.fixture
def memory(cli: Run, repo_dir: Path, git: Git) -> Run:
    """Four decisions over three sessions and a hand-edited decisions.md, two authors,
    one reversal (a chain of two) and one reversal that matches nothing."""
    cli("init", "--no-hooks")
    write_session(repo_dir, "2026-04-13-search-api", body=SEARCH)
    cli("commit", "-m", "search")
    git("config", "user.name", "Other Person")
    git("config", "user.email", "other@example.com")
    write_session(repo_dir, "2026-04-20-postgres-fts", session_id="b2c3d4e5", date="2026-04-20",
                  summary="Moved search to Postgres", tags="[search]", body=REVERSAL)
    cli("commit", "-m", "postgres")
    git("config", "user.name", "Test Author")
    git("config", "user.email", "author@example.com")
    write_session(repo_dir, "2026-05-02-auth-tokens", session_id="c3d4e5f6", date="2026-05-02",
                  summary="Tokens", tags="[auth]", body=AUTH)
    views = repo_dir / ".claude-sessions" / "decisions.md"
    views.write_text(views.read_text() + QUEUE + "\n")
    cli("commit", "-m", "auth and queue")
    return cli


def decision_ids(run: Run) -> dict[str, str]:
    """decided clause -> id, standing and superseded alike."""
    rows = json.loads(run("log", "--decisions", "--json"))["decisions"]
    return {r["decided"]: r["id"] for row in rows for r in (row, *row["supersedes"])}


# --- envelopes -----------------------------------------------------------------------

def envelope_of(out: str, command: str, keys: set[str]) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(out)
    assert doc["schema"] == SCHEMA == text.JSON_SCHEMA
    assert doc["command"] == command
    assert set(doc) == keys
    assert list(doc)[:2] == ["schema", "command"]
    return doc


def test_status_envelope(memory: Run, repo_dir: Path) -> None:
    write_session(repo_dir, "2026-05-20-new", date="2026-05-20")
    (repo_dir / ".claude-sessions" / "sessions" / "2026-04-13-search-api.md").unlink()
    doc = envelope_of(memory("status", "--json"), "status", STATUS_KEYS)
    assert doc["branch"] == "claude-memory" and doc["behind"] is False and doc["working_set_floor"] is None
    assert doc["changes"] == [{"path": "sessions/2026-04-13-search-api.md", "state": "deleted"},
                              {"path": "sessions/2026-05-20-new.md", "state": "new"}]
    assert all(set(c) == CHANGE_KEYS for c in doc["changes"])
    assert doc["edited_views"] == doc["missing"] == doc["conflicts"] == doc["refused"] == []
    assert memory("status").splitlines()[1:] == [  # a deletion to commit, not also one to restore
        "  deleted: sessions/2026-04-13-search-api.md", "  new: sessions/2026-05-20-new.md"]
    (repo_dir / ".claude-sessions" / "sessions").rename(repo_dir / "elsewhere")
    doc = envelope_of(memory("status", "--json"), "status", STATUS_KEYS)
    assert doc["changes"] == [] and len(doc["missing"]) == 3  # a vanished folder: restored, not deleted


def test_log_envelope(memory: Run) -> None:
    doc = envelope_of(memory("log", "--json"), "log", LOG_KEYS)
    rows = doc["sessions"]
    assert isinstance(rows, list) and len(rows) == 3
    assert all(set(r) == SESSION_ROW for r in rows)
    assert [r["author"] for r in rows] == ["Test Author <author@example.com>", "Other Person <other@example.com>",
                                          "Test Author <author@example.com>"]
    assert doc["malformed"] == []


def test_log_names_the_malformed_sessions_it_leaves_out(memory: Run, repo_dir: Path) -> None:
    (repo_dir / ".claude-sessions" / "sessions" / "2026-05-22-bad.md").write_text("---\nsession_id: [x\n---\n")
    memory("commit")
    doc = envelope_of(memory("log", "--json"), "log", LOG_KEYS)
    assert doc["malformed"] == ["sessions/2026-05-22-bad.md"] and len(doc["sessions"]) == 3
    out = memory("log", "--oneline")
    assert "note: 1 malformed session file left out (sessions/2026-05-22-bad.md): git enf doctor" in out


def test_log_decisions_envelope(memory: Run) -> None:
    doc = envelope_of(memory("log", "--decisions", "--json"), "log-decisions", DECISIONS_KEYS)
    rows = doc["decisions"]
    assert isinstance(rows, list) and [r["decided"] for r in rows] == [
        "Redis", "short-lived JWTs", "Postgres FTS"]
    assert all(set(r) == STANDING_ROW and r["status"] == "standing" for r in rows)
    old = rows[2]["supersedes"]
    assert len(old) == 1 and set(old[0]) == SUPERSEDED_ROW
    assert (old[0]["decided"], old[0]["status"], old[0]["superseded_by"]) == ("Elasticsearch", "superseded",
                                                                             rows[2]["id"])
    assert (old[0]["reversed_on"], old[0]["reversed_because"]) == ("2026-04-20", "the cluster cost too much")
    assert doc["unresolved"] == [{"source": "sessions/2026-05-02-auth-tokens.md", "ref": "Memcached",
                                  "date": "2026-05-02"}]
    assert all(set(r) == UNRESOLVED_ROW for r in doc["unresolved"])


def test_show_envelopes(memory: Run) -> None:
    doc = envelope_of(memory("show", "2026-04-13-search-api", "--json"), "show", SHOW_FILE_KEYS)
    assert (doc["kind"], doc["path"]) == ("session", "sessions/2026-04-13-search-api.md")
    assert doc["text"] == session_text(body=SEARCH)
    assert doc["revision"] == run_git(Path.cwd(), "rev-parse", "claude-memory").strip()
    assert envelope_of(memory("show", "index.md", "--json"), "show", SHOW_FILE_KEYS)["kind"] == "file"
    ids = decision_ids(memory)
    doc = envelope_of(memory("show", ids["Postgres FTS"], "--json"), "show", SHOW_DECISION_KEYS)
    assert (doc["kind"], doc["path"]) == ("decision", "sessions/2026-04-20-postgres-fts.md")
    row = doc["decision"]
    assert isinstance(row, dict) and set(row) == STANDING_ROW and row["id"] == ids["Postgres FTS"]
    assert row["author"] == "Other Person <other@example.com>"
    doc = envelope_of(memory("show", ids["Elasticsearch"], "--json"), "show", SHOW_DECISION_KEYS)
    row = doc["decision"]
    assert isinstance(row, dict) and set(row) == SUPERSEDED_ROW | {"standing"}
    assert (row["status"], row["standing"]) == ("superseded", ids["Postgres FTS"])
    assert row["author"] == "Test Author <author@example.com>"


def test_show_history_envelope(memory: Run) -> None:
    doc = envelope_of(memory("show", "decisions.md", "--history", "--json"), "show-history", HISTORY_KEYS)
    versions = doc["versions"]
    assert isinstance(versions, list) and len(versions) == 4  # init, then three commits
    assert all(set(v) == VERSION_ROW for v in versions)
    assert [v["subject"] for v in versions][:3] == ["auth and queue", "postgres", "search"]


def test_doctor_envelope(memory: Run) -> None:
    doc = envelope_of(memory("doctor", "--json"), "doctor", DOCTOR_KEYS)
    assert doc["ok"] is True
    checks = doc["checks"]
    assert isinstance(checks, list) and checks and all(isinstance(c, str) for c in checks)
    assert isinstance(doc["problems"], list)
    assert all(set(p) == PROBLEM_ROW for p in doc["problems"])


def test_doctor_envelope_with_an_error(memory: Run, repo_dir: Path) -> None:
    (repo_dir / ".claude-sessions" / "sessions" / "2026-05-22-bad.md").write_text("---\nsession_id: [x\n---\n")
    memory("commit")
    doc = envelope_of(memory("doctor", "--json", code=1), "doctor", DOCTOR_KEYS)
    assert doc["ok"] is False
    problems = doc["problems"]
    assert isinstance(problems, list) and problems and all(set(p) == PROBLEM_ROW for p in problems)
    assert "error" in {p["severity"] for p in problems}


def test_recall_envelope(memory: Run) -> None:
    doc = json.loads(memory("recall", "elasticsearch", "--json"))
    assert (doc["schema"], doc["command"], doc["query"], doc["weak"]) == (SCHEMA, "recall", "elasticsearch",
                                                                          doc["weak"])
    assert isinstance(doc["weak"], bool) and isinstance(doc["results"], list) and doc["results"]
    assert {"schema", "command", "query", "weak", "results"} <= set(doc)


def test_restore_envelope(memory: Run, repo_dir: Path) -> None:
    (repo_dir / ".claude-sessions" / "sessions" / "2026-04-13-search-api.md").unlink()
    doc = envelope_of(memory("restore", "--json"), "restore", RESTORE_KEYS)
    assert doc["restored"] == ["sessions/2026-04-13-search-api.md"] and doc["kept"] == []


# --- log --decisions filters ---------------------------------------------------------

def expected_lines(ids: dict[str, str]) -> dict[str, str]:
    return {
        "redis": f"{ids['Redis']}  2026-05-10  [Job queue]  decided Redis over RabbitMQ (medium)",
        "jwt": f"{ids['short-lived JWTs']}  2026-05-02 10:00  [Auth]  decided short-lived JWTs over server "
               "sessions (low)",
        "pg": f"{ids['Postgres FTS']}  2026-04-20 09:30  [Search engine]  decided Postgres FTS over "
              "Elasticsearch (medium)",
        "es": f"    ~~ {ids['Elasticsearch']}  2026-04-13  decided Elasticsearch~~ SUPERSEDED by "
              f"{ids['Postgres FTS']} (2026-04-20) because the cluster cost too much",
        "memcached": "unresolved reversal in sessions/2026-05-02-auth-tokens.md: REVERSED Memcached "
                     "(no matching decision)",
    }


@pytest.mark.parametrize(("args", "want"), [
    ((), ["redis", "jwt", "pg", "es", "memcached"]),
    (("--oneline",), ["redis", "jwt", "pg", "memcached"]),
    (("--since", "2026-05-01"), ["redis", "jwt", "memcached"]),
    (("--until", "2026-04-30"), ["pg", "es"]),
    (("--since", "2026-04-20", "--until", "2026-05-02"), ["jwt", "pg", "es", "memcached"]),
    (("--tag", "search"), ["pg", "es"]),
    (("--tag", "auth", "--tag", "api"), ["jwt", "memcached"]),
    (("--author", "other person"), ["pg", "es"]),
    (("--author", "author@example.com"), ["redis", "jwt", "pg", "es", "memcached"]),  # es: theirs, reversed
    (("-n", "1"), ["redis", "memcached"]),
    (("-n", "3", "--oneline"), ["redis", "jwt", "pg", "memcached"]),
    (("--limit", "2", "--tag", "search", "--oneline"), ["pg"]),
    (("--author", "nobody"), []),
])
def test_log_decisions_filters(memory: Run, args: tuple[str, ...], want: list[str]) -> None:
    lines = expected_lines(decision_ids(memory))
    out = memory("log", "--decisions", *args)
    assert out == "".join(f"{lines[k]}\n" for k in want) if want else out == "no decisions match\n"
    assert [r["id"] for r in json.loads(memory("log", "--decisions", "--json", *args))["decisions"]] == [
        lines[k].split()[0] for k in want if k in ("redis", "jwt", "pg")]


# --- usage errors --------------------------------------------------------------------

USAGE_ERRORS = [
    (("log", "-n", "0"), "0 is not in the range x>=1"),
    (("log", "-n", "-1"), "-1 is not in the range x>=1"),
    (("log", "--decisions", "-n", "0"), "0 is not in the range x>=1"),
    (("log", "--since", "2026-02-30"), "2026-02-30 is not a real date; use YYYY-MM-DD"),
    (("log", "--decisions", "--since", "2026-13-01"), "2026-13-01 is not a real date"),
    (("log", "--until", "garbage"), "cannot read the date 'garbage'"),
    (("log", "--since", "9999999y"), "'9999999y' reaches back before the year 1"),
    (("log", "--until", "99999999999999999999d"), "reaches back before the year 1"),
    (("log", "--decisions", "--status", "active"), "--status filters sessions, and decisions have none"),
    (("recall", ""), "the query has no words to search for"),
    (("recall", "  "), "the query has no words to search for"),
    (("recall", "-n", "0", "postgres"), "0 is not in the range"),
    (("recall", "--json", ""), "the query has no words to search for"),
    (("help", "nosuch"), "no such command 'nosuch'"),
]


@pytest.mark.parametrize(("args", "message"), USAGE_ERRORS)
def test_usage_errors_exit_2(cli: Run, args: tuple[str, ...], message: str) -> None:
    cli("init", "--no-hooks")
    out = cli(*args, code=2)
    assert message in out
    assert out.startswith("Usage: ") and "Try 'git-enf " in out


def test_usage_errors_exit_2_through_the_console_script(memory: Run, repo_dir: Path) -> None:
    memory("recall", "postgres")  # a warm index: recall's fast path is live
    for args, message in USAGE_ERRORS:
        proc = subprocess.run([SCRIPT, *args], cwd=repo_dir, capture_output=True, text=True)
        assert (proc.returncode, proc.stdout) == (2, ""), (args, proc.stdout)
        assert message in proc.stderr, args


@pytest.mark.parametrize(("given", "day"), [
    ("2026-04-01", "2026-04-01"), (" 2026-04-01 ", "2026-04-01"), ("today", "2026-05-15"),
    ("yesterday", "2026-05-14"), ("7d", "2026-05-08"), ("7 days ago", "2026-05-08"), ("1 day", "2026-05-14"),
    ("3w", "2026-04-24"), ("1 week ago", "2026-05-08"), ("1m", "2026-04-15"), ("1 month ago", "2026-04-15"),
    ("2 months", "2026-03-16"), ("1y", "2025-05-15"), ("2 years ago", "2024-05-15"),
])
def test_dates_a_person_types(given: str, day: str) -> None:
    assert queries.parse_date(given, dt.date(2026, 5, 15)) == day


@pytest.mark.parametrize("given", ["2026-02-30", "2026-4-1", "garbage", "", "d", "5x", "٣d", "9999999y"])
def test_dates_that_are_refused(given: str) -> None:
    with pytest.raises(ValueError, match="YYYY-MM-DD"):
        queries.parse_date(given, dt.date(2026, 5, 15))


def test_relative_dates_through_the_cli(memory: Run) -> None:
    assert memory("log", "--oneline", "--since", "today") == "no sessions match\n"
    assert memory("log", "--oneline", "--since", "20 years ago").count("\n") == 3


# --- help ----------------------------------------------------------------------------

def test_help_lists_commands_and_helps_one(memory: Run) -> None:
    top = memory("help")
    assert top == memory("--help")
    assert "Commands:" in top and all(f"  {c} " in top for c in ("log", "show", "recall", "doctor", "help"))
    assert memory("help", "log") == memory("log", "--help")
    assert memory("help", "log").startswith("Usage: git-enf log [OPTIONS]")
    proc = subprocess.run([SCRIPT, "help", "show"], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.startswith("Usage: git enf show [OPTIONS] TARGET")


# --- show by decision-id prefix ------------------------------------------------------

def colliding_decisions(stem: str, stamp: str) -> tuple[str, str]:
    """Two decided clauses whose ids share their first four characters."""
    seen: dict[str, str] = {}
    for i in range(10_000):
        decided = f"option {i}"
        prefix = model.stable_id("d", stem, stamp, decided.lower())[:4]
        if prefix in seen:
            return seen[prefix], decided
        seen[prefix] = decided
    raise AssertionError("no collision")


def test_show_by_decision_id_prefix(memory: Run, repo_dir: Path) -> None:
    first, second = colliding_decisions("2026-06-01-options", "11:00")
    body = "\n## Decisions\n" + "".join(f"- [11:00] Y: In the context of choice, decided {d}.\n"
                                       for d in (first, second))
    write_session(repo_dir, "2026-06-01-options", date="2026-06-01", body=body)
    memory("commit")
    ids = decision_ids(memory)
    a, b = ids[first], ids[second]
    assert a[:4] == b[:4] and a != b
    out = memory("show", a[:4], code=1)
    assert out == (f"error: {a[:4]!r} matches 2 decisions: {', '.join(sorted((a, b)))}\n"
                   "hint: give more of the id\n")
    for length in range(4, 8):
        prefix = ids["Redis"][:length]
        matches = [i for i in ids.values() if i.startswith(prefix)]
        if len(matches) == 1:
            assert memory("show", prefix).startswith(f"decision {ids['Redis']}  (from decisions/"), prefix
    unique = next(a[:n] for n in range(5, 9) if not b.startswith(a[:n]))
    assert memory("show", unique).startswith(f"decision {a}  (from sessions/2026-06-01-options.md)")
    taken = {i[:4] for i in ids.values()}
    free = next(p for p in (f"d{n:03x}" for n in range(4096)) if p not in taken)
    assert memory("show", free, code=1) == (f"error: no decision or session matches {free!r}\n"
                                            "hint: git enf log --decisions --oneline lists decision ids\n")
    assert memory("show", "d0000000", code=1) == ("error: no decision d0000000\n"
                                                  "hint: git enf log --decisions --oneline lists decision ids\n")


def test_show_superseded_decision_names_the_standing_one(memory: Run) -> None:
    ids = decision_ids(memory)
    out = memory("show", ids["Elasticsearch"][:6])
    assert out.splitlines()[:2] == [
        f"decision {ids['Elasticsearch']}  (from sessions/2026-04-13-search-api.md)",
        f"SUPERSEDED: it no longer stands; the standing decision is {ids['Postgres FTS']}"]
    standing = memory("show", ids["Postgres FTS"])
    assert "no longer stands" not in standing
    assert standing.splitlines()[2].endswith(f"({ids['Elasticsearch']})~~ SUPERSEDED "
                                             "(2026-04-20 09:31: the cluster cost too much)")


# --- a decision imported from a hand edit --------------------------------------------

def test_hand_edited_decision_is_filed_under_its_own_id(memory: Run, repo_dir: Path, git: Git) -> None:
    ids = decision_ids(memory)
    queue = ids["Redis"]
    files = git("ls-tree", "-r", "--name-only", "claude-memory", "decisions/").split()
    assert files == [f"decisions/2026-05-10-{queue}.md"]
    assert model.parse_decision_file(files[0], git("show", f"claude-memory:{files[0]}").encode())[0].id == queue
    out = memory("show", queue)
    assert out.startswith(f"decision {queue}  (from decisions/2026-05-10-{queue}.md)\n")
    doc = json.loads(memory("show", queue, "--json"))
    assert (doc["path"], doc["decision"]["id"]) == (f"decisions/2026-05-10-{queue}.md", queue)
    assert f"({queue})" in (repo_dir / ".claude-sessions" / "decisions.md").read_text()
    assert git("log", "-1", "--format=%s", "claude-memory").strip() == "auth and queue"


# --- the commit line -----------------------------------------------------------------

LINE = re.compile(r"\[claude-memory (?P<oid>[0-9a-f]{12})\] (?P<subject>.*) \((?P<n>\d+) paths?\)")


def committed(out: str, git: Git) -> str:
    """The subject the commit line printed, checked against what git has."""
    m = LINE.fullmatch(out.splitlines()[-1])
    assert m is not None, out
    assert git("rev-parse", "claude-memory").startswith(m["oid"])
    assert git("log", "-1", "--format=%s", "claude-memory").removesuffix("\n") == m["subject"]
    return m["subject"]


def test_commit_line_and_message_agree(memory: Run, repo_dir: Path, git: Git) -> None:
    sessions = repo_dir / ".claude-sessions" / "sessions"
    write_session(repo_dir, "2026-06-02-one", date="2026-06-02")
    assert committed(memory("commit"), git) == "enf: add 2026-06-02-one"
    write_session(repo_dir, "2026-06-02-one", date="2026-06-02", summary="changed")
    assert committed(memory("commit"), git) == "enf: update 2026-06-02-one"
    log = repo_dir / ".claude-sessions" / "log.md"
    log.write_text(log.read_text() + "- a log line\n")
    assert committed(memory("commit"), git) == "enf: update log.md"
    (repo_dir / ".claude-sessions" / "notes.md").write_text("notes\n")
    assert committed(memory("commit"), git) == "enf: add notes.md"
    (sessions / "2026-06-02-one.md").unlink()
    assert committed(memory("commit"), git) == "enf: delete 2026-06-02-one"
    for n in range(3):
        write_session(repo_dir, f"2026-06-1{n}-many", date=f"2026-06-1{n}")
    write_session(repo_dir, "2026-04-13-search-api", summary="compressed")
    assert committed(memory("commit"), git) == "enf: add 3 sessions; update 2026-04-13-search-api"
    for name in ("a.md", "b.md"):
        (repo_dir / ".claude-sessions" / name).write_text("notes\n")
    write_session(repo_dir, "2026-06-15-once", date="2026-06-15")
    assert committed(memory("commit"), git) == "enf: add 2 files, 1 session"  # one session, not "1 sessions"
    write_session(repo_dir, "2026-06-20-x", date="2026-06-20")
    assert committed(memory("commit", "-m", "my words"), git) == "my words"
    write_session(repo_dir, "2026-06-21-x", date="2026-06-21")
    assert committed(memory("commit", "-m", "two\nlines"), git) == "two lines"
    write_session(repo_dir, "2026-06-22-x", date="2026-06-22")
    assert committed(memory("commit", "-m", "\n  indented  \nsubject\n\nand a body"), git) == "  indented subject"
    write_session(repo_dir, "2026-06-23-x", date="2026-06-23")
    assert committed(memory("commit", "-m", "   "), git) == "enf: add 2026-06-23-x"  # blank: the default


def test_commit_line_and_message_agree_through_the_fast_path(memory: Run, repo_dir: Path, git: Git) -> None:
    def fast(*args: str) -> str:
        proc = subprocess.run([SCRIPT, "commit", *args], cwd=repo_dir, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    write_session(repo_dir, "2026-06-03-fast", date="2026-06-03")
    assert committed(fast(), git) == "enf: add 2026-06-03-fast"
    (repo_dir / ".claude-sessions" / "sessions" / "2026-06-03-fast.md").unlink()
    assert committed(fast(), git) == "enf: delete 2026-06-03-fast"
    write_session(repo_dir, "2026-06-04-fast", date="2026-06-04")
    assert committed(fast("-m", "by hand"), git) == "by hand"
    write_session(repo_dir, "2026-06-05-fast", date="2026-06-05")
    assert committed(fast("-m", ""), git) == "enf: add 2026-06-05-fast"
    write_session(repo_dir, "2026-06-06-fast", date="2026-06-06")
    assert committed(fast("--message=first\nsecond\n\nbody"), git) == "first second"


# --- colour and the pager, on a real terminal ----------------------------------------

def on_tty(argv: list[str], cwd: Path, env: dict[str, str], timeout: float = 30.0,
           meanwhile: Callable[[int], None] | None = None) -> tuple[int, str]:
    """Run argv with a pseudo-terminal as stdin, stdout and stderr: (exit code, what it showed).
    `meanwhile(process group)` runs in a thread while it does."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=slave, stdout=slave, stderr=slave,
                            start_new_session=True)
    os.close(slave)
    helper = threading.Thread(target=meanwhile, args=(proc.pid,)) if meanwhile else None
    if helper:
        helper.start()
    chunks, deadline = [], time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: every writer closed the terminal
                    break
                if not chunk:
                    break
                chunks.append(chunk)
            elif proc.poll() is not None:
                break
    finally:
        os.close(master)
    code = proc.wait(timeout=timeout)
    if helper:
        helper.join()
    return code, b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")


@pytest.fixture
def tty_env(repo_dir: Path, tmp_path: Path) -> dict[str, str]:
    """The hermetic environment, a recording pager as PAGER (git's last resort), none else."""
    recorder = tmp_path / "pager.sh"
    recorder.write_text(f"#!/bin/sh\ncat >> {tmp_path / 'paged.txt'}\n")
    recorder.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "GIT_PAGER", "PAGER", "TERM")}
    env["TERM"] = "xterm"
    env["PAGER"] = "cat"  # never less: a test must not hang on a pager waiting for a key
    env["RECORDER"] = str(recorder)
    return env


def paged(tmp_path: Path) -> str | None:
    f = tmp_path / "paged.txt"
    return f.read_text() if f.exists() else None


ANSI = "\x1b["


def test_log_colour_on_a_terminal(memory: Run, repo_dir: Path, tty_env: dict[str, str], git: Git) -> None:
    env = {**tty_env, "GIT_PAGER": "cat"}
    code, out = on_tty([SCRIPT, "log"], repo_dir, env)
    assert code == 0 and f"{ANSI}33msession 2026-05-02-auth-tokens{ANSI}0m" in out, out
    queue = decision_ids(memory)["Redis"]
    code, out = on_tty([SCRIPT, "log", "--decisions", "--oneline"], repo_dir, env)
    assert code == 0 and f"{ANSI}33m{queue}{ANSI}0m  2026-05-10  [Job queue]" in out, out
    code, out = on_tty([SCRIPT, "show", queue], repo_dir, env)
    assert code == 0 and f"{ANSI}33mdecision {queue}{ANSI}0m  (from decisions/" in out, out
    code, out = on_tty([SCRIPT, "log"], repo_dir, {**env, "NO_COLOR": "1"})
    assert code == 0 and "session 2026-05-02-auth-tokens" in out and ANSI not in out
    git("config", "color.ui", "never")
    code, out = on_tty([SCRIPT, "log"], repo_dir, env)
    assert code == 0 and "session 2026-05-02-auth-tokens" in out and ANSI not in out
    git("config", "color.ui", "always")
    piped = subprocess.run([SCRIPT, "log"], cwd=repo_dir, env=env, capture_output=True, text=True)
    assert f"{ANSI}33msession 2026-05-02-auth-tokens" in piped.stdout
    git("config", "color.ui", "auto")
    piped = subprocess.run([SCRIPT, "log"], cwd=repo_dir, env=env, capture_output=True, text=True)
    assert piped.returncode == 0 and "session 2026-05-02" in piped.stdout and ANSI not in piped.stdout


def test_no_color_is_a_default_that_an_explicit_always_overrides(memory: Run, repo_dir: Path,
                                                                  tty_env: dict[str, str]) -> None:
    env = {**tty_env, "GIT_PAGER": "cat", "NO_COLOR": "1", "PATH": f"{Path(SCRIPT).parent}:{tty_env['PATH']}"}
    piped = subprocess.run(["git", "-c", "color.ui=always", "enf", "log"], cwd=repo_dir, env=env,
                           capture_output=True, text=True)
    assert f"{ANSI}33msession 2026-05-02-auth-tokens" in piped.stdout, piped.stdout + piped.stderr
    code, out = on_tty(["git", "-c", "color.ui=auto", "enf", "log"], repo_dir, env)
    assert code == 0 and "session 2026-05-02-auth-tokens" in out and ANSI not in out  # auto: NO_COLOR decides
    code, out = on_tty(["git", "-c", "color.ui=true", "enf", "log"], repo_dir, {**env, "NO_COLOR": ""})
    assert code == 0 and f"{ANSI}33msession" in out  # an empty NO_COLOR is unset; true is auto, as in git
    piped = subprocess.run(["git", "-c", "color.ui=true", "enf", "log"], cwd=repo_dir, env={**env, "NO_COLOR": ""},
                           capture_output=True, text=True)
    assert piped.returncode == 0 and ANSI not in piped.stdout  # ...and auto is off in a pipe


def test_log_and_show_page_on_a_terminal(memory: Run, repo_dir: Path, tmp_path: Path,
                                         tty_env: dict[str, str], git: Git) -> None:
    env = {**tty_env, "GIT_PAGER": tty_env["RECORDER"], "NO_COLOR": "1"}
    code, out = on_tty([SCRIPT, "log"], repo_dir, env)
    assert code == 0 and "session" not in out, out
    want = subprocess.run([SCRIPT, "log"], cwd=repo_dir, env=env, capture_output=True, text=True).stdout
    assert paged(tmp_path) == want and want.startswith("session 2026-05-02-auth-tokens")
    (tmp_path / "paged.txt").unlink()
    code, out = on_tty([SCRIPT, "show", "2026-04-13-search-api"], repo_dir, env)
    assert code == 0 and paged(tmp_path) == session_text(body=SEARCH)
    (tmp_path / "paged.txt").unlink()
    code, out = on_tty([SCRIPT, "log", "--decisions"], repo_dir, env)
    assert code == 0 and "Redis" in (paged(tmp_path) or "")
    (tmp_path / "paged.txt").unlink()
    code, out = on_tty([SCRIPT, "show", decision_ids(memory)["Elasticsearch"]], repo_dir, env)
    assert code == 0 and "SUPERSEDED: it no longer stands" in (paged(tmp_path) or "")
    (tmp_path / "paged.txt").unlink()
    code, out = on_tty([SCRIPT, "show", "decisions.md", "--history"], repo_dir, env)
    assert code == 0 and "auth and queue" in (paged(tmp_path) or "")
    (tmp_path / "paged.txt").unlink()
    code, out = on_tty([SCRIPT, "--no-pager", "log"], repo_dir, env)
    assert code == 0 and "session 2026-05-02-auth-tokens" in out and paged(tmp_path) is None
    code, out = on_tty([SCRIPT, "log"], repo_dir, {**env, "GIT_PAGER": "cat"})
    assert code == 0 and "session 2026-05-02-auth-tokens" in out and paged(tmp_path) is None
    code, out = on_tty([SCRIPT, "log", "--json"], repo_dir, env)
    assert code == 0 and '"command": "log"' in out and paged(tmp_path) is None
    piped = subprocess.run([SCRIPT, "log"], cwd=repo_dir, env=env, capture_output=True, text=True)
    assert piped.stdout == want and paged(tmp_path) is None
    git("config", "core.pager", tty_env["RECORDER"])
    code, out = on_tty([SCRIPT, "show", "2026-04-13-search-api"], repo_dir, tty_env | {"NO_COLOR": "1"})
    assert code == 0 and paged(tmp_path) == session_text(body=SEARCH)


def test_git_enf_through_the_git_binary(memory: Run, repo_dir: Path, tmp_path: Path,
                                        tty_env: dict[str, str]) -> None:
    env = {**tty_env, "GIT_PAGER": tty_env["RECORDER"],
           "PATH": f"{Path(SCRIPT).parent}{os.pathsep}{os.environ['PATH']}"}
    code, out = on_tty(["git", "enf", "log", "--oneline"], repo_dir, env)
    assert code == 0 and "2026-05-02-auth-tokens" in (paged(tmp_path) or ""), out
    (tmp_path / "paged.txt").unlink()
    code, out = on_tty(["git", "--no-pager", "enf", "log", "--oneline"], repo_dir, env)
    assert code == 0 and "2026-05-02-auth-tokens  completed  Tokens  [auth]" in out and paged(tmp_path) is None
    code, out = on_tty(["git", "-c", "pager.enf=false", "enf", "log", "--oneline"], repo_dir, env)
    assert code == 0 and "2026-05-02-auth-tokens" in out and paged(tmp_path) is None
    code, out = on_tty(["git", "-p", "enf", "log"], repo_dir, env)
    shown = paged(tmp_path) or ""
    assert code == 0 and shown.count("session 2026-05-02-auth-tokens") == 1  # paged once, by git
    assert f"{ANSI}33msession 2026-05-02-auth-tokens" in shown  # and coloured, as git colours what it pages
    (tmp_path / "paged.txt").unlink()
    code, out = on_tty(["git", "-c", "color.ui=never", "--no-pager", "enf", "log"], repo_dir, env)
    assert code == 0 and "session 2026-05-02-auth-tokens" in out and ANSI not in out
    piped = subprocess.run(["git", "-c", "color.ui=always", "enf", "log"], cwd=repo_dir, env=env,
                           capture_output=True, text=True)
    assert f"{ANSI}33msession 2026-05-02-auth-tokens" in piped.stdout
    code, out = on_tty(["git", "-c", f"core.pager={tty_env['RECORDER']}", "enf", "log", "--oneline"], repo_dir,
                       {k: v for k, v in env.items() if k != "GIT_PAGER"})
    assert code == 0 and "2026-05-02-auth-tokens" in (paged(tmp_path) or "") and paged(tmp_path) == (
        "2026-05-02-auth-tokens  completed  Tokens  [auth]\n"
        "2026-04-20-postgres-fts  completed  Moved search to Postgres  [search]\n"
        "2026-04-13-search-api  completed  Added search  [search, api]\n")


def test_ctrl_c_in_the_pager_waits_for_it(memory: Run, repo_dir: Path, tmp_path: Path,
                                          tty_env: dict[str, str]) -> None:
    """Ctrl-C goes to the whole foreground group: we must outlive the pager, as git does,
    not die with a traceback and leave the terminal to an orphaned less."""
    pager = tmp_path / "slow-pager.sh"
    pager.write_text(f"#!/bin/sh\ntrap '' INT\ncat > {tmp_path / 'paged.txt'}\ntouch {tmp_path / 'started'}\n"
                     f"sleep 1\necho done >> {tmp_path / 'paged.txt'}\n")
    pager.chmod(0o755)

    def interrupt(group: int) -> None:  # what the terminal does on Ctrl-C
        deadline = time.monotonic() + 20
        while not (tmp_path / "started").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        os.killpg(group, signal.SIGINT)
        (tmp_path / "interrupted").touch()

    code, out = on_tty([SCRIPT, "log"], repo_dir, {**tty_env, "GIT_PAGER": str(pager), "NO_COLOR": "1"},
                       meanwhile=interrupt)
    assert (tmp_path / "interrupted").exists()
    assert "Traceback" not in out and "Aborted" not in out, out
    assert code == 0 and (paged(tmp_path) or "").endswith("done\n")
