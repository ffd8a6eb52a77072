"""`mcpx proxy --listen [HOST:]PORT TARGET`: the host's end as a Streamable HTTP endpoint.

For hosts that speak HTTP, and to put a stdio server on the network (on 127.0.0.1 unless told
otherwise). An HTTP/1.1 server on an asyncio protocol (`http_wire` parses and writes the bytes), at any
path (`/mcp` is what the proxy prints):

- POST a message (or a batch): a notification or a response to the server's own request is relayed and
  answered 202; a request is relayed and answered with the server's answer as one JSON reply when that
  answer is all the server sends for it, else with an event stream that carries whatever the server sends
  meanwhile (progress, logs, its own requests) and then the answer (and ends).
- GET opens the stream for messages the server sends outside any request; until one is open they wait.
- DELETE ends the host's session (200). The first answer to `initialize` gives the host an
  `Mcp-Session-Id` of the proxy's own, which later requests may carry (the server behind it may have
  none: stdio).
- A request whose `Origin` is not a loopback address is refused (403): the spec's guard against DNS
  rebinding when the endpoint is on the local machine.
- Old hosts speak the legacy HTTP+SSE transport (2024-11-05): a GET on a path ending in `/sse` opens
  its stream, whose first event (`endpoint`) names where to POST (`…/messages?session_id=…`); what is
  POSTed there is relayed and answered 202, and every answer and message of the server's goes on that
  stream (one such host at a time).

Every host request is a fact in the traffic log with its headers masked; their values are taught to
the session's secret policy first, so they are masked wherever they come back. What of them goes on to a
URL target with the host's frame is `forward.HeaderFilter`'s choice (no credential, unless named).

Nothing here runs in a task of its own: a connection's bytes are parsed in its read callback, and the
server's frames are written to the host from the call that hands them over (`HttpHost.write`), so a
message costs no task, queue or wake-up of the proxy's beyond the reads that bring it. One request at a
time per connection (HTTP/1.1 answers in order): a request that comes while an event stream is open on
its connection waits for that stream's end.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import uuid
from collections import deque
from urllib.parse import urlsplit

import orjson

from mcpx.errors import UsageError
from mcpx.proxy.forward import HeaderFilter
from mcpx.proxy.host import FrameSink
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
from mcpx.wire import TrafficLog

#: server messages kept for a GET stream that is not open yet
BACKLOG = 1_000
MAX_BODY = 64 << 20
#: bytes of requests a connection holds while an event stream is open on it before it stops reading
HELD = 1 << 20


def parse_listen(value: str) -> tuple[str, int]:
    """`[HOST:]PORT` → (host, port); 127.0.0.1 by default."""
    host, sep, port = value.rpartition(":")
    host = host.strip("[]") if sep else "127.0.0.1"
    try:
        number = int(port)
    except ValueError:
        raise UsageError(f"--listen takes [HOST:]PORT, not {value!r}") from None
    if not 0 <= number <= 65535:
        raise UsageError(f"--listen {value!r}: a port is 0 to 65535")
    return host or "127.0.0.1", number


class _Stream:
    """One answer to the host, open: a POST's (waiting for the answers to `ids`), the GET's event stream,
    or a legacy HTTP+SSE host's (`lasting`: it carries answers too and stays open after them).

    `json_ok` (a POST of one request whose host accepts JSON): when the server's answer is the first and
    only thing for it, it goes as one `application/json` reply in one write; anything before it
    (progress, a log, a request of the server's) makes it an event stream, as the spec lets a server
    choose. A POST's event stream has its head written with its first event, and the event that ends it
    with its end; a GET's head goes at once (its host waits on it)."""

    def __init__(
        self,
        connection: _HostConnection,
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


class _HostConnection(asyncio.Protocol):
    """One host connection: requests parsed as their bytes come, answered in order."""

    def __init__(self, host: HttpHost) -> None:
        self.host = host
        self.reader = RequestReader(MAX_BODY)
        self.transport: asyncio.Transport | None = None
        #: the open event stream of the request being answered (later requests wait for its end)
        self.stream: _Stream | None = None
        self.paused = False
        self.closed = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # (uvloop's is no asyncio.Transport subclass)
        self.host._connections.add(self)
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
        self.host._connections.discard(self)
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
        if self.reader.buffer:
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
        held = self.stream is not None and len(self.reader.buffer) > HELD
        if held and not self.paused and self.transport is not None:
            self.paused = True
            self.transport.pause_reading()

    def reply(self, request: HttpRequest, status: int, body: bytes = b"") -> None:
        self.send(response(status, body, content_type="text/plain; charset=utf-8" if body else None,
                           close=request.close))  # fmt: skip
        if request.close:
            self.close()


class HttpHost:
    """The host's end of the proxy over Streamable HTTP (the same face as `HostSide` for the relay)."""

    def __init__(self, host: str, port: int, log: TrafficLog, passing: HeaderFilter | None = None) -> None:
        self._host = host
        self._port = port
        self._log = log
        self._passing = passing if passing is not None else HeaderFilter()
        self._on_frame: FrameSink | None = None
        self._server: asyncio.Server | None = None
        self._answers: dict[object, _Stream] = {}
        self._posts: list[_Stream] = []
        self._listener: _Stream | None = None
        #: the legacy HTTP+SSE host's stream, and the session id its POSTs carry
        self._legacy: _Stream | None = None
        self._legacy_session = ""
        self._backlog: deque[bytes] = deque(maxlen=BACKLOG)
        self._session = uuid.uuid4().hex
        self._connections: set[_HostConnection] = set()
        #: never set by the host (HTTP hosts come and go per request): the proxy runs until stopped
        self.gone = asyncio.Event()
        self.url = ""

    async def start(self, on_frame: FrameSink) -> None:
        self._on_frame = on_frame
        loop = asyncio.get_running_loop()
        try:
            self._server = await loop.create_server(lambda: _HostConnection(self), self._host, self._port)
        except OSError as exc:
            raise UsageError(f"cannot listen on {self._host}:{self._port}: {exc.strerror or exc}") from None
        port = self._server.sockets[0].getsockname()[1]
        shown = f"[{self._host}]" if ":" in self._host else self._host
        self.url = f"http://{shown}:{port}/mcp"

    # -- server → host -------------------------------------------------------------------------------
    def write(self, frame: bytes) -> bool:
        try:
            message = orjson.loads(frame)
        except orjson.JSONDecodeError:
            message = None
        if isinstance(message, dict) and "method" not in message and message.get("id") is not None:
            key = _key(message["id"])
            stream = self._answers.pop(key, None)
            if stream is not None:
                assert stream.ids is not None
                stream.ids.discard(key)
                stream.put(frame, last=not stream.ids)
                return True
        # the server's own requests and notifications: on an open request's stream, else the GET's (or
        # the legacy host's)
        target = self._posts[-1] if self._posts else (self._listener or self._legacy)
        if target is not None:
            target.put(frame)
        else:
            self._backlog.append(frame)
        return True

    def close_output(self) -> None:
        for stream in [*self._posts, *(s for s in (self._listener, self._legacy) if s is not None)]:
            stream.end()
        if self._server is not None:
            self._server.close()
        for connection in list(self._connections):
            connection.close()

    def forget(self, stream: _Stream) -> None:
        """A stream is over (answered, ended or its host gone): nothing more is routed to it."""
        if stream in self._posts:
            self._posts.remove(stream)
        if self._listener is stream:
            self._listener = None
        if self._legacy is stream:
            self._legacy = None
        if stream.ids is None or stream.lasting or stream.ids:
            for rid in [rid for rid, waiting in self._answers.items() if waiting is stream]:
                del self._answers[rid]

    def failed(self, exc: BaseException) -> None:
        with contextlib.suppress(Exception):
            self._log.info(f"the proxy failed to answer the host: {type(exc).__name__}: {exc}", "protocol")

    # -- host → server -------------------------------------------------------------------------------
    def answer(self, connection: _HostConnection, request: HttpRequest) -> None:
        method, headers = request.method, request.headers
        self._log.secrets.learn_headers(headers)  # before anything shows them: masked from here on
        self._log.info(
            f"host {method} {request.target}",
            "http",
            event="host-request",
            method=method,
            headers=self._log.secrets.headers(headers, request=True),
        )
        origin = request.header("origin")
        if origin is not None and urlsplit(origin).hostname not in ("localhost", "127.0.0.1", "::1"):
            connection.reply(request, 403, b"Forbidden: cross-origin request refused")
            return
        path, _, query = request.target.partition("?")
        if method == "POST" and "session_id=" in query:  # a legacy HTTP+SSE host's message
            self._legacy_post(connection, request, query)
        elif method == "POST":
            self._post(connection, request)
        elif method == "GET" and path.rstrip("/").endswith("/sse"):
            self._legacy_get(connection, request, path.rstrip("/")[: -len("sse")] + "messages")
        elif method == "GET":
            self._get(connection, request)
        elif method == "DELETE":  # the host's session ends: so do its streams
            for stream in [*self._posts, *([self._listener] if self._listener else [])]:
                stream.end()
            connection.reply(request, 200)
        else:
            connection.reply(request, 405, b"Method Not Allowed")

    def _post(self, connection: _HostConnection, request: HttpRequest) -> None:
        body = request.body
        try:
            parsed = orjson.loads(body)
        except orjson.JSONDecodeError:
            parsed = None
        messages = parsed if isinstance(parsed, list) else [parsed]
        ids = {
            _key(m["id"])
            for m in messages
            if isinstance(m, dict) and "method" in m and m.get("id") is not None
        }
        if not ids:
            assert self._on_frame is not None
            self._on_frame(_one_line(body), self._passing(request.headers))
            connection.reply(request, 202)
            return
        opening = any(isinstance(m, dict) and m.get("method") == "initialize" for m in messages)
        accept = (request.header("accept") or "").lower()
        json_ok = (
            (not accept or "application/json" in accept or "*/*" in accept)
            and len(ids) == 1
            and not isinstance(parsed, list)  # (a batch's answer is a list)
        )
        extra = [("Mcp-Session-Id", self._session)] if opening else []
        stream = _Stream(connection, ids, extra, json_ok=json_ok, close=request.close)
        connection.stream = stream
        for rid in ids:
            self._answers[rid] = stream
        self._posts.append(stream)
        if not json_ok:
            stream.open()
        assert self._on_frame is not None
        self._on_frame(_one_line(body), self._passing(request.headers))  # (may answer at once)

    def _get(self, connection: _HostConnection, request: HttpRequest) -> None:
        if self._listener is not None:
            connection.reply(request, 409, b"Conflict: a stream is already open")
            return
        stream = self._listener = connection.stream = _Stream(connection, None, [], close=request.close)
        stream.open()
        while self._backlog and not stream.ended:
            stream.put(self._backlog.popleft())

    # -- the legacy HTTP+SSE transport (2024-11-05) ---------------------------------------------------
    def _legacy_get(self, connection: _HostConnection, request: HttpRequest, endpoint: str) -> None:
        if self._legacy is not None:
            connection.reply(request, 409, b"Conflict: an HTTP+SSE stream is already open")
            return
        stream = _Stream(connection, set(), [], lasting=True, close=request.close)
        self._legacy = connection.stream = stream
        self._legacy_session = session = uuid.uuid4().hex
        stream.open(f"event: endpoint\ndata: {endpoint}?session_id={session}\n\n".encode())
        while self._backlog and not stream.ended:
            stream.put(self._backlog.popleft())

    def _legacy_post(self, connection: _HostConnection, request: HttpRequest, query: str) -> None:
        stream = self._legacy
        session = next(
            (v for k, _, v in (p.partition("=") for p in query.split("&")) if k == "session_id"), ""
        )
        if stream is None or session != self._legacy_session:
            connection.reply(request, 404, b"Not Found: no such HTTP+SSE session")
            return
        try:
            parsed = orjson.loads(request.body)
        except orjson.JSONDecodeError:
            parsed = None
        for message in parsed if isinstance(parsed, list) else [parsed]:
            if isinstance(message, dict) and "method" in message and message.get("id") is not None:
                self._answers[_key(message["id"])] = stream  # its answer goes on the host's stream
        connection.reply(request, 202, b"Accepted")  # before the answer can come on the stream
        assert self._on_frame is not None
        self._on_frame(_one_line(request.body), self._passing(request.headers))


def _one_line(body: bytes) -> bytes:
    frame = body.strip()
    if b"\n" in frame:  # a stdio server reads one line per message; JSON line breaks are whitespace
        frame = frame.replace(b"\r\n", b" ").replace(b"\n", b" ")
    return frame


def _key(rid: object) -> object:
    return rid if isinstance(rid, (int, str)) else repr(rid)
