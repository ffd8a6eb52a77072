"""`mcpx proxy --listen`'s host end (mcpx.proxy.listen.HttpHost) over a real socket, the server's side
played by the test through `write` (what the relay hands it): answers in order on one connection, a
JSON reply or an event stream, `Connection: close`, and a host that leaves mid-stream."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping

from mcpx.proxy.listen import HttpHost
from mcpx.wire import TrafficLog
from mcpx.wire.jsonrpc import decode


def post(body: bytes, *extra: bytes) -> bytes:
    head = [b"POST /mcp HTTP/1.1", b"Host: x", b"Accept: application/json, text/event-stream", *extra]
    return b"\r\n".join([*head, b"Content-Length: %d" % len(body), b"", body])


async def read_until(reader: asyncio.StreamReader, end: bytes) -> bytes:
    return await asyncio.wait_for(reader.readuntil(end), 10)


async def test_answers_in_order_json_or_a_stream_and_hosts_that_close_or_leave() -> None:
    frames: list[bytes] = []
    relayed: asyncio.Queue[bytes] = asyncio.Queue()
    host = HttpHost("127.0.0.1", 0, TrafficLog(time.monotonic))

    def on_frame(frame: bytes, headers: Mapping[str, str] | None) -> None:
        frames.append(frame)
        relayed.put_nowait(frame)

    async def next_relayed() -> bytes:
        return await asyncio.wait_for(relayed.get(), 10)

    await host.start(on_frame)
    port = int(host.url.rsplit(":", 1)[1].split("/")[0])
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        # two requests pipelined on one connection: the second waits for the first's answer
        writer.write(post(b'{"jsonrpc":"2.0","id":1,"method":"ping"}') + post(b'{"id":2,"method":"x"}'))
        assert b'"id":1' in await next_relayed()
        await asyncio.sleep(0.05)
        assert relayed.empty()  # the second is not relayed before the first is answered
        answer = b'{"jsonrpc":"2.0","id":1,"result":{}}'
        host.write(answer, decode(answer).message)  # (routed by the relay's decode)
        head = await read_until(reader, b"\r\n\r\n")
        assert b"Content-Type: application/json" in head and b"Content-Length: 36" in head
        assert await reader.readexactly(36) == b'{"jsonrpc":"2.0","id":1,"result":{}}'
        assert b'"id":2' in await next_relayed()
        host.write(b'{"jsonrpc":"2.0","method":"notifications/progress","params":{}}')
        # a notification came first: an event stream of both; a malformed answer (no "jsonrpc") still
        # answers its id
        malformed = b'{"id":2,"result":{}}'
        host.write(malformed, decode(malformed).message)
        head = await read_until(reader, b"\r\n\r\n")
        assert b"text/event-stream" in head and b"chunked" in head
        body = await read_until(reader, b"0\r\n\r\n")
        assert body.count(b"event: message") == 2 and body.index(b"progress") < body.index(b'"id":2')

        # Connection: close: answered, then closed
        writer.write(post(b'{"method":"notifications/x"}', b"Connection: close"))
        assert (await reader.read()).startswith(b"HTTP/1.1 202 Accepted\r\n")
        await next_relayed()
        writer.close()

        # a host that leaves while its answer is awaited: the answer comes to nobody, and nothing breaks
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(post(b'{"id":3,"method":"slow"}'))
        assert b'"id":3' in await next_relayed()
        writer.close()
        await asyncio.sleep(0.05)
        assert host.write(b'{"id":3,"result":{}}')
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(post(b"not json at all"))  # relayed as it came (flagged by the log), 202
        assert (await read_until(reader, b"\r\n\r\n")).startswith(b"HTTP/1.1 202")
        writer.write(b"BREW /pot HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        assert (await read_until(reader, b"\r\n\r\n")).startswith(b"HTTP/1.1 405")
        assert await reader.readexactly(18) == b"Method Not Allowed"
        writer.write(b"garbage\r\n\r\n")
        assert (await reader.read()).startswith(b"HTTP/1.1 400 Bad Request")
        assert frames[-1] == b"not json at all"
    finally:
        writer.close()
        host.close_output()
