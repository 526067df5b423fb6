"""`git enf mcp`: recall latency per call over ONE server session, on a 10,000-session branch.

The subject is a `tools/call recall` round trip through the SDK's stdio client to a
running `git-enf mcp` (each call reopens the repository, checks the recall index
against the branch tip, queries it, answers JSON). Baselines, interleaved with it in
the same run and the same session:

- `ping`: the SDK's own round trip on the same connection (the protocol floor);
- `query`: the same `search.query` in this process on an open index (the work itself);
- `cli`: a whole warm `git-enf recall WORD --json` process (what the model would
  otherwise run through Bash: its stdlib fast path).

Also reported: the server's start-up (spawn to the `initialize` answer; Claude Code
2.1.332 waits for it before the first turn) against the barest SDK server (no tools,
nothing but the SDK imported), and the first and second call of log, decisions and
show (records and the ledger parsed, then reused while the tip stays).
No goal is asserted; these are reported figures.

Run: .venv/bin/python bench/mcp_recall.py [--quick] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import common

common.use_checkout()


def main() -> int:
    return common.fixture_main("mcp", __doc__, 41, run)


def run(work: Path, n: int, reps: int, args: argparse.Namespace) -> int:
    common.use_checkout()  # hermetic() dropped PYTHONPATH: the server runs this checkout's enf_git
    from importlib.metadata import version

    common.header("mcp_recall", sessions=n, repetitions=reps, mcp_sdk=version("mcp"), git_enf=common.GIT_ENF)
    repo = common.init_user_repo(work / "repo")
    common.seed_branch(repo, n, pack=not args.loose)
    common.run_enf(repo, "init", "--no-hooks")
    common.touch_session(common.newest_session_path(repo), 0)
    common.run_enf(repo, "commit", "-m", "render views")
    cold = common.time_cmd([common.GIT_ENF, "recall", common.RARE_WORD], repo)  # builds the index
    print(f"fixture: {n} sessions; cold recall (index build) {cold * 1000:.0f} ms")
    startup(repo, max(6, reps // 4))
    import anyio

    anyio.run(_session, repo, reps)
    return 0


# The least an SDK server can be: no tools, nothing imported but the SDK.
BARE_SERVER = """
import anyio
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

server = Server("bare")


async def main():
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())

anyio.run(main)
"""


def startup(repo: Path, reps: int) -> None:
    """Spawn to `initialize` answered: git-enf mcp against the barest SDK server, alternating."""
    import anyio

    bare_script = repo.parent / "bare_server.py"
    bare_script.write_text(BARE_SERVER, encoding="utf-8")
    ours, bare = _params(repo), _params(repo, [common.PYTHON, str(bare_script)])
    served, floor = [], []
    for k in range(reps):
        pair = [(served, ours), (floor, bare)][:: 1 if k % 2 else -1]
        for times, params in pair:
            times.append(anyio.run(_initialize, params))
    print(f"-- start-up (spawn to the initialize answer), N={reps}")
    print(f"   git-enf mcp                   {common.spread_ms(served)}")
    print(f"   bare SDK server (no tools)    {common.spread_ms(floor)}")
    common.ratio_report("startup/bare-sdk-server", served, floor)


async def _initialize(params: Any) -> float:
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    t0 = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        return time.perf_counter() - t0


def _params(repo: Path, argv: list[str] | None = None) -> Any:
    from mcp.client.stdio import StdioServerParameters

    command, *rest = argv or [common.GIT_ENF, "mcp"]
    return StdioServerParameters(command=command, args=rest, cwd=str(repo), env=dict(os.environ))


async def _session(repo: Path, reps: int) -> None:
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    from enf_git.plumbing import search

    db = search.connect(repo / ".git" / "enf" / "search.db")
    async with stdio_client(_params(repo)) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        for word in (common.RARE_WORD, common.COMMON_WORD):
            times = await _interleaved(client, db, repo, word, reps)
            print(f"-- recall {word!r} (limit 8), N={reps}; {times.pop('hits')[0]:.0f} hits, "
                  f"{times.pop('tokens')[0]:.0f} tokens per hit (characters / 4)")
            for name, label in (("mcp", "MCP tools/call recall"), ("ping", "MCP ping (same session)"),
                                ("query", "search.query in-process"), ("cli", "git-enf recall --json process")):
                print(f"   {label:<34} {common.spread_ms(times[name])}")
            common.ratio_report(f"mcp-recall/ping[{word}]", times["mcp"], times["ping"])
            common.ratio_report(f"mcp-recall/in-process-query[{word}]", times["mcp"], times["query"])
            common.ratio_report(f"mcp-recall/cli-recall-process[{word}]", times["mcp"], times["cli"])
        await _others(client)


async def _interleaved(client: Any, db: Any, repo: Path, word: str, reps: int) -> dict[str, list[float]]:
    from enf_git.plumbing import search

    async def mcp_call() -> Any:
        return await client.call_tool("recall", {"query": word, "limit": 8})

    first = (await mcp_call()).model_dump(by_alias=True)
    assert not first["isError"], first
    rows = json.loads(first["content"][0]["text"])["results"]
    times: dict[str, list[float]] = {"mcp": [], "ping": [], "query": [], "cli": [],
                                     "hits": [len(rows)],
                                     "tokens": [statistics.mean(len(json.dumps(r)) / 4 for r in rows) if rows else 0]}
    for _ in range(3):  # warm-up, not counted
        await mcp_call()
        await client.send_ping()
    for k in range(reps):
        for name in ("mcp", "ping", "query", "cli")[k % 4:] + ("mcp", "ping", "query", "cli")[:k % 4]:
            t0 = time.perf_counter()
            if name == "mcp":
                await mcp_call()
            elif name == "ping":
                await client.send_ping()
            elif name == "query":
                search.query(db, word, 8)
            else:
                common.time_cmd([common.GIT_ENF, "recall", word, "--json", "-n", "8"], repo)
            times[name].append(time.perf_counter() - t0)
    return times


async def _others(client: Any) -> None:
    """log and decisions at this size: the first call parses the records, the next reuses them."""
    print("-- other tools, first call then second call (records reused while the tip stays)")
    for name, arguments in (("log", {"limit": 20}), ("decisions", {"limit": 20}), ("show", {"target": "index.md"})):
        took = []
        for _ in range(2):
            t0 = time.perf_counter()
            result = (await client.call_tool(name, arguments)).model_dump(by_alias=True)
            took.append(time.perf_counter() - t0)
            assert not result["isError"], result
        print(f"   {name:<10} {took[0] * 1000:8.1f} ms, then {took[1] * 1000:8.1f} ms "
              f"({len(result['content'][0]['text']):,} characters)")


if __name__ == "__main__":
    sys.exit(main())
