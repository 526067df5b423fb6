"""`git enf mcp`: the MCP server, driven by the SDK's own stdio client against a real repo.

The memory: a search decision (Elasticsearch) that a later session superseded (Postgres
FTS), an API decision that two sessions reversed two ways (an open disagreement), and a
session edited in a second commit (so `show` has an older revision). Every tool is
called through a real `git-enf mcp` process; bad input is checked in-process too,
where the breadth is cheap.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from enf_git import memory
from enf_git.mcp import schema, tools
from enf_git.pure import model
from gitfixtures import Git, session_text

# The stdio tests need the SDK (the `mcp` extra, which the `test` extra includes); the in-process ones do not.
needs_sdk = pytest.mark.skipif(importlib.util.find_spec("mcp") is None,
                               reason="the MCP SDK is the `mcp` extra: pip install -e '.[mcp]'")

SCRIPT = str(Path(sys.executable).with_name("git-enf"))
TOOL_NAMES = ["recall", "show", "log", "decisions", "remember", "forget"]
SEARCH = ("\n## Decisions\n- [14:10] Y: In the context of search engine, facing scale, decided Elasticsearch "
          "over Algolia, to achieve self-hosted control, accepting ops overhead. Confidence: high\n")
REVERSAL = ("\n## Decisions\n- [09:30] Y: In the context of search engine, facing cost, decided Postgres FTS "
            "over Elasticsearch, to achieve fewer parts, accepting weaker ranking. Confidence: medium\n"
            "\n## Reversals\n- [09:31] REVERSED Elasticsearch: Changed from Elasticsearch to Postgres FTS "
            "because the cluster cost too much\n")
REST = ("\n## Decisions\n- [10:00] Y: In the context of api style, decided REST over GraphQL, to achieve "
        "simplicity. Confidence: high\n")
HIT_BUDGET = 400  # characters of JSON per recall hit: ~100 tokens at ~4 characters a token


def _rest_id() -> str:
    session = model.parse_session("sessions/2026-04-01-api-design.md", session_text(body=REST).encode())
    return session.decisions[0].id


def _reversing(decided: str, why: str) -> str:
    return (f"\n## Decisions\n- [11:00] Y: In the context of api style, decided {decided} over REST, to achieve "
            f"{why}. Confidence: medium\n\n## Reversals\n- [11:01] REVERSED {_rest_id()}: Changed from REST to "
            f"{decided} because {why}\n")


@pytest.fixture
def remembered(repo_dir: Path) -> Path:
    """The memory the tests read, in two commits; returns the repository."""
    ctx = memory.Context.open(repo_dir)
    memory.init(ctx)
    sessions = repo_dir / ".claude-sessions" / "sessions"
    files = {
        "2026-04-01-api-design": session_text(session_id="a0000001", date="2026-04-01", summary="Designed the API",
                                              tags="[api]", body=REST),
        "2026-04-05-graphql": session_text(session_id="a11ce000", date="2026-04-05", summary="Moved to GraphQL",
                                           tags="[api]", body=_reversing("GraphQL", "clients over-fetch")),
        "2026-04-05-grpc": session_text(session_id="b0b00000", date="2026-04-05", summary="Moved to gRPC",
                                        tags="[api]", body=_reversing("gRPC", "services talk to services")),
        "2026-04-13-search-api": session_text(body=SEARCH),
        "2026-04-20-postgres-fts": session_text(session_id="b2c3d4e5", date="2026-04-20",
                                                summary="Moved search to Postgres", tags="[search]", body=REVERSAL),
    }
    for stem, text in files.items():
        (sessions / f"{stem}.md").write_text(text)
    memory.commit(ctx, "five sessions", now=1_776_000_000)
    edited = sessions / "2026-04-13-search-api.md"
    edited.write_text(edited.read_text().replace('summary: "Added search"', 'summary: "Added search, revised"'))
    memory.commit(ctx, "revise a summary", now=1_776_000_100)
    return repo_dir


# --- one server session, through the SDK's stdio client ------------------------------

Step = Callable[[Any], Any]


def _server_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """What the server needs of the test's environment: this checkout first on the
    path, the scratch HOME and the fixed identity (the SDK passes on only HOME, PATH...)."""
    keep = {k: v for k, v in os.environ.items()
            if k in ("PYTHONPATH", "HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_NOSYSTEM") or k.startswith("GIT_")}
    return {**keep, **(extra or {})}


def session(cwd: Path, steps: Callable[[Any], Any], env: dict[str, str] | None = None) -> Any:
    """Start `git-enf mcp` in `cwd`, initialize with the SDK's client, run `steps(client)`."""
    import anyio
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=SCRIPT, args=["mcp"], cwd=str(cwd), env=_server_env(env))

    async def main() -> Any:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            return await steps(client)

    return anyio.run(main)


