"""`git enf stats --json` against `git enf log --json` over the same N sessions (default
10,000): the goal is a ratio of at most 2 (docs/stats.md; the feature request's goal).

Both list every session with its first author (one walk of the branch's history); stats
also builds the decision ledger, reads each session's text facts (friction, errors:
cached by blob id after the first run, as log's records are), pins, facts, instincts,
the local event logs and transcript totals. The fixture is bench/common.py's branch of N
sessions in one commit, plus a raw event log and a transcript for 20 sessions (what
this machine would hold). Both commands run once first (their caches warm, checked for
the session count), then interleaved, alternating which goes first.

Run: .venv/bin/python bench/stats_10k.py [--sessions N] [--reps N] [--quick] [--keep]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import common

common.use_checkout()

GOAL = 2.0


def main() -> int:
    return common.fixture_main("stats-10k", __doc__, 11, run)


def run(work: Path, n: int, reps: int, args: argparse.Namespace) -> int:
    common.use_checkout()  # hermetic() dropped PYTHONPATH
    common.header("stats_10k", sessions=n, repetitions=reps, checkout=common.CHECKOUT)
    repo = common.init_user_repo(work / "repo")
    print(f"fixture: seeded {n} sessions in one commit: "
          f"{common.time_call(lambda: common.seed_branch(repo, n, pack=not args.loose)):.2f} s")
    print(f"fixture: git enf init: {common.time_cmd([common.GIT_ENF, 'init', '--no-hooks'], repo):.2f} s")
    local_logs(repo, work)
    stats, log = [common.GIT_ENF, "stats", "--json"], [common.GIT_ENF, "log", "--json"]
    first_stats, out = common.timed_run(stats, repo)
    first_log, listed = common.timed_run(log, repo)
    found = json.loads(out.stdout)
    if found["sessions"]["total"] != n or len(json.loads(listed.stdout)["sessions"]) != n:
        raise RuntimeError("stats or log did not see every session")
    print(f"first runs (caches cold): stats {first_stats * 1000:.0f} ms, log {first_log * 1000:.0f} ms")
    print(f"stats saw {found['decisions']['made']} decisions, {found['errors']['total']} errors, "
          f"{found['transcripts']['sessions']} transcripts")
    with_s, with_l = [], []
    for k in range(reps):
        order = (stats, log) if k % 2 == 0 else (log, stats)
        for argv in order:
            (with_s if argv is stats else with_l).append(common.timed_run(argv, repo)[0])
    print(f"{'git enf stats --json':<24} {n:>7} sessions N={reps}: {common.spread_ms(with_s)}")
    print(f"{'git enf log --json':<24} {n:>7} sessions N={reps}: {common.spread_ms(with_l)}")
    common.ratio_report(f"stats / log --json at {n}", with_s, with_l, goal=GOAL)
    return 0


def local_logs(repo: Path, work: Path) -> None:
    """20 sessions' raw event logs and transcripts, as a working machine holds them."""
    sys.path.insert(0, str(common.CHECKOUT))
    from enf_git.memory.context import transcripts
    from enf_git.plumbing import events

    root = str(repo / ".claude-sessions")
    state = repo / ".git" / "enf"
    for i in range(20):
        sid = f"{i:08x}-bench"
        events.append(root, sid, "context", source="startup", chars=4000, tokens=1000)
        for j in range(10):
            events.append(root, sid, "prompt", prompt=f"prompt {j}")
            events.append(root, sid, "tool", tool="Bash", summary=f"pytest -k case{j}")
        lines = [json.dumps({"type": "assistant", "timestamp": f"2026-04-06T10:{j:02d}:00Z", "message": {
            "id": f"m{j}", "model": "claude-sonnet-4-5", "usage": {"input_tokens": 100, "output_tokens": 50,
                                                                     "cache_creation_input_tokens": 0,
                                                                     "cache_read_input_tokens": 20_000}}})
                 for j in range(50)]
        path = work / f"t{i}.jsonl"
        path.write_text("\n".join(lines) + "\n")
        transcripts.update(state, sid[:8], str(path), "2026-04-06")


if __name__ == "__main__":
    sys.exit(main())
