"""`InspectContext`: what a widget of the inspector may use, handed to it at construction.

Widgets never look services up on the app (`getattr(self.app, "client")` was invisible to mypy, and made
every widget guess which app it was in: inspect, replay or a workspace). The app builds one context when
it composes its screen and passes it down; a widget that builds others passes it on. State that changes
(the session, the catalogue, read-only) comes by data binding instead; requests to the app go up as
messages.

The client changes with every connection, so the context holds a way to reach the current one
(`connected`), not a client.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mcpx.wire.traffic import TrafficLog

if TYPE_CHECKING:
    from textual.widget import Widget

    from mcpx import ServerSpec
    from mcpx.protocol.client import Client

#: seconds, monotonic: `time.monotonic` live, a virtual clock in tests, the recording's end in a replay
Clock = Callable[[], float]
#: the sentence for anything refused while a recording is open (`InspectContext.read_only`)
READ_ONLY_REASON = "this is a recording (read-only); nothing can be sent to a server."


def _no_client() -> Client | None:
    return None


@dataclass(frozen=True, slots=True)
class InspectContext:
    """The traffic log, the clock, whether anything may be sent, and the connected client."""

    #: the log the screen shows (the truth: recordings and the traffic panel read it)
    traffic: TrafficLog
    clock: Clock = time.monotonic
    #: a recording is open (`mcpx replay`): forms show but nothing is sent
    read_only: bool = False
    #: the client of the current connection, or None (connecting, dead, a recording, no server)
    connected: Callable[[], Client | None] = _no_client
    #: how the server is reached, as the user named it (the command line, the URL, a workspace name)
    target: str = ""
    #: the server's spec, when the app reaches it through one (the Check tab and "Save recording…")
    spec: ServerSpec | None = None

    @property
    def client(self) -> Client | None:
        """The connected client now (it changes with every reconnect: do not keep it)."""
        return self.connected()

    def refused(self, widget: Widget, what: str = "That") -> bool:
        """True, after telling the user why, when nothing may be sent (a recording is open)."""
        if self.read_only:
            widget.notify(f"{what}: {READ_ONLY_REASON}", severity="warning")
        return self.read_only

    def client_for(self, widget: Widget, what: str = "Not sent") -> Client | None:
        """The connected client to send with, or None after telling the user why not."""
        if self.refused(widget, what):
            return None
        client = self.client
        if client is None:
            widget.notify(f"{what}: not connected (press r to reconnect).", severity="warning")
        return client
