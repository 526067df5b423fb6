"""What compression saves on a realistic corpus: the SessionStart context's size and the
bytes of the branch tip's sessions/, before and after compressing everything due.

The corpus: the 123 hand-written sessions of bench/recall/sessions/ (real-world
topics, 2024-01 .. 2026-06) plus --generated sessions (default 200) with long
Interactions (40 exchanges each), dated over the year before the as-of day. The
context is the hook's SessionStart reply (the command `git enf init` registers,
with `enf.compress false` so that measuring it compresses nothing); then `git enf
compress --as-of DAY` runs until nothing is due (cold, warm, fold: one commit each).

Run: .venv/bin/python bench/compress_corpus.py [--generated N] [--keep]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import common

common.use_checkout()

AS_OF = "2026-07-15"  # after the corpus' newest session (2026-06-26): the hot three stay whole
CORPUS = common.BENCH_DIR / "recall" / "sessions"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--generated", type=int, default=200, help="generated long sessions besides the corpus")
    ap.add_argument("--keep", action="store_true", help="keep the fixture folder")
    args = ap.parse_args()
    work = common.make_workdir("compress-corpus")
    common.hermetic(work)
    common.use_checkout()
    try:
        return run(work, args.generated)
    finally:
        common.cleanup(work, args.keep)


def generated(i: int, n: int) -> str:
    """A session with 40 exchanges in its Interactions, one decision, files and an error."""
    rng = random.Random(i)
    day = time.gmtime(time.mktime((2025, 7, 15, 12, 0, 0, 0, 0, 0)) + (i * 365 // max(n, 1)) * 86400)
    date = f"{day.tm_year:04d}-{day.tm_mon:02d}-{day.tm_mday:02d}"
    w = lambda: rng.choice(common._WORDS)  # noqa: E731 - a word, many times
    lines = ["---", f"session_id: b{i:07x}", f"date: {date}", 'start_time: "09:00"',
             f"tags: [{w()}, {w()}]", "status: completed", f'summary: "Reworked the {w()} {w()} and its {w()}"',
             "---", "", "## Intent", f"Make the {w()} {w()} reliable under load.", "", "## Interactions"]
    for k in range(40):
        lines += [f"### [{9 + k // 6:02d}:{k * 7 % 60:02d}] User -> why does the {w()} {w()} fail when the {w()} is busy?",
                  f"**Claude ->** Read `src/{w()}/{w()}.py`, traced the {w()} through the {w()} and the {w()}; "
                  f"changed the {w()} handling and re-ran the {w()} tests, which now pass.", ""]
    lines += ["## Decisions",
              f"- [11:00] Y: In the context of the {w()} {w()}, facing timeouts, decided a bounded {w()} queue "
              f"over an unbounded one, to achieve steady latency, accepting dropped {w()} events. Confidence: medium",
              "", "## Files Touched", f"- `src/{w()}/{w()}.py` — role: modified, what: {w()} handling", "",
              "## Errors & Fixes", f"- [10:15] Error: `{w()} timed out after 30s`. Fix: bounded the queue", ""]
    return "\n".join(lines)


def corpus(n_generated: int) -> dict[str, bytes]:
    files = {f"sessions/{p.name}": p.read_bytes() for p in sorted(CORPUS.glob("*.md"))}
    for i in range(n_generated):
        text = generated(i, n_generated)
        files[f"sessions/{text.split('date: ')[1][:10]}-long-work-{i:04d}.md"] = text.encode()
    return files


def session_bytes(repo: Path) -> tuple[int, int]:
    """(files, total blob bytes) under sessions/ at the tip."""
    rows = [line.split() for line in common.git(repo, "ls-tree", "-r", "-l", "claude-memory", "sessions/").splitlines()]
    return len(rows), sum(int(r[3]) for r in rows)


def context_chars(repo: Path) -> int:
    import session_start_10k as ss

    return len(ss.session_start(repo)[1])


def compress_all(repo: Path) -> dict[str, int]:
    done: dict[str, int] = {}
    while True:
        out = json.loads(common.run_enf(repo, "compress", "--as-of", AS_OF, "--json").stdout)
        steps = [s for s in out["sessions"] if not s.get("skipped")]
        if not steps:
            return done
        for s in steps:
            done[s["tier"]] = done.get(s["tier"], 0) + 1


def run(work: Path, n_generated: int) -> int:
    common.header("compress_corpus", corpus=f"{len(list(CORPUS.glob('*.md')))} sessions of {CORPUS}",
                  generated=f"{n_generated} with 40 Interactions each", as_of=AS_OF)
    repo = common.init_user_repo(work / "repo")
    files = corpus(n_generated)
    common.seed_files(repo, files, f"bench: corpus of {len(files)} sessions")
    common.run_enf(repo, "init")
    common.git(repo, "config", "enf.compress", "false")  # measuring the context compresses nothing
    context_chars(repo)  # the first start commits its leftovers and fills the caches
    before_ctx, (count, before) = context_chars(repo), session_bytes(repo)
    t0 = time.perf_counter()
    tiers = compress_all(repo)
    took = time.perf_counter() - t0
    after_ctx, (_, after) = context_chars(repo), session_bytes(repo)
    print(f"compressed: {sum(tiers.values())} of {count} sessions ({', '.join(f'{k} {v}' for k, v in sorted(tiers.items()))}) "
          f"in {took:.1f} s")
    print(f"SIZE sessions/ at the tip: {before:,} -> {after:,} bytes (saving {1 - after / before:.0%})")
    print(f"SIZE SessionStart context: {before_ctx:,} -> {after_ctx:,} chars "
          f"(saving {1 - after_ctx / before_ctx:.0%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
