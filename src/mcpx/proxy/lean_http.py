"""A lean HTTP/1.1 transport for httpx, for the proxy's upstream POSTs.

`mcpx proxy` in front of an HTTP server makes one POST per message of the host's. Through httpx's default
transport (httpcore on anyio) that cost ~1 ms of CPU a request on the benchmark machine, against ~0.1 ms
for the same exchange written by hand on an asyncio protocol: layers of pools, locks, cancel scopes and
`getpid()`-checking loop look-ups per read and write, and the request's head and body in two writes (the
server wakes twice). The proxy's added latency goal (≤ 1 ms a message) cannot be met on top of that.

This is that hand-written exchange, as an `httpx.AsyncBaseTransport`, so everything above it stays as it
is: the transport's session, headers and SSE reading, the auth flow, the redirect rules and the traffic
tap (which wraps it, so the recorded HTTP facts are the same). It speaks plain HTTP/1.1 only: keep-alive
connections per origin, the head and a known-length body in one write, bodies by Content-Length,
chunked or until close, streamed to the reader as they arrive (an event stream is read while it lasts),
TLS with httpx's default context. A request it does not handle (a body of unknown length) goes to
httpx's own transport, and a URL reached through an HTTP(S)_PROXY never gets this transport at all
(`lean_transport_for`).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
from collections.abc import AsyncIterator

import httpx

#: read from a server before its reader is asked to wait (flow control on the socket)
HIGH_WATER = 1 << 20
MAX_HEAD = 1 << 16
_Origin = tuple[str, str, int]


def lean_transport_for(url: str) -> httpx.AsyncBaseTransport | None:
    """The lean transport for `url`, or None where httpx's own must go (an HTTP(S) proxy applies)."""
    from mcpx.transports.http_common import _proxy_for

    if _proxy_for(url) is not None:
        return None
    return LeanHttpTransport()


class LeanHttpTransport(httpx.AsyncBaseTransport):
    def __init__(self, fallback: httpx.AsyncBaseTransport | None = None) -> None:
        self._idle: dict[_Origin, list[_Connection]] = {}
        self._fallback = fallback
        self._ssl: ssl.SSLContext | None = None
        self._closed = False

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = _known_body(request)
        if body is None or self._closed:
            return await self._fall_back(request)
        url = request.url
        origin = (url.scheme, url.host, url.port or (443 if url.scheme == "https" else 80))
        timeouts: dict[str, float | None] = request.extensions.get("timeout", {})
        connection = self._take(origin) or await self._connect(request, origin, timeouts.get("connect"))
        head = [request.method.encode("ascii"), b" ", url.raw_path, b" HTTP/1.1\r\n"]
        for name, value in request.headers.raw:
            head += (name, b": ", value, b"\r\n")
        head.append(b"\r\n")
        try:
            connection.write(b"".join(head) + body, request)
            status, reason, headers, framing = await connection.read_head(request, timeouts.get("read"))
        except BaseException:
            connection.close()
            raise
        stream = _Body(self, origin, connection, request, framing, timeouts.get("read"))
        return httpx.Response(
            status_code=status,
            headers=headers,
            stream=stream,
            extensions={"http_version": b"HTTP/1.1", "reason_phrase": reason},
        )

    async def _fall_back(self, request: httpx.Request) -> httpx.Response:
        if self._fallback is None:
            self._fallback = httpx.AsyncHTTPTransport(retries=0)
        return await self._fallback.handle_async_request(request)

    def _take(self, origin: _Origin) -> _Connection | None:
        idle = self._idle.get(origin)
        while idle:
            connection = idle.pop()
            if connection.reusable():
                return connection
            connection.close()
        return None

    def _give_back(self, origin: _Origin, connection: _Connection) -> None:
        if self._closed or not connection.reusable():
            connection.close()
        else:
            self._idle.setdefault(origin, []).append(connection)

    async def _connect(self, request: httpx.Request, origin: _Origin, timeout: float | None) -> _Connection:
        scheme, host, port = origin
        loop = asyncio.get_running_loop()
        context = None
        if scheme == "https":
            if self._ssl is None:
                self._ssl = httpx.create_ssl_context()
            context = self._ssl
        try:
            _, connection = await asyncio.wait_for(
                loop.create_connection(
                    _Connection, host, port, ssl=context, server_hostname=host if context else None
                ),
                timeout,
            )
        except asyncio.TimeoutError:
            raise httpx.ConnectTimeout(f"connecting to {host}:{port} timed out", request=request) from None
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


