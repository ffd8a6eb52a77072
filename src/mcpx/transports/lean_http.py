"""A lean HTTP/1.1 transport for httpx: under the tap of every mcpx HTTP client (`http_common.
default_transport`; `MCPX_HTTP_TRANSPORT=httpx` goes back to httpx's own) and the proxy's upstream POSTs.

`mcpx proxy` in front of an HTTP server makes one POST per message of the host's. Through httpx's default
transport (httpcore on anyio) that cost ~1 ms of CPU a request on the benchmark machine, against ~0.1 ms
for the same exchange written by hand on an asyncio protocol: layers of pools, locks, cancel scopes and
`getpid()`-checking loop look-ups per read and write, and the request's head and body in two writes (the
server wakes twice). The proxy's added latency goal (≤ 1 ms a message) cannot be met on top of that.

This is that exchange on an asyncio protocol, as an `httpx.AsyncBaseTransport`, so everything above it stays
as it is: the transport's session, headers and SSE reading, the auth flow, the redirect rules and the
traffic tap (which wraps it, so the recorded HTTP facts are the same). The responses come from a server
nobody vetted, so they are parsed by llhttp (`httptools`: Node's parser, uvicorn's; ~1 µs a response), not
by hand: a malformed or hostile framing (a negative length, a garbage or overflowing chunk size) is a
`RemoteProtocolError`, and body bytes reach the reader as they arrive, at most `lean_connection.HIGH_WATER`
of them held before the socket is paused (a server announcing a huge chunk and trickling it cannot make the
proxy buffer it whole). It speaks plain HTTP/1.1 only: keep-alive connections per origin (an idle one is
looked at before it is reused: `Connection.stale`), the head and a known-length body in one write (the
request is formatted here: that is writing, not parsing), bodies by Content-Length, chunked or until close,
TLS with httpx's default context. A request it does not handle (a body of unknown length, a HEAD) goes to
httpx's own transport, and a URL reached through an HTTP(S)_PROXY never gets this transport at all
(`lean_transport_for`).
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator

import httpx

from mcpx.transports.lean_connection import Connection

Origin = tuple[str, str, int]


def origin_of(url: httpx.URL) -> Origin:
    return (url.scheme, url.host, url.port or (443 if url.scheme == "https" else 80))


def lean_transport_for(url: str) -> httpx.AsyncBaseTransport | None:
    """The lean transport for `url`, or None where httpx's own must go (an HTTP(S) proxy applies)."""
    from mcpx.transports.http_common import _proxy_for

    if _proxy_for(url) is not None:
        return None
    return LeanHttpTransport()


