"""Smoke tests of the e2e harness itself: the real client, offline, against the stand-in.

They pin the hook contract the package relies on (see docs/claude-code.md).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from harness import read_jsonl, run_claude
from standin import StandIn, Text, ToolUse

EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "PreCompact")

# The probe logs its stdin and prints the reply configured for the event, if any.
PROBE = """\
import json, sys
event = json.load(sys.stdin)
with open(sys.argv[1], "a") as log:
    log.write(json.dumps(event) + "\\n")
with open(sys.argv[2]) as f:
    replies = json.load(f)
reply = replies.get(event["hook_event_name"])
if reply is not None:
    print(json.dumps(reply))
"""


def probe_settings(
    tmp_path: Path, replies: dict[str, Any] | None = None
) -> tuple[dict[str, Any], Path]:
    """settings.json hooking every event in EVENTS to the probe; returns it and the log path."""
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    log = tmp_path / "hooks.jsonl"
    replies_file = tmp_path / "replies.json"
    replies_file.write_text(json.dumps(replies or {}))
    # Absolute interpreter: no PATH lookup, no shim (docs/claude-code.md, "Interpreter").
    command = f"{sys.executable} {script} {log} {replies_file}"
    hook = [{"matcher": "*", "hooks": [{"type": "command", "command": command, "timeout": 30}]}]
    return {"hooks": {event: hook for event in EVENTS}}, log


def bash(command: str) -> ToolUse:
    return ToolUse("Bash", {"command": command, "description": "scripted test command"})


def test_hooks_fire_and_context_reaches_model(
    claude_bin: str, standin: StandIn, project: Path, claude_home: Path, tmp_path: Path
) -> None:
    settings, log = probe_settings(
        tmp_path,
        {
            "SessionStart": {
                "hookSpecificOutput": {
                    "hookEventName": "SessionStart",
                    "additionalContext": "ENF-CTX-SESSIONSTART-42",
                }
            },
            "UserPromptSubmit": {
                "hookSpecificOutput": {
                    "hookEventName": "UserPromptSubmit",
                    "additionalContext": "ENF-CTX-PROMPT-43",
                }
            },
        },
    )

    def finish(body: dict[str, Any]) -> Text:
        # A dynamic turn: decided from the request, here from the Bash tool result.
        ok = any(
            b.get("type") == "tool_result"
            for m in body["messages"]
            for b in m["content"]
            if isinstance(b, dict)
        )
        return Text("Done." if ok else "No tool result?")

    standin.add(bash("echo hi > marker.txt"), finish)

    run = run_claude(
        "write the marker", project, claude_home, standin.url, settings=settings, claude=claude_bin
    )

    assert run.returncode == 0, run.describe()
    assert (project / "marker.txt").read_text() == "hi\n"
    session_id = run.session_id
    assert session_id, run.describe()
    assert run.result is not None and run.result.get("subtype") == "success", run.describe()

    seen = read_jsonl(log)
    by_event = {e["hook_event_name"]: e for e in seen}
    for event in ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"):
        assert event in by_event, f"{event} not seen; got {[e['hook_event_name'] for e in seen]}"
        assert by_event[event]["session_id"] == session_id
    assert by_event["SessionStart"]["source"] == "startup"
    assert by_event["UserPromptSubmit"]["prompt"] == "write the marker"
    assert by_event["PreToolUse"]["tool_name"] == "Bash"
    assert by_event["PreToolUse"]["tool_input"]["command"] == "echo hi > marker.txt"
    assert by_event["PostToolUse"]["tool_use_id"] == by_event["PreToolUse"]["tool_use_id"]
    assert by_event["Stop"]["last_assistant_message"] == "Done."

    # Exactly the two scripted turns were consumed, both as main conversation requests.
    assert len(standin.main_requests) == 2 and not standin.side_requests
    first, second = standin.main_requests
    # Hook context arrives in the role:"system" entry of `messages`, not in `system` blocks.
    system_entries = [m for m in first.messages if m.get("role") == "system"]
    system_text = json.dumps(system_entries)
    assert "SessionStart hook additional context: ENF-CTX-SESSIONSTART-42" in system_text
    assert "UserPromptSubmit hook additional context: ENF-CTX-PROMPT-43" in system_text
    assert "ENF-CTX" not in json.dumps(first.body.get("system"))
    # The tool result of the scripted Bash call comes back in the next request.
    (result,) = second.tool_results()
    assert result["tool_use_id"] == by_event["PreToolUse"]["tool_use_id"]
    assert result["is_error"] is False


def test_pretooluse_deny_blocks_bash(
    claude_bin: str, standin: StandIn, project: Path, claude_home: Path, tmp_path: Path
) -> None:
    deny = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "nope",
        }
    }
    settings, log = probe_settings(tmp_path, {"PreToolUse": deny})
    standin.add(bash("echo hi > marker.txt"), Text("Blocked, giving up."))

    run = run_claude(
        "write the marker", project, claude_home, standin.url, settings=settings, claude=claude_bin
    )

    assert run.returncode == 0, run.describe()
    assert not (project / "marker.txt").exists()
    events = [e["hook_event_name"] for e in read_jsonl(log)]
    assert "PreToolUse" in events and "PostToolUse" not in events
    # The denial reaches the model as an error tool_result carrying the reason.
    (result,) = standin.main_requests[1].tool_results()
    assert result["is_error"] is True
    assert "nope" in json.dumps(result["content"])


def test_compact_fires_precompact(
    claude_bin: str, standin: StandIn, project: Path, claude_home: Path, tmp_path: Path
) -> None:
    settings, log = probe_settings(
        tmp_path,
        {
            "SessionStart": {
                "hookSpecificOutput": {
                    "hookEventName": "SessionStart",
                    "additionalContext": "ENF-CTX-SESSIONSTART-44",
                }
            }
        },
    )
    standin.add(bash("echo hi > marker.txt"), Text("Done."))
    first = run_claude(
        "write the marker", project, claude_home, standin.url, settings=settings, claude=claude_bin
    )
    assert first.returncode == 0, first.describe()
    session_id = first.session_id
    assert session_id

    # The summary request is answered by the stand-in's compaction handler; no script turn.
    second = run_claude(
        "/compact keep it short",
        project,
        claude_home,
        standin.url,
        settings=settings,
        resume=session_id,
        claude=claude_bin,
    )

    assert second.returncode == 0, second.describe()
    assert second.session_id == session_id  # --resume keeps the id
    boundary = [e for e in second.events if e.get("subtype") == "compact_boundary"]
    assert boundary and boundary[0]["compact_metadata"]["trigger"] == "manual", second.describe()

    seen = read_jsonl(log)
    pre = [e for e in seen if e["hook_event_name"] == "PreCompact"]
    assert len(pre) == 1
    assert pre[0]["session_id"] == session_id
    assert pre[0]["trigger"] == "manual"
    assert pre[0]["custom_instructions"] == "keep it short"
    sources = [e.get("source") for e in seen if e["hook_event_name"] == "SessionStart"]
    assert sources == ["startup", "resume", "compact"]

    # One summary request (answered with <summary> tags, so the client does not retry it).
    assert len(standin.main_requests) == 2
    (summary,) = standin.side_requests
    assert "<summary>" in summary.last_user_text()
    assert "keep it short" in summary.text()
