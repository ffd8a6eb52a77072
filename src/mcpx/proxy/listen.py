"""`mcpx proxy --listen [HOST:]PORT TARGET`: the host's end as a Streamable HTTP endpoint.

For hosts that speak HTTP, and to put a stdio server on the network (on 127.0.0.1 unless told
otherwise). An HTTP/1.1 server on asyncio and h11 (already there under httpx), at any path (`/mcp` is
what the proxy prints):

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
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import uuid
from collections import deque
from urllib.parse import urlsplit

import h11
import orjson

from mcpx.errors import UsageError
from mcpx.proxy.forward import HeaderFilter
from mcpx.proxy.host import FrameSink
from mcpx.wire import TrafficLog

#: server messages kept for a GET stream that is not open yet
BACKLOG = 1_000
MAX_BODY = 64 << 20


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
    """One answer to the host: a POST's (waiting for the answers to `ids`), the GET's event stream, or a
    legacy HTTP+SSE host's (`lasting`: it carries answers too and stays open after them).

    Frames wait in `items` (None: the end) and wake the one writer that waits on them."""

    def __init__(self, ids: set[object] | None, *, lasting: bool = False) -> None:
        self.ids = ids
        self.lasting = lasting
        self.items: deque[bytes | None] = deque()
        self.ended = False
        self._waiter: asyncio.Future[None] | None = None

    def put(self, frame: bytes) -> None:
        self.items.append(frame)
        self.wake()

    def end(self) -> None:
        if not self.ended:
            self.ended = True
            self.items.append(None)
            self.wake()

    def wake(self, *_: object) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def wait(self) -> None:
        """Until a frame or the end is there (or `wake` is called for another reason)."""
        if not self.items:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None


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
        self._connections: set[asyncio.StreamWriter] = set()
        #: never set by the host (HTTP hosts come and go per request): the proxy runs until stopped
        self.gone = asyncio.Event()
        self.url = ""

    async def start(self, on_frame: FrameSink) -> None:
        self._on_frame = on_frame
        try:
            self._server = await asyncio.start_server(self._accept, self._host, self._port)
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
            stream = self._answers.pop(_key(message["id"]), None)
            if stream is not None:
                stream.put(frame)
                assert stream.ids is not None
                stream.ids.discard(_key(message["id"]))
                if not stream.ids and not stream.lasting:
                    stream.end()
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
        for writer in list(self._connections):
            writer.close()

    # -- host → server -------------------------------------------------------------------------------
    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._connections.add(writer)
        sock = writer.get_extra_info("socket")
        if sock is not None:  # an event stream is many small writes: none may wait for the last one's ACK
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        connection = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_BODY)
        try:
            while True:
                request, body = await _read_request(connection, reader)
                if request is None:
                    return
                await self._answer(connection, reader, writer, request, body)
                if connection.our_state is h11.MUST_CLOSE or connection.their_state is h11.MUST_CLOSE:
                    return
                connection.start_next_cycle()
        except (
            h11.RemoteProtocolError,
            h11.LocalProtocolError,
            ConnectionError,
            asyncio.IncompleteReadError,
        ):
            return
        finally:
            self._connections.discard(writer)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _answer(
        self,
        connection: h11.Connection,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        request: h11.Request,
        body: bytes,
    ) -> None:
        method = request.method.decode()
        headers = [(name.decode("latin-1"), value.decode("latin-1")) for name, value in request.headers]
        self._log.secrets.learn_headers(headers)  # before anything shows them: masked from here on
        self._log.info(
            f"host {method} {request.target.decode('latin-1')}",
            "http",
            event="host-request",
            method=method,
            headers=self._log.secrets.headers(headers, request=True),
        )
        origin = next((value for name, value in headers if name.lower() == "origin"), None)
        if origin is not None and urlsplit(origin).hostname not in ("localhost", "127.0.0.1", "::1"):
            await _send(connection, writer, 403, b"Forbidden: cross-origin request refused")
            return
        path, _, query = request.target.decode("latin-1").partition("?")
        if method == "POST" and "session_id=" in query:  # a legacy HTTP+SSE host's message
            await self._legacy_post(connection, writer, body, query, self._passing(headers))
        elif method == "POST":
            accept = ",".join(v for n, v in headers if n.lower() == "accept").lower()
            json_ok = not accept or "application/json" in accept or "*/*" in accept
            await self._post(connection, reader, writer, body, self._passing(headers), json_ok)
        elif method == "GET" and path.rstrip("/").endswith("/sse"):
            await self._legacy_get(connection, reader, writer, path.rstrip("/")[: -len("sse")] + "messages")
        elif method == "GET":
            await self._get(connection, reader, writer)
        elif method == "DELETE":  # the host's session ends: so do its streams
            for stream in [*self._posts, *([self._listener] if self._listener else [])]:
                stream.end()
            await _send(connection, writer, 200, b"")
        else:
            await _send(connection, writer, 405, b"Method Not Allowed")

    async def _post(
        self,
        connection: h11.Connection,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        body: bytes,
        passed: dict[str, str],
        json_ok: bool = True,
    ) -> None:
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
        opening = any(isinstance(m, dict) and m.get("method") == "initialize" for m in messages)
        stream = _Stream(ids) if ids else None
        if stream is not None:
            for rid in ids:
                self._answers[rid] = stream
            self._posts.append(stream)
        assert self._on_frame is not None
        self._on_frame(_one_line(body), passed)
        if stream is None:
            await _send(connection, writer, 202, b"")
            return
        extra = [("Mcp-Session-Id", self._session)] if opening else []
        json_ok = json_ok and len(ids) == 1 and not isinstance(parsed, list)  # (a batch's answer is a list)
        try:
            await _stream(connection, writer, reader, stream, extra, json_ok=json_ok)
        finally:
            if stream in self._posts:
                self._posts.remove(stream)
            for rid in ids:
                if self._answers.get(rid) is stream:
                    del self._answers[rid]

    async def _get(
        self, connection: h11.Connection, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        if self._listener is not None:
            await _send(connection, writer, 409, b"Conflict: a stream is already open")
            return
        stream = self._listener = _Stream(None)
        while self._backlog:
            stream.put(self._backlog.popleft())
        try:
            await _stream(connection, writer, reader, stream, [])
        finally:
            self._listener = None

    # -- the legacy HTTP+SSE transport (2024-11-05) ---------------------------------------------------
    async def _legacy_get(
        self,
        connection: h11.Connection,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        endpoint: str,
    ) -> None:
        if self._legacy is not None:
            await _send(connection, writer, 409, b"Conflict: an HTTP+SSE stream is already open")
            return
        stream = self._legacy = _Stream(set(), lasting=True)
        self._legacy_session = session = uuid.uuid4().hex
        first = f"event: endpoint\ndata: {endpoint}?session_id={session}\n\n".encode()
        while self._backlog:
            stream.put(self._backlog.popleft())
        try:
            await _stream(connection, writer, reader, stream, [], first)
        finally:
            self._legacy = None
            for rid in [rid for rid, waiting in self._answers.items() if waiting is stream]:
                del self._answers[rid]

    async def _legacy_post(
        self,
        connection: h11.Connection,
        writer: asyncio.StreamWriter,
        body: bytes,
        query: str,
        passed: dict[str, str],
    ) -> None:
        stream = self._legacy
        session = next(
            (v for k, _, v in (p.partition("=") for p in query.split("&")) if k == "session_id"), ""
        )
        if stream is None or session != self._legacy_session:
            await _send(connection, writer, 404, b"Not Found: no such HTTP+SSE session")
            return
        try:
            parsed = orjson.loads(body)
        except orjson.JSONDecodeError:
            parsed = None
        for message in parsed if isinstance(parsed, list) else [parsed]:
            if isinstance(message, dict) and "method" in message and message.get("id") is not None:
                self._answers[_key(message["id"])] = stream  # its answer goes on the host's stream
        assert self._on_frame is not None
        self._on_frame(_one_line(body), passed)
        await _send(connection, writer, 202, b"Accepted")


def _one_line(body: bytes) -> bytes:
    frame = body.strip()
    if b"\n" in frame:  # a stdio server reads one line per message; JSON line breaks are whitespace
        frame = frame.replace(b"\r\n", b" ").replace(b"\n", b" ")
    return frame


def _key(rid: object) -> object:
    return rid if isinstance(rid, (int, str)) else repr(rid)


async def _read_request(
    connection: h11.Connection, reader: asyncio.StreamReader
) -> tuple[h11.Request | None, bytes]:
    request: h11.Request | None = None
    body: list[bytes] = []
    while True:
        event = connection.next_event()
        if event is h11.NEED_DATA:
            data = await reader.read(1 << 16)
            connection.receive_data(data)
            if not data and connection.their_state is h11.IDLE:
                return None, b""
            continue
        if isinstance(event, h11.Request):
            request = event
        elif isinstance(event, h11.Data):
            body.append(bytes(event.data))
        elif isinstance(event, h11.EndOfMessage):
            return request, b"".join(body)
        elif isinstance(event, h11.ConnectionClosed) or event is h11.PAUSED:
            return None, b""


async def _send(connection: h11.Connection, writer: asyncio.StreamWriter, status: int, body: bytes) -> None:
    headers = [("Content-Length", str(len(body)))]
    if body:
        headers.append(("Content-Type", "text/plain; charset=utf-8"))
    writer.write(connection.send(h11.Response(status_code=status, headers=headers)) or b"")
    if body:
        writer.write(connection.send(h11.Data(data=body)) or b"")
    writer.write(connection.send(h11.EndOfMessage()) or b"")
    await writer.drain()


async def _stream(
    connection: h11.Connection,
    writer: asyncio.StreamWriter,
    reader: asyncio.StreamReader,
    stream: _Stream,
    extra: list[tuple[str, str]],
    first: bytes = b"",
    *,
    json_ok: bool = False,
) -> None:
    """The answer to one host request, until `stream` ends or the host goes away (its end of the
    connection is read meanwhile: bytes it sends, a pipelined request, are handed back to h11).

    `json_ok` (a POST of one request whose host accepts JSON): when the server's answer is the first and
    only thing for it, it goes as one `application/json` reply in one write; anything before it (progress,
    a log, a request of the server's) makes it an event stream, as the spec lets a server choose. An event
    stream's head goes with its first event, and the event that ends it with its end."""
    gone = asyncio.ensure_future(reader.read(1 << 16))
    gone.add_done_callback(stream.wake)
    head: bytes | None = None
    try:
        if not json_ok:  # a GET's (or the legacy host's) stream: its head goes at once, the host waits on it
            head = _event_head(connection, extra)
            writer.write(head + ((connection.send(h11.Data(data=first)) or b"") if first else b""))
            await writer.drain()
        while True:
            if not stream.items:
                if not gone.done():
                    await stream.wait()
                if gone.done() and not stream.items:
                    if not gone.result():  # the host closed the connection: nobody reads this any more
                        return
                    connection.receive_data(gone.result())  # the next request, early: h11 keeps it
                    gone = asyncio.ensure_future(reader.read(1 << 16))
                    gone.add_done_callback(stream.wake)
                    continue
            frame = stream.items.popleft()
            if head is None and frame is not None and json_ok and stream.items and stream.items[0] is None:
                # the answer alone: one JSON reply
                headers = [("Content-Type", "application/json"), ("Content-Length", str(len(frame))), *extra]
                data = connection.send(h11.Response(status_code=200, headers=headers)) or b""
                data += connection.send(h11.Data(data=frame)) or b""
                writer.write(data + (connection.send(h11.EndOfMessage()) or b""))
                await writer.drain()
                return
            data = b""
            if head is None:
                data = head = _event_head(connection, extra)
            if frame is None:
                writer.write(data + (connection.send(h11.EndOfMessage()) or b""))
                await writer.drain()
                return
            data += connection.send(h11.Data(data=b"event: message\ndata: " + frame + b"\n\n")) or b""
            if stream.items and stream.items[0] is None:  # the answer that ends it: one write, not two
                stream.items.popleft()
                data += connection.send(h11.EndOfMessage()) or b""
                writer.write(data)
                await writer.drain()
                return
            writer.write(data)
            await writer.drain()
    finally:
        # a read cancelled before it returned takes nothing from the reader; it must have finished before
        # the next request is read (a stream reader takes one reader at a time)
        gone.remove_done_callback(stream.wake)
        gone.cancel()
        try:
            early = await gone
        except asyncio.CancelledError:
            early = b""
        if early:
            connection.receive_data(early)


def _event_head(connection: h11.Connection, extra: list[tuple[str, str]]) -> bytes:
    headers = [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"), *extra]
    return connection.send(h11.Response(status_code=200, headers=headers)) or b""
