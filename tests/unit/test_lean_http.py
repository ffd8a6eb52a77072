"""The proxy's lean HTTP/1.1 transport (mcpx.transports.lean_http) against a real socket server written here,
whose every answer is given as bytes: the framings (length, chunked, until close), keep-alive and its
ends, a body streamed while it is written, and the ways a server breaks an exchange."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
import pytest

from mcpx.transports import lean_connection
from mcpx.transports.lean_http import LeanHttpTransport, lean_transport_for

Reply = Callable[[bytes, asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


class Server:
    """Answers each request by its path (`/json`, `/chunked`, …); counts connections, keeps requests."""

    def __init__(self) -> None:
        self.connections = 0
        self.requests: list[bytes] = []
        self.go_on = asyncio.Event()
        self.writers: list[asyncio.StreamWriter] = []
        self.url = ""

    async def __call__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self.writers.append(writer)
        with contextlib.suppress(ConnectionError, asyncio.IncompleteReadError):
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    (
                        int(line[15:])
                        for line in head.split(b"\r\n")
                        if line.lower().startswith(b"content-length:")
                    ),
                    0,
                )
                chunked = b"transfer-encoding: chunked" in head.lower()
                body = await (reader.readuntil(b"0\r\n\r\n") if chunked else reader.readexactly(length))
                self.requests.append(head + body)
                path = head.split(b" ")[1]
                if not await ROUTES[path.split(b"?")[0]](self, writer):
                    break
                await writer.drain()
        writer.close()


async def json_reply(server: Server, writer: asyncio.StreamWriter) -> bool:
    writer.write(b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 9\r\n\r\n{"ok":11}')
    return True


async def chunked(server: Server, writer: asyncio.StreamWriter) -> bool:
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
    writer.write(b"d;ext=1\r\ndata: first\n\n\r\n")
    await writer.drain()
    await server.go_on.wait()  # the client must have the first event before the rest is written
    writer.write(b"c\r\ndata: last\n\n\r\n0\r\nX-Trailer: t\r\n\r\n")
    return True


async def until_close(server: Server, writer: asyncio.StreamWriter) -> bool:
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nall of it")
    return False


async def close_after(server: Server, writer: asyncio.StreamWriter) -> bool:
    writer.write(b"HTTP/1.1 202 Accepted\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
    return False


async def nothing(server: Server, writer: asyncio.StreamWriter) -> bool:
    return False  # closes without a word


async def cut_short(server: Server, writer: asyncio.StreamWriter) -> bool:
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this")
    return False


async def silent(server: Server, writer: asyncio.StreamWriter) -> bool:
    await server.go_on.wait()
    return False


async def not_http(server: Server, writer: asyncio.StreamWriter) -> bool:
    writer.write(b"SSH-2.0-OpenSSH\r\n\r\n")
    return False


async def no_content(server: Server, writer: asyncio.StreamWriter) -> bool:
    writer.write(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\nContent-Length: 3\r\n\r\n")
    return True


async def huge_chunk(server: Server, writer: asyncio.StreamWriter) -> bool:
    # announces a 4 GiB chunk and trickles it: the reader must see the first bytes at once, and the
    # proxy must not hold more than its high-water mark of the rest while nobody reads it
    writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffff\r\n" + b"x" * 10)
    await writer.drain()
    await server.go_on.wait()
    for _ in range(64):
        writer.write(b"y" * 65536)  # 4 MiB, not drained: the client's pausing is what holds it back
    return False


async def sets_cookie(server: Server, writer: asyncio.StreamWriter) -> bool:
    writer.write(
        b"HTTP/1.1 200 OK\r\nSet-Cookie: sid=s-42; Path=/\r\nContent-Length: 9\r\n\r\n" + b'{"ok":11}'
    )
    return True


async def endless(server: Server, writer: asyncio.StreamWriter) -> bool:
    # an event stream that stays open, as a GET stream does (`mcpx proxy --listen`'s among them)
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
    await writer.drain()
    await server.go_on.wait()
    return False


async def negative_length(server: Server, writer: asyncio.StreamWriter) -> bool:
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n")
    return True  # and keeps the connection open: the client must not wait for more


async def garbage_chunk(server: Server, writer: asyncio.StreamWriter) -> bool:
    writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n")
    return True


async def overflowing_chunk(server: Server, writer: asyncio.StreamWriter) -> bool:
    writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + b"f" * 40 + b"\r\n")
    return True


#: a JSON answer far larger than any head, written with its head in one write (one read, often)
BIG = b'{"tools":"' + b"x" * 300_000 + b'"}'


async def big_json(server: Server, writer: asyncio.StreamWriter) -> bool:
    writer.write(
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(BIG) + BIG
    )
    return True


ROUTES: dict[bytes, Callable[[Server, asyncio.StreamWriter], Awaitable[bool]]] = {
    b"/json": json_reply,
    b"/big": big_json,
    b"/chunked": chunked,
    b"/close": until_close,
    b"/bye": close_after,
    b"/nothing": nothing,
    b"/short": cut_short,
    b"/silent": silent,
    b"/ssh": not_http,
    b"/empty": no_content,
    b"/huge": huge_chunk,
    b"/negative": negative_length,
    b"/garbage": garbage_chunk,
    b"/overflow": overflowing_chunk,
    b"/endless": endless,
    b"/cookie": sets_cookie,
}


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    peer = Server()
    listening = await asyncio.start_server(peer, "127.0.0.1", 0)
    peer.url = f"http://127.0.0.1:{listening.sockets[0].getsockname()[1]}"
    async with listening:
        yield peer
        for writer in peer.writers:
            writer.close()
        listening.close()
        await listening.wait_closed()


async def test_framings_keep_alive_and_a_streamed_body(server: Server) -> None:
    async with httpx.AsyncClient(transport=LeanHttpTransport()) as client:
        one = await client.post(server.url + "/json?x=1", content=b'{"id":1}', headers={"X-A": "b"})
        two = await client.post(server.url + "/json", content=b'{"id":2}')
        assert one.json() == two.json() == {"ok": 11} and one.headers["content-type"] == "application/json"
        assert server.connections == 1  # kept alive
        head, _, body = server.requests[0].partition(b"\r\n\r\n")
        assert head.startswith(b"POST /json?x=1 HTTP/1.1\r\n") and b"\r\nX-A: b" in head
        assert body == b'{"id":1}'

        async with client.stream("GET", server.url + "/chunked") as response:
            events = response.aiter_bytes()
            assert await events.__anext__() == b"data: first\n\n"  # before the server wrote the rest
            server.go_on.set()
            assert [chunk async for chunk in events] == [b"data: last\n\n"]
        assert (await client.post(server.url + "/json", content=b"{}")).status_code == 200
        assert server.connections == 1  # still the same connection, after trailers

        assert (await client.get(server.url + "/close")).text == "all of it"
        assert (await client.get(server.url + "/empty")).status_code == 204  # 100 skipped, no body read
        assert server.connections == 2  # a body until close spends its connection
        assert (await client.post(server.url + "/bye", content=b"{}")).status_code == 202
        assert (await client.post(server.url + "/json", content=b"{}")).status_code == 200
        assert server.connections == 3  # `Connection: close` is honoured


async def test_broken_exchanges_are_httpx_errors(server: Server) -> None:
    transport = LeanHttpTransport()
    async with httpx.AsyncClient(transport=transport) as client:
        with pytest.raises(httpx.RemoteProtocolError, match="without sending a response"):
            await client.post(server.url + "/nothing", content=b"{}")
        with pytest.raises(httpx.RemoteProtocolError, match="91 bytes of the body"):
            await client.post(server.url + "/short", content=b"{}")
        with pytest.raises(httpx.RemoteProtocolError, match="status line"):
            await client.post(server.url + "/ssh", content=b"{}")
        with pytest.raises(httpx.ReadTimeout):
            await client.post(server.url + "/silent", content=b"{}", timeout=httpx.Timeout(5.0, read=0.2))
        server.go_on.set()
        # a server that closed its idle keep-alive connection: the next request opens another
        await client.post(server.url + "/json", content=b"{}")
        for idle in transport._idle.values():
            for connection in idle:
                assert connection.transport is not None
                connection.transport.close()
        await asyncio.sleep(0)
        assert (await client.post(server.url + "/json", content=b"{}")).status_code == 200

        # a streamed request body (unknown length) goes through httpx's own transport
        async def parts() -> AsyncIterator[bytes]:
            yield b'{"id":'
            yield b"3}"

        assert (await client.post(server.url + "/json", content=parts())).status_code == 200
        assert server.requests[-1].endswith(b'6\r\n{"id":\r\n2\r\n3}\r\n0\r\n\r\n')
    with pytest.raises(httpx.ConnectError):
        async with httpx.AsyncClient(transport=LeanHttpTransport()) as client:
            await client.get("http://127.0.0.1:9/")  # nothing listens on the discard port


def test_a_url_behind_an_http_proxy_keeps_httpxs_own_transport(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    assert lean_transport_for("https://mcp.example.com/mcp") is None
    assert isinstance(lean_transport_for("http://127.0.0.1:8000/mcp"), LeanHttpTransport)


async def test_a_huge_trickled_chunk_is_streamed_with_bounded_memory(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lean_connection, "HIGH_WATER", 1 << 16)
    transport = LeanHttpTransport()
    opened: list[lean_connection.Connection] = []
    connect = transport._connect

    async def recording(*args: Any) -> lean_connection.Connection:
        opened.append(await connect(*args))
        return opened[-1]

    monkeypatch.setattr(transport, "_connect", recording)
    async with (
        httpx.AsyncClient(transport=transport) as client,
        client.stream("POST", server.url + "/huge", content=b"{}") as response,
    ):
        chunks = response.aiter_raw()
        assert await chunks.__anext__() == b"x" * 10  # long before the chunk's announced end
        server.go_on.set()
        connection = opened[0]

        async def paused() -> None:
            while not connection.paused:  # noqa: ASYNC110  (a protocol's pause has no event to wait on)
                await asyncio.sleep(0.005)

        await asyncio.wait_for(paused(), 10)
        assert connection.buffered <= (1 << 16) + (1 << 18)  # the mark and one read past it, not 4 MiB
        assert len(await chunks.__anext__()) == connection.received - 10 and not connection.paused
    assert connection.spent and connection.transport is not None and connection.transport.is_closing()


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("/negative", "Invalid character in Content-Length"),
        ("/garbage", "Invalid character in chunk size"),
        ("/overflow", "Chunk size overflow"),
    ],
)
async def test_a_garbage_length_or_chunk_size_is_an_error_not_a_hang(
    server: Server, path: str, why: str
) -> None:
    async with httpx.AsyncClient(transport=LeanHttpTransport(), timeout=httpx.Timeout(5.0)) as client:
        with pytest.raises(httpx.RemoteProtocolError, match=why):
            await client.post(server.url + path, content=b"{}")
        assert (await client.post(server.url + "/json", content=b"{}")).json() == {"ok": 11}
    assert server.connections == 2  # the broken connection was not reused


def test_mcpx_own_clients_use_it_unless_a_proxy_or_the_user_says_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from mcpx.transports.http_common import default_transport

    for name in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy", "MCPX_HTTP_TRANSPORT"):
        monkeypatch.delenv(name, raising=False)
    assert isinstance(default_transport("https://mcp.example.com/mcp"), LeanHttpTransport)
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    assert isinstance(default_transport("https://mcp.example.com/mcp"), httpx.AsyncHTTPTransport)
    monkeypatch.delenv("HTTPS_PROXY")
    monkeypatch.setenv("MCPX_HTTP_TRANSPORT", "httpx")  # the way back to httpcore
    assert isinstance(default_transport("http://127.0.0.1:8000/mcp"), httpx.AsyncHTTPTransport)


async def test_a_body_that_comes_with_its_head_is_not_a_long_head(server: Server) -> None:
    """A read holding the head and 300 KB of body: the head's bound counts the head, not the body (it was
    "the response's head is too long" for any large answer: a 10 MB catalogue never arrived)."""
    async with httpx.AsyncClient(transport=LeanHttpTransport()) as client:
        for _ in range(2):  # and the connection is reused after it
            answer = await client.post(server.url + "/big", content=b"{}")
            assert answer.status_code == 200 and answer.content == BIG
    assert server.connections == 1


async def test_a_cancel_as_the_connection_opens_is_never_lost(server: Server) -> None:
    """A closing client cancels its GET stream's task; the cancel may come in any loop iteration of the
    connect, the one that completes it too. `asyncio.wait_for` (before 3.12) returned the connection
    then and lost the cancel: the stream was opened anyway and read forever, and the client's close
    waited on it (`mcpx call` through `mcpx proxy --listen` hung once in a clean-clone run)."""

    async def listen(client: httpx.AsyncClient) -> None:
        async with client.stream("GET", server.url + "/endless") as response:
            async for _ in response.aiter_bytes():
                pass

    timeout = httpx.Timeout(10.0, read=None)  # what the GET stream runs with (`DEFAULT_TIMEOUT`)
    for spins in range(40):  # every iteration from before the connect to after the head
        async with httpx.AsyncClient(transport=LeanHttpTransport(), timeout=timeout) as client:
            task = asyncio.ensure_future(listen(client))
            for _ in range(spins):
                await asyncio.sleep(0)
            assert task.cancel()
            await asyncio.wait((task,), timeout=5)
            assert task.cancelled(), f"the cancel after {spins} loop iterations was lost"
    assert server.connections >= 1 and not server.go_on.is_set()


async def test_closing_the_client_while_its_get_stream_opens_does_not_hang(server: Server) -> None:
    """The hang itself: an HTTP client closed at any moment of its GET stream's opening (the first
    loop iterations after the handshake, where a short `mcpx call` closes) ends at once."""
    from mcpx.transports.http import HttpTransport
    from mcpx.wire import TrafficLog

    for spins in range(40):
        client = HttpTransport(
            server.url + "/endless", traffic=TrafficLog(), http_transport=LeanHttpTransport()
        )
        await client.start()
        client.set_protocol_version("2025-11-25")  # starts the GET stream's task
        for _ in range(spins):
            await asyncio.sleep(0)
        closing = asyncio.ensure_future(client.close())
        done, _ = await asyncio.wait((closing,), timeout=5)  # (not wait_for: its cancel would unblock it)
        if not done:
            closing.cancel()  # (a second cancel reaches the stream: the test ends)
            pytest.fail(f"close() after {spins} loop iterations waited on a GET stream that went on")


class ClosingServer:
    """Answers each request on a connection and then closes it without saying `Connection: close`, as a
    server's idle keep-alive timer does (uvicorn's: 5 s). It runs in a thread, so it closes while the
    client's loop is blocked: the end waits in the client's socket, unread, when the next request goes."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.closed = threading.Event()
        self.connections = 0
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                peer, _ = self.listener.accept()
                self.connections += 1
                with peer:
                    data = b""
                    while b"\r\n\r\n" not in data:
                        data += peer.recv(65536)
                    peer.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n" + b'{"ok":12}')
                    peer.shutdown(socket.SHUT_RDWR)
                self.closed.set()


