"""The recall index (.git/enf/search.db): its size against the text it indexes, and its cold build.

Size: the database file (WAL checkpointed into it) over the bytes of every blob it indexes
(each session and decisions file of the tip, and each older version kept as history,
counted by `git cat-file --batch-check` from the blob ids the index records), with the
share of each table and index (SQLite's dbstat). Goal: **<= 1.5**.

Cold build: `git-enf recall WORD` with search.db deleted (records.json kept, as after
any commit), against `git grep -c WORD claude-memory`, which reads every blob of the
branch; interleaved, the order alternating. Goal: **<= 10 s at 100,000 sessions**, also
printed as the ratio to git grep (the machine is shared: the ratio is the figure to compare).

The fixture is recall_10k.py's (N sessions seeded in one commit, `git enf init`, one real
commit). `--fixture DIR` reuses a work folder an earlier `--keep` run left (a 100,000-session
one takes minutes to build); the folder is then never deleted.

Run: .venv/bin/python bench/index_size.py [--sessions N] [--reps N] [--keep] [--fixture DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import sqlite3
import statistics
import subprocess
import sys
from pathlib import Path

import common

REPO_ROOT = common.BENCH_DIR.parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sessions", type=int, default=10000, help="session files on the branch (default 10000)")
    ap.add_argument("--reps", type=int, default=3, help="cold builds, each paired with a git grep (default 3)")
    ap.add_argument("--keep", action="store_true", help="keep the fixture folder (reuse it with --fixture)")
    ap.add_argument("--fixture", type=Path, help="a work folder kept by an earlier run: reuse its repository")
    ap.add_argument("--loose", action="store_true", help="leave the seed objects loose (default: packed)")
    args = ap.parse_args()
    sys.path.insert(0, str(REPO_ROOT))  # so common.hermetic() byte-compiles this checkout's enf_git
    work = args.fixture.resolve() if args.fixture else common.make_workdir("index")
    common.hermetic(work)
    os.environ["PYTHONPATH"] = str(REPO_ROOT)  # hermetic() dropped the caller's; every child uses this one
    try:
        return run(work, args)
    finally:
        if args.fixture is None:
            common.cleanup(work, args.keep)


def run(work: Path, args: argparse.Namespace) -> int:
    repo = work / "repo"
    if not repo.is_dir():
        common.init_user_repo(repo)
        common.seed_branch(repo, args.sessions, pack=not args.loose)
        common.run_enf(repo, "init")
        common.touch_session(common.newest_session_path(repo), 0)
        common.run_enf(repo, "commit", "-m", "render views")
    n = len(common.git(repo, "ls-tree", "-r", "--name-only", "claude-memory", "sessions").splitlines())
    common.header("index_size", sessions=n, repetitions=args.reps, sqlite=sqlite3.sqlite_version,
                  fixture=work if args.fixture else "new")
    db = repo / ".git" / "enf" / "search.db"
    word = common.RARE_WORD
    cold = [common.time_cmd(cmd_cold(repo, db, word), repo)]  # warm-up (page cache), not counted
    times: dict[str, list[float]] = {"cold": [], "grep": []}
    cpu: list[float] = []  # CPU seconds of each cold build, its worker processes included
    grep = [common.GIT, "grep", "-c", word, "claude-memory"]
    for k in range(args.reps):
        for name in (("cold", "grep") if k % 2 == 0 else ("grep", "cold")):
            if name == "cold":
                before = children_cpu()
                times["cold"].append(common.time_cmd(cmd_cold(repo, db, word), repo))
                cpu.append(children_cpu() - before)
            else:
                times["grep"].append(common.time_cmd(grep, repo, check=False))
    print(f"cold build (git-enf recall {word}, search.db deleted) N={args.reps}: {common.spread_ms(times['cold'])}"
          f" (warm-up {cold[0]:.1f} s)")
    # CPU time is steadier than wall time on a shared machine; over the cores it bounds the wall time.
    print(f"  its CPU (user+sys, workers included): median {statistics.median(cpu):.1f} s on {os.cpu_count()} cpu")
    print(f"git grep -c {word} claude-memory                N={args.reps}: {common.spread_ms(times['grep'])}")
    common.ratio_report("cold-build/git-grep", times["cold"], times["grep"])
    print(f"loadavg at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    report_size(repo, db)
    return 0


def children_cpu() -> float:
    """User and system seconds of the finished child processes (and theirs) so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def cmd_cold(repo: Path, db: Path, word: str) -> list[str]:
    """A shell-free way to delete the index before each build: a tiny Python prelude."""
    code = ("import os, sys\n"
            "for s in ('', '-wal', '-shm'):\n"
            "    try: os.unlink(sys.argv[1] + s)\n"
            "    except FileNotFoundError: pass\n"
            "sys.argv = ['git-enf', 'recall', sys.argv[2]]\n"
            "from enf_git.entry import main; main()\n")
    return [common.PYTHON, "-c", code, str(db), word]


def report_size(repo: Path, db: Path) -> None:
    with sqlite3.connect(db) as con:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        blobs = [b for (b,) in con.execute("SELECT blob FROM docs") if b]
        kinds = dict(con.execute("SELECT kind, count(*) FROM docs GROUP BY kind ORDER BY kind").fetchall())
        parts = con.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall()
        cols = [r[1] for r in con.execute("PRAGMA table_info(docs)")]
        payload = con.execute(f"SELECT {', '.join(f'sum(length({c}))' for c in cols)} FROM docs").fetchone()
    out = subprocess.run([common.GIT, "cat-file", "--batch-check=%(objectsize)"], cwd=repo,
                         input="\n".join(blobs) + "\n", capture_output=True, text=True, check=True).stdout
    text = sum(int(x) for x in out.split())
    size = db.stat().st_size
    print(f"indexed text: {len(blobs)} blobs, {text / 1e6:.1f} MB ({kinds})")
    print(f"search.db: {size / 1e6:.1f} MB")
    for name, pgsize in parts:
        print(f"   {name:<24} {pgsize / 1e6:8.1f} MB  {pgsize / text:5.2f}x text")
    print("   docs columns (payload bytes): " + ", ".join(f"{c} {(p or 0) / 1e6:.1f} MB"
                                                         for c, p in zip(cols, payload) if (p or 0) > 1e5))
    verdict = "MET" if size / text <= 1.5 else "MISSED"
    print(f"RATIO index-size/indexed-text: {size / text:.2f}  goal <= 1.5: {verdict}")


if __name__ == "__main__":
    sys.exit(main())