def _known_body(request: httpx.Request) -> bytes | None:
    """The request's body when it is all there (httpx's `ByteStream`); None for a streamed one."""
    stream = request.stream
    if isinstance(stream, httpx.ByteStream):
        return b"".join(stream)
    return None


class _Connection(asyncio.Protocol):
    """One keep-alive connection: bytes in a buffer, one waiter at a time (the exchange's reader)."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.eof = False
        self.error: BaseException | None = None
        self.waiter: asyncio.Future[None] | None = None
        self.paused = False
        #: the server said `Connection: close`, or a body ran until close: not to be used again
        self.spent = False

    # -- asyncio.Protocol ----------------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # (uvloop's is no asyncio.Transport subclass)
        sock = transport.get_extra_info("socket")
        if sock is not None:  # one write per request: nothing to gain from Nagle, an ACK's wait to lose
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if len(self.buffer) > HIGH_WATER and self.transport is not None and not self.paused:
            self.paused = True
            self.transport.pause_reading()
        self._wake()

    def eof_received(self) -> bool:
        self.eof = True
        self._wake()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.eof = True
        self.error = exc
        self._wake()

    def _wake(self) -> None:
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    # -- the exchange's side -------------------------------------------------------------------------
    def reusable(self) -> bool:
        return (
            not self.spent
            and not self.eof
            and not self.buffer  # bytes nobody asked for: the connection is out of step
            and self.transport is not None
            and not self.transport.is_closing()
        )

    def write(self, data: bytes, request: httpx.Request) -> None:
        assert self.transport is not None
        if self.transport.is_closing():
            raise httpx.WriteError("the connection was closed before the request went", request=request)
        self.transport.write(data)

    def close(self) -> None:
        self.spent = True
        if self.transport is not None:
            self.transport.close()

    async def more(self, request: httpx.Request, timeout: float | None) -> bool:
        """Wait for more bytes; False at the end of the connection."""
        if self.paused and self.transport is not None:
            self.paused = False
            self.transport.resume_reading()
        if self.eof:
            return False
        loop = asyncio.get_running_loop()
        waiter = self.waiter = loop.create_future()
        timer = loop.call_later(timeout, _expire, waiter) if timeout is not None else None
        try:
            await waiter
        except asyncio.TimeoutError:
            raise httpx.ReadTimeout("the server did not answer in time", request=request) from None
        finally:
            self.waiter = None
            if timer is not None:
                timer.cancel()
        return bool(self.buffer) or not self.eof

    async def read_head(
        self, request: httpx.Request, timeout: float | None
    ) -> tuple[int, bytes, list[tuple[bytes, bytes]], int]:
        """The response's status, reason and headers, and how its body ends: its length, -1 chunked,
        -2 at the connection's end."""
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                if len(self.buffer) > MAX_HEAD:
                    raise httpx.RemoteProtocolError("the response's head is too long", request=request)
                if not await self.more(request, timeout):
                    raise self._lost(request, "without sending a response" if not self.buffer else "mid-head")
                continue
            head = bytes(self.buffer[:end])
            del self.buffer[: end + 4]
            status, reason, headers = _parse_head(head, request)
            if 100 <= status < 200 and status != 101:
                continue  # an interim response (100 Continue, 103 Early Hints): the real one follows
            break
        framing = -2
        close = head.startswith(b"HTTP/1.0")  # (an HTTP/1.0 server's keep-alive is not worth the guess)
        for name, value in headers:
            low = name.lower()
            if low == b"transfer-encoding" and b"chunked" in value.lower():
                framing = -1
            elif low == b"content-length" and framing != -1:
                try:
                    framing = int(value)
                except ValueError:
                    raise httpx.RemoteProtocolError("a malformed Content-Length", request=request) from None
            elif low == b"connection" and b"close" in value.lower():
                close = True
        if request.method == "HEAD" or status in (204, 304):
            framing = 0  # no body, whatever the head says
        if close or framing == -2:
            self.spent = True
        return status, reason, headers, framing

    def _lost(self, request: httpx.Request, when: str) -> httpx.HTTPError:
        if self.error is not None:
            return httpx.ReadError(f"the connection broke {when}: {self.error}", request=request)
        return httpx.RemoteProtocolError(f"Server disconnected {when}.", request=request)


