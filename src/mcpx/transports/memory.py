"""Two transports joined in memory: what one end sends, the other receives — both ends real code.

    client_end, server_end = memory_pair()
    server = build_server()                              # any server on mcpx's `Peer` (the demo's)
    serving = asyncio.ensure_future(server.serve(server_end))
    async with open_session(client_end, options) as client:
        ...

Each end reports into its own traffic log exactly as stdio does (sent, then received and decoded from
the raw bytes, channel "memory"), so the peer, the client and the eras run over it unchanged: the unit
tests' transport, and one of the four the behavioural suite runs on. Closing either end ends the other's
stream, as a server exiting or a client hanging up would.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from mcpx.errors import ConnectError
from mcpx.wire import Message, TrafficEvent, TrafficLog

_END = b""  # in a queue: the other end has closed (a real frame is never empty)


class MemoryTransport:
    """One end of a `memory_pair()`."""

    name = "memory"

    def __init__(self, traffic: TrafficLog, role: str) -> None:
        self.traffic = traffic
        self.role = role
        self.other: MemoryTransport | None = None
        self._inbox: asyncio.Queue[bytes] = asyncio.Queue()
        self._closed = False
        self._hung_up = False

    async def start(self) -> None:
        """Ready to send and receive (again, after this end's own close, while the other end is open)."""
        if self._closed and not self._hung_up:
            self._inbox = asyncio.Queue()
        self._closed = False

    async def send(self, text: str, message: Message) -> TrafficEvent:
        other = self.other
        if self._closed or other is None or other._closed or self._hung_up:
            raise self.ended_error(f"sending {getattr(message, 'method', 'a message')}")
        event = self.traffic.sent(text, message, "memory")
        other._inbox.put_nowait(text.encode("utf-8"))
        return event

    async def __aiter__(self) -> AsyncIterator[TrafficEvent]:
        while True:
            raw = await self._inbox.get()
            if raw is _END or not raw:
                return
            yield self.traffic.received(raw, "memory")

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._inbox.put_nowait(_END)
        if self.other is not None and not self.other._closed:
            self.other._hung_up = True
            self.other._inbox.put_nowait(_END)

    def describe(self) -> dict[str, object]:
        return {"transport": "memory", "role": self.role}

    def ended_error(self, doing: str) -> ConnectError:
        who = "the other end" if self._hung_up else "this end"
        return ConnectError(f"{who} closed the in-memory connection" + (f" while {doing}" if doing else ""))


def memory_pair(
    client_traffic: TrafficLog | None = None, server_traffic: TrafficLog | None = None
) -> tuple[MemoryTransport, MemoryTransport]:
    """A client end and a server end joined to each other, each with its own traffic log."""
    client = MemoryTransport(client_traffic if client_traffic is not None else TrafficLog(), "client")
    server = MemoryTransport(server_traffic if server_traffic is not None else TrafficLog(), "server")
    client.other, server.other = server, client
    return client, server
