"""SessionStart on a 10,000-session claude-memory branch with 20 pins and 100 project
facts, against `python -c "import pygit2"`, and the same at 1,000 sessions so growth
with the branch shows. Three kinds of start, each with its goal:

  routine     the same session id again, nothing due to compress        goal <= 1.5
  first       the first start after `git enf init` in a fresh clone     goal <= 10
              (.git/enf/ holds only what init left: no startup, tiers,
              facts-block or pins-listing cache, no compress-idle mark),
              after init's background refresh finished, and, in another
              clone, right after init with the refresh still running:
              each against that clone's warm (third) start              goal <= 2.0
  compressing a start that compresses one tier (enf.compressPerStart    goal <= 3.0
              sessions, 20 by default, in one commit)

Why these goals: a routine start happens many times a day, so it must cost about what
loading pygit2 costs. A compressing start comes about once a day (~10 sessions a day
age into a tier; after a long break, once per start until the backlog is done):
twice a routine start's goal. The first start comes once per clone, after `git enf
init`: 10x an import of pygit2 is ~1.6 s on this machine (a 163 ms import), a wait a
user accepts once, well inside the hook's own 25 s budget. What it pays for at 10,000
sessions (cProfile): the startup digest built from every record (no startup.json yet),
and parsing records.json once; compression's first ranking (no tiers.json yet) takes
each session's tier facts from records.json's entries, reading no blob.

The hook runs as Claude Code runs it: the command `git enf init` registers
(`python -c LAUNCH session-start`) with the event JSON on stdin, in the project's
root. The branch is in its steady state: sessions older than the hot three are
already compressed to cold (as one tier per start leaves them after a while), except
the active and the pinned ones, so each start's compression finds nothing due and
the branch changes only by the log.md line each start commits for the last one (checked). 10 pins are permanent, 10
temporary; the 100 facts are remembered with `memory.facts.remember`, as `git enf
remember` does. The first SessionStart after the fixture (it fills .git/enf/ caches)
is reported once and not counted in the routine row.

The first starts: each repetition clones the fixture (`git clone`, claude-memory
branched from the clone's tracking ref, the remote then removed so no background fetch
runs), runs `git enf init` untimed, waits for the pointers refresh that init starts,
and times one SessionStart. The compressing starts: the oldest sessions are put back
uncompressed in one commit (as a branch that has never been compressed, or a long
break, leaves them), so that every start has one full batch of cold work; each start
is checked to have compressed exactly one batch. Every start that leaves the pointers
file stale starts the background refresh: the script waits for it to finish before the
next timing, so a detached job never runs inside another measurement.

A fresh clone at 100,000 sessions: `--sessions 100000 --growth 0 --keep` once (minutes),
then `--reuse DIR` with the kept folder; its first starts take the clone's records from
the records index the branch carries (.derived/records/), not from every blob, and its
digest from .derived/digest.json, not from a fold of every decision.

Run: .venv/bin/python bench/session_start_10k.py [--quick] [--growth N] [--only KINDS] [--profile] [--keep]
     [--reuse DIR]
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
KINDS = ("routine", "first", "compressing")
GOALS = {"routine": 1.5, "first": 10.0, "compressing": 3.0}
PER_START = 20  # enf.compressPerStart's default: one start's batch
TEAMMATE = {"GIT_AUTHOR_NAME": "Tea Mate", "GIT_AUTHOR_EMAIL": "teammate@example.invalid"}
_CATEGORIES = ["Decision", "Gotcha", "Pattern", "Preference", "Action Item", "General"]


def main() -> int:
    return common.fixture_main("session-start", __doc__, 15, run, extra=_options)


def _options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--growth", type=int, default=1000, help="also measure at this many sessions (0: not)")
    ap.add_argument("--profile", action="store_true", help="cProfile one SessionStart at the largest size")
    ap.add_argument("--trust", choices=("all", "signed", "authors"), default="all",
                    help="enf.trust in the fixture; signed: every memory commit signed by an allowed ssh key")
    ap.add_argument("--assistant", choices=("claude", "codex", "gemini"), default="claude",
                    help="the client whose adapter runs the hook (its payload and session id); default claude")
    ap.add_argument("--only", default=",".join(KINDS),
                    help=f"comma-separated kinds of start to measure (default: {','.join(KINDS)})")
    ap.add_argument("--reuse", type=Path, help="a folder kept by an earlier --keep run holding repo-N for each size "
                    "(used as it is: the 100,000-session fixture takes minutes to build); a branch written before "
                    "the records index gets it in one commit first")


def run(work: Path, n: int, reps: int, args: argparse.Namespace) -> int:
    global ASSISTANT
    ASSISTANT = args.assistant
    common.use_checkout()  # hermetic() dropped PYTHONPATH
    common.header("session_start_10k", sessions=n, growth=args.growth, repetitions=reps, pins=PINS, facts=FACTS,
                  objects="loose" if args.loose else "packed", checkout=common.CHECKOUT)
    TRUST[0] = args.trust
    sizes = sorted({n, args.growth} - {0})
    kinds = [k for k in args.only.split(",") if k]
    unknown = set(kinds) - set(KINDS)
    if unknown:
        print(f"unknown kind of start: {', '.join(sorted(unknown))} (known: {', '.join(KINDS)})", file=sys.stderr)
        return 2
    for size in sizes:
        if args.reuse:
            repo = reused(args.reuse.resolve() / f"repo-{size}", size)
        else:
            repo = fixture(work / f"repo-{size}", size, pack=not args.loose, trust=args.trust)
        if measure(repo, size, reps) != 0:
            return 1
        if "first" in kinds and first_starts(work, repo, size, reps) != 0:
            return 1
        if "compressing" in kinds and compressing_starts(repo, size, reps) != 0:
            return 1
        if SETTLED_BY_HAND:
            print(f"note: {len(SETTLED_BY_HAND)} pointers refreshes run by the script between timings "
                  f"(the background one had not run): {SETTLED_BY_HAND[:3]}")
        if args.profile and size == sizes[-1]:
            profile(work, repo)
    return 0


# --- fixture ------------------------------------------------------------------------

def fixture(path: Path, n: int, pack: bool, trust: str = "all") -> Path:
    repo = common.init_user_repo(path)
    if trust != "all":
        trusting(repo, trust)
    files = steady_files(n)
    # Under a trust setting, a teammate wrote the sessions: every line the context shows names him.
    author = TEAMMATE if trust != "all" else None
    t = common.time_call(lambda: common.seed_files(repo, files, f"bench: seed {n} sessions", pack, author))
    cold = sum(b"tier: cold" in v for v in files.values())
    print(f"fixture {n}: seeded {n} sessions ({cold} already cold) in one commit: {t:.2f} s")
    print(f"fixture {n}: git enf init: {common.time_cmd([common.GIT_ENF, 'init'], repo):.2f} s")
    t = common.time_call(lambda: pins_and_facts(repo, n))
    print(f"fixture {n}: {PINS} pins + {FACTS} facts (one commit each, in-process): {t:.2f} s")
    return repo


def reused(repo: Path, n: int) -> Path:
    """A kept fixture, its branch given the records index and the carried digest if it
    predates them (one commit each, timed: what the first full render of an older branch
    does once)."""
    from enf_git import memory
    from enf_git.memory.record import carried_digest, digests, records_index
    from enf_git.plumbing import record_index, store, store_write

    if not (repo / ".git").is_dir():
        raise SystemExit(f"--reuse: no fixture at {repo} (keep one with --keep --sessions {n})")
    ctx = memory.Context.open(str(repo))
    tip = memory.require_branch(ctx)
    if store.blob_oid(ctx.repo, tip.tree, record_index.FOLDER) is None and not store.folder_entries(
            ctx.repo, tip.tree, record_index.FOLDER):
        cache = ctx.cache()
        t = common.time_call(lambda: store_write.commit(ctx.repo, lambda at: records_index.changes_for(
            ctx.repo, at.tree if at is not None else None, {}, cache, every=True), "enf: records index"))
        cache.save()
        print(f"fixture {n}: records index written in one commit (a branch from before it): {t:.2f} s")
    tip = memory.require_branch(ctx)
    if store.blob_oid(ctx.repo, tip.tree, carried_digest.PATH) is None:
        cache = ctx.cache()

        def digest_of(at: store.Commit | None) -> dict[str, bytes | None]:
            assert at is not None
            return carried_digest.changes_for(ctx.repo, at.tree, {}, digests.build(ctx.repo, at, cache))

        t = common.time_call(lambda: store_write.commit(ctx.repo, digest_of, "enf: carried digest"))
        print(f"fixture {n}: the digest the branch carries written in one commit (a branch from before it): "
              f"{t:.2f} s")
    print(f"fixture {n}: reused from {repo}")
    return repo


def trusting(repo: Path, mode: str) -> None:
    """enf.trust `mode`; for signed, memory commits signed with an ssh key that
    gpg.ssh.allowedSignersFile trusts (every principal): everything is shown, and each
    start asks git's verdict on the commits whose records it shows (cached per commit)."""
    import subprocess

    common.git(repo, "config", "enf.trust", mode)
    if mode == "authors":
        common.git(repo, "config", "enf.trustedAuthors", TEAMMATE["GIT_AUTHOR_EMAIL"])
        return
    key = repo.parent / f"{repo.name}-key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "bench", "-f", str(key)], check=True)
    allowed = repo.parent / f"{repo.name}-allowed"
    allowed.write_text(f"* {key.with_suffix('.pub').read_text().strip()}\n")
    for k, v in (("gpg.format", "ssh"), ("user.signingKey", str(key)), ("gpg.ssh.allowedSignersFile", str(allowed)),
                 ("commit.gpgSign", "true")):
        common.git(repo, "config", k, v)


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
    from enf_git.memory.lifecycle import facts, pins

    ctx = memory.Context.open(str(repo_path))
    for k, i in enumerate(pinned_indices(n)):
        pins.pin(ctx, common.session_stem(i, n), temporary=k % 2 == 1, force=True)
    places = facts.Places(None, "")
    for k in range(FACTS):
        words = " ".join(common._WORDS[(k * 7 + j) % len(common._WORDS)] for j in range(8))
        facts.remember(ctx, places, f"Fact {k}: the {words} needs care (bench)",
                       category=_CATEGORIES[k % len(_CATEGORIES)])


