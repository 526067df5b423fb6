"""The Stop hook with the session handoff (enf.handoff=true, the default) against the same
Stop without it (enf.handoff=false), on a branch of N sessions (default 1,000).

The hook runs as Claude Code runs it (`python -c LAUNCH stop`, the event JSON on stdin,
in the project's root). Before every Stop, on and off alike, the stopping session's file
gets one more interaction and a new summary (what a Stop after a turn commits), so each
Stop makes a real commit. The work tree is what a handoff reads in a working session: 5
modified and 3 untracked files, 3 commits in the last two hours, a scratchpad, and open
items in the session file. On and off runs alternate (and alternate which goes first);
`python -c "import pygit2"` is measured beside them as the usual floor. Each "on" run must
rewrite `.git/enf/handoff.json`, each "off" run must leave it alone (checked).

`--transcript`: instead, Stop (handoff on) with a Claude Code transcript in its payload
against the same Stop with none. The transcript is the recorded one in
tests/data/transcripts/, grown to ~1 MB before the first (uncounted) Stop, and one more
turn of its lines is appended before each counted Stop, as a session's transcript grows
between stops: each Stop reads what the last one left. Goal: the ratio <= 1.05 (reading
a transcript at Stop may add at most 0.05 to its cost). Each such Stop must update the
transcript's figures in .git/enf/transcripts/ (checked).

`--cpu` (with `--transcript`) also runs the Stop handler in this process, alternating, and
prints the CPU time per Stop with and without the transcript: on a shared machine the
wall-clock ratio of whole processes is mostly noise at this size of difference.

Run: .venv/bin/python bench/stop_handoff.py [--sessions N] [--reps N] [--quick] [--keep] [--transcript [--cpu]]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import common

common.use_checkout()

SID = "5709a11d-0000-4000-8000-000000000001"
DEFAULT_SESSIONS = 1000


def main() -> int:
    if "--sessions" not in sys.argv and "--quick" not in sys.argv:
        sys.argv += ["--sessions", str(DEFAULT_SESSIONS)]
    return common.fixture_main("stop-handoff", __doc__, 21, run, extra=_options)


def _options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--transcript", action="store_true", help="Stop with a growing transcript vs Stop with none")
    ap.add_argument("--cpu", action="store_true",
                    help="with --transcript: also the Stop handler in process, CPU time per Stop (load-tolerant)")


def run(work: Path, n: int, reps: int, args: argparse.Namespace) -> int:
    common.use_checkout()  # hermetic() dropped PYTHONPATH
    common.header("stop_handoff", sessions=n, repetitions=reps, checkout=common.CHECKOUT)
    repo, own = fixture(work / "repo", n, pack=not args.loose)
    if args.transcript:
        code = measure_transcript(repo, own, n, reps, work / "transcript.jsonl")
        return code or (cpu_transcript(repo, own, reps, work / "transcript.jsonl") if args.cpu else 0)
    return measure(repo, own, n, reps)


# --- fixture ------------------------------------------------------------------------

def fixture(path: Path, n: int, pack: bool) -> tuple[Path, Path]:
    repo = common.init_user_repo(path)
    t = common.time_call(lambda: common.seed_branch(repo, n, pack))
    print(f"fixture: seeded {n} sessions in one commit: {t:.2f} s")
    print(f"fixture: git enf init: {common.time_cmd([common.GIT_ENF, 'init', '--no-hooks'], repo):.2f} s")
    for i in range(5):
        (repo / f"src{i}.py").write_text(f"print({i})\n")
    common.git(repo, "add", ".")
    common.git(repo, "commit", "-q", "-m", "tracked files")
    for i in range(3):
        common.git(repo, "commit", "-q", "--allow-empty", "-m", f"recent change {i}")
    for i in range(5):
        (repo / f"src{i}.py").write_text(f"print({i} + 1)\n")
    for i in range(3):
        (repo / f"new{i}.txt").write_text("untracked\n")
    wc = repo / ".claude-sessions"
    (wc / "scratchpad.md").write_text("".join(f"- thought {i}: try the {common._WORDS[i]} first\n" for i in range(30)))
    today = time.strftime("%Y-%m-%d")
    own = wc / "sessions" / f"{today}-stop-bench.md"
    items = "".join(f"- [ ] open item {i}\n" for i in range(6))
    own.write_text(f"---\nsession_id: {SID[:8]}\ndate: {today}\nstart_time: \"10:00\"\ntags: [bench]\n"
                   f"status: active\nsummary: \"Bench\"\n---\n## Intent\nMeasure Stop.\n\n## Decisions\n\n"
                   f"## Open Items\n{items}")
    common.run_enf(repo, "commit", "-m", "bench: own session")
    return repo, own


# --- measuring ----------------------------------------------------------------------

def stop(repo: Path, transcript: Path | None = None) -> float:
    from enf_git import paths

    event: dict[str, object] = {"session_id": SID, "cwd": str(repo), "hook_event_name": "Stop",
                                "stop_hook_active": False}
    if transcript is not None:
        event["transcript_path"] = str(transcript)
    payload = json.dumps(event)
    t0 = time.perf_counter()
    out = subprocess.run([common.PYTHON, "-c", paths.LAUNCH, "stop"], cwd=repo, input=payload, capture_output=True,
                         text=True, check=False)
    dt = time.perf_counter() - t0
    if out.returncode != 0 or out.stdout or out.stderr:
        raise RuntimeError(f"Stop failed ({out.returncode}): {out.stdout}\n{out.stderr}")
    return dt


def one(repo: Path, own: Path, on: bool, k: int) -> float:
    """One Stop after one more turn's edit, with the handoff on or off; checks what it wrote."""
    common.git(repo, "config", "enf.handoff", "true" if on else "false")
    common.touch_session(own, k)
    target = repo / ".git" / "enf" / "handoff.json"
    before = target.stat().st_mtime_ns if target.exists() else None
    tip = common.git(repo, "rev-parse", "claude-memory").strip()
    dt = stop(repo)
    after = target.stat().st_mtime_ns if target.exists() else None
    if on and (after is None or after == before or "open item 5" not in target.read_text()):
        raise RuntimeError("a Stop with enf.handoff=true did not write the handoff")
    if not on and after != before:
        raise RuntimeError("a Stop with enf.handoff=false wrote the handoff")
    if common.git(repo, "rev-parse", "claude-memory").strip() == tip:
        raise RuntimeError("a Stop did not commit the turn's edit")
    return dt


