"""mcpx as the client under test of the official conformance suite (npm `@modelcontextprotocol/conformance`).

The harness starts a mock server per scenario and runs this script with the server's URL as the last
argument, the scenario in `MCP_CONFORMANCE_SCENARIO` and the revision it speaks in
`MCP_CONFORMANCE_PROTOCOL_VERSION`. Each scenario is a few calls through the public library API, over
Streamable HTTP; exit 0 means the client did its part (the harness grades the traffic it saw).
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import mcpx
from mcpx.protocol.client import Client


def era_for(version: str) -> dict[str, Any]:
    # the revisions before 2026-07-28 speak the handshake; pin it so the modern probe adds no noise
    if version.startswith("2026"):
        return {"protocol_era": "auto"}
    return {"protocol_era": "legacy", "protocol_version": version}


def defaults_of(schema: Any) -> dict[str, Any]:
    """Accept a form elicitation with every default the requested schema declares (SEP-1034)."""
    properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
    return {
        name: prop["default"]
        for name, prop in properties.items()
        if isinstance(prop, dict) and "default" in prop
    }


async def on_elicit(params: Any) -> dict[str, Any]:
    return {"action": "accept", "content": defaults_of((params or {}).get("requestedSchema"))}


async def initialize(client: Client) -> None:
    await client.list_tools()


async def tools_call(client: Client) -> None:
    await client.list_tools()
    await client.call_tool("add_numbers", {"a": 5, "b": 3})


async def sse_retry(client: Client) -> None:
    await client.list_tools()
    await client.call_tool("test_reconnection", {})


async def elicitation_defaults(client: Client) -> None:
    await client.list_tools()
    await client.call_tool("test_client_elicitation_defaults", {})


SCENARIOS: dict[str, Callable[[Client], Awaitable[None]]] = {
    "initialize": initialize,
    "tools_call": tools_call,
    "sse-retry": sse_retry,
    "elicitation-sep1034-client-defaults": elicitation_defaults,
}


async def main(url: str) -> int:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    version = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION", "2025-11-25")
    run = SCENARIOS.get(scenario)
    if run is None:
        print(f"mcpx conformance client: no scenario {scenario!r}", file=sys.stderr)
        return 2
    async with mcpx.connect(
        url, transport="http", on_elicit=on_elicit, timeout=30, **era_for(version)
    ) as client:
        await run(client)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[-1])))
