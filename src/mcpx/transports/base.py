"""The transport seam: a small protocol at the frame level (as mcp-go's and httpx's are).

A transport moves frames and reports its own facts into the traffic log. It knows nothing of MCP
methods. `start()` opens it, `send()` writes one frame, iterating yields received events (already in the
log) until the connection ends, `close()` shuts it down and is safe to call twice.

Extra abilities are separate small protocols rather than a fat base class: `ProtocolVersionAware` lets
the layer above tell an HTTP transport the negotiated version it must mirror into headers;
`HeaderMirroring` lets it name, message by message, the headers of the handshake-free era (2026-07-28);
`HeaderPassing` hands it, message by message, headers someone else sent (a proxy's HTTP host's own);
`StreamingSend` says that `send()` of a request lasts until its answer has been read; `PushReceiving`
lets the reader of a transport take each received event in the transport's own read callback.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from mcpx.errors import ConnectError, McpxError
from mcpx.wire import Message, TrafficEvent, TrafficLog


@runtime_checkable
class Transport(Protocol):
    traffic: TrafficLog
    #: a short name shown to users: "stdio", "http", "sse", "memory"
    name: str

    async def start(self) -> None: ...

    async def send(self, text: str, message: Message) -> TrafficEvent:
        """Write one frame (`text` exactly as it goes on the wire) and log it; returns the event."""
        ...

    def __aiter__(self) -> AsyncIterator[TrafficEvent]: ...

    async def close(self) -> None: ...

    def describe(self) -> dict[str, object]:
        """Facts about the connection for the Info view (command line, pid, cwd, URL…)."""
        ...

    def ended_error(self, doing: str) -> McpxError:
        """The error that explains why the connection ended, phrased around what we were `doing`."""
        ...


@runtime_checkable
class ProtocolVersionAware(Protocol):
    def set_protocol_version(self, version: str) -> None: ...


class StreamLostError(ConnectError):
    """A request's reply stream ended before its answer and cannot be resumed (the handshake-free era
    has no resumability): the request is lost, and the spec says to send it again with a new id."""

    code = "stream_lost"


@dataclass(frozen=True, slots=True)
class Mirrored:
    """How one message of the handshake-free era goes over HTTP: the headers that mirror it, or why it
    does not go at all (that era defines no client notifications over HTTP: closing a request's stream
    is its cancellation)."""

    headers: Mapping[str, str] = field(default_factory=dict)
    #: set when the message must not be POSTed; the reason is logged in its place
    skip: str | None = None


#: the layer above's answer for one message: `Mirrored`, or None for a message of the handshake era
HeadersFor = Callable[[Message], "Mirrored | None"]


@runtime_checkable
class HeaderMirroring(Protocol):
    """A transport that mirrors parts of each message into HTTP headers (Streamable HTTP, 2026-07-28).

    The layer above knows what a message means and names the headers (`MCP-Protocol-Version`,
    `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`); the transport only sends them. A message given headers is
    an exchange of that era: no session id goes with it, none is taken from its reply, and a reply stream
    that ends early is not resumed (the era has no resumability).
    """

    def mirror_headers(self, headers_for: HeadersFor | None) -> None: ...


#: the layer above's headers to send with one message on top of the transport's own, or None
PassedFor = Callable[[Message], "Mapping[str, str] | None"]


@runtime_checkable
class HeaderPassing(Protocol):
    """A transport that POSTs a message with headers the layer above hands it for that message, on top of
    its own (a proxy passing on what its HTTP host sent with it: the host's `Mcp-Method` wins over the
    mirrored one). What to pass is the layer above's choice; the user's `--header` still wins over it."""

    def pass_headers(self, headers_for: PassedFor | None) -> None: ...


@runtime_checkable
class StreamingSend(Protocol):
    """A transport whose `send()` of a request lasts until the answer has streamed in (HTTP: the POST and
    the event stream it opens), so that errors belong to the request that met them. The peer then races
    `send()` against the request's timer instead of awaiting it first (stdio's `send()` returns at once and
    is awaited directly: a task per request would cost the hot path)."""

    send_streams_answer: bool


@runtime_checkable
class PushReceiving(Protocol):
    """A transport that can hand each received event (already in the log) to a callback, in the event
    loop's read callback itself, instead of yielding it from its iterator. That saves the loop iterations
    of waking a reader task per frame (on stdio, half of a call's iterations). The iterator then yields
    only what came before the callback was set, and still ends (or raises) when the connection does.

    The callback must not block; if it raises, reading stops and the iterator raises that error."""

    def receive_with(self, sink: Callable[[TrafficEvent], None] | None) -> None: ...
