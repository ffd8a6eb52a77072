"""A lean HTTP/1.1 transport for httpx: under the tap of every mcpx HTTP client (`http_common.
default_transport`; `MCPX_HTTP_TRANSPORT=httpx` goes back to httpx's own) and the proxy's upstream POSTs.

`mcpx proxy` in front of an HTTP server makes one POST per message of the host's. Through httpx's default
transport (httpcore on anyio) that cost ~1 ms of CPU a request on the benchmark machine, against ~0.1 ms
for the same exchange written by hand on an asyncio protocol: layers of pools, locks, cancel scopes and
`getpid()`-checking loop look-ups per read and write, and the request's head and body in two writes (the
server wakes twice). The proxy's added latency goal (≤ 1 ms a message) cannot be met on top of that.

This is that exchange on an asyncio protocol, as an `httpx.AsyncBaseTransport`, so everything above it
stays as it is: the transport's session, headers and SSE reading, the auth flow, the redirect rules and
the traffic tap (which wraps it, so the recorded HTTP facts are the same). The responses come from a
server nobody vetted, so they are parsed by llhttp (`httptools`: Node's parser, uvicorn's; ~1 µs a
response), not by hand: a malformed or hostile framing (a negative length, a garbage or overflowing chunk
size) is a `RemoteProtocolError`, and body bytes reach the reader as they arrive, at most `HIGH_WATER` of
them held before the socket is paused (a server announcing a huge chunk and trickling it cannot make the
proxy buffer it whole). It speaks plain HTTP/1.1 only: keep-alive connections per origin (an idle one is
looked at before it is reused: `_Connection.stale`), the head and a known-length body in one write (the
request is formatted here: that is writing, not parsing), bodies by Content-Length, chunked or until
close, TLS with httpx's default context. A request it does not handle (a body of unknown length, a HEAD)
goes to httpx's own transport, and a URL reached through an HTTP(S)_PROXY never gets this transport at
all (`lean_transport_for`).
"""

from __future__ import annotations

import asyncio
import contextlib
import select
import socket
import ssl
from collections import deque
from collections.abc import AsyncIterator

import httptools
import httpx

#: body bytes read from a server and not yet taken by its reader before the socket stops being read
HIGH_WATER = 1 << 20
MAX_HEAD = 1 << 16
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
        self._idle: dict[Origin, list[_Connection]] = {}
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

    def _take(self, origin: Origin) -> _Connection | None:
        idle = self._idle.get(origin)
        while idle:
            connection = idle.pop()
            if connection.reusable() and not connection.stale():
                return connection
            connection.close()
        return None

    def _give_back(self, origin: Origin, connection: _Connection) -> None:
        if self._closed or not connection.reusable():
            connection.close()
        else:
            self._idle.setdefault(origin, []).append(connection)

    async def _connect(
        self, request: httpx.Request | None, origin: Origin, timeout: float | None
    ) -> _Connection:
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
                _Connection, host, port, ssl=context, server_hostname=host if context else None
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


def _abandon(connecting: asyncio.Future[tuple[asyncio.Transport, _Connection]]) -> None:
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


