"""A server on the official Python SDK that asks the client things: elicitation, sampling, roots.

The SDK asks through server→client requests on legacy connections and through `input_required`
results (MRTR) on 2026-07-28 connections, so one server tests both eras. Run over stdio, or with
`--http PORT` as Streamable HTTP.
"""

from __future__ import annotations

import sdk_zygote

sdk_zygote.hand_off()  # the SDK is imported once, by the suite's zygote (sdk_zygote.py)

import sys
from typing import Annotated

from mcp.server import MCPServer
from mcp.server.mcpserver import (
    AcceptedElicitation,
    Context,
    Elicit,
    ElicitationResult,
    ListRoots,
    Resolve,
    Sample,
)
from mcp_types import CreateMessageResult, ListRootsResult, SamplingMessage, TextContent
from pydantic import BaseModel, Field

mcp = MCPServer("asking-server", instructions="Asks the client for input in both eras.")


class Booking(BaseModel):
    name: str = Field(description="Who is travelling")
    seats: int = Field(default=2, ge=1, le=9, description="How many seats")
    window: bool = Field(default=True)
    meal: str = Field(default="veg", json_schema_extra={"enum": ["veg", "fish", "none"]})


def ask_booking() -> Elicit[Booking]:
    return Elicit("Book a trip?", Booking)


@mcp.tool()
def book(booking: Annotated[ElicitationResult[Booking], Resolve(ask_booking)]) -> str:
    """Asks the user for booking details and reports what came back."""
    if isinstance(booking, AcceptedElicitation):
        data = booking.data
        return f"booked {data.seats} seats for {data.name} (window={data.window}, meal={data.meal})"
    return f"no booking: {booking.action}"


def ask_model() -> Sample:
    return Sample(
        [SamplingMessage(role="user", content=TextContent(type="text", text="Capital of France?"))],
        max_tokens=20,
    )


@mcp.tool()
def capital(reply: Annotated[CreateMessageResult, Resolve(ask_model)]) -> str:
    """Asks the client's model a question and returns its answer."""
    content = reply.content
    text = getattr(content, "text", None) or str(content)
    return f"model {reply.model} said: {text}"


def ask_roots() -> ListRoots:
    return ListRoots()


@mcp.tool()
def roots(listed: Annotated[ListRootsResult, Resolve(ask_roots)]) -> str:
    """Lists the client's roots."""
    return ", ".join(str(root.uri) for root in listed.roots) or "(no roots)"


@mcp.tool()
def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


@mcp.tool()
async def grow(name: str, ctx: Context) -> str:
    """Adds a tool called `name` and tells the client the tool list changed (in either era)."""

    def added() -> str:
        return f"I am {name}"

    mcp.add_tool(added, name=name, description="added at run time")
    await ctx.notify_tools_changed()  # modern: subscriptions/listen streams
    if ctx.protocol_version != "2026-07-28":
        await ctx.session.send_tool_list_changed()  # legacy: unasked notification
    return f"added {name}"


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--http":
        mcp.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        mcp.run()
