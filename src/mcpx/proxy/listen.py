"""`mcpx proxy --listen [HOST:]PORT TARGET`: the host's end as a Streamable HTTP endpoint.

For hosts that speak HTTP, and to put a stdio server on the network (on 127.0.0.1 unless told
otherwise). An HTTP/1.1 server on an asyncio protocol (`http_conn`, one per connection; `http_wire` parses
and writes the bytes), at any path (`/mcp` is what the proxy prints):

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
import uuid
from collections import deque
from urllib.parse import urlsplit

import orjson

from mcpx.errors import UsageError
from mcpx.proxy.forward import HeaderFilter
from mcpx.proxy.host import FrameSink
from mcpx.proxy.http_conn import HostConnection, Stream
from mcpx.proxy.http_wire import HttpRequest
from mcpx.wire import ErrorResponse, Message, Notification, Request, Response, TrafficLog

#: server messages kept for a GET stream that is not open yet
BACKLOG = 1_000
#: host header lines remembered as shown before the memory starts again
SHOWN_LINES = 512


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


class HttpHost:
    """The host's end of the proxy over Streamable HTTP (the same face as `HostSide` for the relay)."""

    def __init__(self, host: str, port: int, log: TrafficLog, passing: HeaderFilter | None = None) -> None:
        self._host = host
        self._port = port
        self._log = log
        self._passing = passing if passing is not None else HeaderFilter()
        self._on_frame: FrameSink | None = None
        self._server: asyncio.Server | None = None
        self._answers: dict[object, Stream] = {}
        self._posts: list[Stream] = []
        self._listener: Stream | None = None
        #: the legacy HTTP+SSE host's stream, and the session id its POSTs carry
        self._legacy: Stream | None = None
        self._legacy_session = ""
        self._backlog: deque[bytes] = deque(maxlen=BACKLOG)
        self._session = uuid.uuid4().hex
        #: host header lines as shown, while the secret policy stays as it was (`_shown`)
        self._shown_lines: dict[tuple[str, str], str] = {}
        self._shown_under: tuple[object, object] = (None, None)
        self.connections: set[HostConnection] = set()
        #: never set by the host (HTTP hosts come and go per request): the proxy runs until stopped
        self.gone = asyncio.Event()
        self.url = ""

    async def start(self, on_frame: FrameSink) -> None:
        self._on_frame = on_frame
        loop = asyncio.get_running_loop()
        try:
            self._server = await loop.create_server(lambda: HostConnection(self), self._host, self._port)
        except OSError as exc:
            raise UsageError(f"cannot listen on {self._host}:{self._port}: {exc.strerror or exc}") from None
        port = self._server.sockets[0].getsockname()[1]
        shown = f"[{self._host}]" if ":" in self._host else self._host
        self.url = f"http://{shown}:{port}/mcp"

    # -- server → host -------------------------------------------------------------------------------
    def write(self, frame: bytes, message: Message | None = None) -> bool:
        """One frame of the server's; `message`, its decode where the caller has it (it spares parsing
        the frame again to find the id it answers: a large result's whole JSON)."""
        if isinstance(message, (Response, ErrorResponse)):
            rid: object = message.id
        elif isinstance(message, (Request, Notification)):
            rid = None
        else:  # not decoded, or malformed: a dict with an id and no method still answers that id
            rid = _answered(frame)
        if rid is not None:
            key = _key(rid)
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
        for connection in list(self.connections):
            connection.close()

    def forget(self, stream: Stream) -> None:
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
    def answer(self, connection: HostConnection, request: HttpRequest) -> None:
        method = request.method
        self._log.info(
            f"host {method} {request.target}",
            "http",
            event="host-request",
            method=method,
            headers=self._shown(request.headers),
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

    def _shown(self, headers: list[tuple[str, str]]) -> dict[str, str]:
        """The host's headers as logged: learned by the secret policy first (masked from then on, wherever
        they come back), then masked. A host sends the same header lines request after request: each
        line's masking is remembered while the policy stays as it was (as the HTTP tap does)."""
        policy = self._log.secrets
        shown = self._shown_lines
        if not shown.keys() >= set(headers):
            policy.learn_headers(headers)
            if len(shown) > SHOWN_LINES:
                shown.clear()
        ordered, named = policy.generation
        if ordered is not self._shown_under[0] or named is not self._shown_under[1]:
            shown.clear()
            self._shown_under = (ordered, named)
        out: dict[str, str] = {}
        for line in headers:
            value = shown.get(line)
            if value is None:
                value = shown[line] = policy.header(line[0], line[1], request=True)
            name = line[0]
            out[name] = f"{out[name]}, {value}" if name in out else value
        return out

    def _post(self, connection: HostConnection, request: HttpRequest) -> None:
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
        stream = Stream(connection, ids, extra, json_ok=json_ok, close=request.close)
        connection.stream = stream
        for rid in ids:
            self._answers[rid] = stream
        self._posts.append(stream)
        if not json_ok:
            stream.open()
        assert self._on_frame is not None
        self._on_frame(_one_line(body), self._passing(request.headers))  # (may answer at once)

    def _get(self, connection: HostConnection, request: HttpRequest) -> None:
        if self._listener is not None:
            connection.reply(request, 409, b"Conflict: a stream is already open")
            return
        stream = self._listener = connection.stream = Stream(connection, None, [], close=request.close)
        stream.open()
        while self._backlog and not stream.ended:
            stream.put(self._backlog.popleft())

    # -- the legacy HTTP+SSE transport (2024-11-05) ---------------------------------------------------
    def _legacy_get(self, connection: HostConnection, request: HttpRequest, endpoint: str) -> None:
        if self._legacy is not None:
            connection.reply(request, 409, b"Conflict: an HTTP+SSE stream is already open")
            return
        stream = Stream(connection, set(), [], lasting=True, close=request.close)
        self._legacy = connection.stream = stream
        self._legacy_session = session = uuid.uuid4().hex
        stream.open(f"event: endpoint\ndata: {endpoint}?session_id={session}\n\n".encode())
        while self._backlog and not stream.ended:
            stream.put(self._backlog.popleft())

    def _legacy_post(self, connection: HostConnection, request: HttpRequest, query: str) -> None:
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


def _answered(frame: bytes) -> object:
    """The id a frame answers (one with an id and no method), or None."""
    try:
        message = orjson.loads(frame)
    except orjson.JSONDecodeError:
        return None
    if isinstance(message, dict) and "method" not in message:
        return message.get("id")
    return None


def _one_line(body: bytes) -> bytes:
    frame = body.strip()
    if b"\n" in frame:  # a stdio server reads one line per message; JSON line breaks are whitespace
        frame = frame.replace(b"\r\n", b" ").replace(b"\n", b" ")
    return frame


def _key(rid: object) -> object:
    return rid if isinstance(rid, (int, str)) else repr(rid)