def measure(repo: Path, own: Path, n: int, reps: int) -> int:
    one(repo, own, True, 0)  # settles .git/enf caches; not counted
    one(repo, own, False, 1)
    with_h, without, floor = [], [], []
    for k in range(reps):
        order = (True, False) if k % 2 == 0 else (False, True)
        for on in order:
            (with_h if on else without).append(one(repo, own, on, 2 + 2 * k + on))
        floor.append(common.time_cmd([common.PYTHON, "-c", "import pygit2"], repo))
    record = json.loads((repo / ".git" / "enf" / "handoff.json").read_text())
    print(f"handoff: {record['status']['total']} modified files, {record['commits_total']} commits, "
          f"{len(record['items'])} open items, {len(record['scratch_tail'])} chars of scratchpad")
    print(f"{'Stop, enf.handoff=true':<28} {n:>6} sessions N={reps}: {common.spread_ms(with_h)}")
    print(f"{'Stop, enf.handoff=false':<28} {n:>6} sessions N={reps}: {common.spread_ms(without)}")
    print(f"{'python -c import pygit2':<28} {'':>15} N={reps}: {common.spread_ms(floor)}")
    common.ratio_report(f"Stop with handoff / without at {n}", with_h, without)
    common.ratio_report(f"Stop with handoff / import-pygit2 at {n}", with_h, floor)
    common.ratio_report(f"Stop without handoff / import-pygit2 at {n}", without, floor)
    extra = [(a - b) * 1000 for a, b in zip(with_h, without)]
    print(f"handoff's cost per Stop: median {sorted(extra)[len(extra) // 2]:.1f} ms (paired differences)")
    return 0


