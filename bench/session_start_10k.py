"""SessionStart on a 10,000-session claude-memory branch with 20 pins and 100 project
facts, against `python -c "import pygit2"` (goal <= 1.5), and the same at 1,000
sessions so growth with the branch shows.

The hook runs as Claude Code runs it: the command `git enf init` registers
(`python -c LAUNCH session-start`) with the event JSON on stdin, in the project's
root. The branch is in its steady state: sessions older than the hot three are
already compressed to cold (as one tier per start leaves them after a while), except
the active and the pinned ones, so each start's compression finds nothing due and
the branch changes only by the log.md line each start commits for the last one (checked). 10 pins are permanent, 10
temporary; the 100 facts are remembered with `memory.facts.remember`, as `git enf
remember` does. The first SessionStart after the fixture (it fills .git/enf/ caches)
is reported once and not counted.

Run: .venv/bin/python bench/session_start_10k.py [--quick] [--growth N] [--profile] [--keep]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import common

common.use_checkout()

SID = "5e55104a-0000-4000-8000-000000000001"
PINS, FACTS = 20, 100
_CATEGORIES = ["Decision", "Gotcha", "Pattern", "Preference", "Action Item", "General"]


def main() -> int:
    return common.fixture_main("session-start", __doc__, 15, run, extra=_options)


def _options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--growth", type=int, default=1000, help="also measure at this many sessions (0: not)")
    ap.add_argument("--profile", action="store_true", help="cProfile one SessionStart at the largest size")


def run(work: Path, n: int, reps: int, args: argparse.Namespace) -> int:
    common.use_checkout()  # hermetic() dropped PYTHONPATH
    common.header("session_start_10k", sessions=n, growth=args.growth, repetitions=reps, pins=PINS, facts=FACTS,
                  objects="loose" if args.loose else "packed", checkout=common.CHECKOUT)
    sizes = sorted({n, args.growth} - {0})
    for size in sizes:
        repo = fixture(work / f"repo-{size}", size, pack=not args.loose)
        if measure(repo, size, reps) != 0:
            return 1
        if args.profile and size == sizes[-1]:
            profile(work, repo)
    return 0


# --- fixture ------------------------------------------------------------------------

def fixture(path: Path, n: int, pack: bool) -> Path:
    repo = common.init_user_repo(path)
    files = steady_files(n)
    t = common.time_call(lambda: common.seed_files(repo, files, f"bench: seed {n} sessions", pack))
    cold = sum(b"tier: cold" in v for v in files.values())
    print(f"fixture {n}: seeded {n} sessions ({cold} already cold) in one commit: {t:.2f} s")
    print(f"fixture {n}: git enf init: {common.time_cmd([common.GIT_ENF, 'init'], repo):.2f} s")
    t = common.time_call(lambda: pins_and_facts(repo, n))
    print(f"fixture {n}: {PINS} pins + {FACTS} facts (one commit each, in-process): {t:.2f} s")
    return repo


def pinned_indices(n: int) -> list[int]:
    """Spread over the branch, none active (i % 50 == 0: the fixture's active sessions)."""
    return [k * (n // PINS) + 7 for k in range(PINS)]


def steady_files(n: int) -> dict[str, bytes]:
    """The fixture's sessions, the old ones compressed to cold as SessionStart leaves them."""
    from enf_git.pure import tiers

    files = common.session_files(n)
    keep = {common.session_stem(i, n) for i in pinned_indices(n)}
    newest = sorted(files)[-tiers.HOT_DEFAULT:]
    for path, data in files.items():
        if path in newest or path.removeprefix("sessions/").removesuffix(".md") in keep:
            continue
        try:
            files[path] = tiers.compress(path, data, "cold")
        except tiers.CompressionRefused:
            pass  # an active session: never compressed
    return files


def pins_and_facts(repo_path: Path, n: int) -> None:
    from enf_git import memory
    from enf_git.memory import facts, pins

    ctx = memory.Context.open(str(repo_path))
    for k, i in enumerate(pinned_indices(n)):
        pins.pin(ctx, common.session_stem(i, n), temporary=k % 2 == 1, force=True)
    places = facts.Places(None, "")
    for k in range(FACTS):
        words = " ".join(common._WORDS[(k * 7 + j) % len(common._WORDS)] for j in range(8))
        facts.remember(ctx, places, f"Fact {k}: the {words} needs care (bench)",
                       category=_CATEGORIES[k % len(_CATEGORIES)])


# --- measuring ----------------------------------------------------------------------

def hook_argv() -> list[str]:
    from enf_git import paths

    return [common.PYTHON, "-c", paths.LAUNCH, "session-start"]


def payload(repo: Path) -> str:
    return json.dumps({"session_id": SID, "cwd": str(repo), "hook_event_name": "SessionStart", "source": "startup"})


def session_start(repo: Path) -> tuple[float, str]:
    import subprocess
    import time

    t0 = time.perf_counter()
    out = subprocess.run(hook_argv(), cwd=repo, input=payload(repo), capture_output=True, text=True, check=False)
    dt = time.perf_counter() - t0
    if out.returncode != 0 or not out.stdout:
        raise RuntimeError(f"SessionStart failed ({out.returncode}): {out.stdout}\n{out.stderr}")
    text: str = json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"]
    return dt, text


def measure(repo: Path, n: int, reps: int) -> int:
    first, text = session_start(repo)
    print(f"FIRST SessionStart at {n} (fills .git/enf/ caches): {first * 1000:.0f} ms")
    problems = check_context(text)
    if problems:
        print(f"FAIL: the context lacks {', '.join(problems)}:\n{text}", file=sys.stderr)
        return 1
    print(f"context at {n}: {len(text):,} chars")
    tip = common.git(repo, "rev-parse", "claude-memory").strip()
    baseline = [common.PYTHON, "-c", "import pygit2"]
    subj, base = [], []
    for k in range(reps):  # interleaved, alternating which goes first
        if k % 2:
            base.append(common.time_cmd(baseline, repo))
            subj.append(session_start(repo)[0])
        else:
            subj.append(session_start(repo)[0])
            base.append(common.time_cmd(baseline, repo))
    # Each start commits the last one's `session-start` event into log.md (as in real use):
    # anything more (a compression, a pin released) would mean the fixture is no steady state.
    moved = set(common.git(repo, "diff", "--name-only", tip, "claude-memory").split()) - {"log.md"}
    if moved:
        print(f"FAIL: the runs at {n} changed {', '.join(sorted(moved)[:5])} (not a steady state)", file=sys.stderr)
        return 1
    print(f"{'SessionStart':<24} {n:>6} sessions N={reps}: {common.spread_ms(subj)}")
    print(f"{'python -c import pygit2':<24} {'':>15} N={reps}: {common.spread_ms(base)}")
    common.ratio_report(f"SessionStart/import-pygit2 at {n}", subj, base, goal=1.5)
    return 0


def check_context(text: str) -> list[str]:
    wanted = {"pins": "## Pinned", "facts": "Fact 9", "standing decisions": "## Standing decisions",
              "recent sessions": "## Recent sessions"}
    return [what for what, mark in wanted.items() if mark not in text]


PROFILED = """import cProfile, gc, pstats, sys
gc.disable()  # as hook.main does
from enf_git import hook
raw = sys.stdin.buffer.read()
prof = cProfile.Profile()
out = prof.runcall(hook.run, "SessionStart", raw)
assert out, "SessionStart said nothing"
pstats.Stats(prof).sort_stats("cumulative").print_stats(45)
"""


def profile(work: Path, repo: Path) -> None:
    """cProfile of one SessionStart (hook.run in a fresh process), then -X importtime of one."""
    import subprocess

    from enf_git import paths

    out = subprocess.run([common.PYTHON, "-c", PROFILED], cwd=repo, input=payload(repo), capture_output=True,
                         text=True, check=True)
    print(out.stdout)
    imports = subprocess.run([common.PYTHON, "-X", "importtime", "-c", paths.LAUNCH, "session-start"], cwd=repo,
                             input=payload(repo), capture_output=True, text=True, check=True).stderr
    rows = [line.split("|") for line in imports.splitlines() if line.startswith("import time:") and "|" in line]
    top = sorted(((int(r[1]), r[2].rstrip()) for r in rows if r[1].strip().isdigit()), reverse=True)[:15]
    print("-X importtime, cumulative us, top 15:")
    for us, name in top:
        print(f"  {us:>8} {name}")


if __name__ == "__main__":
    sys.exit(main())