def _expire(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_exception(asyncio.TimeoutError())


def _parse_head(head: bytes, request: httpx.Request) -> tuple[int, bytes, list[tuple[bytes, bytes]]]:
    lines = head.split(b"\r\n")
    parts = lines[0].split(b" ", 2)
    if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit():
        raise httpx.RemoteProtocolError(f"not an HTTP/1.1 status line: {lines[0][:80]!r}", request=request)
    headers = []
    for line in lines[1:]:
        name, sep, value = line.partition(b":")
        if not sep or not name or name != name.strip():
            raise httpx.RemoteProtocolError(f"a malformed header line: {line[:80]!r}", request=request)
        headers.append((name, value.strip()))
    return int(parts[1]), parts[2] if len(parts) > 2 else b"", headers


class _Body(httpx.AsyncByteStream):
    """A response's body, yielded as it arrives; the connection goes back to the pool once it is read
    to its end, and is closed if the reader stops before."""

    def __init__(
        self,
        owner: LeanHttpTransport,
        origin: _Origin,
        connection: _Connection,
        request: httpx.Request,
        framing: int,
        timeout: float | None,
    ) -> None:
        self.owner = owner
        self.origin = origin
        self.connection = connection
        self.request = request
        #: bytes left (>= 0), -1 chunked, -2 until the connection ends
        self.framing = framing
        self.timeout = timeout
        self.done = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if self.framing == -1:
            async for chunk in self._chunked():
                yield chunk
        else:
            async for chunk in self._plain():
                yield chunk
        self.done = True

    async def _plain(self) -> AsyncIterator[bytes]:
        connection, left = self.connection, self.framing
        while left != 0:
            buffer = connection.buffer
            if buffer:
                take = len(buffer) if left < 0 else min(left, len(buffer))
                chunk = bytes(buffer[:take])
                del buffer[:take]
                if left > 0:
                    left -= take
                yield chunk
                continue
            if not await connection.more(self.request, self.timeout):
                if left < 0:
                    return  # the body ran until the connection's end, as it said
                raise connection._lost(self.request, f"with {left} bytes of the body still to come")

    async def _chunked(self) -> AsyncIterator[bytes]:
        connection = self.connection
        while True:
            line = await self._line()
            size_text = line.split(b";", 1)[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                raise httpx.RemoteProtocolError(
                    f"a malformed chunk size: {line[:40]!r}", request=self.request
                ) from None
            if size == 0:
                while await self._line():  # trailers, up to the empty line
                    pass
                return
            while len(connection.buffer) < size + 2:
                if not await connection.more(self.request, self.timeout):
                    raise connection._lost(self.request, "in the middle of a chunk")
            chunk = bytes(connection.buffer[:size])
            del connection.buffer[: size + 2]
            yield chunk

    async def _line(self) -> bytes:
        connection = self.connection
        while True:
            end = connection.buffer.find(b"\r\n")
            if end >= 0:
                line = bytes(connection.buffer[:end])
                del connection.buffer[: end + 2]
                return line
            if len(connection.buffer) > MAX_HEAD:
                raise httpx.RemoteProtocolError("a chunk's size line is too long", request=self.request)
            if not await connection.more(self.request, self.timeout):
                raise connection._lost(self.request, "between chunks")

    async def aclose(self) -> None:
        if self.done or self.framing == 0:
            self.done = True
            self.owner._give_back(self.origin, self.connection)
        else:
            self.connection.close()