class _Connection(asyncio.Protocol):
    """One keep-alive connection, its responses parsed by llhttp (`httptools`) as their bytes come: the
    head whole, the body's bytes queued for the exchange's reader as they arrive (at most `HIGH_WATER`
    of them before the socket is paused), one waiter at a time."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        #: the socket's descriptor, to ask whether anything waits unread on it (`stale`); -1: unknown
        self.fileno = -1
        self.parser = httptools.HttpResponseParser(self)
        self.eof = False
        self.error: BaseException | None = None
        #: what the server broke (a malformed response): the exchange's next wait raises it
        self.failure: httpx.HTTPError | None = None
        self.waiter: asyncio.Future[None] | None = None
        self.paused = False
        #: the server said `Connection: close`, sent bytes nobody asked for, or a body ran until close:
        #: not to be used again
        self.spent = False
        # -- the exchange under way --
        self.request: httpx.Request | None = None
        self.active = False
        self.head_bytes = 0
        self.reason = b""
        self.headers: list[tuple[bytes, bytes]] = []
        self.head_done = False
        self.interim = False
        self.complete = False
        self.body: deque[bytes] = deque()
        self.buffered = 0
        #: the body's announced length (None: chunked or until close), its bytes so far, and chunked
        self.length: int | None = None
        self.received = 0
        self.chunked = False

    # -- asyncio.Protocol ----------------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # (uvloop's is no asyncio.Transport subclass)
        self.loop = asyncio.get_running_loop()
        sock = transport.get_extra_info("socket")
        if sock is not None:  # one write per request: nothing to gain from Nagle, an ACK's wait to lose
            self.fileno = sock.fileno()
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def data_received(self, data: bytes) -> None:
        if self.failure is not None:
            return
        if not self.active:  # bytes nobody asked for: the connection is out of step
            self.close()
            return
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self._fail(httpx.RemoteProtocolError("the server switched protocols", request=self.request))
            return
        except httptools.HttpParserError as exc:
            what = "body" if self.head_done else "status line or headers"
            self._fail(
                httpx.RemoteProtocolError(f"a malformed response ({what}): {exc}", request=self.request)
            )
            return
        # counted after parsing: a read holding the whole head and a large body is no "long head"
        if not self.head_done:
            self.head_bytes += len(data)
            if self.head_bytes > MAX_HEAD:
                self._fail(httpx.RemoteProtocolError("the response's head is too long", request=self.request))
                return
        if self.buffered > HIGH_WATER and self.transport is not None and not self.paused:
            self.paused = True
            self.transport.pause_reading()
        self._wake()

    def eof_received(self) -> bool:
        self.eof = True
        self._ended()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.eof = True
        self.error = exc
        self._ended()

    def _ended(self) -> None:
        if self.head_done and not self.complete and self.length is None and not self.chunked:
            self.complete = True  # a body until the connection's end, as the head said
        self._wake()

    def _fail(self, failure: httpx.HTTPError) -> None:
        self.failure = failure
        self.close()
        self._wake()

    def _wake(self) -> None:
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    # -- httptools' callbacks ------------------------------------------------------------------------
    def on_message_begin(self) -> None:
        if not self.active:  # a response after the one asked for: the connection is out of step
            self.spent = True

    def on_status(self, reason: bytes) -> None:
        self.reason += reason

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers.append((name, value))
        low = name.lower()
        if low == b"content-length":
            self.length = int(value)  # (llhttp has checked it: digits, not repeated with another value)
        elif low == b"transfer-encoding" and value.lower().endswith(b"chunked"):
            self.chunked = True

    def on_headers_complete(self) -> None:
        status = self.parser.get_status_code()
        if 100 <= status < 200 and status != 101:
            # an interim response (100 Continue, 103 Early Hints): the real one follows
            self.interim = True
            self.reason, self.headers, self.length, self.chunked = b"", [], None, False
            self.head_bytes = 0
            return
        self.head_done = True
        if self.length is None and not self.chunked and status not in (204, 304):
            self.spent = True  # a body until close

    def on_body(self, data: bytes) -> None:
        if not self.active:
            return
        self.body.append(data)
        self.buffered += len(data)
        self.received += len(data)

    def on_message_complete(self) -> None:
        if self.interim:
            self.interim = False
            return
        self.complete = True
        self.active = False
        if not self.parser.should_keep_alive():
            self.spent = True

    # -- the exchange's side -------------------------------------------------------------------------
    def reusable(self) -> bool:
        return (
            not self.spent
            and not self.eof
            and self.failure is None
            and self.transport is not None
            and not self.transport.is_closing()
        )

    def stale(self) -> bool:
        """Something from the server waits unread on this idle connection: its end (an idle keep-alive
        timer's close the loop has not seen yet) or bytes nobody asked for. Either way a request sent
        on it would go nowhere; and a POST cannot be sent again once it may have been read (RFC 9112
        §9.3.1), so, as httpcore does, the socket is asked before the connection is reused (one
        `poll`, ~1 µs), not after it failed."""
        if self.fileno < 0:
            return False
        if not hasattr(select, "poll"):  # (Windows)
            return bool(select.select([self.fileno], [], [], 0)[0])
        poller = select.poll()
        poller.register(self.fileno, select.POLLIN)
        return bool(poller.poll(0))

    def write(self, data: bytes, request: httpx.Request | None) -> None:
        assert self.transport is not None
        if self.transport.is_closing():
            raise httpx.WriteError("the connection was closed before the request went", request=request)
        self.request = request
        self.active, self.head_done, self.complete, self.interim = True, False, False, False
        self.head_bytes, self.reason, self.headers = 0, b"", []
        self.length, self.received, self.chunked = None, 0, False
        self.transport.write(data)

    def close(self) -> None:
        self.spent = True
        if self.transport is not None:
            self.transport.close()

    def take(self) -> bytes:
        """The body's bytes that have come (the socket reads on once they are taken)."""
        data = b"".join(self.body) if len(self.body) > 1 else self.body[0]
        self.body.clear()
        self.buffered = 0
        if self.paused and self.transport is not None:
            self.paused = False
            self.transport.resume_reading()
        return data

    async def more(self, request: httpx.Request | None, timeout: float | None) -> None:
        """Wait for the parser to have more (or for the end of the connection, or a failure)."""
        if self.failure is not None:
            raise self.failure
        if self.eof:
            return
        # (not `get_running_loop()` each time: before Python 3.12 it asks the kernel for the pid)
        loop = self.loop or asyncio.get_running_loop()
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
        if self.failure is not None:
            raise self.failure

    async def read_head(
        self, request: httpx.Request | None, timeout: float | None
    ) -> tuple[int, bytes, list[tuple[bytes, bytes]]]:
        """The response's status, reason and headers."""
        while not self.head_done:
            if self.failure is not None:
                raise self.failure
            if self.eof:
                raise self._lost(request, "without sending a response" if not self.head_bytes else "mid-head")
            await self.more(request, timeout)
        if self.chunked:
            self.length = None  # (a Content-Length beside chunked is ignored, RFC 9112 §6.3)
        return self.parser.get_status_code(), self.reason, self.headers

    def _lost(self, request: httpx.Request | None, when: str) -> httpx.HTTPError:
        if self.error is not None:
            return httpx.ReadError(f"the connection broke {when}: {self.error}", request=request)
        return httpx.RemoteProtocolError(f"Server disconnected {when}.", request=request)


#: public names for `lean_post`, which reads responses without httpx's objects
Connection = _Connection


def _expire(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_exception(asyncio.TimeoutError())


class Body(httpx.AsyncByteStream):
    """A response's body, yielded as it arrives; the connection goes back to the pool once it is read
    to its end, and is closed if the reader stops before."""

    def __init__(
        self,
        owner: LeanHttpTransport,
        origin: Origin,
        connection: _Connection,
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
