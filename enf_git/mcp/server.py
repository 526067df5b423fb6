"""`git enf mcp`: the tools of tools.py served over stdio with the official MCP Python SDK.

The SDK is an optional extra (`pip install 'enf-git[mcp]'`): it brings pydantic,
anyio and starlette, and importing it costs ~1 s, so nothing imports this module
but `git enf mcp` itself. Both SDK generations are served (tested with 1.23, 1.30
and 2.3): 2.x registers handlers in the low-level Server's constructor, 1.x with
its decorators. The low-level
server, not MCPServer/FastMCP: the tools declare their JSON Schema themselves and
check every call against it (schema.py), so a bad call gets our error, not a
validation error of the SDK's.

Tool calls run one at a time in a worker thread: a cold recall index builds for
seconds on a large branch, and the event loop must go on answering pings meanwhile.
"""

from __future__ import annotations

import inspect
import threading
from typing import Any

from .. import __version__
from ..errors import EnfError
from . import tools

NAME = "enf"  # Claude Code names the tools mcp__enf__recall, mcp__enf__show, ...
INSTALL_HINT = "pip install 'enf-git[mcp]' (with pipx: pipx inject enf-git mcp)"
INSTRUCTIONS = ("This project's memory: past sessions, decisions and their reversals, remembered facts. "
                "Call recall before re-deriving something a past session may already know.")


def load_sdk() -> Any:
    """The SDK's low-level server module; EnfError saying how to install it if it is missing."""
    try:
        from mcp.server import lowlevel
    except ImportError as exc:
        raise EnfError(f"git enf mcp needs the MCP Python SDK (mcp>=1.23), which {_python()} could not import "
                       f"({exc})", hint=INSTALL_HINT) from None
    return lowlevel


def _python() -> str:
    import sys

    return sys.executable


def serve(where: tools.Where) -> None:
    """Answer MCP requests on stdin/stdout until the client closes stdin."""
    lowlevel = load_sdk()
    import anyio
    from mcp.server.stdio import stdio_server

    server = build(lowlevel.Server, where)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)


def build(server_class: Any, where: tools.Where) -> Any:
    """A low-level Server whose tools are tools.SPECS, for either SDK generation."""
    import anyio
    import mcp.types as types

    # By the wire's (camelCase) names, which both generations' models accept.
    listed = [types.Tool.model_validate({
        "name": s.name, "title": s.title, "description": s.description, "inputSchema": s.input_schema(),
        "annotations": {"title": s.title, "readOnlyHint": s.read_only, "destructiveHint": s.name == "forget",
                        "openWorldHint": False}}) for s in tools.SPECS]
    one_at_a_time = threading.Lock()

    def run(name: str, arguments: object) -> Any:
        with one_at_a_time:
            result = tools.call(name, arguments, where)
        return types.CallToolResult.model_validate(
            {"content": [{"type": "text", "text": result.text}], "isError": result.is_error})

    async def call(name: str, arguments: object) -> Any:
        return await anyio.to_thread.run_sync(run, name, arguments)

    if "on_call_tool" in inspect.signature(server_class.__init__).parameters:  # SDK 2.x
        async def list_tools_v2(ctx: Any, params: Any) -> Any:
            return types.ListToolsResult(tools=listed)

        async def call_tool_v2(ctx: Any, params: Any) -> Any:
            return await call(params.name, params.arguments)

        return server_class(NAME, version=__version__, instructions=INSTRUCTIONS,
                            on_list_tools=list_tools_v2, on_call_tool=call_tool_v2)
    server = server_class(NAME, version=__version__, instructions=INSTRUCTIONS)  # SDK 1.x

    async def list_tools_v1() -> list[Any]:
        return listed

    async def call_tool_v1(name: str, arguments: dict[str, Any]) -> Any:
        return await call(name, arguments)

    decorate = server.call_tool
    wants = inspect.signature(decorate).parameters
    server.list_tools()(list_tools_v1)
    # 1.10+ checks arguments against the schema first, in its words: ours say more.
    (decorate(validate_input=False) if "validate_input" in wants else decorate())(call_tool_v1)
    return server
