"""`git enf compress` of one session on a 10,000-session claude-memory branch, against a
plain one-session `git enf commit` on the same branch (goal <= 2.0).

(a) `git-enf compress --tier warm NAME` (a named session, each time another one)
(b) `git-enf compress --tier cold --limit 1` (one tier's run: picks the oldest due
    session among all 10,000, opening only the month folders it reaches and those
    that changed, from .git/enf/tiers-folders.json and tiers-months/; its cost must
    not grow with the branch: run it with --sessions 100000 too)
each interleaved with `git-enf commit -m x` of one edited session (what a Stop hook
does), alternating which goes first; plus (b)'s first run, which reads every
session's blob once to fill tiers.json, reported once.

Run: .venv/bin/python bench/compress_10k.py [--quick] [--keep]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import common

common.use_checkout()

AS_OF = "2023-09-01"  # the fixture's sessions span 2020-09-13 .. 2023-06-09: all older than the hot three are due


def main() -> int:
    return common.fixture_main("compress", __doc__, 15, run)


def run(work: Path, n: int, reps: int, args: argparse.Namespace) -> int:
    common.use_checkout()  # hermetic() dropped PYTHONPATH: the children run this checkout's enf_git
    common.header("compress_10k", sessions=n, repetitions=reps, objects="loose" if args.loose else "packed",
                  git_enf=common.GIT_ENF, checkout=common.CHECKOUT)
    repo_path = common.init_user_repo(work / "repo")
    t_seed = common.time_call(lambda: common.seed_branch(repo_path, n, pack=not args.loose))
    print(f"fixture: seeded {n} sessions in one store_write.commit{'' if args.loose else ' + repack'}: {t_seed:.2f} s")
    t_init = common.time_cmd([common.GIT_ENF, "init"], repo_path)
    print(f"fixture: git enf init: {t_init:.2f} s")
    target = common.newest_session_path(repo_path)
    common.touch_session(target, 0)
    common.time_cmd([common.GIT_ENF, "commit", "-m", "x"], repo_path)  # fills records.json, as any use would

    first = common.time_cmd([common.GIT_ENF, "compress", "--tier", "cold", "--limit", "1", "--as-of", AS_OF], repo_path)
    print(f"FIRST tier run (reads every session once into .git/enf/tiers.json): {first * 1000:.0f} ms")

    stems = [p.removesuffix(".md") for p in sorted(common.session_files(n)) if p.startswith("sessions/")]
    named = iter(s.removeprefix("sessions/") for s in stems[n // 2:] if int(s[-5:]) % 50)  # not the active ones
    for label, argv_of in (
        ("(a) compress --tier warm NAME", lambda: ["compress", "--tier", "warm", next(named), "--as-of", AS_OF]),
        ("(b) compress --tier cold --limit 1", lambda: ["compress", "--tier", "cold", "--limit", "1", "--as-of", AS_OF]),
    ):
        subj, base = [], []
        for k in range(reps):
            common.touch_session(target, 100 + k)
            argv = [common.GIT_ENF, *argv_of()]
            commit = [common.GIT_ENF, "commit", "-m", "x"]
            before = tip_count(repo_path)
            if k % 2:
                base.append(common.time_cmd(commit, repo_path))
                subj.append(common.time_cmd(argv, repo_path))
            else:
                subj.append(common.time_cmd(argv, repo_path))
                base.append(common.time_cmd(commit, repo_path))
            if tip_count(repo_path) != before + 2:
                print(f"FAIL: {label} or the commit made no commit ({' '.join(argv)})", file=sys.stderr)
                return 1
        print(f"{label:<36} N={reps}: {common.spread_ms(subj)}")
        print(f"{'git-enf commit -m x':<36} N={reps}: {common.spread_ms(base)}")
        common.ratio_report(f"{label.split(' ', 1)[1]}/commit", subj, base, goal=2.0)
    return 0


def tip_count(repo_path: Path) -> int:
    return int(common.git(repo_path, "rev-list", "--count", "claude-memory").strip())


if __name__ == "__main__":
    sys.exit(main())