# --- measuring ----------------------------------------------------------------------

ASSISTANT = "claude"  # set from --assistant before any start is measured
CODEX_SID = "01a25210-4049-7d23-83e8-7cf4269a2bc3"  # a UUIDv7, as Codex sends it


def hook_argv() -> list[str]:
    from enf_git import paths

    adapter = [] if ASSISTANT == "claude" else [f"--assistant={ASSISTANT}"]
    return [common.PYTHON, "-c", paths.LAUNCH, *adapter, "session-start"]


def payload(repo: Path) -> str:
    sid = CODEX_SID if ASSISTANT == "codex" else SID
    return json.dumps({"session_id": sid, "cwd": str(repo), "hook_event_name": "SessionStart", "source": "startup"})


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
    common.ratio_report(f"SessionStart/import-pygit2 at {n}", subj, base, goal=GOALS["routine"])
    return 0


def first_starts(work: Path, repo: Path, n: int, reps: int) -> int:
    """The first SessionStart after `git enf init` in a fresh clone, interleaved with the baseline."""
    import shutil

    subj, base, warm, now, now_warm = [], [], [], [], []
    for k in range(reps):
        clone = fresh_clone(repo, work / f"first-{n}-{k}")
        settle(clone)  # init's own pointers refresh: not part of the start, and not inside a timing
        present = [name for name in ("startup.json", "tiers.json", "facts-block.json", "pins-listing.json",
                                     "compress-idle.json") if (clone / ".git" / "enf" / name).exists()]
        if present:
            print(f"FAIL: init already left caches the first start fills: {present}", file=sys.stderr)
            return 1
        pair = [lambda: subj.append(timed_start(clone)), lambda: base.append(import_pygit2(clone))]
        for step in (pair if k % 2 == 0 else pair[::-1]):
            step()
            settle(clone)
        warm.append(warm_start(clone))
        shutil.rmtree(clone)
        clone = fresh_clone(repo, work / f"now-{n}-{k}")
        now.append(timed_start(clone))  # as a user starts the assistant right after init
        settle(clone)
        now_warm.append(warm_start(clone))
        shutil.rmtree(clone)
    print(f"{'first SessionStart':<24} {n:>6} sessions N={reps}: {common.spread_ms(subj)}")
    print(f"{'python -c import pygit2':<24} {'':>15} N={reps}: {common.spread_ms(base)}")
    common.ratio_report(f"first-SessionStart-after-init/import-pygit2 at {n}", subj, base, goal=GOALS["first"])
    print(f"{'  warm (its third start)':<24} {'':>15} N={reps}: {common.spread_ms(warm)}")
    common.ratio_report(f"first-SessionStart-after-the-refresh/warm at {n}", subj, warm, goal=2.0)
    print(f"{'first, right after init':<24} {n:>6} sessions N={reps}: {common.spread_ms(now)}")
    print(f"{'  warm (its third start)':<24} {'':>15} N={reps}: {common.spread_ms(now_warm)}")
    common.ratio_report(f"first-SessionStart-right-after-init/warm at {n}", now, now_warm, goal=2.0)
    return 0


