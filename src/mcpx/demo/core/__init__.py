"""A small MCP server on mcpx's own `Peer`, for both protocol eras (the demo server uses it; a mock
server can too).

    server = McpServer("name", "1.0")
    server.add_tool(Tool("echo", handler, input_schema={...}))
    await server.serve_stdio()          # or server.bind(peer) on any transport

It depends only on the protocol and wire floors (never on another SDK), so it can move down to
`mcpx.protocol` unchanged if more features need it.
"""

from mcpx.demo.core.catalog import (
    Prompt,
    PromptArgument,
    Resource,
    ResourceTemplate,
    Tool,
    ToolFailure,
    blob_contents,
    text,
    text_contents,
)
from mcpx.demo.core.context import Context, InputRequired, MissingCapability
from mcpx.demo.core.server import McpServer

__all__ = [
    "Context",
    "InputRequired",
    "McpServer",
    "MissingCapability",
    "Prompt",
    "PromptArgument",
    "Resource",
    "ResourceTemplate",
    "Tool",
    "ToolFailure",
    "blob_contents",
    "text",
    "text_contents",
]
