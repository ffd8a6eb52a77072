"""The transport seam: a small protocol at the frame level (as mcp-go's and httpx's are).

A transport moves frames and reports its own facts into the traffic log. It knows nothing of MCP
methods. `start()` opens it, `send()` writes one frame, iterating yields received events (already in the
log) until the connection ends, `close()` shuts it down and is safe to call twice.

Extra abilities are separate small protocols rather than a fat base class: `ProtocolVersionAware` lets
the layer above tell an HTTP transport the negotiated version it must mirror into headers;
`StreamingSend` says that `send()` of a request lasts until its answer has been read.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol, runtime_checkable

from mcpx.errors import McpxError
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


@runtime_checkable
class StreamingSend(Protocol):
    """A transport whose `send()` of a request lasts until the answer has streamed in (HTTP: the POST and
    the event stream it opens), so that errors belong to the request that met them. The peer then races
    `send()` against the request's timer instead of awaiting it first (stdio's `send()` returns at once and
    is awaited directly: a task per request would cost the hot path)."""

    send_streams_answer: bool
