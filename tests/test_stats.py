"""`git enf stats`: exact figures from a real branch built with known sessions, decisions,
reversals, friction, errors, pins, facts, instincts and two authors; its filters; the
local event logs; transcripts (a real one recorded from Claude Code, garbage lines,
an unknown model) read at Stop and kept as numbers only, shared on request."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Callable

import pytest

from enf_git.assistants.claude import lifecycle
from enf_git.assistants.claude.protocol import Where
from enf_git.memory.context import transcripts
from enf_git.plumbing import events, store
from enf_git.pure import prices, stats_text, usage
from gitfixtures import commit_as, run_git, session_text

ALICE = {"GIT_AUTHOR_NAME": "Alice", "GIT_AUTHOR_EMAIL": "alice@example.com"}
BOB = {"GIT_AUTHOR_NAME": "Bob", "GIT_AUTHOR_EMAIL": "bob@example.com"}
RECORDED = Path(__file__).parent / "data" / "transcripts" / "claude-code-compact.jsonl"

S1 = ("\n## Decisions\n- [14:10] Y: In the context of search engine, facing scale, decided Elasticsearch over "
      "Algolia, to achieve self-hosted control, accepting ops overhead. Confidence: high\n"
      "\n## Errors & Fixes\n- [14:20] Error: `ModuleNotFoundError: No module named 'foo'`. Fix: pip install foo\n"
      "- [14:25] Error: `connection refused on port 5432`. Fix: started the database\n"
      "\n## Friction Events\n- [14:30] User redirected approach: was doing X, switched to Y\n"
      "- [14:40] Abandoned approach: the Algolia client, it could not page\n")
S2 = ("\n## Decisions\n- [09:30] Y: In the context of search engine, facing cost, decided Postgres FTS over "
      "Elasticsearch, to achieve fewer parts, accepting weaker ranking. Confidence: medium\n"
      "\n## Reversals\n- [09:31] REVERSED Elasticsearch: Changed from Elasticsearch to Postgres FTS because "
      "the cluster cost too much\n"
      "\n## Errors & Fixes\n- [09:40] Error: `ModuleNotFoundError: No module named 'bar'`. Fix: added it\n"
      "\n## Interactions\n" + "".join(f"### [09:{i:02d}] User -> step {i}\n**Claude ->** did step {i} of the "
                                     "migration, with a long explanation of why\n" for i in range(40)))
S3 = ("\n## Decisions\n- [10:00] Y: In the context of deploy, facing drift, decided Docker over VMs, to achieve "
      "repeatable builds, accepting image size. Confidence: low\n"
      "\n## Errors & Fixes\n- [10:05] Error: `connection refused on port 6543`. Fix: the port\n"
      "\n## Friction Events\n- [10:10] The build server was down all morning\n")
S4 = ("\n## Decisions\n- [11:00] Y: In the context of deploy, facing scale, decided Kubernetes over Docker, to "
      "achieve autoscaling, accepting complexity. Confidence: medium\n"
      "\n## Reversals\n- [11:01] REVERSED Docker: Changed from Docker to Kubernetes because of autoscaling\n"
      "- [11:02] REVERSED Mongo: Changed from Mongo to Postgres because of joins\n")
INSTINCT = ("---\nschema: 1\nid: i1a2b3c4d\ntool: Bash\nprogram: pytest\nsessions: [a1a1a1a1, a2a2a2a2, b3b3b3b3]\n"
            "authors: [Alice <alice@example.com>, Bob <bob@example.com>]\nfirst_seen: \"2026-04-06T14:30:00Z\"\n"
            "last_seen: \"2026-04-20T09:02:11Z\"\n---\nBash `pytest`: `pytest tests` failed; `python -m pytest` worked\n")


@pytest.fixture
def team(run_cli: Callable[..., str], repo_dir: Path) -> Path:
    """Four sessions by two authors over four weeks; a pin, a fact, an instinct, a compression."""
    run_cli("init")
    commit_as(repo_dir, ALICE, {"sessions/2026-04-06-search-api.md": session_text(
        "a1a1a1a1", "2026-04-06", "Search", "[search, api]", body=S1)})
    commit_as(repo_dir, ALICE, {"sessions/2026-04-08-search-cost.md": session_text(
        "a2a2a2a2", "2026-04-08", "Cheaper search", "[search]", body=S2)})
    commit_as(repo_dir, BOB, {"sessions/2026-04-20-deploy.md": session_text(
        "b3b3b3b3", "2026-04-20", "", "[deploy]", status="active", body=S3)})
    commit_as(repo_dir, BOB, {"sessions/2026-05-01-deploy-k8s.md": session_text(
        "b4b4b4b4", "2026-05-01", "Kubernetes", "[deploy]", body=S4), "instincts/i1a2b3c4d.md": INSTINCT})
    run_cli("pin", "2026-04-06-search-api")
    run_cli("remember", "We always deploy on Tuesdays")
    run_cli("compress", "--tier", "cold", "2026-04-08-search-cost")
    return repo_dir


def stats(run_cli: Callable[..., str], *args: str) -> dict[str, Any]:
    out = json.loads(run_cli("stats", "--json", *args))
    assert out["schema"] == 1 and out["command"] == "stats"
    return out


def test_sessions_by_week_author_and_tag(team: Path, run_cli: Callable[..., str]) -> None:
    s = stats(run_cli)
    ss = s["sessions"]
    assert (ss["total"], ss["active"], ss["completed"], ss["interrupted"], ss["malformed"]) == (4, 1, 3, 1, 0)
    assert s["range"] == {"first": "2026-04-06", "last": "2026-05-01"}
    assert [(w["week"], w["start"], w["total"]) for w in ss["by_week"]] == [
        ("2026-W15", "2026-04-06", 2), ("2026-W17", "2026-04-20", 1), ("2026-W18", "2026-04-27", 1)]
    assert ss["by_week"][0]["by_author"] == {"Alice <alice@example.com>": 2}
    assert ss["by_week"][0]["by_tag"] == {"api": 1, "search": 2}
    assert ss["by_author"] == [{"author": "Alice <alice@example.com>", "sessions": 2},
                               {"author": "Bob <bob@example.com>", "sessions": 2}]
    assert ss["by_tag"] == [{"tag": "deploy", "sessions": 2}, {"tag": "search", "sessions": 2},
                            {"tag": "api", "sessions": 1}]
    assert [r["stem"] for r in ss["rows"]] == ["2026-05-01-deploy-k8s", "2026-04-20-deploy", "2026-04-08-search-cost",
                                               "2026-04-06-search-api"]
    assert ss["rows"][-1] == {"stem": "2026-04-06-search-api", "session": "a1a1a1a1", "date": "2026-04-06",
                              "author": "Alice <alice@example.com>", "tags": ["search", "api"], "status": "completed",
                              "decisions": 1, "reversals": 0, "friction": 2, "errors": 2}


def test_decisions_reversals_and_their_timing(team: Path, run_cli: Callable[..., str]) -> None:
    d = stats(run_cli)["decisions"]
    assert (d["made"], d["reversed"], d["standing"], d["reversal_rate"]) == (4, 2, 2, 0.5)
    assert d["days_to_reversal"] == {"median": 6.5, "count": 2}  # 2 days (search) and 11 (deploy)
    assert d["reversed_within_7_days"] == 1
    assert (d["open_disagreements"], d["unresolved_reversals"]) == (0, 1)  # "REVERSED Mongo" matches nothing
    assert d["by_tag"] == [{"tag": "deploy", "made": 2, "reversed": 1, "rate": 0.5},
                           {"tag": "search", "made": 2, "reversed": 1, "rate": 0.5},
                           {"tag": "api", "made": 1, "reversed": 1, "rate": 1.0}]
    assert [(t["topic"], t["made"], t["reversed"]) for t in d["by_topic"]] == [("Deploy", 2, 1), ("Search engine", 2, 1)]
    assert [(r["decided_on"], r["reversed_on"], r["days"], r["session"], r["tags"]) for r in d["reversals"]] == [
        ("2026-04-06", "2026-04-08", 2, "2026-04-08-search-cost", ["search", "api"]),
        ("2026-04-20", "2026-05-01", 11, "2026-05-01-deploy-k8s", ["deploy"])]
    assert d["reversals"][0]["reason"] == "the cluster cost too much"
    assert [r["source"] for r in d["reversals"]] == ["2026-04-06-search-api", "2026-04-20-deploy"]  # made there


def test_friction_recurring_errors_instincts_and_memory(team: Path, run_cli: Callable[..., str]) -> None:
    s = stats(run_cli)
    assert s["friction"] == {"total": 3, "by_kind": {"redirected": 1, "abandoned": 1, "other": 1},
                             "sessions_with_friction": 2}
    assert s["errors"]["total"] == 4
    assert [(e["key"], e["sessions"], e["first_seen"], e["last_seen"]) for e in s["errors"]["recurring"]] == [
        ("ModuleNotFoundError", ["2026-04-06-search-api", "2026-04-08-search-cost"], "2026-04-06", "2026-04-08"),
        ("connection refused on port #", ["2026-04-06-search-api", "2026-04-20-deploy"], "2026-04-06", "2026-04-20")]
    assert s["instincts"]["by_corroboration"] == [
        {"id": "i1a2b3c4d", "rule": "Bash `pytest`: `pytest tests` failed; `python -m pytest` worked",
         "sessions": 3, "authors": 2}]
    m = s["memory"]
    assert m["pins"] == {"permanent": 1, "temporary": 0}
    assert (m["facts"]["total"], m["facts"]["expired"]) == (1, 0)
    [cold] = m["compression"]["by_tier"]
    message = run_git(team, "log", "-1", "--format=%B", "--grep=^compress(cold)", "claude-memory")
    before, after = (int(n.replace(",", "")) for n in message.split("\n\n")[1].split(" bytes")[0].split(" -> "))
    assert cold == {"tier": "cold", "sessions": 1, "bytes_before": before, "bytes_after": after,
                    "saved": before - after} and before > after
    assert s["tip"] == run_git(team, "rev-parse", "claude-memory").strip()


def test_filters_narrow_every_figure(team: Path, run_cli: Callable[..., str]) -> None:
    bob = stats(run_cli, "--author", "bob")
    assert bob["sessions"]["total"] == 2 and bob["filters"]["author"] == "bob"
    assert (bob["decisions"]["made"], bob["decisions"]["reversed"]) == (2, 1)
    assert bob["friction"]["total"] == 1 and bob["errors"]["recurring"] == []
    tagged = stats(run_cli, "--tag", "search")
    assert tagged["sessions"]["total"] == 2 and tagged["decisions"]["made"] == 2
    late = stats(run_cli, "--since", "2026-04-15", "--until", "2026-04-30")
    assert [r["stem"] for r in late["sessions"]["rows"]] == ["2026-04-20-deploy"]
    assert late["filters"] == {"since": "2026-04-15", "until": "2026-04-30", "author": None, "tags": []}
    assert late["memory"]["compression"]["by_tier"] == []  # the compression was committed today, not then
    assert "cannot read the date" in run_cli("stats", "--since", "last tuesday", code=2)


def test_the_terminal_report(team: Path, run_cli: Callable[..., str]) -> None:
    out = run_cli("stats")
    assert "Sessions: 4 (2026-04-06 .. 2026-05-01)" in out
    assert "Decisions: 4 made, 2 reversed (50%), 2 standing" in out
    assert "2 sessions  ModuleNotFoundError" in out
    assert "Tokens: no transcript read yet" in out


def test_a_branchless_repository_is_told_what_to_type(run_cli: Callable[..., str]) -> None:
    assert "git enf init" in run_cli("stats", code=1)


# --- local event logs: SessionStart context size, pointers -----------------------------------

def test_context_size_and_pointers_come_from_the_event_logs(team: Path, run_cli: Callable[..., str]) -> None:
    root = str(team / ".claude-sessions")
    sid = "b4b4b4b4-0000"
    events.append(root, sid, "context", source="startup", chars=800, tokens=200)
    events.append(root, sid, "prompt", prompt="why kubernetes")
    events.append(root, sid, "pointers", refs=["d1111111", "2026-04-20-deploy"],
                  paths=["sessions/2026-05-01-deploy-k8s.md", "sessions/2026-04-20-deploy.md"])
    events.append(root, sid, "tool", tool="Bash", summary="git enf show 2026-04-20-deploy")
    events.append(root, "a1a1a1a1-0000", "context", source="compact", chars=400, tokens=100)
    events.append(root, "a1a1a1a1-0000", "prompt", prompt="ok")
    m = stats(run_cli)["memory"]
    assert (m["context"]["sessions"], m["context"]["median_tokens"], m["context"]["max_tokens"]) == (2, 150.0, 200)
    assert m["pointers"] == {"prompts": 2, "prompts_with_pointers": 1, "injected": 2, "per_prompt": 1.0,
                             "followed": 1, "followed_rate": 0.5}
    assert stats(run_cli, "--author", "alice")["memory"]["pointers"]["injected"] == 0


def test_session_start_logs_the_size_its_context_states(team: Path) -> None:
    common = str(store.common_dir(store.open_repo(team)))
    reply = json.loads(lifecycle.session_start(Where(str(team), common), {"source": "startup"}, "c5c5c5c5-1111"))
    text = reply["hookSpecificOutput"]["additionalContext"]
    [logged] = [e for e in map(json.loads, (team / ".claude-sessions/raw/c5c5c5c5-1111.jsonl").read_text().splitlines())
                if e["event"] == "context"]
    assert f"{logged['chars']:,} chars ≈ {logged['tokens']:,} tokens" in text and logged["source"] == "startup"


def test_opted_out_sessions_are_counted_only(team: Path, run_cli: Callable[..., str]) -> None:
    (team / ".claude-sessions/.opt-out/e6e6e6e6").write_text("")
    assert stats(run_cli)["sessions"]["opted_out"] == 1


# --- transcripts --------------------------------------------------------------------------

def assistant(mid: str, model: str, i: int, o: int, cw: int = 0, cr: int = 0, ts: str = "2026-04-06T10:00:00Z") -> str:
    return json.dumps({"type": "assistant", "timestamp": ts, "message": {"id": mid, "model": model, "usage": {
        "input_tokens": i, "output_tokens": o, "cache_creation_input_tokens": cw, "cache_read_input_tokens": cr}}})


def prompt(text: str, ts: str) -> str:
    return json.dumps({"type": "user", "timestamp": ts, "message": {"role": "user", "content": text}})


def test_the_recorded_claude_code_transcript(tmp_path: Path) -> None:
    """Recorded from the real client (Claude Code 2.1.337 in tests/e2e: a session, then
    `/compact`), less its six lines over 4 KB (request blobs, the client's prompt snapshot)
    to keep the repository small: a model the price table does not know, so no cost."""
    u = usage.Usage()
    usage.ClaudeCode().fold(u, RECORDED.read_bytes().splitlines())
    assert u.models == {"claude-opus-5-5": {"input": 20, "output": 10, "cache_creation": 0, "cache_read": 0}}
    assert (u.assistant_messages, u.prompts, u.compactions, u.peak_context) == (2, 2, 1, 10)
    assert prices.cost(u.models) is None


def test_usage_repeated_on_each_line_of_a_message_counts_once_and_garbage_is_skipped() -> None:
    lines = [assistant("m1", "claude-sonnet-4-5-20250929", 100, 1, 1000, 0),
             b"{torn", "not json at all", "[1, 2]", json.dumps({"type": "assistant", "message": "x"}),
             json.dumps({"type": "assistant", "message": {"usage": {"input_tokens": "many"}}}),
             assistant("m1", "claude-sonnet-4-5-20250929", 100, 50, 1000, 0),  # the same message's last line
             prompt("go on", "2026-04-06T10:05:00Z"),
             assistant("m2", "claude-sonnet-4-5-20250929", 10, 200, 0, 1100, ts="2026-04-06T10:30:00Z"),
             json.dumps({"type": "system", "subtype": "compact_boundary", "timestamp": "2026-04-06T10:31:00Z"})]
    u = usage.Usage()
    usage.ClaudeCode().fold(u, [x if isinstance(x, bytes) else x.encode() for x in lines])
    assert u.totals() == {"input": 110, "output": 250, "cache_creation": 1000, "cache_read": 1100}
    assert (u.assistant_messages, u.prompts, u.compactions, u.peak_context) == (2, 1, 1, 1110)
    # 110 * 3 + 250 * 15 + 1000 * 3.75 + 1100 * 0.30 per million
    assert prices.cost(u.models) == pytest.approx((330 + 3750 + 3750 + 330) / 1e6)
    assert prices.family("claude-opus-4-6") is None and prices.family("claude-opus-4-1-20250805") == "claude-opus-4-1"


def stop(repo: Path, sid: str, transcript: Path) -> None:
    common = str(store.common_dir(store.open_repo(repo)))
    lifecycle.handle("Stop", Where(str(repo), common), {"session_id": sid, "transcript_path": str(transcript)})


def test_stop_keeps_numbers_only_and_stats_reads_what_came_later(team: Path, run_cli: Callable[..., str],
                                                                 tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(prompt("secret plans for the launch", "2026-04-06T10:00:00Z") + "\n"
                          + assistant("m1", "claude-sonnet-4-5", 1000, 100, 0, 3000) + "\n")
    stop(team, "a1a1a1a1-2222", transcript)
    kept = (team / ".git/enf/transcripts/a1a1a1a1.json").read_text()
    assert "secret" not in kept and "launch" not in kept
    with transcript.open("a") as f:  # after the Stop: stats reads it itself
        f.write(assistant("m2", "claude-sonnet-4-5", 10, 10, 0, 4000, ts="2026-04-06T10:20:00Z") + "\n{torn")
    t = stats(run_cli)["transcripts"]
    assert t["sessions"] == 1 and t["tokens"] == {"input": 1010, "output": 110, "cache_creation": 0, "cache_read": 7000}
    assert t["cache_hit_rate"] == round(7000 / 8010, 4)
    [row] = t["per_session"]
    assert (row["session"], row["prompts"], row["minutes"], row["shared"]) == ("a1a1a1a1", 1, 20.0, False)
    assert row["context_pressure"] == round(4010 / 200_000, 4)
    assert t["cost"]["usd"] == pytest.approx(round((1010 * 3 + 110 * 15 + 7000 * 0.3) / 1e6, 4))
    assert t["cost"]["disclaimer"] == prices.DISCLAIMER
    assert "stats/" not in run_git(team, "ls-tree", "-r", "--name-only", "claude-memory")  # not shared by default


def test_unknown_model_gets_no_cost(team: Path, run_cli: Callable[..., str], tmp_path: Path) -> None:
    shutil.copy(RECORDED, tmp_path / "real.jsonl")
    stop(team, "b4b4b4b4-3333", tmp_path / "real.jsonl")
    t = stats(run_cli)["transcripts"]
    assert t["per_session"][0]["cost_usd"] is None and t["per_session"][0]["models"] == ["claude-opus-5-5"]
    assert (t["cost"]["usd"], t["cost"]["priced_sessions"], t["cost"]["unpriced_sessions"]) == (None, 0, 1)
    assert t["compactions"] == 1


def test_shared_totals_go_on_the_branch_for_the_team(team: Path, run_cli: Callable[..., str], tmp_path: Path) -> None:
    run_git(team, "config", "enf.stats.share", "true")
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(assistant("m1", "claude-haiku-4-5", 500, 50) + "\n")
    stop(team, "a2a2a2a2-4444", transcript)
    shown = run_git(team, "show", "claude-memory:stats/a2a2a2a2.json")
    assert '"input": 500' in shown and str(tmp_path) not in shown and "last_id" not in shown
    shutil.rmtree(team / ".git/enf/transcripts")  # a teammate's machine: only the branch has them
    [row] = stats(run_cli)["transcripts"]["per_session"]
    assert (row["session"], row["input"], row["shared"]) == ("a2a2a2a2", 500, True)


def test_an_opted_out_session_keeps_no_figures(team: Path, tmp_path: Path) -> None:
    (team / ".claude-sessions/.opt-out/a1a1a1a1").write_text("")
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(assistant("m1", "claude-haiku-4-5", 500, 50) + "\n")
    stop(team, "a1a1a1a1-5555", transcript)
    assert not (team / ".git/enf/transcripts/a1a1a1a1.json").exists()


def test_a_rewritten_transcript_is_counted_again_and_a_huge_line_stepped_over(tmp_path: Path) -> None:
    state, path = tmp_path / "state", tmp_path / "t.jsonl"
    path.write_text(assistant("m1", "claude-haiku-4-5", 500, 50) + "\n")
    transcripts.update(state, "abcd1234", str(path), "2026-04-06")
    path.write_text(assistant("m9", "claude-haiku-4-5", 7, 1) + "\n")  # shorter: a new file at that path
    assert transcripts.update(state, "abcd1234", str(path), "2026-04-06").totals()["input"] == 7  # type: ignore[union-attr]
    path.write_text("x" * 100 + "\n" + assistant("m2", "claude-haiku-4-5", 3, 1) + "\n")
    fresh = tmp_path / "fresh"
    transcripts.update(fresh, "abcd1234", str(path), "2026-04-06", max_read=50)  # 50 bytes of a 101-byte line
    for _ in range(5):
        u = transcripts.update(fresh, "abcd1234", str(path), "2026-04-06", max_read=1000)
    assert u is not None and u.totals()["input"] == 3


# --- the text facts -------------------------------------------------------------------------

@pytest.mark.parametrize("line, key", [
    ("Error: `src/a.rs:3: error[E0425]: cannot find value`. Fix: typo", "E0425"),
    ("Error: `ENOENT: no such file, open '/tmp/x'`", "ENOENT"),
    ("Error: `GET /api/users returned HTTP 404`", "HTTP 404"),
    ("Error: `Segmentation fault at 0x7ffe12ab in /usr/lib/x.so line 42`", "segmentation fault at <hex> in <path> line #"),
])
def test_error_keys(line: str, key: str) -> None:
    assert stats_text.error_key(line)[0] == key


def test_bands_say_what_the_figures_suggest(team: Path, run_cli: Callable[..., str], tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(assistant("m1", "claude-sonnet-4-5", 100, 10, 0, 900) + "\n")  # 90% from the cache, $0.00072
    stop(team, "a1a1a1a1-6666", transcript)
    found = {b["figure"]: (b["value"], b["band"]) for b in stats(run_cli)["bands"]}
    assert found == {"cache_hit_rate": (0.9, "good"), "cost_per_session": (0.00072, "light"),
                     "context_utilisation": (0.005, "comfortable"), "reversal_rate": (0.5, "high")}
    assert "pointers_followed" not in found  # not measured: no band, never a zero
