"""Whole-process latency of the Claude Code hooks, as ratios to baselines of the same run.

Per-call hooks (PreToolUse with the session file present, PostToolUse,
UserPromptSubmit) against `python -c pass` with the same interpreter (goal <= 1.3);
SessionStart and Stop on a branch holding 1,000 sessions against
`python -c "import pygit2"` (figures reported). Runs are interleaved and medians
reported, since the machine is shared and noisy.

The hooks run from a regular (non-editable) install in a venv made for the
benchmark: an editable install adds an import hook to every interpreter start,
which would inflate the baseline and flatter the ratio.

    python bench/hooks_latency.py [--quick] [--venv PATH]
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
from pathlib import Path

from enf_git.hook import LAUNCH  # exactly the command `git enf init` registers

ROOT = Path(__file__).resolve().parents[1]
SID = "abcdef12-0000-4000-8000-000000000000"
FIXTURE = r"""
import sys, time
from enf_git import memory
from enf_git.plumbing import store
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
store.commit(ctx.repo, lambda tip: files, "bench fixture")
memory.materialize(ctx)
memory.commit(ctx, "views")
today = time.strftime("%Y-%m-%d")
(ctx.root / "sessions" / f"{today}-hook-bench.md").write_text(
    f"---\nsession_id: {sys.argv[3][:8]}\ndate: {today}\nstatus: active\n---\n## Intent\nx\n")
memory.commit(ctx, "own session")
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


def measure(cases: dict[str, tuple[list[str], bytes]], rounds: int, env: dict[str, str]) -> dict[str, float]:
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(rounds):
        for name, (cmd, stdin) in cases.items():  # interleaved: drift hits all cases alike
            samples[name].append(timed(cmd, stdin, env))
    return {name: statistics.median(values) for name, values in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds and sessions")
    parser.add_argument("--venv", type=Path, help="an existing venv with enf-git installed (not editable)")
    args = parser.parse_args()
    python = venv_python(args.venv)
    rounds, heavy_rounds, sessions = (15, 3, 200) if args.quick else (40, 10, 1000)

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
        prompt = json.dumps({"session_id": SID, "cwd": str(top), "prompt": "hello"}).encode()
        fast = measure({
            "python -c pass": ([python, "-c", "pass"], b""),
            "PreToolUse": (hook + ["pre-tool-use"], tool),
            "PostToolUse": (hook + ["post-tool-use"], tool),
            "UserPromptSubmit": (hook + ["user-prompt-submit"], prompt),
        }, rounds, env)
        start = json.dumps({"session_id": SID, "cwd": str(top), "source": "startup"}).encode()
        stop = json.dumps({"session_id": SID, "cwd": str(top), "stop_hook_active": False}).encode()
        heavy = measure({
            'python -c "import pygit2"': ([python, "-c", "import pygit2"], b""),
            "SessionStart": (hook + ["session-start"], start),
            "Stop": (hook + ["stop"], stop),
        }, heavy_rounds, env)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    base = fast["python -c pass"]
    print(f"per-call hooks, {rounds} interleaved rounds, medians (goal: ratio <= 1.3)")
    for name, value in fast.items():
        print(f"  {name:<18} {value * 1000:7.1f} ms   ratio {value / base:.2f}")
    base = heavy['python -c "import pygit2"']
    print(f"\nlifecycle hooks on {sessions} sessions, {heavy_rounds} rounds, medians")
    for name, value in heavy.items():
        print(f"  {name:<26} {value * 1000:7.1f} ms   ratio {value / base:.2f}")


if __name__ == "__main__":
    main()
