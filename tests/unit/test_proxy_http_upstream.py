"""`mcpx proxy`'s HTTP upstream (mcpx.proxy.upstream.HttpUpstream, its POSTs past httpx's client) when the
server dies: a request it drops mid-exchange and one it can no longer be reached for are each handed to
the relay as undelivered, with one sentence, and logged; the relay goes on. A socket server written here."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time

from mcpx.proxy.upstream import open_upstream
from mcpx.target import ServerSpec
from mcpx.wire import Request, TrafficEvent, TrafficLog

INIT = b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}'


async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Answers `initialize` (keep-alive) and a GET (405); drops the connection on any other POST without
    a word."""
    with contextlib.suppress(ConnectionError, asyncio.IncompleteReadError):
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            if head.startswith(b"GET"):  # the stream for what the server sends unprompted: none here
                writer.write(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
                continue
            length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
            message = json.loads(await reader.readexactly(length))
            if message.get("method") != "initialize":
                break
            body = json.dumps({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-06-18"}})
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                % (len(body), body.encode())
            )
    writer.close()


async def test_a_server_that_dies_leaves_each_request_undelivered_with_a_sentence() -> None:
    listening = await asyncio.start_server(serve, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{listening.sockets[0].getsockname()[1]}/mcp"
    log = TrafficLog(time.monotonic)
    upstream = open_upstream(ServerSpec(url=url, transport="http"), log)
    heard: list[TrafficEvent] = []
    undelivered: list[tuple[object, str]] = []
    done = asyncio.Event()

    def lost(request: Request, why: str) -> None:
        undelivered.append((request.id, why))
        done.set()

    await upstream.start(heard.append, lost)
    try:
        upstream.relay(INIT)
        upstream.relay(b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}')
        await asyncio.wait_for(done.wait(), 10)  # dropped mid-exchange
        assert [json.loads(e.raw)["id"] for e in heard] == [0]
        done.clear()
        listening.close()
        await listening.wait_closed()
        upstream.relay(b'{"jsonrpc":"2.0","id":2,"method":"ping"}')
        await asyncio.wait_for(done.wait(), 10)  # nobody there any more
    finally:
        await upstream.close()
    (first, broke), (second, refused) = undelivered
    assert first == 1 and "broke while tools/call (id 1)" in broke
    assert second == 2 and "cannot reach" in refused and "refused" in refused
    failed = [e.facts for e in log if e.facts.get("event") == "http-failed" and e.facts["method"] == "POST"]
    assert [f["error"] for f in failed] == ["RemoteProtocolError", "ConnectError"]