class Client:
    """A thin wrapper: each call's result as the wire's camelCase dict, its JSON parsed."""

    def __init__(self, sdk: Any) -> None:
        self.sdk = sdk

    async def call(self, name: str, **arguments: Any) -> dict[str, Any]:
        result = (await self.sdk.call_tool(name, arguments)).model_dump(by_alias=True)
        text = result["content"][0]["text"]
        return {"error": text} if result["isError"] else json.loads(text)


@needs_sdk
def test_every_tool_round_trips_over_stdio(remembered: Path, git: Git) -> None:
    async def steps(sdk: Any) -> dict[str, Any]:
        c = Client(sdk)
        listed = (await sdk.list_tools()).model_dump(by_alias=True)["tools"]
        out: dict[str, Any] = {"tools": listed}
        out["recall"] = await c.call("recall", query="elasticsearch cluster")
        superseded = next(h for h in out["recall"]["results"] if h.get("status") == "superseded")
        out["show_decision"] = await c.call("show", target=superseded["target"])
        out["show_now"] = await c.call("show", target="2026-04-13-search-api")
        out["show_then"] = await c.call("show", target="2026-04-13-search-api", at="claude-memory~1")
        out["history"] = await c.call("show", target="2026-04-13-search-api", history=True)
        out["log"] = await c.call("log", limit=2)
        out["log_api"] = await c.call("log", tags=["api"], since="2026-04-02")
        out["decisions"] = await c.call("decisions")
        out["remember"] = await c.call("remember", text="The CI runners have no network", category="gotcha")
        out["forget"] = await c.call("forget", query=out["remember"]["fact"]["id"])
        return out

    out = session(remembered, steps)
    assert [t["name"] for t in out["tools"]] == TOOL_NAMES
    for tool in out["tools"]:
        assert tool["inputSchema"]["type"] == "object" and tool["inputSchema"]["additionalProperties"] is False
        assert tool["annotations"]["readOnlyHint"] is (tool["name"] not in ("remember", "forget"))

    recall = out["recall"]
    assert recall["schema"] == 1 and recall["command"] == "recall" and not recall["weak"]
    assert all(len(json.dumps(h)) <= HIT_BUDGET for h in recall["results"]), recall["results"]
    [old] = [h for h in recall["results"] if h.get("status") == "superseded"]
    assert "Elasticsearch over Algolia" in old["snippet"] and old["superseded_on"] == "2026-04-20"

    decision = out["show_decision"]["decision"]
    assert (decision["decided"], decision["status"]) == ("Elasticsearch", "superseded")
    assert decision["reversed_because"] == "the cluster cost too much"
    assert decision["standing"] == old["superseded_by"]

    assert 'summary: "Added search, revised"' in out["show_now"]["text"]
    assert 'summary: "Added search"\n' in out["show_then"]["text"]
    # claude-memory~1 when it was shown; remember and forget have added two commits since
    assert out["show_then"]["revision"] == git("rev-parse", "claude-memory~3").strip()
    assert [v["subject"] for v in out["history"]["versions"]] == ["revise a summary", "five sessions"]

    assert out["log"]["total"] == 5 and [s["session"] for s in out["log"]["sessions"]] == [
        "2026-04-20-postgres-fts", "2026-04-13-search-api"]
    assert sorted(s["session"] for s in out["log_api"]["sessions"]) == [
        "2026-04-05-graphql", "2026-04-05-grpc", "2026-04-13-search-api"]

    decisions = out["decisions"]
    postgres = next(d for d in decisions["decisions"] if d["decided"] == "Postgres FTS")
    assert [(s["decided"], s["reversed_because"]) for s in postgres["supersedes"]] == [
        ("Elasticsearch", "the cluster cost too much")]
    [split] = decisions["disagreements"]
    assert split["decision"]["id"] == _rest_id()
    assert sorted(r["decided"] for r in split["replacements"]) == ["GraphQL", "gRPC"]

    fact = out["remember"]["fact"]
    assert (fact["category"], fact["scope"], out["remember"]["existing"]) == ("Gotcha", "project", False)
    assert out["forget"]["forgotten"]["id"] == fact["id"]
    subjects = git("log", "--format=%s", "claude-memory").splitlines()
    assert subjects[:2] == [f"enf: forget {fact['id']} (Gotcha)", f"enf: remember {fact['id']} (Gotcha)"]
    changed = git("show", "--name-status", "--format=", "claude-memory~1").split()
    assert dict(zip(changed[1::2], changed[::2]))[f"memories/{fact['id']}.md"] == "A"
    assert git("ls-tree", "-r", "--name-only", "claude-memory", "memories/") == ""


