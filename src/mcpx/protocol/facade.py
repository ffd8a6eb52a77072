"""`Session`: what a face may know about one connection (a client's `.session`), answered from the peer
and transport behind it — so no face reads a client's peer or transport. See `session` for the front door.

Composed from the peer and one callable (reopen), never the whole client: nothing here imports the client.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mcpx.errors import ConnectError, McpxError, ServerExitedError

if TYPE_CHECKING:
    from mcpx.protocol.eras import Opened
    from mcpx.protocol.peer import Peer
    from mcpx.wire import TrafficLog


class Session:
    """What a face may know about one connection, answered from the peer and transport behind it."""

    def __init__(self, peer: Peer, reopen: Callable[[], Awaitable[Opened]]) -> None:
        self._peer = peer
        self._reopen = reopen

    def describe(self) -> dict[str, object]:
        """Facts about the connection for the Info view: transport, command line, pid, cwd, URL, auth…"""
        facts = dict(self._peer.transport.describe())
        facts.setdefault("transport", self.transport_name)
        return facts

    @property
    def transport_name(self) -> str:
        """ "stdio", "http", "sse" or "memory" ("auto" until a URL's first POST decides)."""
        return str(getattr(self._peer.transport, "name", "") or "")

    @property
    def in_flight(self) -> int:
        """Requests of ours that await an answer."""
        return self._peer.in_flight

    @property
    def ended(self) -> McpxError | None:
        """Why the connection ended, or None while it goes on."""
        return self._peer.ended

    @property
    def is_closed(self) -> bool:
        return self._peer.closed.is_set()

    async def wait_closed(self) -> None:
        """Until the server goes away or the client closes (a reconnect waits on the new connection)."""
        await self._peer.closed.wait()

    async def hold(self, stop: asyncio.Event) -> McpxError | None:
        """Keep the connection until it ends (why) or `stop` is set (None): what every face that holds a
        connection open does between opening and closing it (the TUI's, a workspace's)."""
        closed = asyncio.ensure_future(self.wait_closed())
        stopping = asyncio.ensure_future(stop.wait())
        try:
            await asyncio.wait({closed, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            closed.cancel()
            stopping.cancel()
        if stop.is_set():
            return None
        return self.ended or ConnectError("the connection ended")

    def ended_error(self, doing: str) -> McpxError:
        """The transport's account of why it ended, phrased around what we were `doing`."""
        return self._peer.transport.ended_error(doing)

    async def reconnect(self) -> Opened:
        """Close the connection, start it again (a new process, a new HTTP session) and reopen it in the
        era chosen the first time, with the same traffic log (ids go on)."""
        return await self._reopen()


@dataclass(frozen=True, slots=True)
class Ending:
    """How a connection ended, as a face shows it: why, the process's exit code, its last stderr lines."""

    error: McpxError
    returncode: int | None = None
    stderr_tail: tuple[str, ...] = ()

    @classmethod
    def of(cls, error: McpxError, traffic: TrafficLog, since: int = 0, lines: int = 10) -> Ending:
        """The ending `error` tells, its stderr tail taken from the log (events from `since`) when the
        error carries none — the same for every transport that reports stderr; at most `lines` of it."""
        returncode: int | None = None
        tail: tuple[str, ...] = ()
        if isinstance(error, ServerExitedError):
            returncode, tail = error.returncode, tuple(error.stderr_tail)
        if not tail:
            tail = tuple(e.raw for e in traffic.since(since) if e.channel == "stderr")
        return cls(error, returncode, tail[-lines:] if lines > 0 else ())
