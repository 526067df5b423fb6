"""How soon enf-git sees a git process end: `gitrun._run` (a thread blocked in waitpid,
joined with the timeout) against `subprocess.run` of the same command (which blocks in
communicate() until git's pipes close, no timer), interleaved.

The command is `git -c alias.nap='!sleep 0.07' nap`: a git that takes ~70 ms, as the
ls-remote, rev-parse and fetch of a sync do. `Popen.wait(timeout)` polls with sleeps that
double up to 50 ms: such a git would come back at 113.5 ms, not at ~70 (a 35 ms git was
seen at 63). Goal: RATIO gitrun._run/subprocess.run <= 1.1 (within the noise of a
process start; a polling wait is ~1.5).

Run: .venv/bin/python bench/git_wait.py [--reps N] [--nap SECONDS]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common

common.use_checkout()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=40, help="interleaved pairs (default 40)")
    ap.add_argument("--nap", type=float, default=0.07, help="how long the git command takes (default 0.07 s)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=common.BENCH_DIR) as tmp:
        work = Path(tmp)
        common.hermetic(work)
        common.use_checkout()
        repo = common.init_user_repo(work / "repo")
        return measure(repo, args.reps, args.nap)


def measure(repo: Path, reps: int, nap: float) -> int:
    from enf_git.plumbing import gitenv, gitrun

    common.header("git_wait", repetitions=reps, nap=f"{nap:g} s", checkout=common.CHECKOUT)
    env = gitenv.env_for_git(os.environ)
    args = ["-c", f"alias.nap=!sleep {nap:g}", "nap"]

    def ours() -> float:
        t0 = time.perf_counter()
        run = gitrun._run(str(repo), args, env, 10.0)
        dt = time.perf_counter() - t0
        if run.code != 0 or run.timed_out:
            raise RuntimeError(f"git nap failed: {run}")
        return dt

    def plain() -> float:
        t0 = time.perf_counter()
        subprocess.run([common.GIT, *args], cwd=repo, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                       check=True)
        return time.perf_counter() - t0

    ours(), plain()  # warm the page cache for git and sh
    subj, base = [], []
    for k in range(reps):  # interleaved, alternating which goes first
        if k % 2:
            base.append(plain())
            subj.append(ours())
        else:
            subj.append(ours())
            base.append(plain())
    print(f"{'gitrun._run':<16} N={reps}: {common.spread_ms(subj)}")
    print(f"{'subprocess.run':<16} N={reps}: {common.spread_ms(base)}")
    common.ratio_report("gitrun._run/subprocess.run", subj, base, goal=1.1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
