"""A server on the official Python SDK (`MCPServer`) served over HTTP, for the HTTP transport tests.

    python http_sdk.py --port N [--sse] [--json] [--stateless]
    python http_sdk.py --stdio              (the same server over stdio, for the transport suite)

Streamable HTTP at /mcp by default (`--json`: single JSON replies; `--stateless`: no session), or the
legacy HTTP+SSE transport at /sse with `--sse`. Its tools show what travelled: `headers` returns the
request's HTTP headers, `progress` sends progress and log notifications before its result, `ask` elicits.
For the 2026-07-28 era: `route` has arguments annotated `x-mcp-header` (the SDK checks the `Mcp-Param-*`
headers against them), `add_routed` adds another such tool at run time, `slow` waits and notes when it
is cancelled, `cancelled` lists the tags of the `slow` calls that were.
"""

from __future__ import annotations

import sdk_zygote

sdk_zygote.hand_off()  # the SDK is imported once, by the suite's zygote (sdk_zygote.py)

import argparse
import warnings
from typing import Annotated

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field

# protocol logging is deprecated in 2026-07-28; this server uses it on purpose
warnings.filterwarnings("ignore", category=DeprecationWarning)

mcp = MCPServer("http-sdk", instructions="A test server reached over HTTP.", version="2.0.0")


@mcp.tool()
def echo(text: str) -> str:
    """Returns the text it was given."""
    return text


@mcp.tool()
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


@mcp.tool()
def headers(ctx: Context) -> dict[str, str]:
    """The HTTP headers of the request that called this tool (lower-case names)."""
    return {k.lower(): v for k, v in (ctx.headers or {}).items()}


@mcp.tool()
async def progress(steps: int, ctx: Context) -> str:
    """Reports progress `steps` times and logs a line, then answers."""
    for step in range(steps):
        await ctx.report_progress(step + 1, steps, f"step {step + 1}")
    await ctx.info("progress done")
    return f"done after {steps} steps"


class Name(BaseModel):
    name: str


@mcp.tool()
async def ask(ctx: Context) -> str:
    """Asks the client for a name (an elicitation request on the reply's event stream)."""
    answer = await ctx.elicit("What is your name?", Name)
    if answer.action == "accept" and answer.data is not None:
        return f"hello {answer.data.name}"
    return f"no name: {answer.action}"


Region = Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})]
Priority = Annotated[int, Field(json_schema_extra={"x-mcp-header": "Priority"})]
CANCELLED: list[str] = []


@mcp.tool()
def route(region: Region, ctx: Context, priority: Priority = 0) -> dict[str, str]:
    """The request's HTTP headers; `region` and `priority` are mirrored into Mcp-Param headers."""
    return {k.lower(): v for k, v in (ctx.headers or {}).items()}


@mcp.tool()
def add_routed(name: str) -> str:
    """Adds a tool called `name` whose `region` argument is mirrored into Mcp-Param-Region."""

    def routed(region: Region) -> str:
        return f"routed to {region}"

    mcp.add_tool(routed, name=name, description="added at run time")
    return f"added {name}"


@mcp.tool()
async def slow(seconds: float, tag: str, ctx: Context) -> str:
    """Reports that it started (progress 0), sleeps; a cancelled call leaves its tag in `cancelled`."""
    await ctx.report_progress(0, 1, "started")
    try:
        await anyio.sleep(seconds)
    except anyio.get_cancelled_exc_class():
        CANCELLED.append(tag)
        raise
    return f"slept {seconds}"


@mcp.tool()
def cancelled() -> list[str]:
    """The tags of the `slow` calls that were cancelled."""
    return list(CANCELLED)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int)
    parser.add_argument("--stdio", action="store_true")
    parser.add_argument("--sse", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--stateless", action="store_true")
    args = parser.parse_args()
    if args.stdio:
        mcp.run(transport="stdio")
    elif args.port is None:
        parser.error("--port is required (or --stdio)")
    elif args.sse:
        mcp.run(transport="sse", host="127.0.0.1", port=args.port)
    else:
        mcp.run(
            transport="streamable-http",
            host="127.0.0.1",
            port=args.port,
            json_response=args.json,
            stateless_http=args.stateless,
        )


if __name__ == "__main__":
    main()
