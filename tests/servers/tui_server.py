"""A small MCP server built with the official Python SDK, for the TUI's pilot tests (stdio).

Tools with titles, annotations and an output schema, a resource, a template, a prompt, a tool that logs
at several levels and one that dies with exit code 3 after a word on stderr.
"""

from __future__ import annotations

import sdk_zygote

sdk_zygote.hand_off()  # the SDK is imported once, by the suite's zygote (sdk_zygote.py)

import os
import sys

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp_types import EmptyResult, SetLevelRequestParams, ToolAnnotations

server = MCPServer(
    "tui-test-server",
    instructions="A server for **mcpx**'s TUI tests.\n\n- `echo` answers back\n- `crash` exits with code 3",
)


@server.tool(title="Echo", annotations=ToolAnnotations(readOnlyHint=True, idempotentHint=True))
def echo(text: str) -> str:
    """Answer with the text it was given."""
    return text


@server.tool(annotations=ToolAnnotations(destructiveHint=True, openWorldHint=False))
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
async def chatty(ctx: Context) -> str:
    """Log a line at debug, info, warning and error."""
    for level in ("debug", "info", "warning", "error"):
        await ctx.log(level, f"a {level} line", logger_name="chatty")
    return "logged"


@server.tool()
def crash() -> str:
    """Write to stderr and exit with code 3."""
    print("about to crash: boom", file=sys.stderr, flush=True)
    os._exit(3)


@server.resource("memo://readme", title="Readme", mime_type="text/plain")
def readme() -> str:
    """A short text."""
    return "hello"


@server.resource("memo://notes/{name}")
def note(name: str) -> str:
    """A note by name."""
    return f"note {name}"


@server.prompt()
def greet(name: str) -> str:
    """Greet someone."""
    return f"Hello {name}"


async def set_level(ctx: object, params: SetLevelRequestParams) -> EmptyResult:
    print(f"log level set to {params.level}", file=sys.stderr, flush=True)
    return EmptyResult()


# the SDK's MCPServer has no decorator for logging/setLevel (deprecated in 2026-07-28); register it below
server._lowlevel_server.add_request_handler("logging/setLevel", SetLevelRequestParams, set_level)  # type: ignore[arg-type]


if __name__ == "__main__":
    print("tui-test-server starting", file=sys.stderr, flush=True)
    server.run("stdio")
