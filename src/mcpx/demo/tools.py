"""The demo's tools that need nothing from the client: forms, structured output, content of every type,
progress with cancellation, logging at every level, and a tool that adds tools.

The tools that ask the client for something (elicitation, sampling, roots) are in asking.py.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from typing import Any

from mcpx.demo import media, schemas
from mcpx.demo.core import Context, McpServer, Tool, ToolFailure, text
from mcpx.protocol.names import LOG_LEVELS

READ_ONLY = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
CLOSED_WORLD = {"openWorldHint": False}
DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
CONDITIONS = ("sunny", "cloudy", "rain", "snow", "fog")


def _json_result(data: Any, summary: str | None = None) -> dict[str, Any]:
    """structuredContent plus its JSON as text, for clients that only read text (as the spec advises)."""
    blocks = [text(json.dumps(data, indent=2))]
    if summary:
        blocks.insert(0, text(summary))
    return {"content": blocks, "structuredContent": data}


# -- simple and structured ---------------------------------------------------------------------------------
async def echo(args: dict[str, Any], ctx: Context) -> str:
    return " ".join([args["text"]] * args.get("times", 1))


async def add(args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    total = args["a"] + args["b"]
    return {"content": [text(f"{args['a']} + {args['b']} = {total}")], "structuredContent": {"sum": total}}


def forecast_for(city: str, units: str) -> dict[str, Any]:
    """Deterministic made-up weather: the same city always gets the same sky."""
    seed = int(hashlib.sha256(city.lower().encode()).hexdigest(), 16)
    celsius = seed % 35 - 5
    convert = (lambda c: round(c * 9 / 5 + 32, 1)) if units == "fahrenheit" else (lambda c: float(c))
    return {
        "city": city,
        "temperature": convert(celsius),
        "units": units,
        "conditions": CONDITIONS[seed % len(CONDITIONS)],
        "humidity": seed % 101,
        "forecast": [
            {
                "day": DAYS[i],
                "high": convert(celsius + 3 + (seed >> i) % 4),
                "low": convert(celsius - 4 + i % 3),
            }
            for i in range(3)
        ],
    }


async def weather(args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    data = forecast_for(args["city"], args.get("units", "celsius"))
    return _json_result(data, f"{data['city']}: {data['temperature']}° {data['conditions']}")


async def weather_mismatch(args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """Breaks its own outputSchema on purpose, so a client's output validation has something to find."""
    data = forecast_for(args["city"], args.get("units", "celsius"))
    data["temperature"] = "warm-ish"  # a string where the schema says number
    data["humidity"] = 140  # above the maximum of 100
    data["units"] = "kelvin"  # not in the enum
    del data["conditions"]  # required
    return _json_result(data, "This result does not match the tool's outputSchema (on purpose).")


