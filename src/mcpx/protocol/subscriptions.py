"""Push notifications in both eras.

Legacy: list changes arrive unasked, resource updates after `resources/subscribe`. Modern: one long-lived
`subscriptions/listen` request names what the client wants; the server acknowledges it
(`notifications/subscriptions/acknowledged`) and tags each notification with the listen request's id.
Changing what is watched means ending that request and sending a new one: over stdio with
`notifications/cancelled`, over HTTP by closing the request's event stream (that era's cancellation).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from mcpx.errors import McpxError
from mcpx.wire import Notification, TrafficEvent

if TYPE_CHECKING:
    from mcpx.protocol.eras import Opened
    from mcpx.protocol.peer import NotificationHandler

META_SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId"


class Watch:
    """What a client watches: list changes always, and a set of resource URIs."""

    def __init__(
        self,
        opened: Callable[[], Opened | None],
        request: Callable[..., Awaitable[Any]],
        on_notification: Callable[[str, NotificationHandler], Any],
    ) -> None:
        """Composed from what it needs of a client: what opening established, a way to send a request
        (dressed by the era) and a way to hear a notification."""
        self._opened = opened
        self._request = request
        self.uris: set[str] = set()
        self.acknowledged: dict[str, Any] | None = None
        self._listen: asyncio.Task[Any] | None = None
        #: uri → the `notifications/resources/updated` events heard for it (count, and the last one's event)
        self.updates: dict[str, tuple[int, TrafficEvent]] = {}
        on_notification("notifications/subscriptions/acknowledged", self._acknowledged)
        on_notification("notifications/resources/updated", self._updated)

    @property
    def modern(self) -> bool:
        opened = self._opened()
        return opened is not None and opened.era == "modern"

    async def start(self) -> None:
        """Begin receiving list changes (a no-op in the legacy era, where they come unasked)."""
        if self.modern:
            await self._restart()

    async def subscribe(self, uri: str) -> None:
        self.uris.add(uri)
        if self.modern:
            await self._restart()
        else:
            await self._request("resources/subscribe", {"uri": uri})

    async def unsubscribe(self, uri: str) -> None:
        self.uris.discard(uri)
        if self.modern:
            await self._restart()
        else:
            await self._request("resources/unsubscribe", {"uri": uri})

    async def stop(self) -> None:
        task, self._listen = self._listen, None
        if task is not None and not task.done():
            task.cancel()  # closes its HTTP stream; over stdio the peer sends notifications/cancelled
            with contextlib.suppress(asyncio.CancelledError, McpxError):
                await task

    async def _restart(self) -> None:
        await self.stop()
        opened = self._opened()
        capabilities = opened.capabilities if opened is not None else {}
        wanted: dict[str, Any] = {}
        for kind, flag in (
            ("tools", "toolsListChanged"),
            ("prompts", "promptsListChanged"),
            ("resources", "resourcesListChanged"),
        ):
            section = capabilities.get(kind)
            if isinstance(section, dict) and section.get("listChanged"):
                wanted[flag] = True
        resources = capabilities.get("resources")
        if self.uris and isinstance(resources, dict) and resources.get("subscribe"):
            wanted["resourceSubscriptions"] = sorted(self.uris)
        if not wanted:
            return
        self.acknowledged = None
        self._listen = asyncio.ensure_future(
            self._request("subscriptions/listen", {"notifications": wanted}, timeout=None)
        )
        self._listen.add_done_callback(_swallow)

    def _updated(self, message: Notification, event: TrafficEvent) -> None:
        params = message.params if isinstance(message.params, dict) else {}
        uri = params.get("uri")
        if isinstance(uri, str):
            count = self.updates[uri][0] if uri in self.updates else 0
            self.updates[uri] = (count + 1, event)

    def _acknowledged(self, message: Notification, event: TrafficEvent) -> None:
        params = message.params if isinstance(message.params, dict) else {}
        self.acknowledged = (
            params.get("notifications") if isinstance(params.get("notifications"), dict) else {}
        )


def _swallow(task: asyncio.Task[Any]) -> None:
    # a listen request ends when the connection does; its outcome is in the traffic log already
    if not task.cancelled():
        task.exception()
