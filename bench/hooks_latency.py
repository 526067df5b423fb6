"""Whole-process latency of the Claude Code hooks, as ratios to baselines of the same run.

Per-call hooks against `python -c pass` with the same interpreter, each row the median
of paired ratios (every hook run is paired with the baseline run next to it, in
rotating order; `--rounds`, 60 by default), with goals: PreToolUse (the session file present) and PostToolUse
<= 1.2; PreToolUse in a toolset profile <= 1.3 (a session in a custom profile of the
project's toolsets.yaml, extending review, whose Bash call the shell classifier judges:
the compiled-profile read, the classifier's import and its parse included); UserPromptSubmit on a trivial prompt ("yes": nothing is looked up) <= 1.2; on
a substantive one, with brain-first pointers and skill hints on (the defaults) and the
pointers file built, <= 1.3; each of its runs shows the pointers (it starts from the hook
state of the session's first prompt without the pointers that prompt showed). SessionStart and Stop on a branch holding 1,000 sessions
against `python -c "import pygit2"` (figures reported). The whole measurement runs
twice (`--runs`), so the spread between runs is printed beside the figures: the
machine is shared and noisy.

The hooks run from a regular (non-editable) install in a venv made for the
benchmark: an editable install adds an import hook to every interpreter start,
which would inflate the baseline and flatter the ratio.

    python bench/hooks_latency.py [--quick] [--runs N] [--rounds N] [--venv PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from enf_git.hook import LAUNCH  # exactly the command `git enf init` registers

ROOT = Path(__file__).resolve().parents[1]
SID = "abcdef12-0000-4000-8000-000000000000"
FIXTURE = r"""
import sys, time
from enf_git import memory
from enf_git.plumbing import store, store_write
top, count = sys.argv[1], int(sys.argv[2])
ctx = memory.Context.open(top)
memory.init(ctx)
files = {}
for i in range(count):
    day = f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}"
    files[f"sessions/{day}-bench-session-{i}.md"] = (
        f"---\nsession_id: {i:08d}\ndate: {day}\nstart_time: \"10:00\"\ntags: [t{i % 20}, bench]\n"
        f"status: completed\nsummary: \"Session {i} did things\"\n---\n## Intent\nBenchmark.\n\n"
        f"## Decisions\n- [10:00] Y: In the context of area {i % 15}, facing load, decided option {i} over "
        f"option {i + 1}, to achieve speed, accepting cost. Confidence: high\n\n## Open Items\n- [ ] item {i}\n"
    ).encode()
store_write.commit(ctx.repo, lambda tip: files, "bench fixture")
memory.materialize(ctx)
memory.commit(ctx, "views")
today = time.strftime("%Y-%m-%d")
(ctx.root / "sessions" / f"{today}-hook-bench.md").write_text(
    f"---\nsession_id: {sys.argv[3][:8]}\ndate: {today}\nstatus: active\n---\n## Intent\nx\n")
