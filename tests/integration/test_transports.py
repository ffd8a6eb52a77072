"""One behavioural suite, run over every transport: stdio, Streamable HTTP, legacy HTTP+SSE and memory.

The same questions of each, through the front door (`open_session`) and the session façade: it connects
and says which transport it is, calls a tool, names an unknown method's error, has nothing in flight when
idle, reconnects in the same era with the same log (not memory: its far end is gone with it), and says
it is closed once closed. Real servers: the official SDK's (tests/servers/http_sdk.py) over stdio, HTTP
and SSE; mcpx's demo server over the memory pair.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from http_servers import SERVERS, running, sdk_server

from mcpx.demo.app import build_server
from mcpx.errors import RpcError
from mcpx.protocol.client import Client
from mcpx.protocol.options import SessionOptions
from mcpx.protocol.session import open_session
from mcpx.target import ServerSpec
from mcpx.transports.memory import memory_pair
from mcpx.wire import TrafficLog

TRANSPORTS = ["stdio", "http", "sse", "memory"]
OPTIONS = SessionOptions(era="legacy", timeout=20)


@pytest.fixture(scope="module")
def urls() -> Iterator[dict[str, str]]:
    http, sse = sdk_server(), sdk_server("--sse")
    with running(http, sse):
        yield {"http": http.url("/mcp"), "sse": sse.url("/sse")}


@contextlib.asynccontextmanager
async def session(kind: str, urls: dict[str, str], log: TrafficLog) -> AsyncIterator[Client]:
    if kind == "memory":
        client_end, server_end = memory_pair(client_traffic=log)
        serving = asyncio.ensure_future(build_server(tick=3600).serve(server_end))
        try:
            async with open_session(client_end, OPTIONS) as client:
                yield client
        finally:
            await server_end.close()
            await asyncio.wait_for(serving, 5)
        return
    if kind == "stdio":
        target = ServerSpec(command=[sys.executable, str(SERVERS / "http_sdk.py"), "--stdio"])
    else:
        target = ServerSpec(url=urls[kind], transport=kind)  # type: ignore[arg-type]
    async with open_session(target, OPTIONS, traffic=log) as client:
        yield client


async def echo(client: Client, text: str) -> str:
    raw: Any = await client.request("tools/call", {"name": "echo", "arguments": {"text": text}})
    return " ".join(block["text"] for block in raw["content"])


@pytest.mark.parametrize("kind", TRANSPORTS)
async def test_the_same_behaviour_over_every_transport(kind: str, urls: dict[str, str]) -> None:
    log = TrafficLog()
    async with session(kind, urls, log) as client:
        facade = client.session
        assert facade.transport_name == kind
        assert facade.describe()["transport"] == kind
        assert client.opened is not None and client.opened.era == "legacy"
        names = {tool.name for tool in await client.list_tools()}
        assert {"echo", "add"} <= names
        assert await echo(client, "over " + kind) == "over " + kind
        with pytest.raises(RpcError) as raised:
            await client.request("no/such/method")
        assert raised.value.error_code == -32601
        assert await client.ping() == {}
        assert facade.in_flight == 0 and facade.ended is None and not facade.is_closed
        if kind != "memory":
            before = len(log)
            opened = await facade.reconnect()
            assert opened.era == "legacy" and not facade.is_closed
            assert len(log) > before  # one log across the reconnect
            assert await echo(client, "again") == "again"
        # every frame went through the log, both ways
        assert any(e.direction == "out" and e.method == "tools/call" for e in log)
        assert any(e.direction == "in" and e.method == "tools/call" for e in log)
    assert facade.is_closed