def warm_start(clone: Path) -> float:
    """The clone's warm time: its third start, the second having done what the first left
    (the compression it deferred, the caches a start with authors not known yet does not
    keep), so the third is a routine start."""
    timed_start(clone)
    settle(clone)
    took = timed_start(clone)
    settle(clone)
    return took


def fresh_clone(repo: Path, path: Path) -> Path:
    """A teammate's clone of the project with its memory, after `git enf init` (untimed)."""
    common.git(repo.parent, "clone", "-q", str(repo), str(path))
    common.git(path, "branch", "-q", "claude-memory", "origin/claude-memory")
    common.git(path, "remote", "remove", "origin")  # no background fetch to a remote
    common.run_enf(path, "init")
    return path


def compressing_starts(repo: Path, n: int, reps: int) -> int:
    """Starts that each compress one batch of cold sessions, interleaved with the baseline."""
    batch = PER_START
    due = uncompress_oldest(repo, n, batch * (reps + 1))
    print(f"compressing at {n}: {len(due)} of the oldest sessions put back uncompressed "
          f"({batch} per start; the first start is a warm-up, not counted)")
    cold = cold_count(repo)
    subj, base = [], []
    for k in range(-1, reps):
        def start() -> None:
            before = common.git(repo, "rev-parse", "claude-memory").strip()
            took = session_start(repo)[0]
            if k >= 0:
                subj.append(took)
            made = common.git(repo, "rev-list", "--count", "--grep=^compress(cold): ", f"{before}..claude-memory")
            moved = common.git(repo, "diff", "--name-only", before, "claude-memory", "--", "sessions/").split()
            if int(made) != 1 or len(moved) != batch:
                raise RuntimeError(f"the start made {made.strip()} cold compression commits of {len(moved)} "
                                   f"sessions, not one batch of {batch}")

        pair = [start, lambda: base.append(import_pygit2(repo))] if k >= 0 else [start]
        for step in (pair if k % 2 == 0 else pair[::-1]):
            step()
            settle(repo)
    grew = cold_count(repo) - cold
    if grew != batch * (reps + 1):
        print(f"FAIL: {grew} sessions became cold, {batch * (reps + 1)} expected", file=sys.stderr)
        return 1
    print(f"{'compressing SessionStart':<24} {n:>6} sessions N={reps}: {common.spread_ms(subj)}")
    print(f"{'python -c import pygit2':<24} {'':>15} N={reps}: {common.spread_ms(base)}")
    common.ratio_report(f"compressing-SessionStart/import-pygit2 at {n}", subj, base, goal=GOALS["compressing"])
    return 0