class LeanHttpTransport(httpx.AsyncBaseTransport):
    def __init__(self, fallback: httpx.AsyncBaseTransport | None = None) -> None:
        self._idle: dict[Origin, list[Connection]] = {}
        self._fallback = fallback
        self._ssl: ssl.SSLContext | None = None
        self._closed = False

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = _known_body(request)
        # (HEAD: llhttp cannot be told that a response to it has no body whatever its head says; "trace":
        # a caller timing the phases httpcore reports — `mcpx doctor`'s connect, TLS and first byte)
        if body is None or self._closed or request.method == "HEAD" or "trace" in request.extensions:
            return await self._fall_back(request)
        url = request.url
        origin = origin_of(url)
        timeouts: dict[str, float | None] = request.extensions.get("timeout", {})
        head = [request.method.encode("ascii"), b" ", url.raw_path, b" HTTP/1.1\r\n"]
        for name, value in request.headers.raw:
            head += (name, b": ", value, b"\r\n")
        head.append(b"\r\n")
        connection, status, reason, headers = await self.exchange(
            origin, b"".join(head) + body, timeouts.get("connect"), timeouts.get("read"), request
        )
        stream = Body(self, origin, connection, request, timeouts.get("read"))
        return httpx.Response(
            status_code=status,
            headers=headers,
            stream=stream,
            extensions={"http_version": b"HTTP/1.1", "reason_phrase": reason},
        )

    async def exchange(
        self,
        origin: Origin,
        data: bytes,
        connect_timeout: float | None,
        read_timeout: float | None,
        request: httpx.Request | None = None,
    ) -> tuple[Connection, int, bytes, list[tuple[bytes, bytes]]]:
        """Write a whole request (`data`: its head and body, one write) on a kept-alive connection to
        `origin` (or a new one) and read the response's head: (the connection, status, reason, header
        lines). The body is the connection's to read next (`Body`); `request` only names the request in
        errors (`lean_post` makes none)."""
        if self._closed:
            raise httpx.ConnectError("the HTTP transport is closed", request=request)
        connection = self._take(origin) or await self._connect(request, origin, connect_timeout)
        try:
            connection.write(data, request)
            status, reason, headers = await connection.read_head(request, read_timeout)
        except BaseException:
            connection.close()
            raise
        return connection, status, reason, headers

    async def _fall_back(self, request: httpx.Request) -> httpx.Response:
        if self._fallback is None:
            self._fallback = httpx.AsyncHTTPTransport(retries=0)
        return await self._fallback.handle_async_request(request)

    def _take(self, origin: Origin) -> Connection | None:
        idle = self._idle.get(origin)
        while idle:
            connection = idle.pop()
            if connection.reusable() and not connection.stale():
                return connection
            connection.close()
        return None

    def _give_back(self, origin: Origin, connection: Connection) -> None:
        if self._closed or not connection.reusable():
            connection.close()
        else:
            self._idle.setdefault(origin, []).append(connection)

    async def _connect(
        self, request: httpx.Request | None, origin: Origin, timeout: float | None
    ) -> Connection:
        scheme, host, port = origin
        loop = asyncio.get_running_loop()
        context = None
        if scheme == "https":
            if self._ssl is None:
                self._ssl = httpx.create_ssl_context()
            context = self._ssl
        # Not `asyncio.wait_for`: before Python 3.12 it returns the result when a cancel comes just as the
        # connection is made, and the cancel is lost. The GET stream's task, cancelled by a closing
        # client in that instant, then opened its stream anyway and read it forever: `close()` waited on
        # it (a clean-clone run's `mcpx call` through `mcpx proxy --listen` hung with its answer printed).
        connecting = asyncio.ensure_future(
            loop.create_connection(
                Connection, host, port, ssl=context, server_hostname=host if context else None
            )
        )
        try:
            done, _ = await asyncio.wait((connecting,), timeout=timeout)
        except BaseException:
            _abandon(connecting)
            raise
        if not done:
            _abandon(connecting)
            raise httpx.ConnectTimeout(f"connecting to {host}:{port} timed out", request=request)
        try:
            _, connection = connecting.result()
        except (OSError, ssl.SSLError) as exc:
            raise httpx.ConnectError(str(exc) or type(exc).__name__, request=request) from None
        return connection

    async def aclose(self) -> None:
        self._closed = True
        for idle in self._idle.values():
            for connection in idle:
                connection.close()
        self._idle.clear()
        if self._fallback is not None:
            await self._fallback.aclose()


def _abandon(connecting: asyncio.Future[tuple[asyncio.Transport, Connection]]) -> None:
    """A connection nobody waits for any more: stop making it, or close it if it is made."""
    if not connecting.done():
        connecting.cancel()  # (create_connection closes its socket when cancelled)
    elif not connecting.cancelled() and connecting.exception() is None:
        connecting.result()[0].close()


def _known_body(request: httpx.Request) -> bytes | None:
    """The request's body when it is all there (httpx's `ByteStream`); None for a streamed one."""
    stream = request.stream
    if isinstance(stream, httpx.ByteStream):
        return b"".join(stream)
    return None


class Body(httpx.AsyncByteStream):
    """A response's body, yielded as it arrives; the connection goes back to the pool once it is read
    to its end, and is closed if the reader stops before."""

    def __init__(
        self,
        owner: LeanHttpTransport,
        origin: Origin,
        connection: Connection,
        request: httpx.Request | None,
        timeout: float | None,
    ) -> None:
        self.owner = owner
        self.origin = origin
        self.connection = connection
        self.request = request
        self.timeout = timeout
        self.done = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        connection = self.connection
        while True:
            if connection.body:
                yield connection.take()
            elif connection.complete:
                break
            elif connection.failure is not None:  # (before the connection's end: that follows from it)
                raise connection.failure
            elif connection.eof:
                if connection.length is not None:
                    left = connection.length - connection.received
                    raise connection._lost(self.request, f"with {left} bytes of the body still to come")
                raise connection._lost(self.request, "in the middle of a chunked body")
            else:
                await connection.more(self.request, self.timeout)
        self.done = True

    async def aclose(self) -> None:
        if self.done or (self.connection.complete and not self.connection.body):
            self.done = True
            self.owner._give_back(self.origin, self.connection)
        else:
            self.connection.close()
