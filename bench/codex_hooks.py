"""The hooks under the Codex adapter (`enf-hook --assistant=codex`), as ratios to baselines
of the same run, the way hooks_latency.py measures Claude Code's.

Per-call hooks against `python -c pass`, goal <= 1.3 each: PreToolUse with the session
file present (a Bash call), PreToolUse on the heredoc that writes the session file (the
adapter loads the shell lexer to read it), PostToolUse, UserPromptSubmit on "yes".
SessionStart under Codex and under Claude Code on the same branch (default 1,000
sessions), each against `python -c "import pygit2"`: Codex's ratio beside Claude Code's.
This fixture (hooks_latency.py's) is not compressed to its steady state: at 10,000
sessions every start here does a tier's compression and both hit the hook's 25 s budget,
so the 10,000-session routine start belongs in session_start_10k.py.
Each row is the median of paired ratios (baseline run next to each hook run, the order
rotating); the load average is printed, since the machine is shared.

    python bench/codex_hooks.py [--sessions N] [--rounds N] [--venv PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hooks_latency as hl  # noqa: E402 - the same fixture, pairing and report

from enf_git.assistants.codex.adapter import session_key  # noqa: E402

CODEX_SID = "01a25210-4049-7d23-83e8-7cf4269a2bc3"  # a UUIDv7 as Codex sends it
GOALS = {"PreToolUse": 1.3, "PreToolUse, heredoc of the session file": 1.3, "PostToolUse": 1.3,
         "UserPromptSubmit trivial (yes)": 1.3}


def payload(top: Path, **fields: object) -> bytes:
    return json.dumps({"session_id": CODEX_SID, "cwd": str(top), "turn_id": "t", "model": "gpt-5.5",
                       "permission_mode": "bypassPermissions", "transcript_path": "/dev/null", **fields}).encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=60, help="per-call rounds (lifecycle: a sixth of them)")
    parser.add_argument("--venv", type=Path, help="an existing venv with enf-git installed (not editable)")
    args = parser.parse_args()
    python = hl.venv_python(args.venv)
    print(f"load average before: {os.getloadavg()}, cpus: {os.cpu_count()}")
    tmp = Path(tempfile.mkdtemp(prefix="enf-bench-codex-"))
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "CLAUDE", "ANTHROPIC", "CODEX"))}
        env.update(HOME=str(tmp / "home"), GIT_AUTHOR_NAME="Bench", GIT_AUTHOR_EMAIL="bench@example.com",
                   GIT_COMMITTER_NAME="Bench", GIT_COMMITTER_EMAIL="bench@example.com", GIT_CONFIG_NOSYSTEM="1")
        top = tmp / "repo"
        subprocess.run(["git", "init", "-q", str(top)], check=True, env=env)
        subprocess.run([python, "-c", hl.FIXTURE, str(top), str(args.sessions), hl.SID], check=True, env=env)
        today = time.strftime("%Y-%m-%d")
        own = top / ".claude-sessions" / "sessions" / f"{today}-codex-bench.md"
        key = session_key(CODEX_SID)
        own.write_text(f"---\nsession_id: {key}\ndate: {today}\nstatus: active\n---\n## Intent\nx\n")
        codex = [python, "-c", hl.LAUNCH, "--assistant=codex"]
        claude = [python, "-c", hl.LAUNCH]
        bash = payload(top, tool_name="Bash", tool_input={"command": "ls -la"})
        heredoc = payload(top, tool_name="Bash", tool_input={"command": f"cat > {own.relative_to(top)} <<'EOF'\n"
                                                                        f"{own.read_text()}EOF"})
        for event, data in (("pre-tool-use", bash), ("pre-tool-use", heredoc)):
            got = subprocess.run(codex + [event], input=data, capture_output=True, env=env).stdout
            if got:  # both calls pass the gate silently
                raise SystemExit(f"a measured Codex call was not let through: {got[:300]!r}")
        fast = hl.measure({
            "python -c pass": ([python, "-c", "pass"], b""),
            "PreToolUse": (codex + ["pre-tool-use"], bash),
            "PreToolUse, heredoc of the session file": (codex + ["pre-tool-use"], heredoc),
            "PostToolUse": (codex + ["post-tool-use"], payload(top, tool_name="Bash", tool_input={"command": "ls"},
                                                               tool_response="x")),
            "UserPromptSubmit trivial (yes)": (codex + ["user-prompt-submit"], payload(top, prompt="yes")),
        }, args.rounds, env)
        missed = hl.report(f"per-call hooks under Codex, {args.rounds} rounds", fast, GOALS)
        start_codex = payload(top, hook_event_name="SessionStart", source="startup")
        start_claude = json.dumps({"session_id": hl.SID, "cwd": str(top), "source": "startup"}).encode()
        for cmd, data in ((codex, start_codex), (claude, start_claude)):  # the first start fills caches: untimed
            subprocess.run(cmd + ["session-start"], input=data, capture_output=True, env=env, check=True)
        heavy_rounds = max(3, args.rounds // 6)
        heavy = hl.measure({
            'python -c "import pygit2"': ([python, "-c", "import pygit2"], b""),
            "SessionStart, Codex": (codex + ["session-start"], start_codex),
            "SessionStart, Claude Code": (claude + ["session-start"], start_claude),
        }, heavy_rounds, env)
        print()
        hl.report(f"SessionStart on {args.sessions} sessions, {heavy_rounds} rounds", heavy, {})
        print(f"load average after: {os.getloadavg()}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if missed:
        print(f"\nmissed: {', '.join(missed)}")


if __name__ == "__main__":
    main()
