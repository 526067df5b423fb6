"""Who last changed each record, worked out from scratch on a history of N commits (a
fresh clone's first build of `.git/enf/authors/`), against git itself listing the same
history's changes (`git log --raw -c`), and a SessionStart's bounded walk.

The fixture is what a year of a team's memory looks like to git: N commits (10,000;
`--sessions 100000`), each adding one session to its month folder (so a busy month
folder holds ~8,000 sessions at 100,000) and every tenth also changing one of 500 facts,
by three authors, written with `git fast-import` and packed (`git gc`), as a clone
receives it. Both sides run in a fresh process, interleaved.

  build       `authors.load` with no table (the background refresh's build)    goal <= 2.0
              against `git log --raw -c` of the same history to /dev/null:
              git lists the changes, Python reads each path, looks up its
              blob at the tip and saves 256 shards; at most as much again
  bounded     the same under `bound_walks(300)` (what a SessionStart does      reported
              on a fresh clone: a partial table, nothing saved), against
              `python -c "import pygit2"`

Before git listed the changes, the build loaded both sides of every commit's month
folder in process (~7 ms a commit at 100,000): over ten minutes at 100,000 commits.

Run: .venv/bin/python bench/authors_walk.py [--quick] [--sessions N] [--reps N] [--keep]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import common

common.use_checkout()

AUTHORS = ("alice", "bob", "carol")
BUILD = """import shutil, sys
from enf_git import memory
from enf_git.memory.record import authors
ctx = memory.Context.open(".")
shutil.rmtree(ctx.repo.path + "enf/authors", ignore_errors=True)
if len(sys.argv) > 1:
    authors.bound_walks(int(sys.argv[1]))
table = authors.load(ctx)
print(sum(1 for _ in table.all()), table.partial)
"""


def main() -> int:
    return common.fixture_main("authors", __doc__, 5, run)


def run(work: Path, n: int, reps: int, args: argparse.Namespace) -> int:
    common.use_checkout()
    common.header("authors_walk", commits=n, repetitions=reps)
    repo = history(work / "repo", n)
    built = subprocess.run([common.PYTHON, "-c", BUILD], cwd=repo, capture_output=True, text=True, check=True)
    entries, partial = built.stdout.split()
    if int(entries) != n + min(n // 10, 500) or partial != "False":
        print(f"FAIL: the table has {entries} records (partial {partial}), {n + min(n // 10, 500)} expected",
              file=sys.stderr)
        return 1
    log = [common.GIT, "log", "--raw", "-c", "-z", "--no-renames", "--no-abbrev", "--root", "--topo-order",
           "--format=%H%x00%an%x00%ae%x00%at%x00", "claude-memory", "--"]
    subj, base, bounded, imports = [], [], [], []
    for k in range(reps):
        steps = [lambda: subj.append(common.time_cmd([common.PYTHON, "-c", BUILD], repo)),
                 lambda: base.append(common.time_cmd(log, repo))]
        for step in (steps if k % 2 == 0 else steps[::-1]):
            step()
        bounded.append(common.time_cmd([common.PYTHON, "-c", BUILD, "300"], repo))
        imports.append(common.time_cmd([common.PYTHON, "-c", "import pygit2"], repo))
    print(f"{'authors table, built':<28} {n:>7} commits N={reps}: {common.spread_ms(subj)}")
    print(f"{'git log --raw -c':<28} {'':>15} N={reps}: {common.spread_ms(base)}")
    common.ratio_report(f"authors-build/git-log at {n}", subj, base, goal=2.0)
    print(f"{'bounded to 300 changes':<28} {'':>15} N={reps}: {common.spread_ms(bounded)}")
    print(f"{'python -c import pygit2':<28} {'':>15} N={reps}: {common.spread_ms(imports)}")
    common.ratio_report(f"authors-bounded-300/import-pygit2 at {n}", bounded, imports)
    return 0


def history(path: Path, n: int) -> Path:
    """N commits on claude-memory, one session each (every tenth also a fact), packed."""
    common.git(path.parent, "init", "-q", str(path))
    stream = bytearray()
    t0 = 1_767_225_600  # 2026-01-01
    per_day = max(1, n // 365)
    for i in range(n):
        day = min(i // per_day, 364)
        month, mday = _month_day(day)
        path_i = f"sessions/2026/{month:02d}/2026-{month:02d}-{mday:02d}-s{i:06d}.md"
        text = f"---\nsession_id: {i:08x}\ndate: 2026-{month:02d}-{mday:02d}\n---\n## Intent\nSession {i}.\n".encode()
        who = AUTHORS[i % 3]
        stream += (f"commit refs/heads/claude-memory\nmark :{i + 1}\n"
                   f"author {who} <{who}@example.com> {t0 + i * 300} +0000\n"
                   f"committer {who} <{who}@example.com> {t0 + i * 300} +0000\ndata 7\nsession\n").encode()
        if i:
            stream += f"from :{i}\n".encode()
        stream += f"M 100644 inline {path_i}\ndata {len(text)}\n".encode() + text + b"\n"
        if i % 10 == 0:
            fact = f"fact {i}\n".encode()
            stream += f"M 100644 inline memories/f{(i // 10) % 500:03d}.md\ndata {len(fact)}\n".encode() + fact + b"\n"
        stream += b"\n"
    subprocess.run([common.GIT, "fast-import", "--quiet"], cwd=path, input=bytes(stream), check=True)
    common.git(path, "gc", "-q")
    return path


def _month_day(day: int) -> tuple[int, int]:
    lengths = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
    for m, days in enumerate(lengths, start=1):
        if day < days:
            return m, day + 1
        day -= days
    return 12, 31


if __name__ == "__main__":
    sys.exit(main())