@needs_sdk
def test_the_server_sees_commits_made_while_it_runs(remembered: Path) -> None:
    async def steps(sdk: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        c = Client(sdk)
        before = await c.call("recall", query="zanzibar")
        new = remembered / ".claude-sessions" / "sessions" / "2026-05-01-zanzibar.md"
        new.write_text(session_text(session_id="c0ffee00", date="2026-05-01", summary="Ported zanzibar"))
        memory.commit(memory.Context.open(remembered), "a session while the server runs", now=1_776_000_200)
        return before, await c.call("recall", query="zanzibar")

    before, after = session(remembered, steps)
    assert before["results"] == [] or before["weak"]
    assert after["results"][0]["target"] == "2026-05-01-zanzibar"


BAD_CALLS = [
    ("recall", {}, "'query' is required"),
    ("recall", {"query": "   "}, "'query' is empty"),
    ("recall", {"query": "?!"}, "no words to search for"),
    ("recall", {"query": "x", "limit": 0}, "'limit' must be a whole number from 1 to 50, not a number 0"),
    ("recall", {"query": "x", "limit": True}, "not a boolean True"),
    ("recall", {"query": "x", "lmit": 3}, "unknown argument 'lmit'; recall takes: query, limit"),
    ("show", {"target": "no-such-session"}, "no session named 'no-such-session'"),
    ("show", {"target": "2026-04-13-search-api", "at": "main"}, "main is not a revision of claude-memory"),
    ("show", {"target": "2026-04-13-search-api", "at": "nonsense~~^"}, "no such revision"),
    ("show", {"target": ["a"]}, "'target' must be a string, not a list"),
    ("log", {"since": "last tuesday"}, "since: cannot read the date"),
    ("log", {"status": "done"}, "'status' must be one of active, completed"),
    ("log", {"tags": "api"}, "'tags' must be a list of at most 20 strings"),
    ("decisions", {"until": "2026-02-30"}, "2026-02-30 is not a real date"),
    ("remember", {"text": "x", "category": "rumour"}, "unknown category 'rumour'"),
    ("remember", {"text": "x" * 2001}, "'text' is 2,001 characters long; at most 2,000"),
    ("remember", {"text": "mine", "scope": "session"}, "no session to remember this for"),
    ("forget", {"query": "nothing like this was ever said"}, "nothing remembered matches"),
    ("nosuchtool", {}, "no tool named 'nosuchtool'"),
]


@needs_sdk
def test_bad_input_to_every_tool_is_an_error_result_and_the_server_goes_on(remembered: Path) -> None:
    async def steps(sdk: Any) -> tuple[list[str], dict[str, Any]]:
        c = Client(sdk)
        errors = [(await c.call(name, **args)).get("error", "") for name, args, _ in BAD_CALLS]
        return errors, await c.call("recall", query="postgres")

    errors, after = session(remembered, steps)
    for (name, args, expected), got in zip(BAD_CALLS, errors):
        assert got.startswith("error: ") and expected in got, (name, args, got)
    assert all("\nhint: " in e for e in errors if "no tool named" not in e)
    assert after["results"], "the server stopped answering after the bad calls"


@needs_sdk
def test_the_session_scope_is_the_client_session(remembered: Path) -> None:
    """Claude Code gives its MCP servers CLAUDE_CODE_SESSION_ID: session facts are that session's."""
    sid = "5e551000-0000-4000-8000-000000000000"

    async def steps(sdk: Any) -> dict[str, Any]:
        return await Client(sdk).call("remember", text="Only for this session", scope="session")

    done = session(remembered, steps, env={"CLAUDE_CODE_SESSION_ID": sid})
    assert done["fact"]["scope"] == "session" and done["commit"] is None
    where = tools.Where(remembered, None, sid, time.time)
    vague = tools.call("forget", {"query": "only for this", "scope": "session"}, where)
    # Outside git a removal cannot be undone: a model's vague words are not enough there.
    assert vague.is_error and "forgotten only by its id" in vague.text and done["fact"]["id"] in vague.text
    listed = tools.call("forget", {"query": done["fact"]["id"], "scope": "session"}, where)
    assert not listed.is_error, listed.text


# --- the server without what it needs ------------------------------------------------

def test_without_the_sdk_it_says_how_to_install_it(repo_dir: Path) -> None:
    hide = "import sys; sys.modules['mcp'] = None; sys.argv[1:] = ['mcp']; from enf_git.entry import main; main()"
    proc = subprocess.run([sys.executable, "-c", hide], cwd=repo_dir, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=60)
    assert proc.returncode == 1 and proc.stdout == ""
    assert "git enf mcp needs the MCP Python SDK (mcp>=1.23)" in proc.stderr
    assert "hint: pip install 'enf-git[mcp]'" in proc.stderr


@needs_sdk
def test_a_repository_without_memory_gets_an_error_per_call_not_a_dead_server(repo_dir: Path,
                                                                              tmp_path: Path) -> None:
    async def steps(sdk: Any) -> dict[str, Any]:
        return await Client(sdk).call("recall", query="anything")

    assert session(repo_dir, steps)["error"] == ("error: no claude-memory branch in this repository yet\n"
                                                  "hint: git enf init")
    elsewhere = tmp_path / "not-a-repo"
    elsewhere.mkdir()
    got = tools.call("log", {}, tools.Where(elsewhere, None, "", time.time))
    assert got.is_error and "git repository" in got.text


@needs_sdk
def test_run_by_hand_it_says_what_it_is_and_ctrl_d_ends_it(repo_dir: Path) -> None:
    import pty

    leader, follower = pty.openpty()
    proc = subprocess.Popen([SCRIPT, "mcp"], cwd=repo_dir, stdin=follower, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**os.environ, **_server_env()}, text=True)
    os.close(follower)
    try:
        os.write(leader, b"\x04")  # Ctrl-D: the end of input, on a terminal
        out, err = proc.communicate(timeout=60)
    finally:
        os.close(leader)
    assert proc.returncode == 0 and out == ""
    assert err.startswith("git enf mcp serves MCP (JSON-RPC) on stdin and stdout for Claude Code")


