"""The server's end of a proxy: a stdio process mcpx starts, or a remote server over HTTP.

Both log every frame into the session's traffic log (host → server as `out`, server → host as `in`, as
if mcpx were the client: a proxied session reads like any recording) and hand the server's frames to
the relay in the transport's own read callback where the transport allows it.

stdio relays the host's bytes exactly: between a stdio host and a stdio server (`relay_exactly`) each
chunk read from either goes on whole, at once, and its frames are logged after (line endings, blank lines
and all, as a pipe would carry them); behind an HTTP host each frame goes as one line
(`StdioTransport.send_bytes`). HTTP POSTs the host's frame as its
body; it mirrors into headers what the host's frames say (the negotiated version after `initialize`;
in the handshake-free era each request's `Mcp-Method`, `Mcp-Name` and version from its `_meta`), which
is what a stdio-only host cannot do itself.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from mcpx.errors import McpxError
from mcpx.target import ServerSpec
from mcpx.transports.base import (
    HeaderMirroring,
    HeaderPassing,
    Mirrored,
    ProtocolVersionAware,
    PushReceiving,
    Transport,
)
from mcpx.transports.open import open_transport
from mcpx.transports.stdio import StdioTransport
from mcpx.wire import Message, Notification, Request, Response, TrafficEvent, TrafficLog
from mcpx.wire.jsonrpc import decode

ServerFrame = Callable[[TrafficEvent], None]
#: called when the server cannot be reached for a host's request: (the request, why)
Unanswered = Callable[[Request, str], None]
VERSION_META = "io.modelcontextprotocol/protocolVersion"
#: bytes waiting for a stdio server to read them before the host is held back
BACKLOG = 1 << 20


class Upstream(Protocol):
    """What the relay needs of the server's side."""

    @property
    def transport(self) -> Transport: ...

    async def start(self, on_frame: ServerFrame, unanswered: Unanswered) -> None: ...

    def relay(self, line: bytes, headers: Mapping[str, str] | None = None) -> None:
        """Send one frame of the host's, as it came (raises `McpxError` when the server is gone), with
        the host's request headers to pass on where the server is reached over HTTP."""
        ...

    async def ended(self) -> None:
        """Until the server's side is over by itself (its process exited, its output ended)."""
        ...

    async def close(self) -> None: ...

    def hold(self, held: bool) -> None:
        """Stop taking the server's frames for now (the host is not reading them), or go on."""
        ...

    @property
    def exit_code(self) -> int:
        """What the proxy exits with when the server ended first (a dead server's code)."""
        ...


def open_upstream(spec: ServerSpec, log: TrafficLog) -> Upstream:
    if spec.command is not None and spec.transport in ("stdio", "auto"):
        return StdioUpstream(spec, log)
    from mcpx.transports.lean_http import lean_transport_for

    lean = lean_transport_for(spec.url) if spec.url is not None else None
    return HttpUpstream(spec, log, lean)


class StdioUpstream:
    def __init__(self, spec: ServerSpec, log: TrafficLog) -> None:
        assert spec.command is not None
        self._transport = StdioTransport(spec.command, traffic=log, env=spec.env, cwd=spec.cwd)
        self._drain: asyncio.Task[None] | None = None
        #: told True when the server stops reading what the host sends, False once it has caught up
        self.on_full: Callable[[bool], None] | None = None
        self._draining: asyncio.Task[None] | None = None
        self._exact = False

    @property
    def transport(self) -> StdioTransport:
        return self._transport

    async def start(self, on_frame: ServerFrame, unanswered: Unanswered) -> None:
        self.transport.receive_with(on_frame)  # from the first frame on, in the read callback
        await self.transport.start()
        self._drain = asyncio.create_task(self._read(on_frame), name="mcpx-proxy-server")

    async def _read(self, on_frame: ServerFrame) -> None:
        # with a sink set the iterator yields nothing new; it ends (after the process) when the server does
        with contextlib.suppress(Exception):
            async for event in self.transport:
                on_frame(event)

    def relay_exactly(self, to_host: Callable[[bytes], None]) -> None:
        """Between two stdio ends: the server's chunks go to `to_host` whole as they are read (its frames
        logged after, `\\r` kept), and the host's come in through `forward`. Set before `start()`."""
        self._exact = True
        self.transport.relay_output(to_host)

    def forward(self, data: bytes) -> None:
        """A chunk of the host's, written as it came (`relay_exactly`); its frames follow in `relay`."""
        self.transport.write_raw(data)
        self._check_backlog()

    def relay(self, line: bytes, headers: Mapping[str, str] | None = None) -> None:
        if self._exact:  # already written with its chunk: logged here
            self.transport.traffic.sent_raw(line, "stdio")
            return
        self.transport.send_bytes(line)
        self._check_backlog()

    def _check_backlog(self) -> None:
        if self._draining is None and self.on_full is not None and self.transport.input_backlog() > BACKLOG:
            # the server is not reading: the host waits (its writes block on a full pipe), as it would
            # writing to the server itself, instead of the proxy buffering without bound
            self.on_full(True)
            self._draining = asyncio.create_task(self._wait_drained(self.on_full))

    async def _wait_drained(self, on_full: Callable[[bool], None]) -> None:
        try:
            await self.transport.input_drained()
        finally:
            self._draining = None
            on_full(False)

    def hold(self, held: bool) -> None:
        self.transport.hold_output(held)

    async def ended(self) -> None:
        assert self._drain is not None
        await asyncio.shield(self._drain)

    async def close(self) -> None:
        if self._draining is not None:
            self._draining.cancel()
        await self.transport.close()
        if self._drain is not None:
            self._drain.cancel()

    @property
    def exit_code(self) -> int:
        code = self.transport.returncode
        if code is None:
            return 1
        return 128 - code if code < 0 else code  # killed by a signal: the shell's way of saying it


