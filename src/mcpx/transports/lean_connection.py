"""One keep-alive HTTP/1.1 connection of the lean transport (`lean_http.py`): an asyncio protocol whose
responses llhttp (`httptools`) parses, with its body bytes buffered up to `HIGH_WATER` before the socket is
paused. `LeanHttpTransport` pools these per origin; `lean_post` reads replies from them directly.
"""

from __future__ import annotations

import asyncio
import contextlib
import select
import socket
from collections import deque

import httptools
import httpx

#: body bytes read from a server and not yet taken by its reader before the socket stops being read
HIGH_WATER = 1 << 20
MAX_HEAD = 1 << 16


class Connection(asyncio.Protocol):
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


def _expire(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_exception(asyncio.TimeoutError())
