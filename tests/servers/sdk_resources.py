"""Resources on the official Python SDK that change on request: a text note and a PNG blob, a tool
`touch(uri)` that announces an update, in both eras.

Legacy connections get `notifications/resources/updated` through `resources/subscribe` (registered on
the SDK's low-level server, which MCPServer does not do by itself); 2026-07-28 connections get it through
`subscriptions/listen` (the SDK's own handler). Run over stdio: `python tests/servers/sdk_resources.py`.
"""

from __future__ import annotations

import sdk_zygote

sdk_zygote.hand_off()  # the SDK is imported once, by the suite's zygote (sdk_zygote.py)

import base64
import warnings
from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp_types import SubscribeRequestParams, UnsubscribeRequestParams

warnings.filterwarnings("ignore", category=DeprecationWarning)

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAYAAABytg0kAAAAFklEQVR4nGP4z8DwnwEJMDEgAYQAACRVAgH6xAVyAAAAAElFTkSuQmCC"
)
mcp = MCPServer("resources-server", instructions="Resources that change when asked.")
subscribed: set[str] = set()
version = {"n": 1}


@mcp.resource("memo://note", mime_type="text/markdown")
def note() -> str:
    """A note that changes on every touch."""
    return f"# Note\n\nversion {version['n']}\n"


@mcp.resource("memo://logo", mime_type="image/png")
def logo() -> bytes:
    """A 2×2 PNG."""
    return PNG


@mcp.tool()
async def touch(uri: str, ctx: Context) -> str:
    """Change the note and tell subscribers that `uri` was updated."""
    version["n"] += 1
    await ctx.notify_resource_updated(uri)  # modern: subscriptions/listen streams
    if uri in subscribed:  # legacy: a notification on the session
        await ctx.request_context.session.send_resource_updated(uri)
    return f"touched {uri}"


async def _subscribe(ctx: Any, params: SubscribeRequestParams) -> dict[str, Any]:
    subscribed.add(str(params.uri))
    return {}


async def _unsubscribe(ctx: Any, params: UnsubscribeRequestParams) -> dict[str, Any]:
    subscribed.discard(str(params.uri))
    return {}


# MCPServer registers no subscribe handlers of its own: add them to its low-level server
mcp._lowlevel_server.add_request_handler("resources/subscribe", SubscribeRequestParams, _subscribe)
mcp._lowlevel_server.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, _unsubscribe)

if __name__ == "__main__":
    mcp.run()