async def test_an_idle_connection_the_server_closed_is_not_reused() -> None:
    """The stale keep-alive race: the server's end of an idle connection is in the socket but the loop has
    not read it yet. Reused, the request went nowhere ("Server disconnected without sending a
    response"); httpcore looks at the socket before reusing a connection, and so does this."""
    server = ClosingServer()
    try:
        async with httpx.AsyncClient(transport=LeanHttpTransport(), timeout=5) as client:
            for _ in range(3):
                assert (await client.post(server.url, content=b"{}")).json() == {"ok": 12}
                assert server.closed.wait(5)  # (blocks the loop: its end stays unread)
                server.closed.clear()
        assert server.connections == 3
    finally:
        server.listener.close()


async def test_mcpx_clients_keep_a_cookie_the_server_sets(server: Server) -> None:
    """A load balancer's sticky-session cookie goes back with the next requests (mcpx's client looks for
    cookies only in responses that set one)."""
    from mcpx.transports.http_common import client_for
    from mcpx.wire import TrafficLog

    async with client_for(server.url, TrafficLog(), inner=LeanHttpTransport()) as client:
        await client.post(server.url + "/json", content=b"{}")
        await client.post(server.url + "/cookie", content=b"{}")
        await client.post(server.url + "/json", content=b"{}")
    heads = [request.partition(b"\r\n\r\n")[0].lower() for request in server.requests]
    assert [b"\r\ncookie: sid=s-42" in head for head in heads] == [False, False, True]
