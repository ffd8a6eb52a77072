"""A well-behaved server on the official Python SDK (v2 `MCPServer`) with one of every feature a client shows.

Tools with rich input schemas, structured output with an outputSchema, progress, logging, a tool error,
text and binary resources, a resource template, prompts with arguments, and completion. The SDK serves
both eras (the `initialize` handshake and 2026-07-28), so one server tests both.

Run over stdio: `python tests/servers/sdk_everything.py`. `MCPX_TEST_PIDFILE` makes it write its pid.
"""

from __future__ import annotations

import sdk_zygote

sdk_zygote.hand_off()  # the SDK is imported once, by the suite's zygote (sdk_zygote.py)

import asyncio
import base64
import os
import sys
import warnings
from typing import Literal

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import Completion, PromptReference, ResourceTemplateReference
from pydantic import BaseModel, Field

# protocol logging is deprecated in 2026-07-28; this server uses it on purpose
warnings.filterwarnings("ignore", message=".*logging.*")
warnings.filterwarnings("ignore", category=DeprecationWarning)

if os.environ.get("MCPX_TEST_PIDFILE"):
    with open(os.environ["MCPX_TEST_PIDFILE"], "w") as f:
        f.write(str(os.getpid()))

mcp = MCPServer("sdk-everything", instructions="A test server with one of everything.", version="1.2.3")

# 1×1 transparent PNG
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
LANGUAGES = ["python", "perl", "php", "rust", "ruby"]
TOPICS = ["weather", "whales", "wine"]


# -- tools ---------------------------------------------------------------------------------------------
class Address(BaseModel):
    street: str
    city: str
    postcode: str | None = None


class Traveller(BaseModel):
    name: str = Field(description="Full name")
    age: int = Field(ge=0, le=150)
    address: Address


@mcp.tool()
def plan_trip(
    traveller: Traveller,
    destinations: list[str],
    cabin: Literal["economy", "premium", "business"] = "economy",
    nights: int = 3,
    budget: float | None = None,
    tags: list[str] | None = None,
) -> str:
    """Plans a trip: nested objects, arrays, an enum, defaults and nullable fields."""
    where = " → ".join(destinations)
    money = "no budget" if budget is None else f"budget {budget:g}"
    extra = f" [{', '.join(tags)}]" if tags else ""
    return (
        f"{traveller.name} ({traveller.age}) from {traveller.address.city}: {where}, "
        f"{nights} nights in {cabin}, {money}{extra}"
    )


class Forecast(BaseModel):
    city: str
    temperature_c: float
    conditions: list[str]
    humid: bool


@mcp.tool()
def forecast(city: str) -> Forecast:
    """Returns structured content described by an outputSchema."""
    return Forecast(city=city, temperature_c=21.5, conditions=["sunny", "breezy"], humid=False)


@mcp.tool()
async def count_slowly(steps: int, ctx: Context, delay: float = 0.3) -> str:
    """Counts to `steps`, sleeping `delay` seconds and reporting progress at each step."""
    for step in range(1, steps + 1):
        await asyncio.sleep(delay)
        await ctx.report_progress(step, steps, f"step {step} of {steps}")
    return f"counted to {steps}"


@mcp.tool()
async def chatty(ctx: Context) -> str:
    """Sends log messages (notifications/message) at several levels, then answers."""
    await ctx.debug("a debug line")
    await ctx.info("an info line")
    await ctx.warning({"detail": "a structured warning", "n": 3})
    return "said three things"


@mcp.tool()
def fail(reason: str = "it broke") -> str:
    """Always fails: the result has isError true."""
    raise ToolError(f"failed on purpose: {reason}")


@mcp.tool()
def echo(text: str) -> str:
    """Returns its input."""
    return text


@mcp.tool()
def read_env(name: str) -> str:
    """Returns the value of one environment variable of the server process (or <unset>)."""
    return os.environ.get(name, "<unset>")


@mcp.tool()
def where() -> dict[str, object]:
    """The server process's working directory and its command-line arguments."""
    return {"cwd": os.getcwd(), "argv": sys.argv[1:]}


# -- resources -----------------------------------------------------------------------------------------
@mcp.resource("test://readme", name="readme", mime_type="text/plain", description="A text resource")
def readme() -> str:
    return "Hello from the readme.\nSecond line."


@mcp.resource("test://pixel.png", name="pixel", mime_type="image/png", description="A binary resource")
def pixel() -> bytes:
    return PIXEL


@mcp.resource("notes://{topic}", name="note", mime_type="text/plain", description="A note about a topic")
def note(topic: str) -> str:
    return f"Notes about {topic}."


# -- prompts -------------------------------------------------------------------------------------------
@mcp.prompt()
def review_code(code: str, language: str = "python") -> str:
    """Asks for a review of some code."""
    return f"Please review this {language} code:\n\n{code}"


@mcp.prompt()
def greeting() -> str:
    """A prompt with no arguments."""
    return "Say hello."


@mcp.completion()
async def complete(ref, argument, context):
    if isinstance(ref, PromptReference) and ref.name == "review_code" and argument.name == "language":
        values = [v for v in LANGUAGES if v.startswith(argument.value)]
        return Completion(values=values, total=len(values), has_more=False)
    if isinstance(ref, ResourceTemplateReference) and argument.name == "topic":
        values = [v for v in TOPICS if v.startswith(argument.value)]
        return Completion(values=values, total=len(values), has_more=False)
    return None


if __name__ == "__main__":
    mcp.run()
