"""`git enf commit` of one changed session file on a 10,000-session claude-memory branch.

(a) whole process `git-enf commit -m x` vs `python -c "import pygit2"` (goal <= 1.5)
(b) in-process enf_git.memory.commit(ctx), median ms, vs store_write.write_tree of the same
    one-file change onto the tip (the irreducible git work)
plus the first (cold: no .git/enf/records.json yet) commit, reported once.

Run: .venv/bin/python bench/commit_10k.py [--quick] [--profile] [--keep] [--working-set all]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import common


def main() -> int:
    def extra(ap: argparse.ArgumentParser) -> None:
        ap.add_argument("--profile", action="store_true", help="cProfile one in-process commit (top functions)")
        ap.add_argument("--working-set", metavar="N|all",
                        help="git config enf.workingSet for the fixture (default: enf-git's default, 500)")

    return common.fixture_main("commit", __doc__, 15, run, extra)


def run(work: Path, n: int, reps: int, args: argparse.Namespace) -> int:
    from enf_git import memory
    from enf_git.plumbing import store, store_write

    common.header("commit_10k", sessions=n, repetitions=reps, objects="loose" if args.loose else "packed",
                  git_enf=common.GIT_ENF)
    repo_path = common.init_user_repo(work / "repo")
    t_seed = common.time_call(lambda: common.seed_branch(repo_path, n, pack=not args.loose))
    print(f"fixture: seeded {n} sessions in one store_write.commit{'' if args.loose else ' + repack'}: {t_seed:.2f} s")
    if args.working_set:
        common.time_cmd([common.GIT, "config", "enf.workingSet", args.working_set], repo_path)
    t_init = common.time_cmd([common.GIT_ENF, "init"], repo_path)
    held = len(list((repo_path / ".claude-sessions" / "sessions").glob("*.md")))
    print(f"fixture: git enf init (working copy holds {held} of {n} sessions): {t_init:.2f} s")

    target = common.newest_session_path(repo_path)
    print(f"changed file: .claude-sessions/sessions/{target.name} (summary + one interaction each time)")

    # Cold: the first commit parses every record (no records.json) and renders all views.
    common.touch_session(target, 0)
    cold = common.time_cmd([common.GIT_ENF, "commit", "-m", "x"], repo_path)
    print(f"COLD first commit (no records cache, renders all views): {cold * 1000:.0f} ms")
    # One more to settle anything the first commit left for later (cache, views).
    common.touch_session(target, 1)
    warm1 = common.time_cmd([common.GIT_ENF, "commit", "-m", "x"], repo_path)
    print(f"second commit (warm caches, not counted): {warm1 * 1000:.0f} ms")

    # (a) whole process, interleaved with the baseline, alternating which goes first.
    base_argv = [common.PYTHON, "-c", "import pygit2"]
    subj, base = [], []
    for k in range(reps):
        common.touch_session(target, 100 + k)
        before = tip_id(repo_path)
        if k % 2:
            base.append(common.time_cmd(base_argv, repo_path))
            subj.append(common.time_cmd([common.GIT_ENF, "commit", "-m", "x"], repo_path))
        else:
            subj.append(common.time_cmd([common.GIT_ENF, "commit", "-m", "x"], repo_path))
            base.append(common.time_cmd(base_argv, repo_path))
        after = tip_id(repo_path)
        if before == after:
            print("FAIL: git-enf commit made no commit", file=sys.stderr)
            return 1
    print(f"(a) git-enf commit -m x        N={reps}: {common.spread_ms(subj)}")
    print(f"(a) python -c 'import pygit2'  N={reps}: {common.spread_ms(base)}")
    common.ratio_report("commit/import-pygit2", subj, base, goal=1.5)

    # (b) in process: memory.commit vs the bare one-file tree write it is built on.
    ctx = memory.Context.open(repo_path)
    rel = f"sessions/{target.name}"
    isubj, ibase = [], []
    for k in range(reps):
        common.touch_session(target, 1000 + k)
        data = target.read_bytes()

        def bare(data: bytes = data) -> None:
            tip = store.tip(ctx.repo)
            store_write.write_tree(ctx.repo, tip.tree if tip is not None else None, {rel: data})

        def full() -> None:
            if memory.commit(ctx, "x").commit is None:
                raise RuntimeError("memory.commit made no commit")

        if k % 2:
            ibase.append(common.time_call(bare))
            isubj.append(common.time_call(full))
        else:
            isubj.append(common.time_call(full))
            ibase.append(common.time_call(bare))
    print(f"(b) memory.commit(ctx) in-process       N={reps}: {common.spread_ms(isubj)}")
    print(f"(b) store_write.write_tree one-file baseline  N={reps}: {common.spread_ms(ibase)}")
    common.ratio_report("memory.commit/write_tree", isubj, ibase)

    if args.profile:
        profile_one(ctx, target)
    return 0


def tip_id(repo_path: Path) -> str | None:
    from enf_git.plumbing import store

    tip = store.tip(store.open_repo(repo_path))
    return str(tip.id) if tip is not None else None


def profile_one(ctx: Any, target: Path) -> None:
    import cProfile
    import pstats

    from enf_git import memory

    common.touch_session(target, 99999)
    prof = cProfile.Profile()
    prof.runcall(memory.commit, ctx, "x")
    print("\n-- cProfile of one in-process memory.commit (cumulative, top 25)")
    stats = pstats.Stats(prof, stream=sys.stdout).strip_dirs().sort_stats("cumulative")
    stats.print_stats(25)
    print("-- (tottime, top 15)")
    stats.sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    sys.exit(main())
