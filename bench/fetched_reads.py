"""Reading memory right after a fetch that ran no hook, and the git hook weighed instead.

A fetch that moves the remote's claude-memory without a merge hook (a no-op `git pull`,
`git fetch`, an editor's background fetch) is merged by the next read
(memory/fetched.catch_up). Alice's claude-memory holds N sessions (10,000; --quick
2,000) on a bare remote (its path); bob and carol cloned it and ran `git enf init`.
Every pair: alice commits one new session and syncs; bob commits one of his own (so
that his read makes a real merge commit; `--fast-forward`: he does not) and runs
`git fetch`; carol fetches and reads once, untimed, so that she is up to date. Then,
interleaved (the order alternating):

(a) bob's `git enf log`, which merges the fetched memory first     goal <= 2.0
    baseline: carol's `git enf log` (nothing to merge, same branch but bob's session);
    `--limit N`: both run `git enf log -n N`, where printing the list costs little and
    the merge is most of the difference
(b) the alternative, a `reference-transaction` hook (git >= 2.28, run at every ref
    update: commit, checkout, fetch, update-ref, ...), on its cheapest no-op path: a sh
    shim that reads the updated refs with the shell's own `read` and finds no
    claude-memory among them (no process started). Against the same git command with an
    empty hooks folder:                                                  goal <= 1.1
    `git update-ref` (the cheapest ref update), `git commit --allow-empty`
(c) the read's no-op path in-process: `catch_up` when nothing new was fetched, against
    opening the repository (`Context.open`), which every read does anyway   reported

Run: .venv/bin/python bench/fetched_reads.py [--quick] [--reps N] [--sessions N] [--fast-forward] [--limit N] [--keep]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import common

SESSION = """---
session_id: {sid}
date: 2026-04-{day:02d}
start_time: "10:00"
tags: [bench]
status: completed
summary: "{who} bench session {k}"
---

