"""`Session`: what a face may know about one connection (a client's `.session`), answered from the peer
and transport behind it — so no face reads a client's peer or transport. See `session` for the front door.

Composed from the peer and one callable (reopen), never the whole client: nothing here imports the client.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from mcpx.errors import McpxError

if TYPE_CHECKING:
    from mcpx.protocol.eras import Opened
    from mcpx.protocol.peer import Peer


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

    def ended_error(self, doing: str) -> McpxError:
        """The transport's account of why it ended, phrased around what we were `doing`."""
        return self._peer.transport.ended_error(doing)

    async def reconnect(self) -> Opened:
        """Close the connection, start it again (a new process, a new HTTP session) and reopen it in the
        era chosen the first time, with the same traffic log (ids go on)."""
        return await self._reopen()
