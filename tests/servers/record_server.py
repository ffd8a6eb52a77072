"""A server on the official Python SDK for the recording tests: record it, replay against it, mock it.

`python record_server.py` is the original; `python record_server.py --changed` is the next build of it,
with drift a replay must find: `echo` shouts, `add` takes an optional `c`, `stats` counts differently,
`legacy_tool` is gone and `shiny` is new, the readme resource says something else, the version moved.
`slow` reports progress; `book` elicits; `stamp` returns a timestamp (for `--ignore`); `stats` returns
JSON as text (so diffs go inside the string). It speaks both eras, as the SDK does. With
`RECORD_SERVER_LEAK=NAME` in its environment it prints the value of `$NAME` on stderr (a secret to mask).
`--http PORT` serves Streamable HTTP on 127.0.0.1 instead of stdio.
"""

from __future__ import annotations

import sdk_zygote

sdk_zygote.hand_off()  # the SDK is imported once, by the suite's zygote (sdk_zygote.py)

import asyncio
import json
import os
import sys
import time

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field

CHANGED = "--changed" in sys.argv

server = MCPServer(
    "record-test-server",
    version="2.0.0" if CHANGED else "1.0.0",
    instructions="A server for mcpx's recording tests.",
)


@server.tool()
def echo(text: str) -> str:
    """Answer with the text it was given."""
    return text.upper() if CHANGED else text


if CHANGED:

    @server.tool()
    def add(a: int, b: int, c: int = 0) -> int:
        """Add two or three integers."""
        return a + b + c

    @server.tool()
    def shiny() -> str:
        """A tool that is new in this build."""
        return "new"

else:

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool()
    def legacy_tool() -> str:
        """A tool that the next build removes."""
        return "old"


@server.tool()
def stats(items: list[str]) -> str:
    """Count the items and return the counts as JSON text."""
    counts = {"count": len(items) + (1 if CHANGED else 0), "unique": len(set(items))}
    return json.dumps(counts)


@server.tool()
def stamp() -> str:
    """Return the time (differs on every call: for --ignore)."""
    return json.dumps({"at": time.time(), "fixed": "yes"})


@server.tool()
async def slow(steps: int, ctx: Context) -> str:
    """Report progress `steps` times, then finish."""
    for step in range(steps):
        await ctx.report_progress(step + 1, steps, f"step {step + 1}")
        await asyncio.sleep(0.01)
    return f"done after {steps} steps"


class Booking(BaseModel):
    name: str = Field(description="Who is travelling")
    seats: int = Field(default=2, ge=1, le=9)


@server.tool()
async def book(ctx: Context) -> str:
    """Ask for booking details by elicitation."""
    answer = await ctx.elicit("Book a trip?", Booking)
    if answer.action == "accept" and answer.data is not None:
        return f"booked {answer.data.seats} seats for {answer.data.name}"
    return f"no booking: {answer.action}"


@server.resource("memo://readme", mime_type="text/plain")
def readme() -> str:
    """A short text."""
    return "hello, changed" if CHANGED else "hello"


@server.resource("memo://notes/{name}")
def note(name: str) -> str:
    """A note by name."""
    return f"note {name}"


@server.prompt()
def greet(name: str) -> str:
    """Greet someone."""
    return f"Hello {name}"


if __name__ == "__main__":
    print(f"record-test-server starting (changed={CHANGED})", file=sys.stderr, flush=True)
    leak = os.environ.get("RECORD_SERVER_LEAK")  # names an env var whose value the server blurts out
    if leak:
        print(f"my token is {os.environ.get(leak, '')}", file=sys.stderr, flush=True)
    if "--http" in sys.argv:  # --http PORT: Streamable HTTP on 127.0.0.1
        server.run(
            transport="streamable-http", host="127.0.0.1", port=int(sys.argv[sys.argv.index("--http") + 1])
        )
    else:
        server.run("stdio")