# --- the checks, in-process -----------------------------------------------------------

def where(repo: Path) -> tools.Where:
    return tools.Where(repo, None, "", lambda: 1_776_000_000.0)


@pytest.mark.parametrize(("arguments", "expected"), [
    (None, None),
    ([], "the arguments must be a JSON object, not a list"),
    ({"query": "x", "limit": 5.0}, None),  # how some clients send 5
    ({"query": "x", "limit": 2.5}, "not a number 2.5"),
    ({"query": "x", "limit": "5"}, "not a string '5'"),
    ({"query": "x" * 1001}, "at most 1,000"),
    ({"query": 42}, "'query' must be a string, not a number 42"),
])
def test_arguments_are_checked_against_the_declared_schema(arguments: object, expected: str | None) -> None:
    if expected is None:
        if arguments is None:
            with pytest.raises(schema.BadArguments, match="'query' is required"):
                schema.check(tools.RECALL, arguments)
        else:
            assert schema.check(tools.RECALL, arguments)["limit"] == 5
        return
    with pytest.raises(schema.BadArguments) as caught:
        schema.check(tools.RECALL, arguments)
    assert expected in caught.value.message
    assert caught.value.hint == f"for example: {tools.RECALL.example}"


def test_defaults_are_filled_in_as_the_schema_declares() -> None:
    for spec in tools.SPECS:
        required = {name: "x" for name in spec.required}
        filled = schema.check(spec, required)
        for name, prop in spec.properties.items():
            assert filled[name] == required.get(name, prop.get("default")), (spec.name, name)


def test_a_bug_in_a_tool_is_an_error_result_with_the_traceback_on_stderr(
        remembered: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def broken(where: tools.Where, args: tools.Args) -> dict[str, Any]:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setitem(tools.RUNNERS, "log", (tools.LOG, broken))
    got = tools.call("log", {}, where(remembered))
    assert got.is_error
    assert got.text.startswith("error: log failed inside enf-git (ZeroDivisionError: division by zero)")
    assert "Traceback" in capsys.readouterr().err


def test_records_are_reused_until_the_tip_moves(remembered: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from enf_git.memory.record import queries

    loads: list[str] = []
    ledgers: list[int] = []
    real_load, real_ledger = queries.load, queries.build_ledger
    monkeypatch.setattr(queries, "load", lambda repo, commit, cache: loads.append(str(commit.id)) or real_load(
        repo, commit, cache))
    monkeypatch.setattr(queries, "build_ledger", lambda recs: ledgers.append(1) or real_ledger(recs))
    w = where(remembered)
    for _ in range(3):
        assert json.loads(tools.call("log", {}, w).text)["total"] == 5
        assert json.loads(tools.call("decisions", {}, w).text)["disagreements"]
    sessions = remembered / ".claude-sessions" / "sessions"
    (sessions / "2026-05-01-later.md").write_text(session_text(session_id="c0ffee01", date="2026-05-01"))
    memory.commit(memory.Context.open(remembered), "one more", now=1_776_000_300)
    assert json.loads(tools.call("log", {}, w).text)["total"] == 6
    assert len(loads) == 2 and loads[0] != loads[1]
    assert len(ledgers) == 1  # one ledger for three decisions calls, chains and disagreements alike


def test_the_sdk_is_imported_only_by_the_server_module() -> None:
    """`git enf` and the hooks never pay the SDK's ~1 s import: only `git enf mcp` does."""
    probe = ("import sys; import enf_git.cli.app, enf_git.mcp.tools, enf_git.hook; "
             "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'pydantic', 'anyio'))))")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "[]"

