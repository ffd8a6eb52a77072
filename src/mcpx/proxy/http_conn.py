"""The connections of `mcpx proxy --listen`'s host end: one asyncio protocol per host connection that cuts
requests out of its bytes and answers them in order (`HostConnection`), and the answer being written to it
(`Stream`: one JSON reply, or an event stream in chunks). What to answer is `listen.HttpHost`'s choice.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from typing import Protocol

from mcpx.proxy.http_wire import (
    CONTINUE,
    STREAM_END,
    BadRequest,
    HttpRequest,
    RequestReader,
    chunk,
    response,
    stream_head,
)

MAX_BODY = 64 << 20
#: bytes of requests a connection holds while an event stream is open on it before it stops reading
HELD = 1 << 20


class Host(Protocol):
    """What a connection needs of the host end (`listen.HttpHost`)."""

    connections: set[HostConnection]

    def answer(self, connection: HostConnection, request: HttpRequest) -> None: ...

    def forget(self, stream: Stream) -> None:
        """A stream is over (answered, ended or its host gone): nothing more is routed to it."""
        ...

    def failed(self, exc: BaseException) -> None: ...


class Stream:
    """One answer to the host, open: a POST's (waiting for the answers to `ids`), the GET's event stream,
    or a legacy HTTP+SSE host's (`lasting`: it carries answers too and stays open after them).

    `json_ok` (a POST of one request whose host accepts JSON): when the server's answer is the first and
    only thing for it, it goes as one `application/json` reply in one write; anything before it
    (progress, a log, a request of the server's) makes it an event stream, as the spec lets a server
    choose. A POST's event stream has its head written with its first event, and the event that ends it
    with its end; a GET's head goes at once (its host waits on it)."""

    def __init__(
        self,
        connection: HostConnection,
        ids: set[object] | None,
        extra: list[tuple[str, str]],
        *,
        lasting: bool = False,
        json_ok: bool = False,
        close: bool = False,
    ) -> None:
        self.connection = connection
        self.ids = ids
        self.lasting = lasting
        self.json_ok = json_ok
        self.extra = extra
        self.close = close
        self.started = False
        self.ended = False

    def open(self, first: bytes = b"") -> None:
        """Write the head now (and `first`, the legacy transport's endpoint event)."""
        self.started = True
        self.connection.send(stream_head(self.extra, close=self.close) + (chunk(first) if first else b""))

    def put(self, frame: bytes, *, last: bool = False) -> None:
        """One frame of the server's; `last`: the answer that ends this stream (unless it is lasting)."""
        if self.ended:
            return
        ends = last and not self.lasting
        if ends and not self.started and self.json_ok:
            self.started = True
            self.connection.send(
                response(200, frame, self.extra, content_type="application/json", close=self.close)
            )
            self._finish()
            return
        data = b"" if self.started else stream_head(self.extra, close=self.close)
        self.started = True
        data += chunk(b"event: message\ndata: " + frame + b"\n\n")
        if ends:
            self.connection.send(data + STREAM_END)
            self._finish()
        else:
            self.connection.send(data)

    def end(self) -> None:
        if self.ended:
            return
        data = b"" if self.started else stream_head(self.extra, close=self.close)
        self.started = True
        self.connection.send(data + STREAM_END)
        self._finish()

    def drop(self) -> None:
        """The host went away: nothing more is written."""
        if not self.ended:
            self.ended = True
            self.connection.host.forget(self)

    def _finish(self) -> None:
        self.ended = True
        self.connection.host.forget(self)
        self.connection.answered(self.close)


class HostConnection(asyncio.Protocol):
    """One host connection: requests parsed as their bytes come, answered in order."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self.reader = RequestReader(MAX_BODY)
        self.transport: asyncio.Transport | None = None
        #: the open event stream of the request being answered (later requests wait for its end)
        self.stream: Stream | None = None
        self.paused = False
        self.closed = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # (uvloop's is no asyncio.Transport subclass)
        self.host.connections.add(self)
        sock = transport.get_extra_info("socket")
        if sock is not None:  # an event stream is many small writes: none may wait for the last one's ACK
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        self._serve()

    def eof_received(self) -> bool:
        return False  # the host is done sending: the connection closes (a half-closed host reads no more)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.host.connections.discard(self)
        if self.stream is not None:
            self.stream.drop()
            self.stream = None

    def send(self, data: bytes) -> None:
        if not self.closed and self.transport is not None:
            self.transport.write(data)

    def close(self) -> None:
        if not self.closed and self.transport is not None:
            self.closed = True
            self.transport.close()

    def answered(self, close: bool) -> None:
        """The current request's answer is whole: close if it said so, else serve what waits."""
        self.stream = None
        if close:
            self.close()
            return
        if self.paused and self.transport is not None:
            self.paused = False
            self.transport.resume_reading()
        if self.reader.has_more():
            asyncio.get_running_loop().call_soon(self._serve)

    def _serve(self) -> None:
        while self.stream is None and not self.closed:
            try:
                request = self.reader.next()
            except BadRequest as exc:
                self.send(response(exc.status, f"{exc}".encode(), content_type="text/plain", close=True))
                self.close()
                return
            if request is None:
                if self.reader.waits_for_continue():
                    self.reader.continued = True
                    self.send(CONTINUE)
                return
            try:
                self.host.answer(self, request)
            except Exception as exc:  # the proxy's own failure: this host gets a 500, the others go on
                self.host.failed(exc)
                self.send(response(500, b"", close=True))
                self.close()
                return
        held = self.stream is not None and self.reader.pending > HELD
        if held and not self.paused and self.transport is not None:
            self.paused = True
            self.transport.pause_reading()

    def reply(self, request: HttpRequest, status: int, body: bytes = b"") -> None:
        self.send(response(status, body, content_type="text/plain; charset=utf-8" if body else None,
                           close=request.close))  # fmt: skip
        if request.close:
            self.close()