def uncompress_oldest(repo: Path, n: int, count: int) -> list[str]:
    """The `count` oldest compressible sessions back to their full text, in one commit on the branch."""
    from enf_git.plumbing import store, store_write

    keep = {common.session_stem(i, n) for i in pinned_indices(n)}
    rare = common.rare_indices(n)
    chosen = [i for i in range(n) if i % 50 and common.session_stem(i, n) not in keep][:count]
    files = {f"sessions/{common.session_stem(i, n)}.md": common.session_text(i, n, rare).encode() for i in chosen}
    opened = store.open_repo(str(repo))
    store_write.commit(opened, lambda tip: files, f"bench: {len(files)} sessions uncompressed")
    return list(files)


def cold_count(repo: Path) -> int:
    return common.git(repo, "grep", "-l", "tier: cold", "claude-memory", "--", "sessions/").count("\n")


def timed_start(repo: Path) -> float:
    took, text = session_start(repo)
    problems = check_context(text)
    if problems:
        raise RuntimeError(f"the context lacks {', '.join(problems)}:\n{text}")
    return took


def import_pygit2(repo: Path) -> float:
    return common.time_cmd([common.PYTHON, "-c", "import pygit2"], repo)


SETTLED_BY_HAND: list[str] = []  # refreshes the script had to run itself (reported)