class HttpUpstream:
    def __init__(self, spec: ServerSpec, log: TrafficLog, http_transport: object = None) -> None:
        # `http_transport`: the proxy's lean HTTP/1.1 exchange (`lean_http`) under the tap, or httpx's own
        self._transport = open_transport(spec, log, http_transport=http_transport)
        self._log = log
        self._reader: asyncio.Task[None] | None = None
        self._sends: set[asyncio.Task[None]] = set()
        self._unanswered: Unanswered | None = None
        self._version: str | None = None
        #: resolved when the handshake's POST is over (None: no handshake in flight or ever)
        self._gate: asyncio.Future[None] | None = None
        #: the host's headers to pass on, by the message they came with (while its POST is being made)
        self._passed: dict[int, Mapping[str, str]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def transport(self) -> Transport:
        return self._transport

    async def start(self, on_frame: ServerFrame, unanswered: Unanswered) -> None:
        self._unanswered = unanswered
        self._loop = asyncio.get_running_loop()

        def heard(event: TrafficEvent) -> None:
            self._learn(event)
            on_frame(event)

        transport = self.transport
        if isinstance(transport, HeaderMirroring):
            transport.mirror_headers(_mirror)
        if isinstance(transport, HeaderPassing):
            transport.pass_headers(lambda message: self._passed.get(id(message)))
        await transport.start()
        if isinstance(transport, PushReceiving):
            transport.receive_with(heard)
        self._reader = asyncio.create_task(self._read(heard), name="mcpx-proxy-server")

    async def _read(self, heard: ServerFrame) -> None:
        with contextlib.suppress(Exception):
            async for event in self.transport:
                heard(event)

    def _learn(self, event: TrafficEvent) -> None:
        """The legacy era's version, from the server's answer to `initialize`, goes into every later
        request's `MCP-Protocol-Version` header (the transport learns it from the layer above)."""
        message = event.message
        if (
            event.method == "initialize"
            and isinstance(message, Response)
            and isinstance(message.result, dict)
        ):
            version = message.result.get("protocolVersion")
            if isinstance(version, str) and isinstance(self.transport, ProtocolVersionAware):
                self._version = version
                self.transport.set_protocol_version(version)

    def relay(self, line: bytes, headers: Mapping[str, str] | None = None) -> None:
        decoded = decode(line)
        message = decoded.message
        before = self._gate
        opens = None
        # (the loop's own: `asyncio.create_task` asks the kernel for the pid before Python 3.12)
        loop = self._loop or asyncio.get_running_loop()
        if (isinstance(message, Request) and message.method == "initialize") or isinstance(
            message, Notification
        ):
            # what follows the handshake waits for its answer: that answer brings the session id (and
            # decides Streamable HTTP or HTTP+SSE) every later POST needs; a host that pipelines its
            # first frames must not have them sent without it. What follows a notification waits for
            # its POST (a 202, quick): POSTs run side by side and could otherwise overtake it, and
            # `notifications/initialized` must reach the server before the requests sent after it
            opens = self._gate = loop.create_future()
        task = loop.create_task(self._send(decoded.text, message, before, opens, headers))
        self._sends.add(task)
        task.add_done_callback(self._sends.discard)

    async def _send(
        self,
        text: str,
        message: Message,
        before: asyncio.Future[None] | None,
        opens: asyncio.Future[None] | None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        if headers:
            self._passed[id(message)] = headers
        try:
            if before is not None:
                await asyncio.shield(before)
            await self.transport.send(text, message)  # lasts until the answer has been read
        except McpxError as exc:
            if isinstance(message, Request) and self._unanswered is not None:
                self._unanswered(message, str(self._log.secrets.error(exc)))
        except Exception as exc:  # the proxy's own failure: the host still gets an answer
            if isinstance(message, Request) and self._unanswered is not None:
                self._unanswered(message, f"{type(exc).__name__}: {exc}")
        finally:
            self._passed.pop(id(message), None)
            if opens is not None and not opens.done():
                opens.set_result(None)

    def hold(self, held: bool) -> None:
        pass  # answers come in per POST; a host that does not read holds its own requests back

    async def ended(self) -> None:
        assert self._reader is not None
        await asyncio.shield(self._reader)

    async def close(self) -> None:
        for task in list(self._sends):
            task.cancel()
        await self.transport.close()
        if self._reader is not None:
            self._reader.cancel()

    @property
    def exit_code(self) -> int:
        return 1


def _mirror(message: Message) -> Mirrored | None:
    """The handshake-free era's headers for a host's request that carries that era's `_meta`; None for
    the handshake era's messages (the transport then sends its session headers)."""
    from mcpx.protocol.http_headers import message_headers

    if not isinstance(message, (Request, Notification)):
        return None
    params: Any = message.params
    meta = params.get("_meta") if isinstance(params, dict) else None
    version = meta.get(VERSION_META) if isinstance(meta, dict) else None
    if not isinstance(version, str):
        return None
    return Mirrored(headers=message_headers(version, message.method, params))
