"""The demo server (mcpx's own, on the same `Peer`) at the far end of an in-memory transport pair."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

from mcpx.demo.app import build_server
from mcpx.demo.core import McpServer
from mcpx.protocol.client import Client
from mcpx.protocol.options import SessionOptions
from mcpx.protocol.session import open_session
from mcpx.transports.memory import MemoryTransport, memory_pair


@dataclass
class Demo:
    client: Client
    server: McpServer
    server_end: MemoryTransport


@contextlib.asynccontextmanager
async def demo_session(options: SessionOptions | None = None) -> AsyncIterator[Demo]:
    client_end, server_end = memory_pair()
    server = build_server(tick=3600)
    serving = asyncio.ensure_future(server.serve(server_end))
    try:
        async with open_session(client_end, options or SessionOptions(timeout=10)) as client:
            yield Demo(client, server, server_end)
    finally:
        await server_end.close()
        await asyncio.wait_for(serving, 5)