async def accept_form(args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """The form tools: the server checked the arguments against the schema; say what arrived."""
    return _json_result(
        {"received": args}, f"{ctx.params.get('name')}: arguments valid; received {len(args)} field(s)"
    )


async def build_tree(args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    def walk(node: dict[str, Any], depth: int, lines: list[str]) -> int:
        lines.append("  " * depth + f"- {node['label']} ({node.get('weight', 1)})")
        return 1 + sum(walk(child, depth + 1, lines) for child in node.get("children", []))

    lines: list[str] = []
    count = walk(args["root"], 0, lines)
    return {
        "content": [text(f"{count} node(s):\n" + "\n".join(lines))],
        "structuredContent": {"nodes": count},
    }


async def content_gallery(args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    return {
        "content": [
            text(
                "# Every content type\nText (Markdown), an image, audio, a resource link and an embedded "
                "resource.",
                audience=["user"],
                priority=1.0,
            ),
            {
                "type": "image",
                "data": media.b64(media.logo_png()),
                "mimeType": "image/png",
                "annotations": {"audience": ["user"], "priority": 0.8},
            },
            {"type": "audio", "data": media.b64(media.beep_wav()), "mimeType": "audio/wav"},
            {
                "type": "resource_link",
                "uri": "demo://readme",
                "name": "readme",
                "title": "The demo's README",
                "mimeType": "text/markdown",
                "description": "Follow me with resources/read.",
            },
            {
                "type": "resource",
                "resource": {
                    "uri": "demo://config.json",
                    "mimeType": "application/json",
                    "text": json.dumps({"embedded": True, "answer": 42}),
                },
                "annotations": {
                    "audience": ["assistant"],
                    "priority": 0.2,
                    "lastModified": "2026-07-28T00:00:00Z",
                },
            },
        ]
    }


async def fail(args: dict[str, Any], ctx: Context) -> str:
    raise ToolFailure(
        args.get("message") or "This tool always fails (a tool execution error, isError: true)."
    )


async def destroy_everything(args: dict[str, Any], ctx: Context) -> str:
    return "Nothing was destroyed: this is a demo. (A careful client asked you to confirm first.)"


# -- progress, cancellation, logging -------------------------------------------------------------------------
async def slow_task(args: dict[str, Any], ctx: Context) -> str:
    steps, interval = args.get("steps", 10), args.get("interval", 0.5)
    step = 0
    try:
        for step in range(1, steps + 1):
            await asyncio.sleep(interval)
            await ctx.progress(step, steps, f"step {step} of {steps}")
    except asyncio.CancelledError:
        ctx.server.say(f"slow_task stopped at step {step} of {steps}: cancelled")
        raise
    return f"Finished {steps} steps."


async def log_every_level(args: dict[str, Any], ctx: Context) -> str:
    for level in LOG_LEVELS:
        data: Any = f"a message at level {level} from the demo"
        if level == "error":
            data = {"message": "structured data is allowed too", "code": 42, "retry": False}
        await ctx.log(level, data, logger="demo.logs")
    sent = [level for level in LOG_LEVELS if ctx.wants_log(level)]
    if not sent:
        return (
            "No log messages sent: this request did not opt in "
            '(2026-07-28: set _meta["io.modelcontextprotocol/logLevel"]).'
        )
    return f"Sent {len(sent)} log message(s): {', '.join(sent)} (the client's level is {ctx.log_level})."


# -- a tool that adds tools ---------------------------------------------------------------------------------
def _dynamic(name: str, number: int) -> Tool:
    async def hello(args: dict[str, Any], ctx: Context) -> str:
        return f"Hello from {name}, dynamic tool number {number}" + (
            f": {args['note']}" if "note" in args else ""
        )

    return Tool(
        name,
        hello,
        title=f"Dynamic tool {number}",
        description="Added at run time by add_tool; remove it with remove_tool.",
        input_schema={
            "type": "object",
            "properties": {"note": {"type": "string"}},
            "additionalProperties": False,
        },
        annotations=READ_ONLY,
        meta={"dev.mcpx/dynamic": True},
    )


async def add_tool(args: dict[str, Any], ctx: Context) -> str:
    server = ctx.server
    number = 1 + sum(1 for t in server.tools.values() if (t.meta or {}).get("dev.mcpx/dynamic"))
    name = args.get("name") or f"dynamic_{number}"
    while name in server.tools and not args.get("name"):
        number += 1
        name = f"dynamic_{number}"
    if name in server.tools:
        raise ToolFailure(f"A tool named {name!r} exists already.")
    server.add_tool(_dynamic(name, number))
    await ctx.log("info", f"added tool {name}", logger="demo.tools")
    await server.announce("tools")
    return f"Added tool {name!r} and sent notifications/tools/list_changed."


async def remove_tool(args: dict[str, Any], ctx: Context) -> str:
    tool = ctx.server.tools.get(args["name"])
    if tool is None or not (tool.meta or {}).get("dev.mcpx/dynamic"):
        raise ToolFailure(f"{args['name']!r} is not a tool that add_tool added.")
    ctx.server.remove_tool(args["name"])
    await ctx.server.announce("tools")
    return f"Removed tool {args['name']!r} and sent notifications/tools/list_changed."


def register(server: McpServer) -> None:
    def obj(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": properties,
            "required": list(required),
            "additionalProperties": False,
        }

    for tool in (
        Tool(
            "echo",
            echo,
            title="Echo",
            description="Says your text back.",
            input_schema=schemas.ECHO,
            annotations=READ_ONLY,
            icons=media.icons(),
        ),
        Tool(
            "add",
            add,
            title="Add two numbers",
            description="Structured output with an outputSchema.",
            input_schema=schemas.ADD,
            output_schema=schemas.ADD_OUTPUT,
            annotations=READ_ONLY,
        ),
        Tool(
            "weather",
            weather,
            title="Weather",
            description="Made-up weather; structuredContent matches the outputSchema.",
            input_schema=schemas.WEATHER,
            output_schema=schemas.WEATHER_OUTPUT,
            annotations={**READ_ONLY, "title": "Weather report"},
            icons=media.icons(0.5),
        ),
        Tool(
            "weather_mismatch",
            weather_mismatch,
            title="Weather (broken)",
            description="Its structuredContent violates its own outputSchema, to show the client's check.",
            input_schema=schemas.WEATHER,
            output_schema=schemas.WEATHER_OUTPUT,
            annotations=READ_ONLY,
        ),
        Tool(
            "register_event",
            accept_form,
            title="Register an event",
            description="Strings with formats and "
            "patterns, numbers with bounds, exclusive bounds and multipleOf, booleans, readOnly.",
            input_schema=schemas.EVENT,
            annotations=CLOSED_WORLD,
        ),
        Tool(
            "configure_widget",
            accept_form,
            title="Configure a widget",
            description="enum, const, titled "
            "oneOf, nullable types (both spellings), oneOf and anyOf variants.",
            input_schema=schemas.WIDGET,
        ),
        Tool(
            "place_order",
            accept_form,
            title="Place an order",
            description="Nested objects, arrays of objects, uniqueItems, additionalProperties maps.",
            input_schema=schemas.ORDER,
            annotations={"openWorldHint": True, "idempotentHint": False},
        ),
        Tool(
            "build_tree",
            build_tree,
            title="Build a tree",
            description="$ref/$defs with a recursive schema.",
            input_schema=schemas.TREE,
            annotations=READ_ONLY,
        ),
        Tool(
            "search",
            accept_form,
            title="Search (draft-07)",
            description="A draft-07 schema with definitions and $ref.",
            input_schema=schemas.SEARCH_DRAFT_07,
            annotations=READ_ONLY,
        ),
        Tool(
            "content_gallery",
            content_gallery,
            title="Content gallery",
            description="Returns text, image, "
            "audio, a resource link and an embedded resource, with annotations.",
            annotations=READ_ONLY,
        ),
        Tool(
            "slow_task",
            slow_task,
            title="Slow task",
            description="Reports progress every step; cancel it "
            "half-way to see notifications/cancelled honoured.",
            input_schema=obj(
                {
                    "steps": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
                    "interval": {
                        "type": "number",
                        "minimum": 0,
                        "maximum": 10,
                        "default": 0.5,
                        "description": "Seconds between steps.",
                    },
                }
            ),
            annotations=CLOSED_WORLD,
        ),
        Tool(
            "log_every_level",
            log_every_level,
            title="Log at every level",
            description="Sends notifications/message at each of the eight levels the client asked for.",
            annotations=READ_ONLY,
        ),
        Tool(
            "add_tool",
            add_tool,
            title="Add a tool",
            description="Adds a tool and sends notifications/tools/list_changed.",
            input_schema=obj(
                {
                    "name": {
                        "type": "string",
                        "pattern": "^[a-z][a-z0-9_]{0,30}$",
                        "description": "Defaults to dynamic_N.",
                    }
                }
            ),
        ),
        Tool(
            "remove_tool",
            remove_tool,
            title="Remove a tool",
            description="Removes a tool add_tool added.",
            input_schema=obj({"name": {"type": "string"}}, ("name",)),
            annotations={"destructiveHint": True, "idempotentHint": True},
        ),
        Tool(
            "fail",
            fail,
            title="Always fails",
            description="Answers a tool execution error (isError).",
            input_schema=obj({"message": {"type": "string"}}),
            annotations=READ_ONLY,
        ),
        Tool(
            "destroy_everything",
            destroy_everything,
            title="Destroy everything",
            description="Marked destructive: a client should ask before calling it. It destroys nothing.",
            annotations={"destructiveHint": True, "readOnlyHint": False, "openWorldHint": False},
        ),
    ):
        server.add_tool(tool)
