"""`mcpx proxy`'s upstream POSTs past httpx's client (mcpx.transports.lean_post), against a socket server
written here that answers with bytes: the same bytes on the wire and the same facts in the log as
through httpx's client, event streams, redirects, cookies and a server that is not there."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from mcpx.errors import ConnectError, ServerFailedError
from mcpx.transports.http import HttpTransport
from mcpx.transports.lean_http import LeanHttpTransport
from mcpx.wire import TrafficLog
from mcpx.wire.jsonrpc import decode

SESSION = b"sess-0123456789"


class Server:
    """A Streamable HTTP endpoint by bytes: `/mcp` answers JSON (`initialize` with a session id,
    `tools/call` as an event stream with a notification first, a 202 to notifications); `/old` redirects
    to `/mcp` (307); `/cookie` sets a cookie; `/broken` answers 500 with HTML; `/big` answers 300 KB of JSON; `/gzip` compressed JSON."""

    def __init__(self) -> None:
        self.requests: list[bytes] = []
        self.connections = 0
        self.url = ""

    async def __call__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        with contextlib.suppress(ConnectionError, asyncio.IncompleteReadError):
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    (int(v) for k, _, v in (line.partition(b":") for line in head.split(b"\r\n")[1:])
                     if k.lower() == b"content-length"),
                    0,
                )  # fmt: skip
                body = await reader.readexactly(length)
                self.requests.append(head + body)
                writer.write(self.answer(head.split(b" ")[1], json.loads(body) if body else {}))
                await writer.drain()
        writer.close()

    def answer(self, path: bytes, message: dict[str, Any]) -> bytes:
        if path == b"/old":
            return b"HTTP/1.1 307 Temporary Redirect\r\nLocation: /mcp\r\nContent-Length: 0\r\n\r\n"
        if path == b"/broken":
            return b"HTTP/1.1 500 Oops\r\nContent-Type: text/html\r\nContent-Length: 13\r\n\r\n<b>broken</b>"
        if "id" not in message:
            return b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n"
        rid = message["id"]
        if path == b"/big":  # a body far larger than a read: it comes in many
            data = json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"text": "x" * 300_000}}).encode()
            return b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (
                len(data),
                data,
            )
        if path == b"/gzip":  # what httpx's Accept-Encoding lets a server do
            data = gzip.compress(json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"z": 1}}).encode())
            return (
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
                b"Content-Length: %d\r\n\r\n%s" % (len(data), data)
            )
        extra = b""
        if path == b"/cookie":
            extra = b"Set-Cookie: sid=s-42; Path=/\r\n"
        if message.get("method") == "initialize":
            extra += b"Mcp-Session-Id: " + SESSION + b"\r\n"
        result = {"jsonrpc": "2.0", "id": rid, "result": {"ok": rid}}
        if message.get("method") == "tools/call":
            note = {
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": {"level": "info", "data": 1},
            }
            events = b"".join(
                b"event: message\ndata: %s\n\n" % json.dumps(m).encode() for m in (note, result)
            )
            return b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n%sContent-Length: %d\r\n\r\n%s" % (
                extra,
                len(events),
                events,
            )
        data = json.dumps(result).encode()
        return b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n%s" % (
            extra,
            len(data),
            data,
        )


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    peer = Server()
    listening = await asyncio.start_server(peer, "127.0.0.1", 0)
    peer.url = f"http://127.0.0.1:{listening.sockets[0].getsockname()[1]}"
    async with listening:
        yield peer
        listening.close()


FRAMES = [
    b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}',
    b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
    b'{"jsonrpc":"2.0","id":1,"method":"ping"}',
    b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"}}',
]


async def session(url: str, lean: bool, frames: list[bytes] = FRAMES) -> tuple[HttpTransport, list[str]]:
    """POST `frames` through an HttpTransport: over `lean_post` (the lean transport given, as the proxy
    gives it) or through httpx's client (over the same lean exchange: the default). Returns the frames
    received."""
    log = TrafficLog(time.monotonic)
    transport = HttpTransport(
        url,
        traffic=log,
        headers={"X-Api-Key": "key-0123456789abcdef", "User-Agent": "host/1"},
        http_transport=LeanHttpTransport() if lean else None,
    )
    received: list[str] = []
    transport.receive_with(lambda event: received.append(event.raw))
    await transport.start()
    try:
        for frame in frames:
            await transport.send(frame.decode(), decode(frame).message)
    finally:
        await transport.close()
    return transport, received


def facts(log: TrafficLog) -> list[tuple[str, str, str]]:
    out = []
    for event in log:
        shown = {k: v for k, v in event.facts.items() if k not in ("elapsed_ms", "duration_ms")}
        out.append((event.direction, event.raw, json.dumps(shown, sort_keys=True)))
    return out


async def test_the_same_bytes_and_facts_as_through_httpx(server: Server) -> None:
    fast, received = await session(server.url + "/mcp", lean=True)
    assert fast._lean_post is not None and fast._lean_post.on
    sent = list(server.requests)
    server.requests.clear()
    slow, received_slow = await session(server.url + "/mcp", lean=False)
    assert slow._lean_post is None
    assert received == received_slow and len(received) == 4  # the stream's notification included
    # the POSTs byte for byte (the DELETE of the session at the end is httpx's in both)
    assert [r for r in sent if r.startswith(b"POST")] == [r for r in server.requests if r.startswith(b"POST")]
    assert facts(fast.traffic) == facts(slow.traffic)
    kinds = [e.facts.get("event") for e in fast.traffic]
    assert kinds.count("http-request") == 5 and "stream-closed" in kinds
    shown = next(e.facts["headers"] for e in fast.traffic if e.facts.get("event") == "http-request")
    assert shown["x-api-key"] != "key-0123456789abcdef" and shown["user-agent"] == "host/1"
    assert b"Mcp-Session-Id: " + SESSION in sent[-1]  # the session went on with the later POSTs


async def test_a_redirect_is_followed_through_httpx_and_ends_the_lean_way(server: Server) -> None:
    transport, received = await session(server.url + "/old", lean=True, frames=FRAMES[2:3])
    assert [json.loads(r) for r in received] == [{"jsonrpc": "2.0", "id": 1, "result": {"ok": 1}}]
    assert transport._lean_post is not None and not transport._lean_post.on
    paths = [r.split(b" ")[1] for r in server.requests]
    assert paths == [b"/old", b"/old", b"/mcp"]  # the lean POST, then httpx's, redirected


async def test_a_cookie_goes_to_the_jar_and_back(server: Server) -> None:
    await session(server.url + "/cookie", lean=True, frames=FRAMES[2:3] * 2)
    first, second = server.requests
    assert b"cookie:" not in first.lower() and b"Cookie: sid=s-42" in second


async def test_a_server_that_fails_or_is_not_there(server: Server) -> None:
    with pytest.raises(ServerFailedError, match="HTTP 500 Oops"):
        await session(server.url + "/broken", lean=True, frames=FRAMES[2:3])
    log = TrafficLog(time.monotonic)
    transport = HttpTransport("http://127.0.0.1:9/mcp", traffic=log, http_transport=LeanHttpTransport())
    await transport.start()
    with pytest.raises(ConnectError, match="refused"):
        await transport.send(FRAMES[2].decode(), decode(FRAMES[2]).message)
    await transport.close()
    assert [e.facts.get("event") for e in log][-2:] == ["http-request", "http-failed"]


async def test_a_body_that_comes_in_many_reads_is_read_whole_and_the_connection_kept(server: Server) -> None:
    transport, received = await session(server.url + "/big", lean=True, frames=FRAMES[2:3] * 2)
    assert [len(json.loads(r)["result"]["text"]) for r in received] == [300_000, 300_000]
    assert server.connections == 1 and transport._lean_post is not None and transport._lean_post.on


async def test_a_compressed_reply_is_decoded_as_httpx_decodes_it(server: Server) -> None:
    transport, received = await session(server.url + "/gzip", lean=True, frames=FRAMES[2:3] * 2)
    assert [json.loads(r) for r in received] == [{"jsonrpc": "2.0", "id": 1, "result": {"z": 1}}] * 2
    assert server.connections == 1 and transport._lean_post is not None and transport._lean_post.on
