"""The session gate of Elephants Never Forget, in the form today's Claude Code obeys.

Satisfied when `.claude-sessions/sessions/` holds a file named for today or
yesterday (local time) whose frontmatter `session_id` equals the current id's first
8 characters, or when `.claude-sessions/.opt-out/<id8>` exists. Another session's
file never counts; unreadable or malformed files are skipped.

Until then, PreToolUse is denied, except the creation path: a file-writing tool
whose target's parent folder *is* (same device and inode: no `..`, symlink,
relative-path or letter-case trick) `sessions/` or `.opt-out/`; the read-only
tools of enf-git's own MCP server (recall, show, log, decisions); and the client's
WaitForMcpServers, which only waits for such a server to finish connecting.

Runs on every tool call, so: standard library only, no `re`/`pathlib` (their
import alone costs more than the whole check), and a per-session cache of the
file that satisfied the gate, re-verified with one small read.
"""

import os

from ... import paths
from ...plumbing import events
from ...plumbing.session_head import HEAD_BYTES, days, frontmatter_id, id8, matching_file

__all__ = ["HEAD_BYTES", "days", "deny_reason", "frontmatter_id", "id8", "is_creation", "is_memory_read",
           "matching_file", "opted_out", "reminder"]
WC_DIR = paths.WC_DIR
WRITE_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit")


def opted_out(root: str, session_id: str) -> bool:
    return events.opted_out(root, session_id)


# enf-git's own MCP server, as a project `.mcp.json` names it and as the plugin does.
MEMORY_SERVERS = ("mcp__enf__", "mcp__plugin_enf-git_enf__")
MEMORY_READS = ("recall", "show", "log", "decisions")
# The client's wait for MCP servers still connecting: it changes nothing, and a model whose
# memory read came too early (the server "still connecting") can only retry after it.
WAIT_TOOLS = ("WaitForMcpServers",)


def is_memory_read(tool_name: str) -> bool:
    """A read-only tool of enf-git's MCP server: reading memory before the session file
    exists is what brain-first asks for, and it changes nothing the gate protects."""
    if tool_name in WAIT_TOOLS:
        return True
    return any(tool_name.startswith(p) and tool_name[len(p):] in MEMORY_READS for p in MEMORY_SERVERS)


def is_creation(root: str, tool_name: str, tool_input: object, cwd: str) -> bool:
    """A file-writing tool aimed directly into sessions/ or .opt-out/ (the only way in)."""
    if tool_name not in WRITE_TOOLS or not isinstance(tool_input, dict):
        return False
    target = tool_input.get("file_path") or tool_input.get("notebook_path")
    if not isinstance(target, str) or not target or "\x00" in target:
        return False
    path = os.path.normpath(os.path.join(cwd, target))
    name = os.path.basename(path)
    if not name or name.startswith(".") or os.path.islink(path):
        return False
    parent = os.path.dirname(path)
    if os.path.islink(root):
        return False
    for folder in (paths.SESSIONS_DIR, paths.OPT_OUT_DIR):
        allowed = os.path.join(root, folder)
        if os.path.islink(allowed):
            continue  # a symlinked sessions/ could point anywhere in the repo
        try:
            if os.path.samefile(parent, allowed):
                return True
        except OSError:
            continue
    return False


def deny_reason(session_id: str, now: float | None = None) -> str:
    prefix, today = id8(session_id), days(now)[0]
    return (
        f"No session file exists for THIS session (id {prefix}) on {today}. Another session's file "
        f"dated today does NOT satisfy the Elephants Never Forget gate. Create "
        f"`{WC_DIR}/sessions/{today}-SLUG.md` (SLUG: 2-5 kebab-case words) with frontmatter `session_id: {prefix}`, OR create "
        f"`{WC_DIR}/.opt-out/{prefix}` to opt out of tracking for this session."
    )


def reminder(session_id: str, now: float | None = None) -> str:
    prefix, today = id8(session_id), days(now)[0]
    return (
        f"enf-git: this session (id {prefix}) has no session file yet. Before any other "
        f"tool, create `{WC_DIR}/sessions/{today}-SLUG.md` (SLUG: 2-5 kebab-case words, [a-z0-9-]) with "
        f"frontmatter session_id: {prefix}, date: {today}, start_time, tags, status: active, summary, and an "
        f"## Intent section. If the user asked not to track this session, create the empty file "
        f"`{WC_DIR}/.opt-out/{prefix}` instead. Tools other than that Write are denied until then."
    )
