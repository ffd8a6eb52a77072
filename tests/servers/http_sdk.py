"""A server on the official Python SDK (`MCPServer`) served over HTTP, for the HTTP transport tests.

    python http_sdk.py --port N [--sse] [--json] [--stateless]

Streamable HTTP at /mcp by default (`--json`: single JSON replies; `--stateless`: no session), or the
legacy HTTP+SSE transport at /sse with `--sse`. Its tools show what travelled: `headers` returns the
request's HTTP headers, `progress` sends progress and log notifications before its result, `ask` elicits.
"""

from __future__ import annotations

import argparse
import warnings

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from pydantic import BaseModel

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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--sse", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--stateless", action="store_true")
    args = parser.parse_args()
    if args.sse:
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
