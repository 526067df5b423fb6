"""The hooks under the Codex adapter (`enf-hook --assistant=codex`), or with `--assistant
gemini` under Gemini CLI's, as ratios to baselines of the same run, the way
hooks_latency.py measures Claude Code's. (Gemini's shell tool is run_shell_command, its
payloads carry hook_event_name; the rows keep Claude Code's event names.)

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

    python bench/codex_hooks.py [--assistant codex|gemini] [--sessions N] [--rounds N] [--venv PATH]
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


GEMINI_SID = "2e2f127b-0722-4b36-9cbf-495e377a3eab"  # Gemini's ids are UUIDv4
GEMINI_EVENTS = {"pre-tool-use": "BeforeTool", "post-tool-use": "AfterTool", "user-prompt-submit": "BeforeAgent",
                 "session-start": "SessionStart"}
ASSISTANT = "codex"  # set from --assistant
SHELL = {"codex": "Bash", "gemini": "run_shell_command"}


def payload(top: Path, **fields: object) -> bytes:
    if ASSISTANT == "gemini":
        return json.dumps({"session_id": GEMINI_SID, "cwd": str(top), "timestamp": "2026-12-07T20:53:11Z",
                           "transcript_path": "/dev/null", **fields}).encode()
    return json.dumps({"session_id": CODEX_SID, "cwd": str(top), "turn_id": "t", "model": "gpt-5.5",
                       "permission_mode": "bypassPermissions", "transcript_path": "/dev/null", **fields}).encode()


def _event(arg: str) -> dict[str, str]:
    """Gemini's payloads name their event (the adapter reads it); Codex's carry none here."""
    return {"hook_event_name": GEMINI_EVENTS[arg]} if ASSISTANT == "gemini" else {}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assistant", choices=("codex", "gemini"), default="codex")
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=60, help="per-call rounds (lifecycle: a sixth of them)")
    parser.add_argument("--venv", type=Path, help="an existing venv with enf-git installed (not editable)")
    args = parser.parse_args()
    global ASSISTANT
    ASSISTANT = args.assistant
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
        key = session_key(CODEX_SID) if ASSISTANT == "codex" else GEMINI_SID[:8]
        own.write_text(f"---\nsession_id: {key}\ndate: {today}\nstatus: active\n---\n## Intent\nx\n")
        codex = [python, "-c", hl.LAUNCH, f"--assistant={ASSISTANT}"]
        claude = [python, "-c", hl.LAUNCH]
        shell = SHELL[ASSISTANT]
        bash = payload(top, tool_name=shell, tool_input={"command": "ls -la"}, **_event("pre-tool-use"))
        heredoc = payload(top, tool_name=shell, tool_input={"command": f"cat > {own.relative_to(top)} <<'EOF'\n"
                                                                      f"{own.read_text()}EOF"},
                          **_event("pre-tool-use"))
        for event, data in (("pre-tool-use", bash), ("pre-tool-use", heredoc)):
            got = subprocess.run(codex + [event], input=data, capture_output=True, env=env).stdout
            if got:  # both calls pass the gate silently
                raise SystemExit(f"a measured Codex call was not let through: {got[:300]!r}")
        fast = hl.measure({
            "python -c pass": ([python, "-c", "pass"], b""),
            "PreToolUse": (codex + ["pre-tool-use"], bash),
            "PreToolUse, heredoc of the session file": (codex + ["pre-tool-use"], heredoc),
            "PostToolUse": (codex + ["post-tool-use"], payload(top, tool_name=shell, tool_input={"command": "ls"},
                                                               tool_response="x", **_event("post-tool-use"))),
            "UserPromptSubmit trivial (yes)": (codex + ["user-prompt-submit"],
                                               payload(top, prompt="yes", **_event("user-prompt-submit"))),
        }, args.rounds, env)
        missed = hl.report(f"per-call hooks under {ASSISTANT}, {args.rounds} rounds", fast, GOALS)
        start_codex = payload(top, hook_event_name="SessionStart", source="startup")
        start_claude = json.dumps({"session_id": hl.SID, "cwd": str(top), "source": "startup"}).encode()
        for cmd, data in ((codex, start_codex), (claude, start_claude)):  # the first start fills caches: untimed
            subprocess.run(cmd + ["session-start"], input=data, capture_output=True, env=env, check=True)
        heavy_rounds = max(3, args.rounds // 6)
        heavy = hl.measure({
            'python -c "import pygit2"': ([python, "-c", "import pygit2"], b""),
            f"SessionStart, {ASSISTANT}": (codex + ["session-start"], start_codex),
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