## Intent
A session {who} wrote while the other one was working.
"""

NO_OP_HOOK = """#!/bin/sh
# The no-op path of a reference-transaction hook that would merge fetched memory:
# git gives the phase as $1 and one "<old> <new> <ref>" line per ref on stdin.
[ "$1" = committed ] || exit 0
while read -r old new ref; do
  case $ref in refs/remotes/*/claude-memory) exit 0 ;; esac  # the merge would start here
done
exit 0
"""


def main() -> int:
    common.use_checkout()

    def extra(ap: argparse.ArgumentParser) -> None:
        ap.add_argument("--fast-forward", action="store_true", help="bob has no commits of his own")
        ap.add_argument("--limit", type=int, help="git enf log -n LIMIT on both sides")

    return common.fixture_main("fetched", __doc__, 15, run, extra)


def run(work: Path, n: int, reps: int, args: argparse.Namespace) -> int:
    common.use_checkout()  # hermetic() dropped PYTHONPATH
    common.header("fetched_reads", sessions=n, repetitions=reps, enf_git=common.CHECKOUT,
                  bob="fast-forwards" if args.fast_forward else "merges (a session of his own each time)")
    alice, bob, carol = setup(work, n)
    reads(alice, bob, carol, reps, not args.fast_forward, ["-n", str(args.limit)] if args.limit else [])
    hook(work, alice, reps)
    in_process(bob, reps)
    return 0


def setup(work: Path, n: int) -> tuple[Path, Path, Path]:
    origin = work / "origin.git"
    common.git(work, "init", "-q", "--bare", str(origin))
    alice = common.init_user_repo(work / "alice")
    t_seed = common.time_call(lambda: common.seed_branch(alice, n))
    common.git(alice, "remote", "add", "origin", str(origin))
    common.git(alice, "push", "-q", "origin", "main")
    common.run_enf(alice, "init", "--no-hooks")
    common.run_enf(alice, "sync")
    clones = []
    for name in ("bob", "carol"):
        clone = work / name
        common.git(work, "clone", "-q", str(origin), str(clone))
        common.run_enf(clone, "init", "--no-hooks")
        common.run_enf(clone, "log")  # warm: the records cache, as any used clone has it
        clones.append(clone)
    print(f"fixture: seeded {n} sessions {t_seed:.1f} s; bob and carol cloned and adopted alice's memory")
    return alice, clones[0], clones[1]


def write_session(repo: Path, who: str, k: int) -> None:
    day = 1 + k % 28
    path = repo / ".claude-sessions" / "sessions" / f"2026-04-{day:02d}-{who}-bench-{k}.md"
    path.write_text(SESSION.format(sid=f"{who[0]}{k:07x}", day=day, who=who, k=k), encoding="utf-8")
    common.run_enf(repo, "commit")


def reads(alice: Path, bob: Path, carol: Path, reps: int, bob_commits: bool, limit: list[str]) -> None:
    subject: list[float] = []
    baseline: list[float] = []
    for k in range(reps):
        write_session(alice, "alice", k)
        common.run_enf(alice, "sync")
        if bob_commits:
            write_session(bob, "bob", k)
        common.git(bob, "fetch", "-q", "origin")
        common.git(carol, "fetch", "-q", "origin")
        common.run_enf(carol, "log")  # carol merges now, untimed

        def merging() -> None:
            dt, out = common.timed_run([common.GIT_ENF, "log", *limit], bob)
            check("origin's memory" in out.stderr, f"bob's log merged nothing: {out.stderr}")
            check(f"alice bench session {k}" in out.stdout.lower(), "bob's log lacks alice's new session")
            subject.append(dt)

        def plain() -> None:
            dt, out = common.timed_run([common.GIT_ENF, "log", *limit], carol)
            check("origin's memory" not in out.stderr, f"carol's log merged: {out.stderr}")
            baseline.append(dt)

        for step in ((merging, plain) if k % 2 == 0 else (plain, merging)):
            step()
    shown = " ".join(["git enf log", *limit])
    print(f"(a) bob's {shown}, merging first  N={reps}: {common.spread_ms(subject)}")
    print(f"    carol's plain {shown}         N={reps}: {common.spread_ms(baseline)}")
    common.ratio_report(f"{shown.replace(' ', '-')}-with-fetched-memory/{shown.replace(' ', '-')}", subject, baseline,
                        goal=2.0)


def hook(work: Path, repo: Path, reps: int) -> None:
    empty, shim = work / "no-hooks", work / "reference-transaction-hooks"
    empty.mkdir()
    shim.mkdir()
    (shim / "reference-transaction").write_text(NO_OP_HOOK, encoding="utf-8")
    (shim / "reference-transaction").chmod(0o755)
    tip = common.git(repo, "rev-parse", "HEAD").strip()
    runs = max(reps * 4, 40)  # each run is a few ms: more pairs for the same confidence
    for label, argv in (("update-ref", ["update-ref", "refs/heads/bench-ref", tip]),
                        ("commit --allow-empty", ["commit", "-q", "--allow-empty", "-m", "bench"])):
        with_hook: list[float] = []
        without: list[float] = []
        for k in range(runs):
            pair = ((shim, with_hook), (empty, without))
            for folder, into in (pair if k % 2 == 0 else pair[::-1]):
                into.append(common.time_cmd([common.GIT, "-c", f"core.hooksPath={folder}", *argv], repo))
        print(f"(b) git {label} with the no-op reference-transaction hook N={runs}: {common.spread_ms(with_hook)}; "
              f"without: {common.spread_ms(without)}")
        common.ratio_report(f"{label}-with-hook/{label}", with_hook, without, goal=1.1)


def in_process(repo: Path, reps: int) -> None:
    from enf_git.memory.share import fetched
    from enf_git.memory.workspace import Context

    opened: list[float] = []
    caught: list[float] = []
    for _ in range(max(reps * 20, 200)):
        t0 = time.perf_counter()
        ctx = Context.open(repo)
        t1 = time.perf_counter()
        done = fetched.catch_up(ctx)
        t2 = time.perf_counter()
        check(done.merged is None and done.unmerged is None, "the no-op catch-up did something")
        opened.append(t1 - t0)
        caught.append(t2 - t1)
    print(f"(c) catch_up with nothing fetched: median {statistics.median(caught) * 1e6:.0f} us; "
          f"Context.open: median {statistics.median(opened) * 1e6:.0f} us (N={len(caught)})")


def check(ok: bool, message: str) -> None:
    if not ok:
        raise SystemExit(f"FAIL: {message}")


if __name__ == "__main__":
    raise SystemExit(main())