memory.commit(ctx, "own session")
from enf_git.memory.context import indexer
indexer.refresh_pointers(ctx.repo, ctx.cache())
"""


def venv_python(path: Path | None) -> str:
    if path is not None:
        return str(path / "bin" / "python")
    work = ROOT / "bench" / ".work" / "venv-hooks"
    python = work / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(work)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--upgrade", str(ROOT)], check=True)
    return str(python)


def timed(cmd: list[str], stdin: bytes, env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{cmd} exited {proc.returncode}")
    return elapsed


Case = tuple[list[str], bytes]


def measure(cases: dict[str, Case], rounds: int, env: dict[str, str],
            before: Callable[[], None] = lambda: None) -> dict[str, list[float]]:
    """Every case once per round, each paired with a baseline run (the first case) just
    before it, the order rotating from round to round: drift hits all cases alike.
    `before` runs ahead of every hook run (it restores the session's hook state)."""
    base, *others = list(cases)
    samples: dict[str, list[float]] = {name: [] for name in cases}
    pairs: dict[str, list[float]] = {name: [] for name in others}
    for k in range(rounds):
        for name in others[k % len(others):] + others[:k % len(others)]:
            before()
            b = timed(*cases[base], env)
            t = timed(*cases[name], env)
            samples[base].append(b)
            samples[name].append(t)
            pairs[name].append(t / b)
    return {**{name: samples[name] for name in cases}, **{f"{n} ratio": v for n, v in pairs.items()}}


def report(title: str, result: dict[str, list[float]], goals: dict[str, float]) -> list[str]:
    """Print each row (median ms, median of paired ratios, goal); return the rows that missed."""
    print(title)
    names = [n for n in result if not n.endswith(" ratio")]
    missed = []
    for name in names:
        ms = statistics.median(result[name]) * 1000
        ratios = result.get(f"{name} ratio")
        if ratios is None:
            print(f"  {name:<32} {ms:7.1f} ms   baseline")
            continue
        ratio = statistics.median(ratios)
        goal = goals.get(name)
        verdict = "" if goal is None else f"   goal <= {goal:g}: {'MET' if ratio <= goal else 'MISSED'}"
        if goal is not None and ratio > goal:
            missed.append(name)
        print(f"  {name:<32} {ms:7.1f} ms   ratio {ratio:.2f} (median of {len(ratios)} paired ratios){verdict}")
    return missed


FAST_GOALS = {"PreToolUse": 1.2, "PostToolUse": 1.2, "UserPromptSubmit trivial (yes)": 1.2,
              "UserPromptSubmit substantive": 1.3, "PreToolUse, toolset profile": 1.3}
PROFILED = "abcdef13-0000-4000-8000-000000000000"  # a second session, in a custom profile
TOOLSETS = "review-ci:\n  extends: review\n  allow: [WebFetch]\n  deny_bash: ['docker *', 'kubectl delete *']\n"
# A read-only pipeline the classifier has to take apart (a pipe, a substitution, flags).
PROFILED_COMMAND = "git log --oneline -20 | grep -i fix | head -5 && git diff --stat $(git merge-base HEAD main)"


def profiled_session(top: Path) -> None:
    """The second session: its file (the gate passes), the project's toolsets.yaml, its choice."""
    today = time.strftime("%Y-%m-%d")
    (top / ".claude-sessions" / "sessions" / f"{today}-profiled-bench.md").write_text(
        f"---\nsession_id: {PROFILED[:8]}\ndate: {today}\nstatus: active\n---\n## Intent\nx\n")
    (top / "toolsets.yaml").write_text(TOOLSETS)
    choices = top / ".git" / "enf" / "toolsets"
    choices.mkdir(parents=True, exist_ok=True)
    (choices / PROFILED[:8]).write_text("review-ci\n")
# Words the fixture's sessions hold (area, option, speed, load): brain-first finds pointers for it.
SUBSTANTIVE = "why did we decide option 137 over option 138 for area 2"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds and sessions")
    parser.add_argument("--runs", type=int, default=2, help="whole measurements, to show their spread (default 2)")
    parser.add_argument("--rounds", type=int, help="paired ratios per per-call row (default 60; 15 with --quick):"
                        " more, where a loaded machine's runs disagree")
    parser.add_argument("--venv", type=Path, help="an existing venv with enf-git installed (not editable)")
    args = parser.parse_args()
    python = venv_python(args.venv)
    rounds, heavy_rounds, sessions = (15, 3, 200) if args.quick else (60, 10, 1000)
    rounds = args.rounds or rounds

    tmp = Path(tempfile.mkdtemp(prefix="enf-bench-hooks-"))
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "CLAUDE", "ANTHROPIC"))}
        env.update(HOME=str(tmp / "home"), GIT_AUTHOR_NAME="Bench", GIT_AUTHOR_EMAIL="bench@example.com",
                   GIT_COMMITTER_NAME="Bench", GIT_COMMITTER_EMAIL="bench@example.com", GIT_CONFIG_NOSYSTEM="1")
        top = tmp / "repo"
        subprocess.run(["git", "init", "-q", str(top)], check=True, env=env)
        subprocess.run([python, "-c", FIXTURE, str(top), str(sessions), SID], check=True, env=env)
        hook = [python, "-c", LAUNCH]
        tool = json.dumps({"session_id": SID, "cwd": str(top), "hook_event_name": "PreToolUse",
                           "tool_name": "Bash", "tool_input": {"command": "ls -la"}}).encode()
        profiled_session(top)
        profiled = json.dumps({"session_id": PROFILED, "cwd": str(top), "hook_event_name": "PreToolUse",
                               "tool_name": "Bash", "tool_input": {"command": PROFILED_COMMAND}}).encode()
        for payload, denied in ((profiled, False), (profiled.replace(b"git log", b"docker run x; git log", 1), True)):
            got = subprocess.run(hook + ["pre-tool-use"], input=payload, capture_output=True, env=env).stdout
            if (b'"deny"' in got) != denied:  # the measured call is allowed, and really judged
                raise SystemExit(f"the profiled session's call was not judged as expected: {got[:300]!r}")

        def prompt(text: str) -> bytes:
            return json.dumps({"session_id": SID, "cwd": str(top), "prompt": text}).encode()

        state = top / ".git" / "enf" / "sessions" / f"{SID}.json"
        check = subprocess.run(hook + ["user-prompt-submit"], input=prompt(SUBSTANTIVE), capture_output=True, env=env)
        if b"pointers, not instructions" not in check.stdout:
            raise SystemExit(f"the substantive prompt got no pointers: {check.stdout[:300]!r}")
        # A pointer is shown once per session: every run starts from the state the first
        # prompt left (the session file's hint, one prompt counted) without the pointers
        # it showed, so each substantive run shows them again (checked after the runs).
        saved = json.loads(state.read_text(encoding="utf-8"))
        saved.pop("pointed", None)
        snapshot = json.dumps(saved).encode()

        def restore() -> None:
            state.write_bytes(snapshot)

        def still_points() -> None:
            restore()
            again = subprocess.run(hook + ["user-prompt-submit"], input=prompt(SUBSTANTIVE), capture_output=True,
                                   env=env)
            if b"pointers, not instructions" not in again.stdout:
                raise SystemExit(f"a measured substantive prompt got no pointers: {again.stdout[:300]!r}")

        missed: list[str] = []
        for run in range(1, args.runs + 1):
            load = os.getloadavg()[0]  # the machine is shared: say how busy it was
            fast = measure({
                "python -c pass": ([python, "-c", "pass"], b""),
                "PreToolUse": (hook + ["pre-tool-use"], tool),
                "PreToolUse, toolset profile": (hook + ["pre-tool-use"], profiled),
                "PostToolUse": (hook + ["post-tool-use"], tool),
                "UserPromptSubmit trivial (yes)": (hook + ["user-prompt-submit"], prompt("yes")),
                "UserPromptSubmit substantive": (hook + ["user-prompt-submit"], prompt(SUBSTANTIVE)),
            }, rounds, env, restore)
            still_points()
            missed += report(f"run {run}: per-call hooks, {rounds} rounds, load average {load:.2f} at the start,"
                             f" {os.getloadavg()[0]:.2f} at the end", fast, FAST_GOALS)
        start = json.dumps({"session_id": SID, "cwd": str(top), "source": "startup"}).encode()
        stop = json.dumps({"session_id": SID, "cwd": str(top), "stop_hook_active": False}).encode()
        heavy = measure({
            'python -c "import pygit2"': ([python, "-c", "import pygit2"], b""),
            "SessionStart": (hook + ["session-start"], start),
            "Stop": (hook + ["stop"], stop),
        }, heavy_rounds, env)
        print()
        report(f"lifecycle hooks on {sessions} sessions, {heavy_rounds} rounds", heavy, {})
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if missed:
        print(f"\nmissed: {', '.join(sorted(set(missed)))}")


if __name__ == "__main__":
    main()