def settle(repo: Path, most: float = 300.0) -> None:
    """Wait until no pointers refresh runs, the pointers file is current and nothing taken from
    the branch's derived files waits for its check (what SessionStart
    and init start in the background would otherwise run inside the next timing). A file
    still stale with no refresh running for 2 s (a background refresh that died, say of
    its time budget on a loaded machine) is refreshed here, in-process, and counted."""
    import time

    from enf_git import paths
    from enf_git.memory.context import pointer_refresh, pointer_state
    from enf_git.memory.record import records_verify
    from enf_git.plumbing import locks, store

    opened = store.open_repo(str(repo))
    lock = store.state_dir(opened) / paths.POINTERS_LOCK
    deadline = time.monotonic() + most
    idle_since: float | None = None
    while time.monotonic() < deadline:
        with locks.file_lock(lock, wait=0) as free:
            # The refresh also checks what a fresh clone took from the branch's derived files
            # (records_verify): while that is pending a refresh is due, or about to start.
            stale = pointer_state.pointers_stale(opened) or records_verify.pending(opened)
        if free and not stale:
            return
        now = time.monotonic()
        idle_since = (idle_since or now) if free else None
        if idle_since is not None and now - idle_since > 2.0:
            errors = store.state_dir(opened) / "hook-errors.log"
            text = errors.read_text(encoding="utf-8", errors="replace") if errors.exists() else ""
            last = text.strip().splitlines()[-1:]
            SETTLED_BY_HAND.append(f"{repo.name}: {last[0][:200] if last else 'no error logged'}")
            pointer_refresh.run(str(repo))
            idle_since = None
            continue
        time.sleep(0.05)
    raise RuntimeError(f"the pointers refresh in {repo} did not finish in {most:g} s")


def check_context(text: str) -> list[str]:
    # Any fact ("Fact 12: the … needs care…"): which of the 100 fit the budget varies with their ids and dates.
    wanted = {"pins": "## Pinned", "facts": "needs care", "standing decisions": "## Standing decisions",
              "recent sessions": "## Recent sessions"}
    if TRUST[0] != "all":  # the teammate's lines are named, and a trusted one's are all shown
        wanted["the teammate's name"] = "— Tea Mate, "
    missing = [what for what, mark in wanted.items() if mark not in text]
    return missing + (["nothing withheld"] if "withheld (enf.trust)" in text else [])


TRUST = ["all"]  # run() sets it from --trust


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
