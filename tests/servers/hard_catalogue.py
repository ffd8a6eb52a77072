"""A server with a deliberately hard tool catalogue, for the schema form (official Python SDK, lowlevel).

Every construct the form renders, as raw JSON Schemas: typed strings (formats, pattern, lengths),
numbers with bounds, booleans, enums (plain, titled oneOf, legacy enumNames), a nullable enum, a
recursive `$ref`, an array of objects, a oneOf union, `additionalProperties` rows, `readOnly`, an
`x-mcp-header` property, a draft-07 schema; a destructive tool; a slow tool reporting progress.

Every tool answers with its arguments as JSON text (what the form sent, exactly), except `slow`.
The SDK serves both eras. Run over stdio: `python tests/servers/hard_catalogue.py`.
"""

from __future__ import annotations

import sdk_zygote

sdk_zygote.hand_off()  # the SDK is imported once, by the suite's zygote (sdk_zygote.py)

import json
import warnings
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

warnings.filterwarnings("ignore", category=DeprecationWarning)

NODE = {
    "type": "object",
    "title": "Node",
    "properties": {
        "name": {"type": "string", "description": "The node's name"},
        "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
        "parent": {"$ref": "#/$defs/Node"},
    },
    "required": ["name"],
}

TOOLS: list[dict[str, Any]] = [
    {
        "name": "everything",
        "title": "Every field kind",
        "description": "One of every field the form renders.",
        "inputSchema": {
            "type": "object",
            "$defs": {"Node": NODE},
            "properties": {
                "code": {
                    "type": "string",
                    "description": "Sent as typed: 012 stays a string",
                    "minLength": 3,
                },
                "email": {"type": "string", "format": "email"},
                "day": {"type": "string", "format": "date"},
                "count": {"type": "integer", "minimum": 1, "maximum": 10, "default": 3},
                "ratio": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.5},
                "verbose": {"type": "boolean", "default": False},
                "colour": {
                    "anyOf": [{"type": "string", "enum": ["red", "green", "blue"]}, {"type": "null"}],
                    "description": "A nullable enum",
                },
                "size": {"oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
                "legacy": {"type": "string", "enum": ["a", "b"], "enumNames": ["Option A", "Option B"]},
                "tags": {"type": "array", "items": {"type": "string", "enum": ["new", "hot", "old"]}},
                "tree": {"$ref": "#/$defs/Node"},
                "id": {"type": "string", "readOnly": True, "default": "server-assigned"},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            },
            "required": ["code", "count"],
        },
    },
    {
        "name": "shapes",
        "description": "A oneOf union and an array of objects.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "shape": {
                    "oneOf": [
                        {
                            "type": "object",
                            "title": "Circle",
                            "properties": {"radius": {"type": "number", "minimum": 0}},
                            "required": ["radius"],
                        },
                        {
                            "type": "object",
                            "title": "Rectangle",
                            "properties": {"width": {"type": "number"}, "height": {"type": "number"}},
                            "required": ["width", "height"],
                        },
                    ]
                },
                "points": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 4,
                    "items": {
                        "type": "object",
                        "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}},
                        "required": ["x", "y"],
                    },
                },
                "note": {"type": ["string", "null"]},
            },
            "required": ["shape"],
        },
    },
    {
        "name": "routed",
        "description": "A property mirrored into an HTTP header (modern era).",
        "inputSchema": {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region", "pattern": "^[a-z]{2}-[a-z]+$"},
                "query": {"type": "string"},
            },
            "required": ["region", "query"],
        },
    },
    {
        "name": "delete_everything",
        "description": "Pretends to delete everything (destructive: asks first).",
        "inputSchema": {"type": "object", "properties": {"confirm_name": {"type": "string"}}},
        "annotations": {"destructiveHint": True, "readOnlyHint": False},
    },
    {
        "name": "slow",
        "description": "Takes STEPS × DELAY seconds and reports progress at every step.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "steps": {"type": "integer", "default": 5, "minimum": 1},
                "delay": {"type": "number", "default": 0.5},
            },
        },
    },
]


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[types.Tool.model_validate(tool) for tool in TOOLS])


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    arguments = params.arguments or {}
    if params.name == "slow":
        steps = int(arguments.get("steps", 5))
        delay = float(arguments.get("delay", 0.5))
        for step in range(1, steps + 1):
            await anyio.sleep(delay)
            await ctx.session.report_progress(step, steps, f"step {step} of {steps}")
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=f"done after {steps} steps")]
        )
    if params.name not in {tool["name"] for tool in TOOLS}:
        return types.CallToolResult(
            content=[types.TextContent(type="text", text="no such tool")], isError=True
        )
    text = json.dumps(arguments, sort_keys=True)
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


server = Server("hard-catalogue", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