RECORDED = common.CHECKOUT / "tests" / "data" / "transcripts" / "claude-code-compact.jsonl"
TURN_LINES = 6  # lines appended before each counted Stop: a user prompt, the replies and tool results


def measure_transcript(repo: Path, own: Path, n: int, reps: int, transcript: Path) -> int:
    common.git(repo, "config", "enf.handoff", "true")
    lines = RECORDED.read_text(encoding="utf-8").splitlines(keepends=True)
    with transcript.open("w", encoding="utf-8") as out:
        while transcript.stat().st_size < 1 << 20:
            out.writelines(lines)
            out.flush()
    figures = repo / ".git" / "enf" / "transcripts" / f"{SID[:8]}.json"
    k = 0

    def turn(with_transcript: bool) -> float:
        nonlocal k
        k += 1
        common.touch_session(own, k)
        if not with_transcript:
            return stop(repo)
        with transcript.open("a", encoding="utf-8") as out:
            out.writelines(lines[(k * TURN_LINES) % len(lines):][:TURN_LINES])
        before = figures.read_bytes() if figures.exists() else None
        dt = stop(repo, transcript)
        if not figures.exists() or figures.read_bytes() == before:
            raise RuntimeError("a Stop with a grown transcript did not update its figures")
        return dt

    turn(True)  # reads the first ~1 MB (at most 2 MiB a Stop): settles, not counted
    turn(False)
    with_t, without = [], []
    for i in range(reps):
        for on in ((True, False) if i % 2 == 0 else (False, True)):
            (with_t if on else without).append(turn(on))
    print(f"{'Stop with a transcript':<28} {n:>6} sessions N={reps}: {common.spread_ms(with_t)}")
    print(f"{'Stop without':<28} {n:>6} sessions N={reps}: {common.spread_ms(without)}")
    common.ratio_report(f"Stop with a transcript / without at {n}", with_t, without)
    extra = [(a - b) * 1000 for a, b in zip(with_t, without)]
    print(f"the transcript's cost per Stop: median {sorted(extra)[len(extra) // 2]:.1f} ms (paired differences)")
    return 0


def cpu_transcript(repo: Path, own: Path, reps: int, transcript: Path) -> int:
    """The Stop handler in this process, with and without the transcript, alternating: CPU
    time per Stop, which the machine's load disturbs far less than a whole process's wall time."""
    import statistics

    from enf_git import hook

    lines = RECORDED.read_text(encoding="utf-8").splitlines(keepends=True)
    cwd = os.getcwd()
    os.chdir(repo)
    try:
        took: dict[bool, list[float]] = {True: [], False: []}
        for k in range(2 * reps):
            with_t = (k % 4) in (0, 3)  # ABBA order
            event: dict[str, object] = {"session_id": SID, "cwd": str(repo), "hook_event_name": "Stop",
                                        "stop_hook_active": False}
            if with_t:
                event["transcript_path"] = str(transcript)
                with transcript.open("a", encoding="utf-8") as out:
                    out.writelines(lines[(k * TURN_LINES) % len(lines):][:TURN_LINES])
            common.touch_session(own, 10_000 + k)
            c = time.process_time()
            hook.respond("Stop", json.dumps(event).encode())
            took[with_t].append(time.process_time() - c)
    finally:
        os.chdir(cwd)
    a, b = statistics.median(took[True]), statistics.median(took[False])
    pairs = sorted(x / y for x, y in zip(took[True], took[False]))
    print(f"in process, CPU per Stop N={reps}: with a transcript {a * 1000:.1f} ms, without {b * 1000:.1f} ms "
          f"(+{(a - b) * 1000:.1f} ms; median of paired ratios {pairs[len(pairs) // 2]:.3f}; load {os.getloadavg()[0]:.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
