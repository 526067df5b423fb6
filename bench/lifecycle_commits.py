"""`git enf pin`, `unpin`, `remember` and `forget` on a big branch, each against a
one-session `git enf commit` on the same branch in the same run (goal: each <= 1.5).

Each repetition, interleaved so drift hits every command alike: the newest session gets
one more interaction and `git enf commit` commits it; a session drawn at random is
pinned (`--force`: a generated session may be a one-off) and unpinned; a fact is
remembered and forgotten again by its whole text. Every command is a whole process, as a
person or the assistant runs it. The fixture is `git enf init` on a branch seeded with N
sessions (20 facts and 5 pins first, so the listings are not empty).

Why the goal: a pin or a fact is one small record, so its commit must not cost more than
committing a session. Before a pin named by its file name stopped loading the table of
every record, a pin at 100,000 sessions took ~1.2 s.

Run: .venv/bin/python bench/lifecycle_commits.py [--quick] [--sessions N] [--reps N] [--keep]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import common

common.use_checkout()

COMMANDS = ("commit", "pin", "unpin", "remember", "forget")
GOAL = 1.5


def main() -> int:
    return common.fixture_main("lifecycle", __doc__, 15, run)


def run(work: Path, n: int, reps: int, args: argparse.Namespace) -> int:
    common.header("lifecycle_commits", sessions=n, repetitions=reps, git_enf=common.GIT_ENF)
    repo = common.init_user_repo(work / "repo")
    seeded = common.time_call(lambda: common.seed_branch(repo, n))
    common.run_enf(repo, "init", "--no-hooks")
    print(f"fixture: {n} sessions seeded in {seeded:.1f} s, then git enf init")
    stems = sorted(p.stem for p in (repo / ".claude-sessions" / "sessions").glob("*.md"))
    for k in range(20):
        common.run_enf(repo, "remember", f"Convention {k}: the bench fixture keeps rule number {k}")
    for stem in stems[:5]:
        common.run_enf(repo, "pin", "--force", stem)
    newest = common.newest_session_path(repo)
    common.run_enf(repo, "commit", "-m", "settle")
    times: dict[str, list[float]] = {c: [] for c in COMMANDS}
    pick = random.Random(7)
    enf = common.GIT_ENF
    for k in range(reps):
        common.touch_session(newest, k)
        stem = pick.choice(stems[5:])
        fact = f"Gotcha {k}: the cache of run {k} must be warmed before the deploy"
        steps = {"commit": [enf, "commit", "-m", f"bench {k}"], "pin": [enf, "pin", "--force", stem],
                 "unpin": [enf, "unpin", stem], "remember": [enf, "remember", fact],
                 "forget": [enf, "forget", "--yes", fact]}
        for name in COMMANDS:  # forget and unpin need what the step before them made
            times[name].append(common.time_cmd(steps[name], repo))
    return _report(times)


def _report(times: dict[str, list[float]]) -> int:
    base = statistics.median(times["commit"])
    print(f"  {'git enf commit':<18} {common.med_ms(times['commit']):>10}   baseline (one session)")
    for name in COMMANDS[1:]:
        ratio = statistics.median(times[name]) / base
        verdict = "MET" if ratio <= GOAL else "MISSED"
        print(f"  {'git enf ' + name:<18} {common.med_ms(times[name]):>10}   ratio {ratio:.2f}   goal <= {GOAL}: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
